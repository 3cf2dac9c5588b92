/* SPDX-License-Identifier: MIT */
/*
 * wet_stream.c — building a tier-2 stream (per segment: warm-up, method
 * choice, coding) and reading it by index (wet_stream.h).  At most one segment
 * of a stream is open at a time: its predictor tables are dense in the
 * stream's state, every other segment keeps only their non-zero entries.
 */
#include "analysis/wet/wet_stream.h"
#include "analysis/wet/wet_stream_internal.h"

#include <stdlib.h>
#include <string.h>

#define NO_SEGMENT     UINT32_MAX
#define MAX_TABLE_BITS 12
#define MIN_TABLE_BITS 4

const struct wet_method wet_candidates[] = {
    {WET_FCM, 1, 0},	       {WET_FCM, 2, 0},		  {WET_FCM, 3, 0},
    {WET_DFCM, 1, 0},	       {WET_DFCM, 2, 0},	  {WET_DFCM, 3, 0},
    {WET_LAST_N, 1, 0},	       {WET_LAST_N, 4, 0},	  {WET_LAST_N, 16, 0},
    {WET_LAST_N_STRIDE, 1, 0}, {WET_LAST_N_STRIDE, 4, 0}, {WET_LAST_N_STRIDE, 16, 0},
    {WET_VERBATIM, 1, 0},
};
const unsigned wet_ncandidates = sizeof(wet_candidates) / sizeof(wet_candidates[0]);

/* --- segments in a stream ---------------------------------------------- */

static int close_open(struct wet_stream *s)
{
	struct wet_seg *seg;

	if (s->open == NO_SEGMENT)
		return 0;
	seg = &s->segs[s->open];
	if (wet_seg_close(&seg->method, seg, s->st) < 0)
		return -1;
	s->open = NO_SEGMENT;
	return 0;
}

/* Make segment k the open one (its state in s->st). */
static int open_segment(struct wet_stream *s, uint32_t k)
{
	if (s->open == k)
		return 0;
	if (s->lazy && wet_stream_materialize(s) < 0)
		return -1;
	if (k >= s->nsegs)
		return -1;
	if (close_open(s) < 0)
		return -1;
	if (!s->st && !(s->st = calloc(1, sizeof(*s->st))))
		return -1;
	/* The dense tables are made the first time a table kind needs them. */
	if (s->segs[k].method.table_bits && !s->st->left_tab &&
	    wet_state_init(s->st, &s->segs[k].method) < 0)
		return -1;
	wet_seg_open(&s->segs[k].method, &s->segs[k], s->st);
	s->open = k;
	return 0;
}

static struct wet_stream *stream_new(uint32_t seg_len)
{
	struct wet_stream *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->seg_len = seg_len;
	s->open = NO_SEGMENT;
	return s;
}

int wet_seg_rewind(const struct wet_method *m, struct wet_seg *seg, struct wet_state *st)
{
	while (seg->pos > 0)
		if (wet_seg_backward(m, seg, st) < 0)
			return -1;
	return 0;
}

int wet_stream_park(struct wet_stream *s, uint32_t k)
{
	if (open_segment(s, k) < 0)
		return -1;
	return wet_seg_rewind(&s->segs[k].method, &s->segs[k], s->st);
}

/* Start the next segment, coded with m; the one before rests at its start. */
static int start_segment(struct wet_stream *s, const struct wet_method *m)
{
	if (s->nsegs && wet_stream_park(s, s->nsegs - 1) < 0)
		return -1;
	if (s->nsegs == s->cap_segs) {
		uint32_t cap = s->cap_segs ? 2 * s->cap_segs : 1;
		struct wet_seg *segs;

		/* Segment numbers are 32-bit (2^31 segments: trillions of values). */
		if (s->cap_segs > UINT32_MAX / 2)
			return -1;
		segs = realloc(s->segs, (size_t)cap * sizeof(*segs));
		if (!segs)
			return -1;
		s->segs = segs;
		s->cap_segs = cap;
	}
	s->segs[s->nsegs] = (struct wet_seg){.method = *m};
	s->nsegs++;
	return open_segment(s, s->nsegs - 1);
}

/* Append to the last segment, which has room. */
static int stream_append(struct wet_stream *s, uint64_t x)
{
	struct wet_seg *seg = &s->segs[s->nsegs - 1];

	/* The builder may have released the segment (wet_builder_release). */
	if (open_segment(s, s->nsegs - 1) < 0 || wet_seg_append(&seg->method, seg, s->st, x) < 0)
		return -1;
	s->count++;
	return 0;
}

static void drop_state(struct wet_stream *s)
{
	if (!s->st)
		return;
	wet_state_free(s->st);
	free(s->st);
	s->st = NULL;
}

int wet_stream_release(struct wet_stream *s)
{
	if (close_open(s) < 0)
		return -1;
	drop_state(s);
	return 0;
}

void wet_stream_free(struct wet_stream *s)
{
	if (!s)
		return;
	for (uint32_t i = 0; i < s->nsegs; i++)
		wet_seg_free(&s->segs[i]);
	free(s->segs);
	drop_state(s);
	free(s);
}

int wet_stream_get(struct wet_stream *s, uint64_t i, uint64_t *x)
{
	struct wet_seg *seg;
	uint32_t target;

	if (i >= s->count || wet_stream_materialize(s) < 0)
		return -1;
	if (open_segment(s, (uint32_t)(i / s->seg_len)) < 0)
		return -1;
	seg = &s->segs[s->open];
	target = (uint32_t)(i % s->seg_len) + 1;
	while (seg->pos < target)
		if (wet_seg_forward(&seg->method, seg, s->st) < 0)
			return -1;
	while (seg->pos > target)
		if (wet_seg_backward(&seg->method, seg, s->st) < 0)
			return -1;
	*x = wet_seg_current(&seg->method, seg);
	return 0;
}

/* --- building ---------------------------------------------------------- */

int wet_builder_init(struct wet_builder *b, const struct wet_stream_opts *opts)
{
	*b = (struct wet_builder){0};
	if (opts)
		b->opts = *opts;
	if (!b->opts.seg_len)
		b->opts.seg_len = WET_DEFAULT_SEG_LEN;
	if (!b->opts.warmup)
		b->opts.warmup = WET_DEFAULT_WARMUP;
	if (b->opts.seg_len > WET_MAX_SEG_LEN ||
	    (b->opts.method && wet_method_check(b->opts.method) < 0))
		return -1;
	/* The warm-up is the start of a segment. */
	if (b->opts.warmup > b->opts.seg_len)
		b->opts.warmup = b->opts.seg_len;
	b->s = stream_new(b->opts.seg_len);
	if (!b->s) {
		wet_builder_abort(b);
		return -1;
	}
	return 0;
}

static unsigned ceil_log2(uint64_t n)
{
	return n <= 1 ? 0 : 64 - (unsigned)__builtin_clzll(n - 1);
}

/* Bytes the warm-up values take coded with m, as they would be stored
 * (SIZE_MAX when out of memory).  Measured at rest, where the coding is
 * the one against the other side's context: sizes at the end differ by
 * too much (a tenth on an interpreter's values) to choose by. */
static size_t trial_size(const struct wet_method *m, const uint64_t *v, uint32_t n)
{
	struct wet_state st;
	struct wet_seg seg = {.method = *m};
	size_t size = SIZE_MAX;
	uint32_t i;

	if (wet_state_init(&st, m) < 0)
		return SIZE_MAX;
	for (i = 0; i < n; i++)
		if (wet_seg_append(m, &seg, &st, v[i]) < 0)
			break;
	if (i == n && wet_seg_rewind(m, &seg, &st) == 0 && wet_seg_close(m, &seg, &st) == 0)
		size = wet_seg_serial_size(&seg);
	wet_seg_free(&seg);
	wet_state_free(&st);
	return size;
}

/* The table size of every FCM/DFCM segment of the stream, fixed at the
 * first choice: as large as a segment needs, known to be smaller only when
 * the stream ended inside its first warm-up. */
static unsigned table_bits(const struct wet_builder *b)
{
	uint64_t expected =
	    b->s->nsegs == 0 && b->nwarm < b->opts.warmup ? b->nwarm : b->opts.seg_len;
	unsigned bits = ceil_log2(expected) + 1;

	return bits < MIN_TABLE_BITS   ? MIN_TABLE_BITS
	       : bits > MAX_TABLE_BITS ? MAX_TABLE_BITS
				       : bits;
}

/* Choose the next segment's method on the buffered values, start the
 * segment and code them. */
static int choose_segment(struct wet_builder *b)
{
	struct wet_method best = {0};
	size_t best_size = SIZE_MAX;

	if (!b->s->table_bits)
		b->s->table_bits =
		    (uint8_t)(b->opts.method ? b->opts.method->table_bits : table_bits(b));
	if (b->opts.method) {
		best = *b->opts.method;
	} else {
		for (unsigned i = 0; i < wet_ncandidates; i++) {
			struct wet_method m = wet_candidates[i];
			size_t size;

			if (m.kind == WET_FCM || m.kind == WET_DFCM)
				m.table_bits = b->s->table_bits;
			size = trial_size(&m, b->warm, b->nwarm);
			if (size < best_size) {
				best_size = size;
				best = m;
			}
		}
		if (best_size == SIZE_MAX)
			return -1;
	}
	if (start_segment(b->s, &best) < 0)
		return -1;
	for (uint32_t i = 0; i < b->nwarm; i++)
		if (stream_append(b->s, b->warm[i]) < 0)
			return -1;
	b->nwarm = 0;
	return 0;
}

int wet_builder_add(struct wet_builder *b, uint64_t x)
{
	struct wet_stream *s = b->s;

	/* Past the warm-up of the last segment, with room in it: code now. */
	if (!b->nwarm && s->nsegs && s->count % s->seg_len)
		return stream_append(s, x);
	/* The warm-up buffer grows as it fills: a builder of many streams
	 * (the WET's) holds thousands that never see a full warm-up. */
	if (b->nwarm == b->cap_warm) {
		uint32_t nc = b->cap_warm ? 2 * b->cap_warm : 16;
		uint64_t *w =
		    realloc(b->warm, (nc < b->opts.warmup ? nc : b->opts.warmup) * sizeof(*w));
		if (!w)
			return -1;
		b->warm = w;
		b->cap_warm = nc < b->opts.warmup ? nc : b->opts.warmup;
	}
	b->warm[b->nwarm++] = x;
	return b->nwarm == b->opts.warmup ? choose_segment(b) : 0;
}

int wet_builder_release(struct wet_builder *b)
{
	return wet_stream_release(b->s);
}

int wet_builder_settle(struct wet_builder *b, uint32_t min)
{
	if (b->nwarm && b->nwarm >= min && choose_segment(b) < 0)
		return -1;
	if (!b->nwarm) {
		free(b->warm);
		b->warm = NULL;
		b->cap_warm = 0;
	}
	return wet_stream_release(b->s);
}

struct wet_stream *wet_builder_finish(struct wet_builder *b)
{
	struct wet_stream *s;

	if (b->nwarm && choose_segment(b) < 0) {
		wet_builder_abort(b);
		return NULL;
	}
	s = b->s;
	b->s = NULL;
	wet_builder_abort(b);
	if ((s->nsegs && wet_stream_park(s, s->nsegs - 1) < 0) || wet_stream_release(s) < 0) {
		wet_stream_free(s);
		return NULL;
	}
	return s;
}

void wet_builder_abort(struct wet_builder *b)
{
	free(b->warm);
	wet_stream_free(b->s);
	*b = (struct wet_builder){0};
}
