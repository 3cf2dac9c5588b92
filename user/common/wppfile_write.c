/* SPDX-License-Identifier: MIT */
/*
 * wppfile_write.c — the writing half of wppfile.h.
 *
 * Each chunk (header + payload) is handed to the kernel whole in one
 * write(), alone or after other whole chunks (wppw_hold), so a reader that
 * looks at a file being written, or at the file of a collector that was
 * killed, sees whole chunks followed at most by one torn chunk, which the
 * CRC rejects.  What a killed writer loses beyond that is what it held:
 * nothing by default, at most the hold's bytes and age when asked to hold.
 */
#include "common/wppfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "common/cpu_clock.h"
#include "common/crc32c.h"
#include "common/log.h"
#include "common/out_file.h"

struct wpp_writer {
	int fd;
	char *path;
	/* The file being created (out_file.h): a temporary until published;
	 * of.fd is fd.  Unused (of.fd < 0) for an append. */
	struct out_file of;
	/* Where the next chunk goes, and how far blocks are reserved ahead
	 * of it (reserve_ahead); prealloc is off for appends and where the
	 * file system cannot reserve. */
	uint64_t pos, reserved;
	int prealloc;
	/* Write-behind (write_behind): writeback was started for the bytes
	 * before flushed, and the cache was told to drop those before
	 * dropped; off where the file cannot take the hints. */
	uint64_t flushed, dropped;
	int behind_off;
	/* Whole chunks not yet written (wppw_hold): held_len of held_cap
	 * bytes (held_cap 0: none are held), the first since held_ns. */
	unsigned char *held;
	size_t held_len, held_cap;
	uint64_t held_ns, hold_ns;
	int failed; /* a write failed: where the end is is not known */
};

/* Reservation steps: a quarter of what is written so far, within these. */
#define RESERVE_MIN (UINT64_C(1) << 20)
#define RESERVE_MAX (UINT64_C(64) << 20)

/*
 * Make sure the blocks for the next len bytes are allocated, reserving a
 * step ahead (fallocate, FALLOC_FL_KEEP_SIZE: the file's size does not
 * change, readers see nothing).  Why: a buffered write into a hole makes
 * ext4 reserve blocks page by page (delayed allocation), and writing a
 * recording's gigabytes cost the collector 0.5-6.7 s of system time per
 * 2 GiB here, against 0.3-0.5 s into reserved blocks (docs/wpp-file-format.md).
 * A failure only turns the reservation off: the write reports real errors.
 */
static void reserve_ahead(struct wpp_writer *w, uint64_t len)
{
	if (!w->prealloc || w->pos + len <= w->reserved)
		return;
	uint64_t step = w->pos / 4;
	step = step < RESERVE_MIN ? RESERVE_MIN : step > RESERVE_MAX ? RESERVE_MAX : step;
	uint64_t from = w->reserved > w->pos ? w->reserved : w->pos;
	uint64_t to = w->pos + len + step;
	if (fallocate(w->fd, FALLOC_FL_KEEP_SIZE, (off_t)from, (off_t)(to - from)) < 0) {
		w->prealloc = 0;
		return;
	}
	w->reserved = to;
}

/* Write-behind window, and how many windows behind the newest writeback
 * the cache is asked to let pages go. */
#define BEHIND_WINDOW (UINT64_C(16) << 20)
#define BEHIND_LAG    2

/*
 * Keep a recording's gigabytes from piling up in the page cache: every
 * BEHIND_WINDOW bytes, start writeback of the window just written
 * (sync_file_range WRITE: asynchronous, waits for nothing written later)
 * and ask the kernel to drop the pages BEHIND_LAG windows older, whose
 * writeback started long ago (POSIX_FADV_DONTNEED drops clean pages only;
 * a page still dirty because the disk is slow stays cached, so nothing
 * here ever waits for the disk or loses the cache's burst buffering).
 * Why: each page the cache takes anew costs the writer a first touch, and
 * on this project's VMs writing 4 GiB took 3.6-11 s of system time that
 * way against 1.4-1.6 s with the pages recycled (docs/wpp-file-format.md);
 * it also spares the rest of the machine's cache.  Every chunk is still a
 * write() into the cache first, so crash safety is unchanged.  Hints only:
 * a file that refuses them (a pipe) turns them off.
 */
static void write_behind(struct wpp_writer *w)
{
	if (w->behind_off || w->pos - w->flushed < BEHIND_WINDOW)
		return;
	if (sync_file_range(w->fd, (off_t)w->flushed, (off_t)(w->pos - w->flushed),
			    SYNC_FILE_RANGE_WRITE) < 0) {
		w->behind_off = 1;
		return;
	}
	w->flushed = w->pos;
	uint64_t lag = BEHIND_LAG * BEHIND_WINDOW;
	if (w->flushed - w->dropped >= lag + BEHIND_WINDOW) {
		uint64_t end = w->flushed - lag;
		if (posix_fadvise(w->fd, (off_t)w->dropped, (off_t)(end - w->dropped),
				  POSIX_FADV_DONTNEED) != 0) {
			w->behind_off = 1;
			return;
		}
		w->dropped = end;
	}
}

/* Give back the blocks reserved past the end (truncating to the size a
 * file already has frees them).  Only while pos is known to be the end:
 * after a failed write reserved is 0. */
static void release_reserve(struct wpp_writer *w)
{
	if (w->reserved > w->pos && ftruncate(w->fd, (off_t)w->pos) < 0)
		w->prealloc = 0; /* only disk space is lost */
	w->reserved = w->pos;
}

/* writev() of a regular file writes everything or fails, except when the
 * disk fills; keep going after a short write so the chunk is complete or
 * the error is reported. */
static int write_all(int fd, struct iovec *iov, int n)
{
	while (n > 0) {
		ssize_t w = writev(fd, iov, n);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		while (n > 0 && (size_t)w >= iov->iov_len) {
			w -= (ssize_t)iov->iov_len;
			iov++;
			n--;
		}
		if (n > 0) {
			iov->iov_base = (char *)iov->iov_base + w;
			iov->iov_len -= (size_t)w;
		}
	}
	return 0;
}

struct wpp_writer *wppw_open(const char *path)
{
	struct wpp_file_header hdr;
	struct wpp_writer *w;
	struct timespec ts;
	struct iovec iov;
	int fd, err;

	struct out_file of;

	if (out_file_create(&of, path, NULL) < 0)
		return NULL;
	fd = of.fd;
	memset(&hdr, 0, sizeof(hdr));
	memcpy(hdr.magic, WPP_FILE_MAGIC, sizeof(hdr.magic));
	hdr.version = WPP_FILE_VERSION;
	hdr.header_size = sizeof(hdr);
	clock_gettime(CLOCK_REALTIME, &ts);
	hdr.created_ns = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
	iov.iov_base = &hdr;
	iov.iov_len = sizeof(hdr);
	err = write_all(fd, &iov, 1);
	w = err ? NULL : calloc(1, sizeof(*w));
	if (!w || !(w->path = strdup(path))) {
		wpp_err("cannot write %s: %s", path, strerror(err ? -err : ENOMEM));
		free(w);
		out_file_discard(&of);
		return NULL;
	}
	w->fd = fd;
	w->of = of;
	w->pos = sizeof(hdr);
	w->prealloc = 1;
	w->flushed = w->dropped = w->pos;
	return w;
}

struct wpp_writer *wppw_open_append(const char *path)
{
	struct wpp_writer *w = calloc(1, sizeof(*w));
	/* The recording just read, appended to in place: still a regular
	 * file (a FIFO put there since would block or swallow the chunks). */
	int fd = open(path, O_WRONLY | O_APPEND | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	struct stat st;

	if (fd >= 0 && (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode))) {
		close(fd);
		fd = -1;
		errno = EINVAL;
	}
	if (fd < 0 || !w || !(w->path = strdup(path))) {
		wpp_err("cannot append to %s: %s", path,
			fd < 0 && errno == EINVAL ? "not a regular file"
						  : strerror(fd < 0 ? errno : ENOMEM));
		if (fd >= 0)
			close(fd);
		free(w);
		return NULL;
	}
	w->fd = fd;
	w->of.fd = -1;
	w->behind_off = 1; /* O_APPEND: pos is not tracked; a few grammars */
	return w;
}

/* Hand iov (n pieces, len bytes: whole chunks) to the kernel in one
 * write(), with the blocks reserved ahead and write-behind after. */
static int write_chunks(struct wpp_writer *w, struct iovec *iov, int n, uint64_t len)
{
	int err;

	reserve_ahead(w, len);
	err = write_all(w->fd, iov, n);
	if (err) {
		wpp_err("cannot write %s: %s", w->path, strerror(-err));
		/* part of the chunks may be in the file: where the end is is no
		 * longer known, so never truncate to a guess */
		w->prealloc = 0;
		w->reserved = 0;
		w->failed = 1;
	} else {
		w->pos += len;
		write_behind(w);
	}
	return err;
}

int wppw_flush(struct wpp_writer *w, uint64_t age_ns)
{
	struct iovec iov;
	int err;

	if (!w->held_len || (age_ns && monotonic_ns() - w->held_ns < age_ns))
		return 0;
	iov = (struct iovec){w->held, w->held_len};
	err = write_chunks(w, &iov, 1, w->held_len);
	w->held_len = 0;
	return err;
}

int wppw_hold(struct wpp_writer *w, uint32_t bytes, uint64_t max_age_ns)
{
	unsigned char *p;
	int err = wppw_flush(w, 0);

	if (err)
		return err;
	p = bytes ? realloc(w->held, bytes) : NULL;
	if (bytes && !p)
		return -ENOMEM;
	if (!bytes)
		free(w->held);
	w->held = p;
	w->held_cap = bytes;
	w->hold_ns = max_age_ns;
	return 0;
}

int wppw_chunk2(struct wpp_writer *w, enum wpp_chunk_type type, const void *a, uint32_t alen,
		const void *b, uint32_t blen)
{
	struct wpp_chunk_header h;
	struct iovec iov[3];
	uint64_t len = (uint64_t)alen + blen, total = sizeof(h) + len;
	int err;

	if (len > WPP_CHUNK_MAX_PAYLOAD)
		return -EFBIG;
	h.magic = WPP_CHUNK_MAGIC;
	h.type = (uint16_t)type;
	h.flags = 0;
	h.length = (uint32_t)len;
	/* CRC over type, flags, length (the 8 bytes after magic), then payload. */
	h.crc32c = wpp_crc32c(0, (const char *)&h + offsetof(struct wpp_chunk_header, type), 8);
	h.crc32c = wpp_crc32c(h.crc32c, a, alen);
	h.crc32c = wpp_crc32c(h.crc32c, b, blen);
	/* Held chunks keep their order: a chunk that does not fit behind
	 * them writes them first. */
	if (w->held_len + total > w->held_cap && (err = wppw_flush(w, 0)))
		return err;
	if (total <= w->held_cap) {
		unsigned char *at = w->held + w->held_len;
		if (!w->held_len)
			w->held_ns = monotonic_ns();
		memcpy(at, &h, sizeof(h));
		if (alen)
			memcpy(at + sizeof(h), a, alen);
		if (blen)
			memcpy(at + sizeof(h) + alen, b, blen);
		w->held_len += total;
		return wppw_flush(w, w->hold_ns);
	}
	iov[0] = (struct iovec){&h, sizeof(h)};
	iov[1] = (struct iovec){(void *)a, alen};
	iov[2] = (struct iovec){(void *)b, blen};
	return write_chunks(w, iov, 3, total);
}

int wppw_chunk(struct wpp_writer *w, enum wpp_chunk_type type, const void *payload, uint32_t len)
{
	return wppw_chunk2(w, type, payload, len, NULL, 0);
}

int wppw_publish(struct wpp_writer *w)
{
	return w->of.fd >= 0 ? out_file_publish(&w->of, NULL) : 0;
}

/* Close the descriptor; a created file's temporary is removed when
 * drop_unpublished (the target keeps what it had), else left as it is. */
static int writer_close_fd(struct wpp_writer *w, int drop_unpublished)
{
	int err = 0;

	if (w->of.fd < 0)
		return close(w->fd) < 0 ? -errno : 0;
	if (drop_unpublished)
		out_file_discard(&w->of);
	else
		err = out_file_close(&w->of);
	return err;
}

static void writer_free(struct wpp_writer *w)
{
	free(w->held);
	free(w->path);
	free(w);
}

/* fsync (unless err already) when a rename follows, publish, close,
 * free.  A file that failed is not published: the target keeps what it
 * had.  The fsync is what makes the rename safe across a crash of the
 * machine (the name never points at bytes not yet on disk).  A file
 * already published (record publishes when the program starts) or
 * appended to has no rename left to protect, and waiting for the disk
 * there made every recording's end wait for its writeback: up to 46 ms of
 * a 1 s bzip2 step when the disk had writes pending (docs/benchmarks.md,
 * "Record's end").  Every chunk carries its CRC, so a machine crash before
 * writeback leaves a shorter readable file, as it would a moment earlier. */
static int finish(struct wpp_writer *w, int err)
{
	int renames = w->of.fd >= 0 && w->of.tmp;

	if (!err && renames && fsync(w->fd) < 0 && errno != EINVAL) {
		err = -errno;
		wpp_err("cannot write %s: %s", w->path, strerror(errno));
	}
	if (!err && wppw_publish(w) < 0)
		err = -EIO;
	int cerr = writer_close_fd(w, err != 0);
	if (cerr < 0 && !err) {
		errno = -cerr;
		err = -errno;
		wpp_err("cannot write %s: %s", w->path, strerror(errno));
	}
	writer_free(w);
	return err;
}

int wppw_close(struct wpp_writer *w, const struct wpp_chunk_end *end)
{
	int err = wppw_flush(w, 0);

	if (err)
		return finish(w, err);
	/* before END: once END is there, `wpp --store` may append */
	release_reserve(w);
	w->prealloc = 0;
	w->held_cap = 0; /* END goes straight to the file */
	return finish(w, wppw_chunk(w, WPP_CHUNK_END, end, sizeof(*end)));
}

int wppw_finish(struct wpp_writer *w)
{
	return finish(w, wppw_flush(w, 0));
}

void wppw_abort(struct wpp_writer *w)
{
	if (!w)
		return;
	/* A published file keeps what was recorded, held chunks included;
	 * after a failed write nothing more is added to it. */
	if (!w->failed)
		wppw_flush(w, 0);
	release_reserve(w);
	writer_close_fd(w, 1);
	writer_free(w);
}

int wppw_set_version(struct wpp_writer *w, uint32_t version)
{
	off_t at = (off_t)offsetof(struct wpp_file_header, version);

	if (pwrite(w->fd, &version, sizeof(version), at) != (ssize_t)sizeof(version)) {
		int err = errno ? errno : EIO;
		wpp_err("cannot write %s: %s", w->path, strerror(err));
		return -err;
	}
	return 0;
}
