/* SPDX-License-Identifier: MIT */
/*
 * decoder.c — word decoding over an assembled stream (see decoder.h).
 */
#include "decode/decoder.h"

#include <stdlib.h>
#include <string.h>

#include "decode/batch_words.h"
#include "common/log.h"
#include "decode/trace_words.h"
#include "decode/wet_values.h"
#include "wpp/trace_abi.h"
#include "wpp/wet_abi.h"

struct wpp_decoder {
	const struct wpp_image_map *image;
	unsigned flags;
	struct wpp_stream stream;
	size_t seg;   /* current segment */
	uint32_t pos; /* next word in it */
	/* The words of the current segment's batch, held (batch_words.h)
	 * while the decoder is in it. */
	const struct wpp_batch_ref *held;
	const unsigned char *words;
	struct wpp_decode_stats stats;
	struct wpp_path path;
	uint32_t *blocks;
	uint32_t blocks_cap;
	/* d->path holds the expansion of (expanded_fn, expanded_value) while
	 * expanded_fn is set: a run repeats one path, expand it once. */
	const struct wpp_fn *expanded_fn;
	uint64_t expanded_value;
	/* The word reader (trace_words.h): REPEAT state per signal depth. */
	struct wpp_words reader;
	/* Repetitions still to emit: of (pending_fid, pending_value), the next
	 * being repetition number pending_k, and where their REPEAT word sat. */
	uint64_t pending, pending_k, pending_value, pending_seq;
	uint32_t pending_fid, pending_word, pending_depth;
	/* The value slots of the last WET record (decoder.h). */
	int64_t *values;
	uint64_t values_cap;
};

/* Now at segment d->seg (or past the end): start at its first word and
 * hold its batch's words, letting go of the previous batch's (after: the
 * same chunk is not decoded twice when both batches are in it). */
static void enter(struct wpp_decoder *d)
{
	const struct wpp_batch_ref *want = NULL;

	if (d->seg < d->stream.nsegs) {
		const struct wpp_segment *s = &d->stream.segs[d->seg];
		d->pos = s->from;
		if (s->kind == WPP_SEG_WORDS)
			want = s->batch;
	}
	if (want == d->held)
		return;
	if (want)
		d->words = wpp_batch_words_get(want);
	if (d->held)
		wpp_batch_words_put(d->held);
	d->held = want;
}

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
	wpp_words_init(&d->reader, (struct wpp_words_sink){0}); /* read, not fed */
	enter(d);
	return d;
}

void wpp_decoder_close(struct wpp_decoder *d)
{
	if (!d)
		return;
	if (d->held)
		wpp_batch_words_put(d->held);
	wpp_stream_free(&d->stream);
	free(d->blocks);
	free(d->values);
	free(d);
}

const struct wpp_decode_stats *wpp_decoder_stats(const struct wpp_decoder *d)
{
	return &d->stats;
}
const struct wpp_stream *wpp_decoder_stream(const struct wpp_decoder *d)
{
	return &d->stream;
}

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
		d->seg++;
		enter(d);
	}
	return PEEK_END;
}

static void next_segment(struct wpp_decoder *d)
{
	d->seg++;
	enter(d);
}

/* Only after peek() == PEEK_WORD. */
static uint64_t take_word(struct wpp_decoder *d)
{
	uint64_t w;

	d->stats.words++;
	memcpy(&w, d->words + (size_t)d->pos++ * 8, 8);
	return w; /* x86-64 only (see the brief): host order is little-endian */
}

static int corrupt(struct wpp_decoder *d, struct wpp_event *ev, const char *why)
{
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
	if (fn->tpp) { /* a counter of a TPP plan: which path it stands for */
		switch (wpp_tpp_counter_path(fn, value, &value)) {
		case WPP_TPP_COUNTER_PATH:
			ev->value = value;
			break;
		case WPP_TPP_COUNTER_COLD:
			ev->tpp_cold = 1;
			ev->kind = WPP_EV_UNATTRIBUTED;
			ev->reason = "cold paths (targeted path profiling counts them together)";
			d->stats.unattributed++;
			return 1;
		case WPP_TPP_COUNTER_PIECE:
			ev->tpp_piece = 1;
			ev->kind = WPP_EV_UNATTRIBUTED;
			ev->reason = "a disconnected loop's path piece (targeted path profiling)";
			d->stats.unattributed++;
			return 1;
		case WPP_TPP_COUNTER_BAD:
			return corrupt(d, ev, "counter is not one of the function's TPP plan");
		}
	}
	if (fn->tu->mode == WPP_MODE_BLOCKS) {
		if (value >= fn->nblocks)
			return corrupt(d, ev, "block index out of range");
		ev->kind = WPP_EV_BLOCK;
		d->stats.blocks++;
		return 1;
	}
	/* A WET record's slots follow from its blocks: always expanded. */
	int expand = (d->flags & WPP_DECODE_EXPAND) || fn->wet;
	if (expand && d->expanded_fn == fn && d->expanded_value == value) {
		ev->path = &d->path;
	} else if (expand) {
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
	if (fn->wet)
		ev->wet = WPP_WET_LOST; /* until its values are read */
	d->stats.paths++;
	return 1;
}

/* The next repetition of a run being emitted, or with WPP_DECODE_RUNS all
 * of them as one event: its stats count every execution. */
static int emit_repeat(struct wpp_decoder *d, struct wpp_event *ev)
{
	uint64_t times = d->flags & WPP_DECODE_RUNS ? d->pending : 1;

	d->pending -= times;
	*ev = (struct wpp_event){.signal_depth = d->pending_depth,
				 .batch_seq = d->pending_seq,
				 .word_index = d->pending_word,
				 .repeat = d->pending_k};
	d->pending_k += times;
	d->stats.repeats += times;
	record(d, ev, d->pending_fid, d->pending_value);
	ev->times = times;
	if (ev->kind == WPP_EV_PATH && ev->fn->wet) {
		/* Wet mode writes no runs: these repetitions carry no values. */
		d->stats.wet_records += times;
		d->stats.wet_lost += times;
	}
	if (times > 1) {
		uint64_t more = times - 1;
		switch (ev->kind) {
		case WPP_EV_PATH:
			d->stats.paths += more;
			break;
		case WPP_EV_BLOCK:
			d->stats.blocks += more;
			break;
		case WPP_EV_UNATTRIBUTED:
			d->stats.unattributed += more;
			break;
		case WPP_EV_CORRUPT:
			d->stats.corrupt += more;
			break;
		case WPP_EV_GAP:
			break;
		}
	}
	return 1;
}

static int gap(struct wpp_decoder *d, struct wpp_event *ev, uint64_t lost_words)
{
	ev->kind = WPP_EV_GAP;
	ev->lost_words = lost_words;
	d->stats.gaps++;
	if (lost_words == WPP_LOST_UNKNOWN)
		d->stats.unknown_gaps++;
	else
		d->stats.lost_words += lost_words;
	return 1;
}

/* Control-word statistics the reader has no reason to keep. */
static void count_control(struct wpp_decoder *d, uint64_t w)
{
	if (w == 0)
		d->stats.zero_words++;
	else if (wpp_ctrl_op(w) == WPP_CTRL_PAD)
		d->stats.pad_words++;
	else if (wpp_ctrl_op(w) == WPP_CTRL_REPEAT)
		d->stats.repeat_words++;
}

/* The event of one item the reader found; 0 if it was none (zero, PAD). */
static int item_event(struct wpp_decoder *d, struct wpp_event *ev, const struct wpp_word_item *it)
{
	switch (it->kind) {
	case WPP_WORD_NOTHING:
	case WPP_WORD_VALUE: /* read by wpp_decoder_next itself */
		return 0;
	case WPP_WORD_RECORDS:
		if (!it->first_repeat)
			return record(d, ev, it->fid, it->value);
		d->pending = it->times;
		d->pending_k = it->first_repeat;
		d->pending_fid = it->fid;
		d->pending_value = it->value;
		d->pending_seq = ev->batch_seq;
		d->pending_word = ev->word_index;
		d->pending_depth = ev->signal_depth;
		return emit_repeat(d, ev);
	case WPP_WORD_GAP:
		return gap(d, ev, it->times);
	case WPP_WORD_MALFORMED:
		return corrupt(d, ev, it->why);
	case WPP_WORD_UNATTRIBUTABLE:
		/* Whose repetitions these are was lost with what came before. */
		ev->kind = WPP_EV_UNATTRIBUTED;
		ev->reason = "repeat count with no record before it";
		ev->lost_words = it->times;
		d->stats.unattributed += it->times;
		return 1;
	}
	return 0;
}

/* The next word, if it is at signal depth `depth`, not consumed. */
static int next_word_at(struct wpp_decoder *d, uint32_t depth, uint64_t *w)
{
	if (peek(d) != PEEK_WORD || d->stream.segs[d->seg].signal_depth != depth)
		return 0;
	memcpy(w, d->words + (size_t)d->pos * 8, 8);
	return 1;
}

/* Value words from here on at `depth` (wet_abi.h): each slot's value into
 * d->values while there is room for `want`; the slots there were, or
 * UINT64_MAX when one was malformed.  *words: the words taken. */
static uint64_t read_slots(struct wpp_decoder *d, uint32_t depth, uint64_t want, uint64_t *words)
{
	uint64_t got = 0, w[2];
	int bad = 0;

	*words = 0;
	while (next_word_at(d, depth, &w[0]) && wpp_wet_is_value_word(w[0])) {
		int64_t v = 0;
		take_word(d);
		++*words;
		if (w[0] == WPP_WET_ESCAPE) {
			if (!next_word_at(d, depth, &w[1])) {
				bad = 1;
				break;
			}
			take_word(d);
			++*words;
		}
		if (wpp_wet_decode(w, w[0] == WPP_WET_ESCAPE ? 2 : 1, &v) == 0)
			bad = 1;
		if (got < want) {
			/* Grown with the words there are, not with what the
			 * metadata claims (a crafted one may claim billions). */
			if (got == d->values_cap) {
				uint64_t cap = d->values_cap ? 2 * d->values_cap : 64;
				int64_t *grown = realloc(d->values, cap * sizeof(*grown));
				if (!grown)
					wpp_die("out of memory");
				d->values = grown;
				d->values_cap = cap;
			}
			d->values[got] = v;
		}
		got++;
	}
	return bad ? UINT64_MAX : got;
}

/* The record of a WET path just read: its value slots (decoder.h). */
static void read_values(struct wpp_decoder *d, struct wpp_event *ev)
{
	uint64_t want = wpp_wet_path_nslots(ev->fn, ev->path), words, got;

	d->stats.wet_records++;
	got = read_slots(d, ev->signal_depth, want, &words);
	if (got != want || want > UINT32_MAX) {
		ev->wet = WPP_WET_LOST;
		d->stats.wet_lost++;
		d->stats.wet_lost_words += words;
		return;
	}
	ev->wet = WPP_WET_OK;
	ev->values = d->values;
	ev->nvalues = (uint32_t)want;
	d->stats.wet_values += want;
}

int wpp_decoder_next(struct wpp_decoder *d, struct wpp_event *ev)
{
	if (d->pending)
		return emit_repeat(d, ev);
	for (;;) {
		enum peek p = peek(d);
		const struct wpp_segment *s;
		struct wpp_word_item it;
		uint64_t w[2];
		size_t n = 1;

		if (p == PEEK_END)
			return 0;
		s = &d->stream.segs[d->seg];
		*ev = (struct wpp_event){.signal_depth = s->signal_depth, .times = 1};
		if (p == PEEK_GAP) {
			ev->lost_batches = s->lost_batches;
			next_segment(d);
			wpp_words_lost(&d->reader);
			return gap(d, ev, s->lost_words);
		}
		ev->batch_seq = s->batch->seq;
		ev->word_index = d->pos;
		w[0] = take_word(d);
		if (wpp_word_fid(w[0]) == WPP_FID_CONTROL)
			count_control(d, w[0]);
		/* A pair may straddle two batches of one depth; anything else
		 * after its first word cuts it short. */
		if (wpp_word_opens_pair(w[0]) && peek(d) == PEEK_WORD &&
		    d->stream.segs[d->seg].signal_depth == ev->signal_depth)
			w[n++] = take_word(d);
		wpp_words_read(&d->reader, w, n, ev->signal_depth, &it);
		if (it.kind == WPP_WORD_VALUE) {
			/* Value words no record owns: a torn record (its path
			 * word was never written) or a damaged stream. */
			uint64_t more;
			read_slots(d, ev->signal_depth, 0, &more);
			ev->kind = WPP_EV_CORRUPT;
			ev->reason = "value words outside a WET record";
			ev->lost_words = it.nwords + more;
			d->stats.corrupt++;
			d->stats.wet_lost_words += it.nwords + more;
			return 1;
		}
		if (item_event(d, ev, &it)) {
			/* The values of a record that cannot be placed
			 * (unregistered, unknown fid, not a path) are the
			 * CORRUPT run that follows it. */
			if (ev->kind == WPP_EV_PATH && !ev->repeat && ev->fn->wet)
				read_values(d, ev);
			return 1;
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
	a->wet_records += b->wet_records;
	a->wet_values += b->wet_values;
	a->wet_lost += b->wet_lost;
	a->wet_lost_words += b->wet_lost_words;
}
