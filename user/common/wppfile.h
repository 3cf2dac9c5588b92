/* SPDX-License-Identifier: MIT */
/*
 * wppfile.h — writing and reading .wpp files (layout in wpp/wpp_file.h).
 *
 * Writer: append-only; every chunk goes to the file whole within one
 * write() (alone, or after other whole chunks it held: wppw_hold) so a
 * reader never sees half a chunk from a live writer except at the tail,
 * which the CRC rejects.  wppw_close() appends the END chunk; a file
 * still under its temporary name is fsynced before the rename.  Behind the
 * end it reserves blocks ahead and lets written pages leave the page cache
 * (hints only: what a reader sees is exactly what was written).
 *
 * Reader: reads the file into memory (a copy: nothing another process does
 * to the file can fault a reader) and iterates chunks, verifying magic,
 * length and CRC.  Iteration stops at the first bad chunk; the reason is kept
 * so tools can say "file truncated after N chunks" and still use what came
 * before.  Payload pointers stay valid until wppr_close().
 */
#ifndef WPP_WPPFILE_H
#define WPP_WPPFILE_H

#include <stddef.h>
#include <stdint.h>

#include "wpp/wpp_file.h"

struct wpp_writer;

/* Create path (out_file.h): a fresh file, mode 0600, written as a
 * temporary next to path until wppw_publish() or wppw_close() renames it
 * over path.  NULL with a message printed on error. */
struct wpp_writer *wppw_open(const char *path);
/* Put the file in place under its name now (record: once the program
 * runs, so that a killed recording leaves what it wrote readable there).
 * 0, or -1 with a message naming where the bytes are; writing goes on. */
int wppw_publish(struct wpp_writer *w);
/* Add chunks at the end of an existing file (analysis results stored after
 * a finished recording: `wpptrace wpp --store`); O_APPEND, so each chunk
 * lands whole after whatever is there.  NULL with a message on error.
 * Finish with wppw_finish(), which writes no END. */
struct wpp_writer *wppw_open_append(const char *path);
/* Close without an END chunk (no fsync: no rename follows).  0 or -errno. */
int wppw_finish(struct wpp_writer *w);
/* Stamp the file header with another version (before any chunk: a file
 * that will hold BATCH_Z chunks is WPP_FILE_VERSION_BATCH_Z, one that may
 * hold LZ4-coded ones WPP_FILE_VERSION_BATCH_LZ4).  0 or -errno. */
int wppw_set_version(struct wpp_writer *w, uint32_t version);
/* From now on hold whole chunks in memory, up to bytes of them (a chunk
 * bigger than that is written at once, after those held), and write them
 * together in one write() when the next would not fit, when the first has
 * been held max_age_ns (looked at as chunks come, and by wppw_flush),
 * and at close.  Fewer, larger writes: a recording's small compressed
 * chunks cost a write() each and a part-written page each (ext4 zeroes
 * the rest of a fresh block a write covers in part; docs/benchmarks.md,
 * "The collector's writes and wake-ups").  The price: a writer killed
 * loses what it held, at most bytes and max_age_ns old (0 bytes: hold
 * nothing, the default).  0, or -errno (-ENOMEM: unchanged). */
int wppw_hold(struct wpp_writer *w, uint32_t bytes, uint64_t max_age_ns);
/* Write the held chunks if the first was held at least age_ns ago (0:
 * now); the caller's idle moments.  0 or -errno. */
int wppw_flush(struct wpp_writer *w, uint64_t age_ns);
/* Append one chunk of the given type; 0 or -errno. */
int wppw_chunk(struct wpp_writer *w, enum wpp_chunk_type type, const void *payload, uint32_t len);
/* Same, with the payload in two pieces (fixed struct + tail) to avoid a copy. */
int wppw_chunk2(struct wpp_writer *w, enum wpp_chunk_type type, const void *a, uint32_t alen,
		const void *b, uint32_t blen);
/* Append END with the given totals; fsync and publish when not published
 * yet (wppw_publish); close.  0 or -errno. */
int wppw_close(struct wpp_writer *w, const struct wpp_chunk_end *end);
/* Close without END (used when the run aborts).  A published file keeps
 * the data so far, readable; an unpublished one is removed, and the file
 * that had the name keeps it. */
void wppw_abort(struct wpp_writer *w);

struct wpp_reader;

struct wpp_chunk {
	enum wpp_chunk_type type;
	uint32_t length;
	const void *payload;
	uint64_t file_offset; /* of the chunk header */
};

/* Open and validate the file header.  NULL with a one-line message on error. */
struct wpp_reader *wppr_open(const char *path);
/* 1 = chunk returned, 0 = end of valid data.  After 0, wppr_status() says why. */
int wppr_next(struct wpp_reader *r, struct wpp_chunk *out);
/* NULL if the file ended cleanly with an END chunk, else a static reason
 * ("truncated chunk at offset N", "bad checksum at offset N", "no END chunk"). */
const char *wppr_status(const struct wpp_reader *r);
void wppr_rewind(struct wpp_reader *r);
/* After wppr_next() returned 0 at a damaged chunk (a bad checksum, or a
 * torn last chunk): if that chunk has the given type, a plausible length,
 * head_ok() accepts its payload (len as the header says, of which avail
 * bytes are in the file) and an intact chunk (or the end of the file)
 * follows it, return it in *out (only its head may be trusted, and only
 * avail bytes read) and go on reading after it: 1.  Otherwise 0 and the
 * reader stays stopped.  For chunks that can vouch for part of themselves
 * (a BATCH_Z's head: whose words were lost, how many), so that damage
 * costs that chunk, not the rest of the file. */
int wppr_next_damaged(struct wpp_reader *r, struct wpp_chunk *out, uint16_t type,
		      int (*head_ok)(const void *payload, uint32_t len, uint64_t avail));
void wppr_close(struct wpp_reader *r);

#endif
