/* SPDX-License-Identifier: MIT */
/*
 * cost_attr.c — samples -> path executions (costs.h).
 *
 * Samples grouped by thread (of the process image their time falls in),
 * each position resolved to (batch seq, word) or classified as outside
 * the recording or lost (cost_position.c), then one decoder pass per
 * thread matching records by where they start.  Every sample ends up
 * either as a hit or in exactly one miss class.
 */
#include "costs/costs.h"

#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "costs/cost_position.h"
#include "costs/cost_run_end.h"
#include "costs/cost_scale.h"

struct target {
	uint64_t seq;
	uint32_t word;
	uint32_t gen;  /* the image the sample belongs to (image_at) */
	size_t sample; /* index into cd->samples */
};

static int target_cmp(const void *a, const void *b)
{
	const struct target *x = a, *y = b;
	if (x->seq != y->seq)
		return x->seq < y->seq ? -1 : 1;
	if (x->word != y->word)
		return x->word < y->word ? -1 : 1;
	return x->sample < y->sample ? -1 : x->sample > y->sample;
}

static void miss(struct cost_attribution *a, enum cost_miss why, const struct wpp_sample *s)
{
	a->missed[why]++;
	a->missed_weight += s->value;
}

static int push_hit(struct cost_attribution *a, size_t *cap, const struct cost_hit *h)
{
	if (a->nhits == *cap) {
		size_t ncap = *cap ? *cap * 2 : 1024;
		struct cost_hit *g = realloc(a->hits, ncap * sizeof(*g));
		if (!g)
			return -1;
		a->hits = g;
		*cap = ncap;
	}
	a->hits[a->nhits++] = *h;
	return 0;
}

/* Samples with no stream position, and positions resolved to (seq, word)
 * or classified (cost_position.h).  Returns how many remain to be matched;
 * they are moved to the front of tg, sorted by position. */
static size_t locate_targets(const struct wpp_thread_trace *th, const struct cost_data *cd,
			     struct target *tg, size_t ntg, struct cost_attribution *a, int *oom)
{
	struct cost_batch_index *ix = cost_batch_index_new(th);
	size_t live = 0;

	*oom = !ix;
	if (!ix)
		return 0;
	for (size_t i = 0; i < ntg; i++) {
		const struct wpp_sample *s = &cd->samples[tg[i].sample];
		/* Batch numbers start at 1: "in batch 0" was read while the
		 * runtime published a buffer (number cleared, pointer not yet;
		 * collectors before 2026-11-26 reported that), the buffer switch. */
		int in_switch = (s->pos == WPP_POS_BUFFER || s->pos == WPP_POS_NUMBERED) && !s->seq;
		switch (in_switch ? WPP_POS_UNKNOWN : s->pos) {
		case WPP_POS_BUFFER:
		case WPP_POS_NEXT:
		case WPP_POS_NUMBERED:
			switch (cost_locate(ix, s, &tg[i].seq, &tg[i].word)) {
			case COST_AT_RECORD:
				tg[live++] = tg[i];
				break;
			case COST_IN_LOST:
				miss(a, COST_MISS_LOST, s);
				break;
			case COST_AFTER_END:
				miss(a, COST_MISS_AFTER_END, s);
				break;
			}
			break;
		case WPP_POS_UNREGISTERED:
			miss(a, COST_MISS_NOT_RECORDING, s);
			break;
		case WPP_POS_DISCARD:
			miss(a, COST_MISS_DISCARD, s);
			break;
		default:
			miss(a, COST_MISS_NO_POSITION, s);
			break;
		}
	}
	cost_batch_index_free(ix);
	qsort(tg, live, sizeof(*tg), target_cmp);
	return live;
}

/* The hits of samples at a run's REPEAT slot, waiting for the end of the
 * run (cost_run_end.h): hits[first..] of the current thread, each on the
 * first repeated instance of its REPEAT word, with the run count its
 * registers showed where known. */
struct run_pending {
	int active;
	size_t first;	 /* the run's hits: hits[first..nhits) */
	size_t first_ip; /* hits the ip rule may move: at the last REPEAT word's slot */
	uint32_t depth;
	struct run_end_rec run;
	uint64_t first_event; /* ordinal of the run's first repeated instance */
	uint64_t k;	      /* repeated instances so far (all its REPEAT words) */
	uint64_t *count;      /* per hit from first: the count read, or NO_COUNT */
	size_t cap;
};
#define NO_COUNT UINT64_MAX

static int pending_push_count(struct run_pending *rp, size_t i, uint64_t c)
{
	if (i >= rp->cap) {
		size_t ncap = rp->cap ? rp->cap * 2 : 64;
		while (ncap <= i)
			ncap *= 2;
		uint64_t *g = realloc(rp->count, ncap * sizeof(*g));
		if (!g)
			return -1;
		rp->count = g;
		rp->cap = ncap;
	}
	rp->count[i] = c;
	return 0;
}

static int hit_by_event(const void *x, const void *y)
{
	const struct cost_hit *a = x, *b = y;
	return (a->event > b->event) - (a->event < b->event);
}

/* The run is over: the record after it is known (next, at event ordinal
 * next_event), or there is none (next NULL: a gap, an event of another
 * signal level, a record that is not a path, the thread's end).  A hit
 * whose count is known goes to the instance the count names
 * (run_count_place); the others keep the ip rule (cost_run_end.h).  The
 * thread's hits stay in event order. */
static int run_resolve(struct run_pending *rp, struct cost_attribution *a,
		       struct run_end_judge *judge, const struct run_end_rec *next,
		       uint64_t next_event)
{
	int reorder = 0;

	rp->active = 0;
	for (size_t i = rp->first; i < a->nhits; i++) {
		struct cost_hit *h = &a->hits[i];
		uint64_t c = rp->count[i - rp->first], index;
		enum run_count_where w = c == NO_COUNT
					     ? RUN_COUNT_UNSURE
					     : run_count_place(c, rp->k, next != NULL, &index);
		if (w == RUN_COUNT_REPEAT) {
			h->event = rp->first_event + index;
		} else if (w == RUN_COUNT_NEXT ||
			   (i >= rp->first_ip && next &&
			    run_end_is_next(judge, h->pid, h->gen, h->ip, &rp->run, next))) {
			h->fn = next->fn;
			h->fid = next->fid;
			h->value = next->value;
			h->is_block = next->is_block;
			h->event = next_event;
		}
		reorder |= i > rp->first && h->event < h[-1].event;
	}
	/* qsort is not stable: equal events keep no order, which nothing
	 * depends on (hits of one event are interchangeable but for ip). */
	if (reorder)
		qsort(a->hits + rp->first, a->nhits - rp->first, sizeof(*a->hits), hit_by_event);
	return 0;
}

static int attribute_thread(const struct wpp_trace *t, struct wpp_modules *mods,
			    const struct cost_data *cd, size_t ti, struct target *tg, size_t ntg,
			    struct cost_attribution *a, size_t *cap, struct run_end_judge *judge)
{
	const struct wpp_thread_trace *th = &t->threads[ti];
	int oom;
	size_t live = locate_targets(th, cd, tg, ntg, a, &oom);
	if (oom)
		return -1;
	char *matched = calloc(live + 1, 1);
	/* Runs come whole (one event per REPEAT word, `times` executions):
	 * where a sample lands inside one is computed from the count, not
	 * walked, so a crafted count of 2^32 - 1 costs one event. */
	struct wpp_decoder *d = matched ? wpp_decoder_open(th, mods, WPP_DECODE_RUNS) : NULL;
	if (!d) {
		free(matched);
		return -1;
	}
	struct wpp_event ev;
	struct run_pending rp = {0};
	uint64_t ordinal = 0;
	int rc = 0;
	size_t unmatched = live;
	while ((unmatched || rp.active) && wpp_decoder_next(d, &ev)) {
		if (ev.kind == WPP_EV_GAP) {
			if (rp.active && (rc = run_resolve(&rp, a, judge, NULL, 0)) < 0)
				break;
			continue;
		}
		int is_path = ev.kind == WPP_EV_PATH || ev.kind == WPP_EV_BLOCK;
		struct run_end_rec here = {ev.fn, ev.fid, ev.value, ev.kind == WPP_EV_BLOCK};
		/* The first record after a run's REPEAT word(s) is the iteration
		 * that ended it; another REPEAT word of the same level means the
		 * run went on (the words add up: a count above WPP_REPEAT_MAX,
		 * written as several words).  An event of another signal level
		 * ends what can be said: samples the count does not place stay
		 * with the run (the hits stay in event order).  Each REPEAT word
		 * is one event: its samples, all at its position, are matched
		 * once, at its first repeated instance (ordinal), and placed on
		 * their own instances when the run ends (run_resolve). */
		int goes_on = rp.active && ev.repeat && is_path && ev.signal_depth == rp.depth;
		if (goes_on) {
			rp.k += ev.times;
			rp.first_ip = a->nhits; /* the ip rule: only the last word's samples */
		} else if (rp.active) {
			int ends_run = ev.signal_depth == rp.depth && is_path && !ev.repeat;
			if ((rc = run_resolve(&rp, a, judge, ends_run ? &here : NULL, ordinal)) < 0)
				break;
		}
		/* Binary search the first target at (seq, word). */
		size_t lo = 0, hi = live, first_hit = a->nhits;
		while (lo < hi) {
			size_t mid = (lo + hi) / 2;
			if (tg[mid].seq < ev.batch_seq ||
			    (tg[mid].seq == ev.batch_seq && tg[mid].word < ev.word_index))
				lo = mid + 1;
			else
				hi = mid;
		}
		for (size_t k = lo;
		     k < live && tg[k].seq == ev.batch_seq && tg[k].word == ev.word_index; k++) {
			const struct wpp_sample *s = &cd->samples[tg[k].sample];
			matched[k] = 1;
			unmatched--;
			if (!is_path) {
				miss(a, COST_MISS_NOT_A_PATH, s);
				continue;
			}
			struct cost_hit h = {
			    th->pid,	 th->generation,	  th->tid, ev.fn,    ev.fid,
			    ev.value,	 ev.kind == WPP_EV_BLOCK, ordinal, s->value, s->ip,
			    (uint32_t)ti};
			if ((rc = push_hit(a, cap, &h)) < 0)
				break;
			/* At the first REPEAT word's slot of a run (its first
			 * instance, ev.repeat 1), the count in the registers says
			 * which iteration it was; at a later word's slot (inside
			 * the flush) it does not. */
			uint64_t c = NO_COUNT;
			if (ev.repeat == 1 && is_path) {
				const struct wpp_sample_regs *r = NULL;
				if (cd->regs_at && (s->flags & WPP_SAMPLE_REGS))
					r = &cd->regs[cd->regs_at[tg[k].sample]];
				if (!run_count_at(judge, th->pid, th->generation, s->ip, &here, r,
						  &c))
					c = NO_COUNT;
			}
			if ((rc = pending_push_count(
				 &rp, a->nhits - 1 - (rp.active ? rp.first : first_hit), c)) < 0)
				break;
		}
		if (rc < 0)
			break;
		if (ev.repeat && is_path && !rp.active && a->nhits > first_hit) {
			rp.active = 1;
			rp.first = rp.first_ip = first_hit;
			rp.depth = ev.signal_depth;
			rp.run = here;
			rp.first_event = ordinal;
			rp.k = ev.times;
		}
		if (is_path)
			ordinal += ev.times;
	}
	/* The thread ended (or was cut off) right after a run: nothing
	 * follows it; the counts still place their samples. */
	if (rc == 0 && rp.active)
		rc = run_resolve(&rp, a, judge, NULL, 0);
	free(rp.count);
	wpp_decoder_close(d);
	for (size_t i = 0; i < live; i++)
		if (!matched[i])
			miss(a, COST_MISS_NO_RECORD, &cd->samples[tg[i].sample]);
	free(matched);
	return rc;
}

static int sample_order(const void *x, const void *y, void *arg)
{
	const struct wpp_sample *s = arg;
	const struct target *a = x, *b = y;
	const struct wpp_sample *p = &s[a->sample], *q = &s[b->sample];
	if (p->pid != q->pid)
		return p->pid < q->pid ? -1 : 1;
	if (a->gen != b->gen)
		return a->gen < b->gen ? -1 : 1;
	if (p->tid != q->tid)
		return p->tid < q->tid ? -1 : 1;
	return a->sample < b->sample ? -1 : a->sample > b->sample;
}

static const struct wpp_thread_trace *thread_of(const struct wpp_trace *t, uint32_t pid,
						uint32_t gen, uint32_t tid, size_t *index)
{
	size_t lo = 0, hi = t->nthreads;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		const struct wpp_thread_trace *m = &t->threads[mid];
		int less = m->pid != pid	  ? m->pid < pid
			   : m->generation != gen ? m->generation < gen
						  : m->tid < tid;
		if (less)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < t->nthreads && t->threads[lo].pid == pid && t->threads[lo].generation == gen &&
	    t->threads[lo].tid == tid) {
		*index = lo;
		return &t->threads[lo];
	}
	return NULL;
}

/* When each process image began (its PROCESS record: the exec, the fork,
 * or the attach, on the samples' clock). */
struct image {
	uint32_t pid, gen;
	uint64_t time_ns;
};

static int image_order(const void *x, const void *y)
{
	const struct image *a = x, *b = y;
	if (a->pid != b->pid)
		return a->pid < b->pid ? -1 : 1;
	if (a->time_ns != b->time_ns)
		return a->time_ns < b->time_ns ? -1 : 1;
	return a->gen < b->gen ? -1 : a->gen > b->gen;
}

/*
 * The image a sample belongs to.  The collector stamps each sample with the
 * pid's generation current when it drained the sample, which after an exec
 * may already be the new image's; the sample's time says which image ran.
 * Returns 0 with *gen set, or 1: the sample came before the pid's first
 * recorded image began (the recorder's child between fork and exec).
 */
static int image_at(const struct image *im, size_t nim, const struct wpp_sample *s, uint32_t *gen)
{
	size_t lo = 0, hi = nim;
	*gen = s->generation;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (im[mid].pid < s->pid ||
		    (im[mid].pid == s->pid && im[mid].time_ns <= s->time_ns))
			lo = mid + 1;
		else
			hi = mid;
	}
	/* im[lo - 1] is the pid's latest image begun by the sample's time. */
	if (lo > 0 && im[lo - 1].pid == s->pid) {
		if (im[lo - 1].gen < *gen)
			*gen = im[lo - 1].gen;
		return 0;
	}
	/* Only a sample without a stream position can predate its image:
	 * one with a position was taken in a thread that had recorded. */
	return lo < nim && im[lo].pid == s->pid && s->pos == WPP_POS_UNREGISTERED && s->time_ns;
}

int cost_attribute(const struct wpp_trace *t, struct wpp_modules *mods, const struct cost_data *cd,
		   uint32_t counter, long pid, long tid, struct cost_attribution *a)
{
	struct target *tg = malloc((cd->nsamples + 1) * sizeof(*tg));
	struct image *im = malloc((t->nprocs + 1) * sizeof(*im));
	struct run_end_judge *judge = run_end_judge_new(mods);
	size_t n = 0, cap = 0;

	memset(a, 0, sizeof(*a));
	a->counter = counter;
	if (!tg || !im || !judge)
		goto oom;
	for (size_t i = 0; i < t->nprocs; i++)
		im[i] =
		    (struct image){t->procs[i].pid, t->procs[i].generation, t->procs[i].time_ns};
	qsort(im, t->nprocs, sizeof(*im), image_order);
	for (size_t i = 0; i < cd->nsamples; i++) {
		const struct wpp_sample *s = &cd->samples[i];
		uint32_t gen;
		if (s->counter != counter || (pid >= 0 && s->pid != (uint32_t)pid) ||
		    (tid >= 0 && s->tid != (uint32_t)tid))
			continue;
		a->samples++;
		a->weight += s->value;
		if (image_at(im, t->nprocs, s, &gen)) {
			miss(a, COST_MISS_BEFORE_IMAGE, s);
			continue;
		}
		tg[n++] = (struct target){0, 0, gen, i};
	}
	free(im);
	im = NULL;
	qsort_r(tg, n, sizeof(*tg), sample_order, cd->samples);
	for (size_t i = 0, j; i < n; i = j) {
		const struct wpp_sample *s = &cd->samples[tg[i].sample];
		for (j = i; j < n && cd->samples[tg[j].sample].pid == s->pid &&
			    tg[j].gen == tg[i].gen && cd->samples[tg[j].sample].tid == s->tid;
		     j++)
			;
		size_t ti;
		if (!thread_of(t, s->pid, tg[i].gen, s->tid, &ti)) {
			/* A thread that recorded nothing has no stream to land in. */
			for (size_t k = i; k < j; k++) {
				const struct wpp_sample *q = &cd->samples[tg[k].sample];
				miss(a,
				     q->pos == WPP_POS_UNREGISTERED ? COST_MISS_NOT_RECORDING
								    : COST_MISS_NO_THREAD,
				     q);
			}
			continue;
		}
		if (attribute_thread(t, mods, cd, ti, tg + i, j - i, a, &cap, judge) < 0)
			goto oom;
	}
	free(tg);
	run_end_judge_free(judge);
	for (size_t i = 0; i < cd->ncounts; i++) {
		const struct wpp_count *k = &cd->counts[i];
		if (k->counter != counter || (pid >= 0 && k->pid != (uint32_t)pid) ||
		    (tid >= 0 && k->tid != (uint32_t)tid))
			continue;
		a->has_counts = 1;
		a->counted += cost_scale(k->count, k->enabled_ns, k->running_ns);
	}
	return 0;
oom:
	free(tg);
	free(im);
	run_end_judge_free(judge);
	cost_attribution_free(a);
	wpp_err("out of memory");
	return -1;
}

void cost_attribution_free(struct cost_attribution *a)
{
	free(a->hits);
	memset(a, 0, sizeof(*a));
}
