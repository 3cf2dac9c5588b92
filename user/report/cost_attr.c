/* SPDX-License-Identifier: MIT */
/*
 * cost_attr.c — samples -> path executions (costs.h).
 *
 * Per thread: the batches' signal depths (a SIGNAL batch is one deeper
 * than its parent), each sample's position resolved to (batch seq, word),
 * then one decoder pass matching records by where they start.
 */
#include "costs.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "cost_scale.h"

struct target {
	uint64_t seq;
	uint32_t word;
	size_t sample; /* index into cd->samples */
};

struct batch_info {
	uint64_t seq;
	uint32_t nwords;
	uint32_t depth; /* UINT32_MAX while unknown */
	uint64_t parent_seq;
	int signal;
};

static int by_seq(const void *a, const void *b)
{
	const struct batch_info *x = a, *y = b;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static int target_cmp(const void *a, const void *b)
{
	const struct target *x = a, *y = b;
	if (x->seq != y->seq)
		return x->seq < y->seq ? -1 : 1;
	if (x->word != y->word)
		return x->word < y->word ? -1 : 1;
	return x->sample < y->sample ? -1 : x->sample > y->sample;
}

static struct batch_info *find_batch(struct batch_info *b, size_t n, uint64_t seq)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (b[mid].seq < seq)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && b[lo].seq == seq ? &b[lo] : NULL;
}

/* Depth of a batch: 0 for the thread's own code, parent + 1 for a signal
 * batch.  Parents may have larger seqs (numbered on demand), so resolve by
 * walking up; a missing parent or a loop (hostile files only) counts as
 * depth 0 above the chain. */
static uint32_t depth_of(struct batch_info *b, size_t n, struct batch_info *x)
{
	struct batch_info *chain[32], *y = x;
	uint32_t base = 0;
	int k = 0;

	while (k < 32) {
		if (y->depth != UINT32_MAX) {
			base = y->depth + 1;
			break;
		}
		if (!y->signal) {
			y->depth = 0;
			base = 1;
			break;
		}
		chain[k++] = y;
		struct batch_info *p = find_batch(b, n, y->parent_seq);
		if (!p || p == y) {
			base = 1;
			break;
		}
		y = p;
	}
	if (k == 32)
		base = 1;
	for (int i = k - 1; i >= 0; i--)
		chain[i]->depth = base++;
	return x->depth;
}

/* The first batch of `depth` with seq > after (batches sorted by seq). */
static struct batch_info *next_at_depth(struct batch_info *b, size_t n, uint64_t after, uint32_t depth)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (b[mid].seq <= after)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t i = lo; i < n; i++)
		if (b[i].depth == depth)
			return &b[i];
	return NULL;
}

/* Resolve a sample's position to (seq, word); 0, or -1 = no such record. */
static int resolve(struct batch_info *b, size_t n, const struct wpp_sample *s, uint64_t *seq, uint32_t *word)
{
	struct batch_info *x;
	uint64_t w = s->word;
	if (s->pos == WPP_POS_BUFFER || s->pos == WPP_POS_NUMBERED)
		x = find_batch(b, n, s->seq);
	else
		x = next_at_depth(b, n, s->seq, s->depth);
	/* Past the batch's end (the flush was about to happen): the record
	 * lands in the next buffer of the same depth. */
	while (x && w >= x->nwords) {
		w -= x->nwords;
		x = next_at_depth(b, n, x->seq, x->depth);
	}
	if (!x)
		return -1;
	*seq = x->seq;
	*word = (uint32_t)w;
	return 0;
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

static int attribute_thread(const struct wpp_trace *t, struct wpp_modules *mods, const struct cost_data *cd,
			    size_t ti, struct target *tg, size_t ntg, struct cost_attribution *a,
			    size_t *cap)
{
	const struct wpp_thread_trace *th = &t->threads[ti];
	struct batch_info *b = malloc((th->nbatches + 1) * sizeof(*b));
	size_t nb = 0, k = 0;
	char *matched = calloc(ntg + 1, 1);
	if (!b || !matched) {
		free(b);
		free(matched);
		return -1;
	}
	for (size_t i = 0; i < th->nbatches; i++) {
		const struct wpp_batch_ref *r = &th->batches[i];
		b[nb++] = (struct batch_info){r->seq, r->nwords, UINT32_MAX, r->parent_seq,
					      (r->flags & WPP_BATCH_SIGNAL) != 0};
	}
	qsort(b, nb, sizeof(*b), by_seq);
	for (size_t i = 0; i < nb; i++)
		depth_of(b, nb, &b[i]);
	for (size_t i = 0; i < ntg; i++) {
		const struct wpp_sample *s = &cd->samples[tg[i].sample];
		if (s->pos != WPP_POS_BUFFER && s->pos != WPP_POS_NEXT && s->pos != WPP_POS_NUMBERED) {
			a->missed[s->pos == WPP_POS_UNREGISTERED ? COST_MISS_NOT_RECORDING
								 : COST_MISS_NO_POSITION]++;
			a->missed_weight += s->value;
			matched[i] = 1;
			continue;
		}
		if (resolve(b, nb, s, &tg[i].seq, &tg[i].word) < 0) {
			a->missed[COST_MISS_NO_RECORD]++;
			a->missed_weight += s->value;
			matched[i] = 1;
		}
	}
	free(b);
	/* Matched ones sort anywhere; they are skipped by the flag. */
	struct target *sorted = tg;
	for (size_t i = 0; i < ntg; i++)
		if (matched[i])
			sorted[i].seq = UINT64_MAX, sorted[i].word = UINT32_MAX;
	qsort(sorted, ntg, sizeof(*sorted), target_cmp);
	size_t live = 0;
	while (live < ntg && sorted[live].seq != UINT64_MAX)
		live++;
	memset(matched, 0, ntg);

	struct wpp_decoder *d = wpp_decoder_open(th, mods, 0);
	if (!d) {
		free(matched);
		return -1;
	}
	struct wpp_event ev;
	uint64_t ordinal = 0;
	while (live && wpp_decoder_next(d, &ev)) {
		if (ev.kind == WPP_EV_GAP)
			continue;
		/* Binary search the first target at (seq, word). */
		size_t lo = 0, hi = live;
		while (lo < hi) {
			size_t mid = (lo + hi) / 2;
			if (sorted[mid].seq < ev.batch_seq ||
			    (sorted[mid].seq == ev.batch_seq && sorted[mid].word < ev.word_index))
				lo = mid + 1;
			else
				hi = mid;
		}
		int is_path = ev.kind == WPP_EV_PATH || ev.kind == WPP_EV_BLOCK;
		for (k = lo; k < live && sorted[k].seq == ev.batch_seq && sorted[k].word == ev.word_index; k++) {
			const struct wpp_sample *s = &cd->samples[sorted[k].sample];
			matched[k] = 1;
			if (!is_path) {
				a->missed[COST_MISS_NOT_A_PATH]++;
				a->missed_weight += s->value;
				continue;
			}
			struct cost_hit h = {th->pid, th->generation, th->tid, ev.fn, ev.fid, ev.value,
					     ev.kind == WPP_EV_BLOCK, ordinal, s->value, s->ip, (uint32_t)ti};
			if (push_hit(a, cap, &h) < 0) {
				wpp_decoder_close(d);
				free(matched);
				return -1;
			}
		}
		if (is_path)
			ordinal++;
	}
	wpp_decoder_close(d);
	for (size_t i = 0; i < live; i++)
		if (!matched[i]) {
			a->missed[COST_MISS_NO_RECORD]++;
			a->missed_weight += cd->samples[sorted[i].sample].value;
		}
	free(matched);
	return 0;
}

static int sample_order(const void *x, const void *y, void *arg)
{
	const struct wpp_sample *s = arg;
	const struct target *a = x, *b = y;
	const struct wpp_sample *p = &s[a->sample], *q = &s[b->sample];
	if (p->pid != q->pid)
		return p->pid < q->pid ? -1 : 1;
	if (p->generation != q->generation)
		return p->generation < q->generation ? -1 : 1;
	if (p->tid != q->tid)
		return p->tid < q->tid ? -1 : 1;
	return a->sample < b->sample ? -1 : a->sample > b->sample;
}

static const struct wpp_thread_trace *thread_of(const struct wpp_trace *t, uint32_t pid, uint32_t gen,
						uint32_t tid, size_t *index)
{
	size_t lo = 0, hi = t->nthreads;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		const struct wpp_thread_trace *m = &t->threads[mid];
		int less = m->pid != pid ? m->pid < pid : m->generation != gen ? m->generation < gen : m->tid < tid;
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

int cost_attribute(const struct wpp_trace *t, struct wpp_modules *mods, const struct cost_data *cd,
		   uint32_t counter, long pid, long tid, struct cost_attribution *a)
{
	struct target *tg = malloc((cd->nsamples + 1) * sizeof(*tg));
	size_t n = 0, cap = 0;

	memset(a, 0, sizeof(*a));
	a->counter = counter;
	if (!tg)
		goto oom;
	for (size_t i = 0; i < cd->nsamples; i++) {
		const struct wpp_sample *s = &cd->samples[i];
		if (s->counter != counter || (pid >= 0 && s->pid != (uint32_t)pid) ||
		    (tid >= 0 && s->tid != (uint32_t)tid))
			continue;
		tg[n++] = (struct target){0, 0, i};
		a->samples++;
		a->weight += s->value;
	}
	qsort_r(tg, n, sizeof(*tg), sample_order, cd->samples);
	for (size_t i = 0, j; i < n; i = j) {
		const struct wpp_sample *s = &cd->samples[tg[i].sample];
		for (j = i; j < n && cd->samples[tg[j].sample].pid == s->pid &&
			    cd->samples[tg[j].sample].generation == s->generation &&
			    cd->samples[tg[j].sample].tid == s->tid;
		     j++)
			;
		size_t ti;
		if (!thread_of(t, s->pid, s->generation, s->tid, &ti)) {
			/* A thread that recorded nothing has no stream to land in. */
			for (size_t k = i; k < j; k++) {
				a->missed[cd->samples[tg[k].sample].pos == WPP_POS_UNREGISTERED
						  ? COST_MISS_NOT_RECORDING
						  : COST_MISS_NO_THREAD]++;
				a->missed_weight += cd->samples[tg[k].sample].value;
			}
			continue;
		}
		if (attribute_thread(t, mods, cd, ti, tg + i, j - i, a, &cap) < 0)
			goto oom;
	}
	free(tg);
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
	cost_attribution_free(a);
	wpp_err("out of memory");
	return -1;
}

void cost_attribution_free(struct cost_attribution *a)
{
	free(a->hits);
	memset(a, 0, sizeof(*a));
}

void cost_summary(char *buf, size_t len, const struct cost_data *cd, const struct cost_attribution *a)
{
	const struct wpp_counter_desc *c = &cd->counters[a->counter];
	uint64_t missed = 0, before = a->missed[COST_MISS_NOT_RECORDING];
	for (int i = 0; i < COST_MISS_N; i++)
		if (i != COST_MISS_NOT_RECORDING)
			missed += a->missed[i];
	/* The share that matters is of the samples taken while the thread was
	 * recording: before its first record there is no path to charge. */
	uint64_t recording = a->samples - before;
	char period[48];
	if (c->flags & WPP_COUNTER_FREQ)
		snprintf(period, sizeof(period), "%" PRIu64 " Hz, adaptive period", c->period);
	else
		snprintf(period, sizeof(period), "period %" PRIu64, c->period);
	int n = snprintf(buf, len,
			 "%s: ~%" PRIu64 " on paths, estimated from %" PRIu64 " samples (%s); %" PRIu64
			 " of the %" PRIu64 " samples taken while recording unattributed (%.2f%%)",
			 c->name, a->weight - a->missed_weight, a->samples, period, missed, recording,
			 recording ? 100.0 * (double)missed / (double)recording : 0.0);
	if (n > 0 && (size_t)n < len && missed)
		n += snprintf(buf + n, len - (size_t)n,
			      " [%" PRIu64 " in the runtime's buffer switch or discarded, %" PRIu64
			      " at an unwritten position (lost batch, thread end), %" PRIu64
			      " on a non-path record, %" PRIu64 " in threads with no trace]",
			      a->missed[COST_MISS_NO_POSITION], a->missed[COST_MISS_NO_RECORD],
			      a->missed[COST_MISS_NOT_A_PATH], a->missed[COST_MISS_NO_THREAD]);
	if (n > 0 && (size_t)n < len && before)
		n += snprintf(buf + n, len - (size_t)n, "; %" PRIu64 " before recording began", before);
	if (n > 0 && (size_t)n < len && a->has_counts)
		snprintf(buf + n, len - (size_t)n, "; counted exactly per batch: %" PRIu64, a->counted);
}
