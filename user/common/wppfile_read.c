/* SPDX-License-Identifier: MIT */
/*
 * wppfile_read.c — the reading half of wppfile.h.
 *
 * The file is read into memory whole, then walked chunk by chunk.  Read,
 * not mapped: a mapped file that someone truncates kills the reader with
 * SIGBUS at its next touch of a vanished page, and a SIGBUS handler would
 * have to guard every access any analysis makes; a copy cannot shrink.  It
 * costs one copy at load, which the CRC check reads through anyway
 * (docs/security.md, "Files", has the figures).  A file that shrinks while
 * it is being read is refused in one line; one that grows (a live
 * recording) is read up to the size it had at open.  A chunk is
 * accepted only when its header is complete, its magic is right, its length
 * is within WPP_CHUNK_MAX_PAYLOAD and inside the file, and its CRC32C
 * matches.  The first chunk that fails any of these ends the iteration: a
 * collector killed mid-write leaves exactly such a torn tail, and everything
 * before it is still good.  Payload contents are the caller's to validate.
 */
#include "common/wppfile.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/crc32c.h"
#include "common/in_file.h"
#include "common/log.h"

/*
 * One copy per file per process: `report --html` loads the recording again
 * for the page's extras, and a second copy of a recording's gigabytes would
 * double the reader's memory (mappings shared the page cache).  Copies are
 * keyed by what the file was when opened (device, inode, size, mtime): the
 * same unchanged file shares one, a file that changed since gets its own.
 */
struct file_copy {
	dev_t dev;
	ino_t ino;
	off_t size;
	struct timespec mtime;
	unsigned char *bytes;
	unsigned refs;
	struct file_copy *next;
};
static struct file_copy *copies;
static pthread_mutex_t copies_lock = PTHREAD_MUTEX_INITIALIZER;

static int same_version(const struct file_copy *c, const struct stat *st)
{
	return c->dev == st->st_dev && c->ino == st->st_ino && c->size == st->st_size &&
	       c->mtime.tv_sec == st->st_mtim.tv_sec && c->mtime.tv_nsec == st->st_mtim.tv_nsec;
}

static struct file_copy *copy_find(const struct stat *st)
{
	struct file_copy *c;

	pthread_mutex_lock(&copies_lock);
	for (c = copies; c && !same_version(c, st); c = c->next)
		;
	if (c)
		c->refs++;
	pthread_mutex_unlock(&copies_lock);
	return c;
}

static struct file_copy *copy_add(const struct stat *st, unsigned char *bytes)
{
	struct file_copy *c = malloc(sizeof(*c));

	if (!c)
		return NULL;
	*c = (struct file_copy){.dev = st->st_dev,
				.ino = st->st_ino,
				.size = st->st_size,
				.mtime = st->st_mtim,
				.bytes = bytes,
				.refs = 1};
	pthread_mutex_lock(&copies_lock);
	c->next = copies;
	copies = c;
	pthread_mutex_unlock(&copies_lock);
	return c;
}

static void copy_put(struct file_copy *c)
{
	pthread_mutex_lock(&copies_lock);
	int last = --c->refs == 0;
	if (last) {
		struct file_copy **p = &copies;
		while (*p != c)
			p = &(*p)->next;
		*p = c->next;
	}
	pthread_mutex_unlock(&copies_lock);
	if (last) {
		munmap(c->bytes, (size_t)c->size);
		free(c);
	}
}

struct wpp_reader {
	struct file_copy *copy;
	const unsigned char *map; /* the file's bytes: copy->bytes */
	size_t size;
	uint64_t pos;	  /* offset of the next chunk header */
	int saw_end;	  /* an END chunk was returned */
	int stopped;	  /* iteration ended (status below is final) */
	char status[160]; /* why it ended; empty when it ended cleanly */
};

/* Read size bytes of fd into fresh anonymous memory (munmap it); NULL with
 * a message if the file ends early (it shrank since fstat) or cannot be
 * read.  The pages are populated in one go (MAP_POPULATE): faulting them
 * in 4 KiB at a time during the read cost about twice as much system time
 * here (huge pages, madvised, were slower still). */
static unsigned char *read_whole(int fd, const char *path, size_t size)
{
	unsigned char *buf = mmap(NULL, size, PROT_READ | PROT_WRITE,
				  MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	size_t got = 0;

	if (buf == MAP_FAILED) {
		wpp_err("%s: out of memory reading %zu bytes", path, size);
		return NULL;
	}
	posix_fadvise(fd, 0, (off_t)size, POSIX_FADV_SEQUENTIAL);
	while (got < size) {
		size_t step = size - got < (64u << 20) ? size - got : (64u << 20);
		ssize_t n = read(fd, buf + got, step);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			if (n < 0)
				wpp_err("%s: %s", path, strerror(errno));
			else
				wpp_err("%s: the file shrank while being read (it ended after "
					"%zu of its %zu bytes)",
					path, got, size);
			munmap(buf, size);
			return NULL;
		}
		got += (size_t)n;
	}
	/* Read-only from here: a stray write through a payload pointer faults. */
	mprotect(buf, size, PROT_READ);
	return buf;
}

struct wpp_reader *wppr_open(const char *path)
{
	struct wpp_file_header hdr;
	struct wpp_reader *r;
	struct stat st;
	unsigned char *map;
	int fd;

	fd = in_file_open(path, "", &st);
	if (fd < 0)
		return NULL;
	if ((uint64_t)st.st_size < sizeof(hdr)) {
		wpp_err("%s: not a .wpp file (too short for the file header)", path);
		close(fd);
		return NULL;
	}
	if ((uint64_t)st.st_size > SIZE_MAX / 2) {
		wpp_err("%s: too large to read", path);
		close(fd);
		return NULL;
	}
	struct file_copy *copy = copy_find(&st);
	if (!copy) {
		map = read_whole(fd, path, (size_t)st.st_size);
		if (map && !(copy = copy_add(&st, map))) {
			wpp_err("out of memory");
			munmap(map, (size_t)st.st_size);
		}
	}
	close(fd);
	if (!copy)
		return NULL;
	map = copy->bytes;
	memcpy(&hdr, map, sizeof(hdr));
	if (memcmp(hdr.magic, WPP_FILE_MAGIC, sizeof(hdr.magic)) != 0) {
		wpp_err("%s: not a .wpp file (bad magic)", path);
		goto fail;
	}
	if (hdr.version != WPP_FILE_VERSION && hdr.version != WPP_FILE_VERSION_BATCH_Z &&
	    hdr.version != WPP_FILE_VERSION_BATCH_LZ4 &&
	    hdr.version != WPP_FILE_VERSION_BATCH_MATCH) {
		wpp_err("%s: .wpp version %" PRIu32
			" is not supported (this wpptrace reads versions %u to %u)",
			path, hdr.version, WPP_FILE_VERSION, WPP_FILE_VERSION_BATCH_MATCH);
		goto fail;
	}
	/* Versions 1 to 4 fix the header size; a different one means a corrupt file. */
	if (hdr.header_size != sizeof(hdr)) {
		wpp_err("%s: bad .wpp header size %" PRIu32, path, hdr.header_size);
		goto fail;
	}
	r = calloc(1, sizeof(*r));
	if (!r) {
		wpp_err("out of memory");
		goto fail;
	}
	r->copy = copy;
	r->map = map;
	r->size = (size_t)st.st_size;
	r->pos = sizeof(hdr);
	return r;
fail:
	copy_put(copy);
	return NULL;
}

static int stop(struct wpp_reader *r, const char *why)
{
	r->stopped = 1;
	snprintf(r->status, sizeof(r->status), "%s at offset %" PRIu64, why, r->pos);
	return 0;
}

int wppr_next(struct wpp_reader *r, struct wpp_chunk *out)
{
	struct wpp_chunk_header h;
	uint64_t left;
	uint32_t crc;

	if (r->stopped)
		return 0;
	left = r->size - r->pos;
	if (left == 0) {
		r->stopped = 1;
		if (!r->saw_end)
			snprintf(r->status, sizeof(r->status),
				 "no END chunk (file ends at offset %" PRIu64 ")", r->pos);
		return 0;
	}
	/* What a finished recording may be followed by: results stored by
	 * analyses (`wpptrace wpp --store`, `wpptrace wet`), never more of the
	 * recording. */
	if (r->saw_end && left < sizeof(h))
		return stop(r, "data after the END chunk");
	if (left < sizeof(h))
		return stop(r, "truncated chunk header");
	memcpy(&h, r->map + r->pos, sizeof(h));
	if (r->saw_end && !(h.magic == WPP_CHUNK_MAGIC &&
			    (h.type == WPP_CHUNK_GRAMMAR || h.type == WPP_CHUNK_WET)))
		return stop(r, "data after the END chunk");
	if (h.magic != WPP_CHUNK_MAGIC)
		return stop(r, "bad chunk magic");
	if (h.length > WPP_CHUNK_MAX_PAYLOAD)
		return stop(r, "oversized chunk");
	if (h.length > left - sizeof(h))
		return stop(r, "truncated chunk");
	/* The CRC covers type, flags and length (the 8 bytes after magic), then the payload. */
	crc = wpp_crc32c(0, r->map + r->pos + offsetof(struct wpp_chunk_header, type), 8);
	crc = wpp_crc32c(crc, r->map + r->pos + sizeof(h), h.length);
	if (crc != h.crc32c)
		return stop(r, "bad checksum");

	out->type = (enum wpp_chunk_type)h.type;
	out->length = h.length;
	out->payload = r->map + r->pos + sizeof(h);
	out->file_offset = r->pos;
	r->pos += sizeof(h) + h.length;
	if (h.type == WPP_CHUNK_END)
		r->saw_end = 1;
	return 1;
}

const char *wppr_status(const struct wpp_reader *r)
{
	if (!r->stopped)
		return "not read to the end";
	return r->status[0] ? r->status : NULL;
}

void wppr_rewind(struct wpp_reader *r)
{
	r->pos = sizeof(struct wpp_file_header);
	r->saw_end = 0;
	r->stopped = 0;
	r->status[0] = '\0';
}

void wppr_close(struct wpp_reader *r)
{
	if (!r)
		return;
	copy_put(r->copy);
	free(r);
}

/* Is there a chunk with a good magic, length and CRC at pos, or the end of
 * the file?  (What wppr_next() checks, without moving.) */
static int intact_at(const struct wpp_reader *r, uint64_t pos)
{
	struct wpp_chunk_header h;
	uint32_t crc;

	if (pos == r->size)
		return 1;
	if (r->size - pos < sizeof(h))
		return 0;
	memcpy(&h, r->map + pos, sizeof(h));
	if (h.magic != WPP_CHUNK_MAGIC || h.length > WPP_CHUNK_MAX_PAYLOAD ||
	    h.length > r->size - pos - sizeof(h))
		return 0;
	crc = wpp_crc32c(0, r->map + pos + offsetof(struct wpp_chunk_header, type), 8);
	return wpp_crc32c(crc, r->map + pos + sizeof(h), h.length) == h.crc32c;
}

int wppr_next_damaged(struct wpp_reader *r, struct wpp_chunk *out, uint16_t type,
		      int (*head_ok)(const void *payload, uint32_t len, uint64_t avail))
{
	struct wpp_chunk_header h;
	uint64_t left = r->size - r->pos, end;

	if (!r->stopped || r->saw_end || left < sizeof(h))
		return 0;
	memcpy(&h, r->map + r->pos, sizeof(h));
	if (h.magic != WPP_CHUNK_MAGIC || h.type != type || h.length > WPP_CHUNK_MAX_PAYLOAD)
		return 0;
	/* A torn tail (the writer was killed) ends the file; damage inside it
	 * must be followed by a chunk that is whole, or the length is not
	 * to be trusted. */
	end = r->pos + sizeof(h) + h.length;
	if (end > r->size)
		end = r->size;
	else if (!intact_at(r, end))
		return 0;
	if (!head_ok(r->map + r->pos + sizeof(h), h.length, end - r->pos - sizeof(h)))
		return 0;
	out->type = (enum wpp_chunk_type)h.type;
	out->length = h.length;
	out->payload = r->map + r->pos + sizeof(h);
	out->file_offset = r->pos;
	r->pos = end;
	r->stopped = 0;
	r->status[0] = '\0';
	return 1;
}
