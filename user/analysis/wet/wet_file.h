/* SPDX-License-Identifier: MIT */
/*
 * wet_file.h — the stored form of one thread's WET (docs/wet.md, "The WET
 * in the .wpp file"): a self-checking byte string that the CLI cuts into
 * WET chunks after the recording's END.
 *
 * Contract
 *   - What is stored is every label stream in its serialized tier-2 form
 *     (wet_stream.h) and the figures `wet info` shows; the static part of
 *     each node (statements, slots, groups, dependence slots) is not: it
 *     is a function of the metadata and the path id, worked out again on
 *     reading (wet_node.h), so a WET can never disagree with its program.
 *   - Nodes name their function by the trace's fid, resolved by the
 *     caller (the recording's module map).
 *   - Reading trusts nothing: magic, version, a CRC32C over the whole
 *     string, every count against the bytes left and against the static
 *     part rebuilt from metadata, every stream parsed (every count and
 *     index; the string's CRC covers the streams' bytes) and every
 *     reference to an earlier stream checked, label counts against
 *     instance counts, and with `verify` every stream walked end to end
 *     (wet_stream_verify: codes a crafted file got past the checksums).
 *     A damaged or crafted string gives NULL and one line, never a crash.
 *     Without `verify`, damaged codes surface as read errors when a query
 *     reaches them (wet_stream.h: returned, never crashed on); values
 *     inside streams that point elsewhere (a def node, a tuple index) are
 *     checked when read.
 */
#ifndef WPP_WET_FILE_H
#define WPP_WET_FILE_H

#include <stddef.h>
#include <stdint.h>

#include "analysis/wet/wet_build.h"

#define WET_FILE_MAGIC	 "WPPWETT1"
#define WET_FILE_VERSION 3u

/* The stored form of t into a malloc'd *out.  0, or -1 out of memory. */
int wet_file_encode(struct wet_thread *t, uint8_t **out, size_t *len);

/* The function a fid names in the thread's image, or NULL. */
typedef const struct wpp_fn *(*wet_fn_of)(void *ctx, uint32_t fid);

/* The format version of a stored WET string whose CRC is whole and magic
 * right, else 0: a reader tells an older WET (built again, not an error)
 * from a damaged one. */
uint32_t wet_file_version(const uint8_t *buf, size_t len);

/* How much of every stream reading checks (wet_file_decode's mode). */
enum wet_file_read {
	WET_FILE_PARSE = 0,  /* every stream parsed: counts and indices */
	WET_FILE_VERIFY = 1, /* and walked end to end (wet_stream_verify) */
	/* streams parsed when a query first reads them (their counts now):
	 * a query on a large WET pays for the streams it reads.  The streams
	 * point into buf, which the caller hands to the thread (t->blob). */
	WET_FILE_LAZY = 2,
};

/* A WET read back; NULL with a one-line reason in err.  mode: enum
 * wet_file_read (VERIFY takes about as long as reading every stream). */
struct wet_thread *wet_file_decode(const uint8_t *buf, size_t len, wet_fn_of fn_of, void *ctx,
				   int mode, char *err, size_t errlen);

#endif
