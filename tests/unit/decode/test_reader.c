/* SPDX-License-Identifier: MIT */
/*
 * .wpp reader: valid files, every truncation, every single-bit flip.  The
 * property checked for damaged files: the reader returns exactly the chunks
 * that lie wholly before the damage, byte-identical, then stops with a reason.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "testlib.h"
#include "common/wppfile.h"

#define NCHUNKS 6

static char path[64];
static unsigned char *orig;
static size_t orig_size;
static uint64_t chunk_end[NCHUNKS]; /* file offset just past chunk i */

static int setup(void **state)
{
	struct tl_writer w;
	uint64_t words[5] = {1, 2, 3, 4, 5};
	uint8_t id[20] = {0xab};

	(void)state;
	snprintf(path, sizeof(path), "/tmp/wpp-test-reader-%d.wpp", getpid());
	assert_int_equal(tl_wopen(&w, path), 0);
	tl_chunk(&w, WPP_CHUNK_INFO, "command=x\n", 10, NULL, 0);
	tl_process(&w, 10, 1, 0, 0);
	tl_module(&w, 10, 0, 1, 3, 0x55, id, 20, "/bin/prog");
	tl_batch(&w, 10, 0, 10, 0, 0, 0, 0, words, 5);
	tl_batch(&w, 10, 0, 10, 1, 0, 0, 0, words, 0);
	tl_wclose(&w, 1);
	orig = tl_slurp(path, &orig_size);
	/* Independent walk of the layout: header 32 bytes, then 16 + length each. */
	uint64_t off = sizeof(struct wpp_file_header);
	for (int i = 0; i < NCHUNKS; i++) {
		struct wpp_chunk_header h;
		memcpy(&h, orig + off, sizeof(h));
		off += sizeof(h) + h.length;
		chunk_end[i] = off;
	}
	assert_int_equal(off, orig_size);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	unlink(path);
	free(orig);
	return 0;
}

/* Read everything; return the number of chunks, check each is byte-identical to the original. */
static int read_all(const char *p, const char **status)
{
	static char saved[256];
	struct wpp_reader *r = wppr_open(p);
	struct wpp_chunk c;
	int n = 0;

	if (!r)
		return -1;
	while (wppr_next(r, &c)) {
		assert_true(n < NCHUNKS);
		assert_int_equal(c.file_offset + 16 + c.length, chunk_end[n]);
		assert_memory_equal(c.payload, orig + c.file_offset + 16, c.length);
		n++;
	}
	*status = NULL;
	if (wppr_status(r)) {
		snprintf(saved, sizeof(saved), "%s", wppr_status(r));
		*status = saved;
	}
	wppr_close(r);
	return n;
}

static void test_valid(void **state)
{
	const char *status;
	struct wpp_reader *r;
	struct wpp_chunk c;

	(void)state;
	assert_int_equal(read_all(path, &status), NCHUNKS);
	assert_null(status);
	/* rewind gives the same sequence again */
	r = wppr_open(path);
	assert_non_null(r);
	assert_int_equal(wppr_next(r, &c), 1);
	assert_int_equal(c.type, WPP_CHUNK_INFO);
	wppr_rewind(r);
	assert_int_equal(wppr_next(r, &c), 1);
	assert_int_equal(c.type, WPP_CHUNK_INFO);
	assert_int_equal(c.length, 10);
	assert_memory_equal(c.payload, "command=x\n", 10);
	wppr_close(r);
}

static void test_truncations(void **state)
{
	char tpath[80];
	const char *status;

	(void)state;
	snprintf(tpath, sizeof(tpath), "%s.trunc", path);
	for (size_t len = 0; len < orig_size; len++) {
		int expect = 0;
		tl_spit(tpath, orig, len);
		for (int i = 0; i < NCHUNKS; i++)
			if (chunk_end[i] <= len)
				expect = i + 1;
		int n = read_all(tpath, &status);
		if (len < sizeof(struct wpp_file_header)) {
			assert_int_equal(n, -1);
			continue;
		}
		assert_int_equal(n, expect);
		assert_non_null(status);
		/* At a chunk boundary nothing is torn, only END is missing. */
		if (len == sizeof(struct wpp_file_header) || (expect && chunk_end[expect - 1] == len))
			assert_non_null(strstr(status, "no END"));
		else
			assert_non_null(strstr(status, "truncated"));
	}
	unlink(tpath);
}

static void test_bit_flips(void **state)
{
	char fpath[80];
	const char *status;
	unsigned char *buf = malloc(orig_size);

	(void)state;
	snprintf(fpath, sizeof(fpath), "%s.flip", path);
	for (size_t byte = 0; byte < orig_size; byte++) {
		for (int bit = 0; bit < 8; bit += 3) {
			int damaged = 0, n;
			memcpy(buf, orig, orig_size);
			buf[byte] ^= (unsigned char)(1u << bit);
			tl_spit(fpath, buf, orig_size);
			while (damaged < NCHUNKS && chunk_end[damaged] <= byte)
				damaged++;
			n = read_all(fpath, &status);
			if (byte < sizeof(struct wpp_file_header)) {
				/* created_ns and flags are not checked; everything else is */
				if (byte < 16)
					assert_int_equal(n, -1);
				continue;
			}
			/* Chunks before the damaged one are returned, the damaged one never. */
			assert_int_equal(n, damaged);
			assert_non_null(status);
		}
	}
	free(buf);
	unlink(fpath);
}

static void test_not_wpp(void **state)
{
	char p[80];
	const char *status;

	(void)state;
	snprintf(p, sizeof(p), "%s.bad", path);
	tl_spit(p, "this is not a trace file at all, not at all", 44);
	assert_int_equal(read_all(p, &status), -1);
	assert_int_equal(read_all("/nonexistent/file.wpp", &status), -1);
	unlink(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_valid),
		cmocka_unit_test(test_truncations),
		cmocka_unit_test(test_bit_flips),
		cmocka_unit_test(test_not_wpp),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
