/* SPDX-License-Identifier: MIT */
/*
 * test_wppfile_write.c — the .wpp writer, checked two ways: byte layout and
 * CRC against a bit-by-bit CRC-32C written here (not the table code the
 * writer uses), and a round trip through the reader, including a torn tail;
 * chunks held for one write reach the file in order and within the bound.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/wppfile.h"

static uint32_t crc32c_bitwise(uint32_t crc, const unsigned char *p, size_t n)
{
	crc = ~crc;
	while (n--) {
		crc ^= *p++;
		for (int k = 0; k < 8; k++)
			crc = (crc >> 1) ^ (0x82f63b78u & (0u - (crc & 1)));
	}
	return ~crc;
}

static char path[128];

static unsigned char *slurp(const char *file, size_t *n)
{
	FILE *f = fopen(file, "rb");
	unsigned char *buf;
	long len;

	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	len = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = malloc((size_t)len);
	assert_int_equal(fread(buf, 1, (size_t)len, f), (size_t)len);
	fclose(f);
	*n = (size_t)len;
	return buf;
}

static void write_sample(void)
{
	struct wpp_writer *w;
	struct wpp_chunk_batch b = {.pid = 7, .tid = 8, .seq = 1, .nwords = 3};
	uint64_t words[3] = {1, 2, 3};
	struct wpp_chunk_end end = {.batches = 1, .words = 3};

	snprintf(path, sizeof(path), "/tmp/wpp-write-test-%d.wpp", (int)getpid());
	w = wppw_open(path);
	assert_non_null(w);
	assert_int_equal(wppw_chunk(w, WPP_CHUNK_INFO, "transport=shm\n", 14), 0);
	assert_int_equal(wppw_chunk2(w, WPP_CHUNK_BATCH, &b, sizeof(b), words, sizeof(words)), 0);
	assert_int_equal(wppw_close(w, &end), 0);
}

static void test_layout_and_crc(void **s)
{
	size_t n, off;
	unsigned char *f;
	struct wpp_file_header fh;
	int chunks = 0;
	(void)s;

	write_sample();
	f = slurp(path, &n);
	memcpy(&fh, f, sizeof(fh));
	assert_memory_equal(fh.magic, WPP_FILE_MAGIC, 8);
	assert_int_equal(fh.version, WPP_FILE_VERSION);
	assert_int_equal(fh.header_size, sizeof(fh));
	for (off = sizeof(fh); off < n; chunks++) {
		struct wpp_chunk_header h;
		memcpy(&h, f + off, sizeof(h));
		assert_int_equal(h.magic, WPP_CHUNK_MAGIC);
		uint32_t crc = crc32c_bitwise(0, f + off + 4, 8);
		crc = crc32c_bitwise(crc, f + off + sizeof(h), h.length);
		assert_int_equal(crc, h.crc32c);
		if (chunks == 0)
			assert_memory_equal(f + off + sizeof(h), "transport=shm\n", 14);
		if (chunks == 1)
			assert_int_equal(h.length, sizeof(struct wpp_chunk_batch) + 24);
		off += sizeof(h) + h.length;
	}
	assert_int_equal(off, n);
	assert_int_equal(chunks, 3);
	free(f);
	unlink(path);
}

static void test_round_trip_and_torn_tail(void **s)
{
	struct wpp_reader *r;
	struct wpp_chunk c;
	int types[8], k = 0;
	size_t n;
	unsigned char *f;
	(void)s;

	write_sample();
	r = wppr_open(path);
	assert_non_null(r);
	while (k < 8 && wppr_next(r, &c) == 1)
		types[k++] = c.type;
	assert_int_equal(k, 3);
	assert_int_equal(types[0], WPP_CHUNK_INFO);
	assert_int_equal(types[1], WPP_CHUNK_BATCH);
	assert_int_equal(types[2], WPP_CHUNK_END);
	assert_null(wppr_status(r));
	wppr_close(r);

	/* cut the file inside the END chunk: the first two chunks survive */
	f = slurp(path, &n);
	assert_int_equal(truncate(path, (off_t)(n - 5)), 0);
	r = wppr_open(path);
	assert_non_null(r);
	k = 0;
	while (k < 8 && wppr_next(r, &c) == 1)
		k++;
	assert_int_equal(k, 2);
	assert_non_null(wppr_status(r));
	wppr_close(r);
	free(f);
	unlink(path);
}

/* Reads every chunk; returns how many, types in types[], status in *why. */
static int read_all(int *types, int max, const char **why)
{
	struct wpp_reader *r = wppr_open(path);
	struct wpp_chunk c;
	int k = 0;
	static char status[128];

	assert_non_null(r);
	while (wppr_next(r, &c) == 1)
		if (k < max)
			types[k++] = c.type;
	*why = wppr_status(r) ? strncpy(status, wppr_status(r), sizeof(status) - 1) : NULL;
	wppr_close(r);
	return k;
}

/* Analyses may append GRAMMAR chunks to a finished recording (wppw_open_append,
 * `wpptrace wpp --store`); anything else after END stops the reader. */
static void test_append_after_end(void **s)
{
	int types[8];
	const char *why;
	(void)s;

	write_sample();
	struct wpp_writer *w = wppw_open_append(path);
	assert_non_null(w);
	assert_int_equal(wppw_chunk(w, WPP_CHUNK_GRAMMAR, "grammar!", 8), 0);
	assert_int_equal(wppw_finish(w), 0);
	assert_int_equal(read_all(types, 8, &why), 4);
	assert_int_equal(types[2], WPP_CHUNK_END);
	assert_int_equal(types[3], WPP_CHUNK_GRAMMAR);
	assert_null(why);

	/* a recording chunk after END is damage, not data */
	w = wppw_open_append(path);
	assert_non_null(w);
	assert_int_equal(wppw_chunk(w, WPP_CHUNK_INFO, "x=y\n", 4), 0);
	assert_int_equal(wppw_chunk(w, WPP_CHUNK_GRAMMAR, "again", 5), 0);
	assert_int_equal(wppw_finish(w), 0);
	assert_int_equal(read_all(types, 8, &why), 4);
	assert_non_null(why);
	assert_non_null(strstr(why, "after the END"));

	/* so is a tail too short for a chunk header */
	write_sample();
	FILE *f = fopen(path, "ab");
	assert_non_null(f);
	assert_int_equal(fwrite("garbage!", 1, 8, f), 8);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(read_all(types, 8, &why), 3);
	assert_non_null(why);
	assert_non_null(strstr(why, "after the END"));
	unlink(path);
	assert_null(wppw_open_append(path)); /* appending needs the file */
}

/* The writer reserves blocks ahead (fallocate, KEEP_SIZE): the size is
 * always what was written, and neither close nor abort leaves reserved
 * blocks past the end. */
static void test_reservation_is_invisible(void **s)
{
	static char payload[100000];
	struct stat st;
	(void)s;

	for (int abort_it = 0; abort_it < 2; abort_it++) {
		struct wpp_writer *w = wppw_open(path);
		uint64_t size = sizeof(struct wpp_file_header);
		assert_non_null(w);
		/* under its name now, as record puts a live recording */
		assert_int_equal(wppw_publish(w), 0);
		for (int i = 0; i < 40; i++) {
			assert_int_equal(wppw_chunk(w, WPP_CHUNK_INFO, payload, sizeof(payload)), 0);
			size += sizeof(struct wpp_chunk_header) + sizeof(payload);
			assert_int_equal(stat(path, &st), 0);
			assert_int_equal((uint64_t)st.st_size, size);
		}
		if (abort_it) {
			wppw_abort(w);
		} else {
			struct wpp_chunk_end end = {0};
			assert_int_equal(wppw_close(w, &end), 0);
			size += sizeof(struct wpp_chunk_header) + sizeof(end);
		}
		assert_int_equal(stat(path, &st), 0);
		assert_int_equal((uint64_t)st.st_size, size);
		/* allocated: the size rounded up to blocks, and no more */
		assert_true((uint64_t)st.st_blocks * 512 <= size + 65536);
		unlink(path);
	}
}

/* Pages of [from, to) of file in the page cache. */
static size_t resident_pages(const char *file, off_t from, off_t to)
{
	long page = sysconf(_SC_PAGESIZE);
	int fd = open(file, O_RDONLY);
	size_t len = (size_t)(to - from), n = (len + (size_t)page - 1) / (size_t)page, count = 0;
	unsigned char *vec = malloc(n);
	assert_true(fd >= 0 && vec);
	void *map = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, from);
	assert_true(map != MAP_FAILED);
	assert_int_equal(mincore(map, len, vec), 0);
	for (size_t i = 0; i < n; i++)
		count += vec[i] & 1;
	munmap(map, len);
	free(vec);
	close(fd);
	return count;
}

/* Does the file system under path take the writer's hints, and drop a
 * synced file's pages when told to?  (tmpfs keeps them; some stacked file
 * systems refuse sync_file_range.)  Asked of a scratch file beside path. */
static int drops_synced_pages(void)
{
	static char block[1 << 20];
	char probe[160];
	int fd, ok;

	snprintf(probe, sizeof(probe), "%s.probe", path);
	fd = open(probe, O_RDWR | O_CREAT | O_TRUNC, 0644);
	assert_true(fd >= 0);
	memset(block, 1, sizeof(block));
	assert_int_equal(write(fd, block, sizeof(block)), (ssize_t)sizeof(block));
	ok = fdatasync(fd) == 0 && sync_file_range(fd, 0, 0, SYNC_FILE_RANGE_WRITE) == 0 &&
	     posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED) == 0;
	close(fd);
	ok = ok && resident_pages(probe, 0, sizeof(block)) == 0;
	unlink(probe);
	return ok;
}

/* Write-behind: pages written long enough ago leave the page cache while
 * the recording goes on, and the file still holds every chunk.  Pages that
 * are clean when the writer passes them are dropped for certain (dirty ones
 * may stay while the disk catches up), so the test syncs after the first
 * 48 MiB and looks at a stretch the writer passed over after that. */
static void test_written_pages_leave_the_cache(void **s)
{
	static char payload[1 << 20];
	const int chunks = 96;
	int check_cache = drops_synced_pages();
	(void)s;

	memset(payload, 0x5a, sizeof(payload));
	struct wpp_writer *w = wppw_open(path);
	assert_non_null(w);
	assert_int_equal(wppw_publish(w), 0); /* a live recording, under its name */
	for (int i = 0; i < chunks; i++) {
		payload[0] = (char)i;
		assert_int_equal(wppw_chunk(w, WPP_CHUNK_INFO, payload, sizeof(payload)), 0);
		if (i == chunks / 2) {
			int fd = open(path, O_RDONLY);
			assert_true(fd >= 0);
			assert_int_equal(fdatasync(fd), 0);
			close(fd);
		}
	}
	if (check_cache) {
		/* 20-44 MiB: clean since the sync, passed over at 64-96 MiB */
		size_t left = resident_pages(path, (off_t)20 << 20, (off_t)44 << 20);
		assert_true(left * 100 < (((size_t)24 << 20) / (size_t)sysconf(_SC_PAGESIZE)));
	} else {
		print_message("this file system keeps synced pages: residency not checked\n");
	}
	struct wpp_chunk_end end = {0};
	assert_int_equal(wppw_close(w, &end), 0);

	struct wpp_reader *r = wppr_open(path);
	assert_non_null(r);
	struct wpp_chunk c;
	for (int i = 0; i < chunks; i++) {
		assert_int_equal(wppr_next(r, &c), 1);
		assert_int_equal(c.type, WPP_CHUNK_INFO);
		assert_int_equal(c.length, sizeof(payload));
		assert_int_equal(((const char *)c.payload)[0], (char)i);
	}
	wppr_close(r);
	unlink(path);
}

/* Until published (wppw_publish, or wppw_close) the file is a temporary
 * beside its name: a file that had the name keeps it, through an abort
 * too, and the new one comes with mode 0600. */
static void test_unpublished_is_invisible(void **s)
{
	struct wpp_chunk_end end = {0};
	struct stat st;
	(void)s;

	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs("old", f);
	fclose(f);
	struct wpp_writer *w = wppw_open(path);
	assert_non_null(w);
	assert_int_equal(wppw_chunk(w, WPP_CHUNK_INFO, "x", 1), 0);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_size, 3);
	wppw_abort(w);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_size, 3);
	w = wppw_open(path);
	assert_non_null(w);
	assert_int_equal(wppw_close(w, &end), 0);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_size, sizeof(struct wpp_file_header) +
					 sizeof(struct wpp_chunk_header) + sizeof(end));
	assert_int_equal(st.st_mode & 07777, 0600);
	unlink(path);
}

static off_t size_of(const char *p)
{
	struct stat st;
	assert_int_equal(stat(p, &st), 0);
	return st.st_size;
}

/* The chunk sequence of test_held_chunks: payload lengths, the fourth
 * bigger than the hold (so it goes to the file at once). */
static const uint32_t held_lens[] = {100, 900, 1500, 6000, 40, 3000, 2000};
#define HOLD_BYTES 4096u

/* Write held_lens' chunks (payload byte i of chunk k: k * 31 + i) to
 * file; with hold, HOLD_BYTES held with no age bound, checking after
 * each chunk that the file holds exactly the chunks a writer holding at
 * most HOLD_BYTES must have written by then (a chunk that does not fit
 * behind those held writes them first; a bigger one writes itself too). */
static void write_held_sequence(const char *file, int hold)
{
	struct wpp_chunk_end end = {0};
	unsigned char payload[6000];
	off_t written = sizeof(struct wpp_file_header), held = 0;
	struct wpp_writer *w = wppw_open(file);

	assert_non_null(w);
	assert_int_equal(wppw_publish(w), 0);
	if (hold)
		assert_int_equal(wppw_hold(w, HOLD_BYTES, UINT64_C(3600) * 1000000000), 0);
	for (unsigned k = 0; k < sizeof(held_lens) / sizeof(held_lens[0]); k++) {
		off_t total = (off_t)(sizeof(struct wpp_chunk_header) + held_lens[k]);
		for (uint32_t i = 0; i < held_lens[k]; i++)
			payload[i] = (unsigned char)(k * 31 + i);
		assert_int_equal(wppw_chunk(w, WPP_CHUNK_INFO, payload, held_lens[k]), 0);
		if (!hold || total > (off_t)HOLD_BYTES) {
			written += held + total;
			held = 0;
		} else if (held + total > (off_t)HOLD_BYTES) {
			written += held;
			held = total;
		} else {
			held += total;
		}
		assert_int_equal(size_of(file), written);
	}
	if (hold) {
		/* not old enough yet; then now */
		assert_int_equal(wppw_flush(w, UINT64_C(3600) * 1000000000), 0);
		assert_int_equal(size_of(file), written);
		assert_int_equal(wppw_flush(w, 0), 0);
		assert_int_equal(size_of(file), written + held);
	}
	assert_int_equal(wppw_close(w, &end), 0);
}

/* Held chunks reach the file in order, whole, and exactly when the bound
 * says; the file is the one an unheld writer writes, byte for byte after
 * the header (whose creation time differs); the age bound writes them. */
static void test_held_chunks(void **s)
{
	char ref[160];
	unsigned char *a, *b;
	size_t na, nb;
	(void)s;

	snprintf(ref, sizeof(ref), "%s.ref", path);
	write_held_sequence(ref, 0);
	write_held_sequence(path, 1);
	a = slurp(path, &na);
	b = slurp(ref, &nb);
	assert_int_equal(na, nb);
	assert_memory_equal(a + sizeof(struct wpp_file_header), b + sizeof(struct wpp_file_header),
			    na - sizeof(struct wpp_file_header));
	free(a);
	free(b);
	unlink(ref);

	/* an age bound of 1 ns: every chunk is old enough when it comes */
	struct wpp_writer *w = wppw_open(path);
	assert_non_null(w);
	assert_int_equal(wppw_publish(w), 0);
	assert_int_equal(wppw_hold(w, HOLD_BYTES, 1), 0);
	assert_int_equal(wppw_chunk(w, WPP_CHUNK_INFO, "x", 1), 0);
	assert_int_equal(size_of(path), (off_t)(sizeof(struct wpp_file_header) +
						sizeof(struct wpp_chunk_header) + 1));
	/* held, then aborted: a published file keeps them */
	assert_int_equal(wppw_hold(w, HOLD_BYTES, UINT64_C(3600) * 1000000000), 0);
	assert_int_equal(wppw_chunk(w, WPP_CHUNK_INFO, "yz", 2), 0);
	assert_int_equal(size_of(path), (off_t)(sizeof(struct wpp_file_header) +
						sizeof(struct wpp_chunk_header) + 1));
	wppw_abort(w);
	assert_int_equal(size_of(path), (off_t)(sizeof(struct wpp_file_header) +
						2 * sizeof(struct wpp_chunk_header) + 3));
	unlink(path);
}

static void test_open_failure(void **s)
{
	(void)s;
	assert_null(wppw_open("/no/such/dir/x.wpp"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_layout_and_crc),
		cmocka_unit_test(test_round_trip_and_torn_tail),
		cmocka_unit_test(test_append_after_end),
		cmocka_unit_test(test_reservation_is_invisible),
		cmocka_unit_test(test_written_pages_leave_the_cache),
		cmocka_unit_test(test_unpublished_is_invisible),
		cmocka_unit_test(test_held_chunks),
		cmocka_unit_test(test_open_failure),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
