/* SPDX-License-Identifier: MIT */
/*
 * wet_stream.h — a tier-2 compressed stream of 64-bit values: one label
 * stream of a whole execution trace (a node's timestamps or values, an
 * edge's timestamp pairs), readable by instance index in either direction
 * without decompressing it (docs/wet.md, "Tier 2").
 *
 * Contract
 *   - Building is streaming: wet_builder_add takes one value at a time;
 *     memory is the compressed stream plus the warm-up buffer (grown as it
 *     fills, up to `warmup` values) plus one
 *     segment's predictor tables (2 * 8 << table_bits bytes, at most
 *     64 KiB), which wet_builder_release gives back between adds.  The
 *     trials cost about six extra steps per value (thirteen methods, a
 *     quarter of each segment, coded and rewound).
 *   - The predictor is chosen after a warm-up, the paper's rule, applied
 *     at every segment: a segment's first `warmup` values are coded with
 *     every method (the paper's FCM, DFCM, last-n and last-n stride, three
 *     sizes each, and verbatim for what none predicts) and the smallest
 *     wins; the segment is coded with it.
 *     Choosing once per stream lets the stream's first phase (a program's
 *     start-up, say) decide for all of it: on a real path stream that cost
 *     six times the bits.
 *   - The stream is cut into segments of `seg_len` values, each coded on
 *     its own with a cursor (wet_segment.h).  Segment boundaries are the
 *     checkpoints: reading value i costs the steps from where i's segment's
 *     cursor stands to i, at most seg_len, plus opening the segment
 *     (O(2^table_bits)) when another segment was open.  Reading i+1 or i-1
 *     after i is one step, O(1), in either direction.  Built and parsed
 *     segments rest with their cursor at their start, so a first forward
 *     sweep costs one step per value; a backward one, or a sweep over
 *     segments a reader left at the other end, at most three.
 *   - Reading moves cursors, so a stream is read by one thread at a time;
 *     a reading error (only possible on a stream parsed from bytes whose
 *     codes are damaged) is returned, never crashed on.
 *   - wet_stream_serialize / wet_stream_parse give a self-checking byte
 *     form (CRC32C, every count and index bounds-checked); wet_stream_verify
 *     walks every segment end to end and checks it returns to its start
 *     state, which catches damage a checksum cannot (a crafted file).
 */
#ifndef WPP_WET_STREAM_H
#define WPP_WET_STREAM_H

#include <stddef.h>
#include <stdint.h>

#include "analysis/wet/wet_segment.h"

#define WET_DEFAULT_SEG_LEN 4096
#define WET_DEFAULT_WARMUP  1024
#define WET_MAX_SEG_LEN	    (1u << 20)

struct wet_stream_opts {
	uint32_t seg_len; /* values per segment (checkpoint interval); 0 = default */
	uint32_t warmup;  /* values per segment tried with every method; 0 = default */
	/* When non-NULL, use this method instead of choosing one. */
	const struct wet_method *method;
};

struct wet_stream {
	uint8_t table_bits; /* of every FCM/DFCM segment (0 until the first) */
	uint64_t count;
	uint32_t seg_len;
	uint32_t nsegs, cap_segs;
	struct wet_seg *segs;
	/* The open segment's state, NULL while none is open (a WET holds
	 * 10^5 streams, nearly all closed: 152 bytes each saved). */
	struct wet_state *st;
	uint32_t open; /* the segment whose state is in st, or UINT32_MAX */
	/* Not parsed yet (wet_stream_parse_bare_lazy): its bare bytes, the
	 * caller's, parsed on the first read; count is already known. */
	const uint8_t *lazy;
	size_t lazy_len;
};

struct wet_builder {
	struct wet_stream_opts opts;
	uint64_t *warm; /* a segment's first values, until its method is chosen */
	uint32_t nwarm, cap_warm;
	struct wet_stream *s;
};

int wet_builder_init(struct wet_builder *b, const struct wet_stream_opts *opts);
/* 0, or -1 when out of memory (the builder can then only be aborted). */
int wet_builder_add(struct wet_builder *b, uint64_t x);
/* Free the dense tables of the segment being built (the next add restores
 * them from their non-zero entries): what a builder of many streams calls
 * on the streams it has not fed for a while.  0, or -1 out of memory. */
int wet_builder_release(struct wet_builder *b);
/* What a builder of many streams calls on a stream it has not fed for a
 * while: when at least `min` values wait in the warm-up, choose the
 * segment's method on them now and code them (the rest of the segment
 * follows that choice), and give back the warm-up buffer; then release as
 * above.  The stored bytes then depend on when this was called, the
 * values read back do not.  A WET holds 10^5 streams, most short and
 * idle: waiting for full warm-ups kept their values raw, most of the
 * build's memory.  0, or -1 out of memory. */
int wet_builder_settle(struct wet_builder *b, uint32_t min);
/* The finished stream (the builder is reset), or NULL when out of memory. */
struct wet_stream *wet_builder_finish(struct wet_builder *b);
void wet_builder_abort(struct wet_builder *b);

/* The candidate methods the warm-up tries, and how many. */
extern const struct wet_method wet_candidates[];
extern const unsigned wet_ncandidates;

static inline uint64_t wet_stream_count(const struct wet_stream *s)
{
	return s->count;
}
/* Value i into *x.  0, or -1 when i >= count or the codes are damaged. */
int wet_stream_get(struct wet_stream *s, uint64_t i, uint64_t *x);

/* Bytes of the serialized form (segments are parked at their starts
 * first, which moves cursors; the bytes depend on the values only).
 * 0 when out of memory or reading fails. */
size_t wet_stream_serialize(struct wet_stream *s, uint8_t **out);
/* Parse a serialized stream; NULL with a one-line reason in err. */
struct wet_stream *wet_stream_parse(const uint8_t *buf, size_t len, char *err, size_t errlen);
/* The bare form: the same codes without magic, version and CRC, and a
 * header of two bytes or so, for a container that checks its bytes itself
 * (the stored WET: most of its streams hold a few values, and the framed
 * form's fixed 15 bytes were a fifth of it).  Parsing checks every count
 * and index as wet_stream_parse does. */
size_t wet_stream_serialize_bare(struct wet_stream *s, uint8_t **out);
struct wet_stream *wet_stream_parse_bare(const uint8_t *buf, size_t len, char *err, size_t errlen);
/* The bare form's count only; the rest is parsed (and checked as above)
 * when the stream is first read, so a reader of many streams pays for the
 * ones it reads.  buf must outlive the stream.  A damaged stream then
 * fails that read (-1), not the parse. */
struct wet_stream *wet_stream_parse_bare_lazy(const uint8_t *buf, size_t len, char *err,
					      size_t errlen);
/* Walk every segment to its start and back; 0 when every code decodes and
 * each segment's start state is the empty one, else -1 with a reason. */
int wet_stream_verify(struct wet_stream *s, char *err, size_t errlen);

/* Close the open segment and free the dense tables (the next read
 * reallocates them): a stream nobody reads costs its compressed size.
 * 0, or -1 when out of memory. */
int wet_stream_release(struct wet_stream *s);
void wet_stream_free(struct wet_stream *s);

#endif
