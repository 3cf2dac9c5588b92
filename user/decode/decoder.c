/* SPDX-License-Identifier: MIT */
/*
 * decoder.c — word decoding over an assembled stream (see decoder.h).
 */
#include "decoder.h"

#include <stdlib.h>

#include "log.h"
#include "wpp/trace_abi.h"

/* The last record read at one signal depth: what a REPEAT word repeats. */
struct last_record {
	int valid;
	uint32_t fid;
	uint64_t value;
	uint64_t repeats; /* repetitions emitted since it was read */
};

struct wpp_decoder {
	const struct wpp_image_map *image;
	unsigned flags;
	struct wpp_stream stream;
	size_t seg;   /* current segment */
	uint32_t pos; /* next word in it */
	struct wpp_decode_stats stats;
	struct wpp_path path;
	uint32_t *blocks;
	uint32_t blocks_cap;
	/* d->path holds the expansion of (expanded_fn, expanded_value) while
	 * expanded_fn is set: a run repeats one path, expand it once. */
	const struct wpp_fn *expanded_fn;
	uint64_t expanded_value;
	/* Per signal depth (a handler's records interleave with, but never
	 * continue, the interrupted level's run). */
	struct last_record *last;
	uint32_t nlast;
	uint32_t depth; /* signal depth of the last word taken */
	/* Repetitions still to emit, and where their REPEAT word sat. */
	uint64_t pending;
	uint64_t pending_seq;
	uint32_t pending_word, pending_depth;
};

struct wpp_decoder *wpp_decoder_open(const struct wpp_thread_trace *th, struct wpp_modules *mods,
				     unsigned flags)
{
	struct wpp_decoder *d = calloc(1, sizeof(*d));

	if (!d || wpp_stream_assemble(th, &d->stream) < 0) {
		free(d);
		wpp_err("out of memory assembling the stream of thread %u", th->tid);
		return NULL;
	}
	d->image = wpp_modules_image(mods, th->pid, th->generation);
	d->flags = flags;
	if (d->stream.nsegs)
		d->pos = d->stream.segs[0].from;
	return d;
}

void wpp_decoder_close(struct wpp_decoder *d)
{
	if (!d)
		return;
	wpp_stream_free(&d->stream);
	free(d->blocks);
	free(d->last);
	free(d);
}

const struct wpp_decode_stats *wpp_decoder_stats(const struct wpp_decoder *d) { return &d->stats; }
const struct wpp_stream *wpp_decoder_stream(const struct wpp_decoder *d) { return &d->stream; }

enum peek { PEEK_END, PEEK_GAP, PEEK_WORD };

/* Advance past exhausted segments; say what comes next without consuming it. */
static enum peek peek(struct wpp_decoder *d)
{
	while (d->seg < d->stream.nsegs) {
		const struct wpp_segment *s = &d->stream.segs[d->seg];
		if (s->kind == WPP_SEG_GAP)
			return PEEK_GAP;
		if (d->pos < s->to)
			return PEEK_WORD;
		if (++d->seg < d->stream.nsegs)
			d->pos = d->stream.segs[d->seg].from;
	}
	return PEEK_END;
}

static void next_segment(struct wpp_decoder *d)
{
	if (++d->seg < d->stream.nsegs)
		d->pos = d->stream.segs[d->seg].from;
}

static struct last_record *last_at(struct wpp_decoder *d, uint32_t depth)
{
	if (depth >= d->nlast) {
		uint32_t n = depth + 4;
		struct last_record *grown = realloc(d->last, n * sizeof(*grown));
		if (!grown)
			wpp_die("out of memory");
		for (uint32_t i = d->nlast; i < n; i++)
			grown[i] = (struct last_record){0};
		d->last = grown;
		d->nlast = n;
	}
	return &d->last[depth];
}

/* A handler entered anew starts with nothing to repeat at its depth (and
 * deeper): runs never cross a handler's return. */
static void enter_depth(struct wpp_decoder *d, uint32_t depth)
{
	for (uint32_t k = d->depth + 1; k <= depth && k < d->nlast; k++)
		d->last[k].valid = 0;
	d->depth = depth;
}

static void forget_all_records(struct wpp_decoder *d)
{
	for (uint32_t k = 0; k < d->nlast; k++)
		d->last[k].valid = 0;
}

/* Only after peek() == PEEK_WORD. */
static uint64_t take_word(struct wpp_decoder *d)
{
	const struct wpp_segment *s = &d->stream.segs[d->seg];
	if (s->signal_depth != d->depth)
		enter_depth(d, s->signal_depth);
	d->stats.words++;
	return wpp_batch_word(s->batch, d->pos++);
}

static int corrupt(struct wpp_decoder *d, struct wpp_event *ev, const char *why)
{
	last_at(d, ev->signal_depth)->valid = 0;
	ev->kind = WPP_EV_CORRUPT;
	ev->reason = why;
	d->stats.corrupt++;
	return 1;
}

static int record(struct wpp_decoder *d, struct wpp_event *ev, uint32_t fid, uint64_t value)
{
	const struct wpp_fid_range *range;
	const struct wpp_fn *fn;
	enum wpp_resolve r;

	ev->fid = fid;
	ev->value = value;
	if (fid == WPP_FID_UNREGISTERED) {
		ev->kind = WPP_EV_UNATTRIBUTED;
		ev->reason = "recorded before its module registered";
		d->stats.unattributed++;
		return 1;
	}
	r = wpp_image_resolve(d->image, fid, &fn, &range);
	if (r != WPP_RESOLVED) {
		ev->kind = WPP_EV_UNATTRIBUTED;
		ev->reason = wpp_resolve_reason(r);
		d->stats.unattributed++;
		return 1;
	}
	ev->fn = fn;
	if (fn->tu->mode == WPP_MODE_BLOCKS) {
		if (value >= fn->nblocks)
			return corrupt(d, ev, "block index out of range");
		ev->kind = WPP_EV_BLOCK;
		d->stats.blocks++;
		return 1;
	}
	if ((d->flags & WPP_DECODE_EXPAND) && d->expanded_fn == fn && d->expanded_value == value) {
		ev->path = &d->path;
	} else if (d->flags & WPP_DECODE_EXPAND) {
		d->expanded_fn = NULL;
		if (fn->nblocks + 1 > d->blocks_cap) {
			free(d->blocks);
			d->blocks_cap = fn->nblocks + 1;
			d->blocks = malloc((size_t)d->blocks_cap * sizeof(*d->blocks));
			if (!d->blocks)
				wpp_die("out of memory");
		}
		if (wpp_path_expand(fn, value, d->blocks, d->blocks_cap, &d->path) < 0)
			return corrupt(d, ev, "path id is not a path of the function's DAG");
		d->expanded_fn = fn;
		d->expanded_value = value;
		ev->path = &d->path;
	}
	ev->kind = WPP_EV_PATH;
	d->stats.paths++;
	return 1;
}

/* The k-th repetition of the record last read at the REPEAT word's depth. */
static int emit_repeat(struct wpp_decoder *d, struct wpp_event *ev)
{
	struct last_record *last = &d->last[d->pending_depth];

	d->pending--;
	*ev = (struct wpp_event){.signal_depth = d->pending_depth,
				 .batch_seq = d->pending_seq,
				 .word_index = d->pending_word,
				 .repeat = ++last->repeats};
	d->stats.repeats++;
	return record(d, ev, last->fid, last->value);
}

static int read_repeat(struct wpp_decoder *d, struct wpp_event *ev, uint32_t n)
{
	struct last_record *last = last_at(d, ev->signal_depth);

	d->stats.repeat_words++;
	if (n == 0)
		return corrupt(d, ev, "repeat count of zero");
	if (!last->valid) {
		/* Whose repetitions these are was lost with what came before. */
		ev->kind = WPP_EV_UNATTRIBUTED;
		ev->reason = "repeat count with no record before it";
		ev->lost_words = n;
		d->stats.unattributed += n;
		return 1;
	}
	d->pending = n;
	d->pending_seq = ev->batch_seq;
	d->pending_word = ev->word_index;
	d->pending_depth = ev->signal_depth;
	return emit_repeat(d, ev);
}

/* A record as written: remembered so that REPEAT words can repeat it. */
static int read_record(struct wpp_decoder *d, struct wpp_event *ev, uint32_t fid, uint64_t value)
{
	*last_at(d, ev->signal_depth) = (struct last_record){.valid = 1, .fid = fid, .value = value};
	return record(d, ev, fid, value);
}

int wpp_decoder_next(struct wpp_decoder *d, struct wpp_event *ev)
{
	if (d->pending)
		return emit_repeat(d, ev);
	for (;;) {
		enum peek p = peek(d);
		const struct wpp_segment *s;
		uint64_t w;
		uint32_t fid;

		if (p == PEEK_END)
			return 0;
		s = &d->stream.segs[d->seg];
		*ev = (struct wpp_event){.signal_depth = s->signal_depth};
		if (p == PEEK_GAP) {
			forget_all_records(d);
			ev->kind = WPP_EV_GAP;
			ev->lost_words = s->lost_words;
			ev->lost_batches = s->lost_batches;
			d->stats.gaps++;
			if (s->lost_words == WPP_LOST_UNKNOWN)
				d->stats.unknown_gaps++;
			else
				d->stats.lost_words += s->lost_words;
			next_segment(d);
			return 1;
		}
		ev->batch_seq = s->batch->seq;
		ev->word_index = d->pos;
		w = take_word(d);
		fid = wpp_word_fid(w);
		if (w == 0) {
			d->stats.zero_words++;
			continue;
		}
		if (fid != WPP_FID_CONTROL)
			return read_record(d, ev, fid, wpp_word_payload(w));
		ev->value = wpp_word_payload(w);
		switch (wpp_ctrl_op(w)) {
		case WPP_CTRL_PAD:
			d->stats.pad_words++;
			continue;
		case WPP_CTRL_WIDE_PATH: {
			if (peek(d) != PEEK_WORD || d->stream.segs[d->seg].signal_depth != ev->signal_depth)
				return corrupt(d, ev, "wide path record cut short");
			uint64_t id = take_word(d);
			if (!(id & WPP_WIDE_ID_MARK))
				return corrupt(d, ev, "wide path id without its mark bit");
			return read_record(d, ev, wpp_ctrl_operand(w), id & ~WPP_WIDE_ID_MARK);
		}
		case WPP_CTRL_REPEAT:
			return read_repeat(d, ev, wpp_ctrl_operand(w));
		case WPP_CTRL_GAP:
			forget_all_records(d);
			if (peek(d) != PEEK_WORD || d->stream.segs[d->seg].signal_depth != ev->signal_depth)
				return corrupt(d, ev, "gap marker without its count");
			ev->kind = WPP_EV_GAP;
			ev->lost_words = take_word(d);
			ev->lost_batches = 0;
			d->stats.gaps++;
			d->stats.lost_words += ev->lost_words;
			return 1;
		default:
			return corrupt(d, ev, "unknown control word");
		}
	}
}

void wpp_decode_stats_add(struct wpp_decode_stats *a, const struct wpp_decode_stats *b)
{
	a->words += b->words;
	a->paths += b->paths;
	a->blocks += b->blocks;
	a->gaps += b->gaps;
	a->lost_words += b->lost_words;
	a->unknown_gaps += b->unknown_gaps;
	a->unattributed += b->unattributed;
	a->corrupt += b->corrupt;
	a->zero_words += b->zero_words;
	a->pad_words += b->pad_words;
	a->repeat_words += b->repeat_words;
	a->repeats += b->repeats;
}
