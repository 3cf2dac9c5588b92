/* SPDX-License-Identifier: MIT */
/*
 * online.c — the online stream assembler (contract in online.h).
 *
 * Per thread, batches are held sorted by seq until a run of them is known
 * to be complete: seqs are dense per thread and shared by main and signal
 * batches, and the runtime numbers a signal batch after the batch it
 * interrupted, so every batch whose seq lies between two main batches
 * belongs to the first one's splice tree.  The held batches from the next
 * expected seq up to (not including) a main batch that is reached without
 * a hole therefore form complete trees.  That run goes through
 * wpp_stream_assemble_piece() — the decoder's own splice rule — and its
 * segments are handed to the consumers as runs of same-depth words.
 *
 * Holes: seqs covered by a GAP chunk with a known lost_batches count are
 * skipped; any other hole holds delivery back until the thread ends or the
 * thread holds more than hold_limit words, when everything before the
 * newest main batch is delivered anyway (the stream rule then reports the
 * hole as a gap of unknown size); the newest main batch's tree is never
 * cut.  A batch that arrives after its place was delivered is dropped and
 * counted (late_batches).
 */
#include "collect/online.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "collect/online_worker.h"
#include "decode/stream.h"
#include "decode/trace_words.h"
#include "wpp/trace_abi.h"

#define DEFAULT_HOLD_LIMIT (UINT64_C(4) << 20) /* words per thread (32 MiB) */

struct held_batch {
	struct wpp_batch_ref ref; /* ref.words points at words */
	uint64_t *words;
};

struct othread {
	struct wpp_thread_key key;
	void **states;		 /* per consumer; NULL = consumer ignores the thread */
	struct held_batch *held; /* sorted by seq, all >= next_seq */
	size_t nheld, held_cap;
	struct wpp_gap_ref *gaps; /* not yet delivered, arrival order */
	size_t ngaps, gaps_cap;
	uint64_t next_seq; /* lowest seq not yet delivered */
	uint64_t held_words;
	struct wpp_stream_carry carry;
	/* The current run of same-depth words, not yet handed out. */
	uint64_t *run;
	size_t nrun, run_cap;
	uint32_t run_depth;
	int run_expect_second; /* the run's last word opens a two-word record */
};

struct wpp_online {
	const struct wpp_online_consumer *consumers;
	size_t nconsumers;
	struct othread **threads; /* sorted by (pid, tid, generation) */
	size_t nthreads, threads_cap;
	uint64_t hold_limit;
	struct wpp_online_stats stats;
	int failed;
	struct online_worker *worker; /* NULL: no consumers on a worker thread */
	int worker_packed;	      /* the caller feeds the worker (set_worker_packed) */
};

struct wpp_online *wpp_online_new(const struct wpp_online_consumer *consumers, size_t n)
{
	struct wpp_online *o = calloc(1, sizeof(*o));

	if (!o)
		return NULL;
	o->consumers = consumers;
	o->nconsumers = n;
	o->hold_limit = DEFAULT_HOLD_LIMIT;
	return o;
}

void wpp_online_set_hold_limit(struct wpp_online *o, uint64_t words)
{
	o->hold_limit = words ? words : 1;
}

const struct wpp_online_stats *wpp_online_stats(const struct wpp_online *o)
{
	return &o->stats;
}

int wpp_online_add_worker(struct wpp_online *o, const struct wpp_online_consumer *consumers,
			  size_t n, uint64_t max_queued_bytes)
{
	if (o->worker)
		return -1;
	o->worker = online_worker_start(consumers, n, max_queued_bytes);
	return o->worker ? 0 : -1;
}

void wpp_online_set_worker_packed(struct wpp_online *o)
{
	o->worker_packed = 1;
}

void wpp_online_worker_packed(struct wpp_online *o, const void *head, uint32_t head_len,
			      const void *packed, uint32_t packed_len)
{
	if (o->worker)
		online_worker_packed(o->worker, head, head_len, packed, packed_len);
}

void wpp_online_worker_batch(struct wpp_online *o, const struct wpp_chunk_batch *b,
			     const uint64_t *words)
{
	if (o->worker)
		online_worker_batch(o->worker, b, words);
}

void wpp_online_set_progress(struct wpp_online *o, wpp_online_progress_fn fn, void *ctx)
{
	if (o->worker)
		online_worker_set_progress(o->worker, fn, ctx);
}

void wpp_online_emit(struct wpp_online *o, enum wpp_chunk_type type, void *payload, uint32_t len)
{
	if (o->worker)
		online_worker_emit(o->worker, type, payload, len);
	else
		free(payload);
}

int wpp_online_worker_status(const struct wpp_online *o, uint64_t *peak_bytes)
{
	const struct online_worker_stats *st;

	if (!o->worker)
		return 0;
	st = online_worker_stats(o->worker);
	*peak_bytes = st->queued_bytes_peak;
	return st->gave_up ? 1 : st->failed ? -1 : 0;
}

double wpp_online_worker_cpu(const struct wpp_online *o)
{
	return o->worker ? online_worker_stats(o->worker)->cpu_seconds : -1;
}

void wpp_online_worker_progress(const struct wpp_online *o, uint64_t *events_skipped,
				uint64_t *drops_replayed)
{
	*events_skipped = *drops_replayed = 0;
	if (o->worker)
		online_worker_progress(o->worker, events_skipped, drops_replayed);
}

static int key_cmp(const struct wpp_thread_key *a, const struct wpp_thread_key *b)
{
	if (a->pid != b->pid)
		return a->pid < b->pid ? -1 : 1;
	if (a->tid != b->tid)
		return a->tid < b->tid ? -1 : 1;
	return a->generation < b->generation ? -1 : a->generation > b->generation;
}

/* Index of the first thread >= key. */
static size_t thread_pos(const struct wpp_online *o, const struct wpp_thread_key *key)
{
	size_t lo = 0, hi = o->nthreads;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (key_cmp(&o->threads[mid]->key, key) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static struct othread *find_thread(struct wpp_online *o, const struct wpp_thread_key *key)
{
	size_t i = thread_pos(o, key);
	return i < o->nthreads && !key_cmp(&o->threads[i]->key, key) ? o->threads[i] : NULL;
}

static struct othread *get_thread(struct wpp_online *o, const struct wpp_thread_key *key)
{
	struct othread *t = find_thread(o, key);
	size_t i;

	if (t)
		return t;
	if (o->nthreads == o->threads_cap) {
		size_t cap = o->threads_cap ? 2 * o->threads_cap : 16;
		struct othread **bigger = realloc(o->threads, cap * sizeof(*bigger));
		if (!bigger)
			return NULL;
		o->threads = bigger;
		o->threads_cap = cap;
	}
	t = calloc(1, sizeof(*t));
	if (!t || !(t->states = calloc(o->nconsumers ? o->nconsumers : 1, sizeof(void *)))) {
		free(t);
		return NULL;
	}
	t->key = *key;
	t->next_seq = 1; /* the runtime numbers a thread's batches from 1 */
	for (size_t c = 0; c < o->nconsumers; c++)
		t->states[c] = o->consumers[c].thread_open(o->consumers[c].cfg, key);
	i = thread_pos(o, key);
	memmove(o->threads + i + 1, o->threads + i, (o->nthreads - i) * sizeof(*o->threads));
	o->threads[i] = t;
	o->nthreads++;
	return t;
}

/* ---- handing words to the consumers ---- */

/* words[0..n) (n > 0) of one depth to every consumer of t. */
static void hand_out(struct wpp_online *o, struct othread *t, const uint64_t *words, size_t n,
		     uint32_t depth)
{
	for (size_t c = 0; c < o->nconsumers; c++) {
		const struct wpp_online_consumer *oc = &o->consumers[c];
		if (!t->states[c])
			continue;
		if (oc->thread_words_at)
			oc->thread_words_at(t->states[c], words, n, depth);
		else
			oc->thread_words(t->states[c], words, n);
	}
	o->stats.words_delivered += n;
}

static void flush_run(struct wpp_online *o, struct othread *t, size_t keep)
{
	size_t n = t->nrun - keep;

	if (n)
		hand_out(o, t, t->run, n, t->run_depth);
	if (keep)
		memmove(t->run, t->run + n, keep * sizeof(*t->run));
	t->nrun = keep;
	if (!keep)
		t->run_expect_second = 0;
}

/* Does any of words[0..n) look like a WIDE_PATH or GAP control word or a
 * WET value escape, the only words that open a two-word item?  Branch-free, so that it
 * vectorizes: nearly every piece has none. */
static int any_opener(const uint64_t *words, uint32_t n)
{
	uint32_t openers = 0;

	for (uint32_t i = 0; i < n; i++)
		openers += (words[i] >> 32) == WPP_CTRL_WIDE_PATH ||
			   (words[i] >> 32) == WPP_CTRL_GAP || words[i] == WPP_WET_ESCAPE;
	return openers != 0;
}

/* The words [from, to) of held batch b, at depth, after what the run holds.
 * Track record boundaries so that a two-word record is never cut between
 * two calls (the decoder reads such records across batch boundaries of one
 * signal depth); a piece with no opener ends outside any pair, and when
 * nothing is pending before it, it goes to the consumers as it is, not
 * copied (the batch's words are our own aligned copy). */
static int append_run(struct wpp_online *o, struct othread *t, const struct wpp_batch_ref *b,
		      uint32_t from, uint32_t to, uint32_t depth)
{
	const uint64_t *src = (const uint64_t *)(const void *)b->words + from;
	uint32_t n = to - from;

	if (t->nrun && depth != t->run_depth)
		flush_run(o, t, 0);
	t->run_depth = depth;
	if (!n)
		return 0;
	int opener = any_opener(src, n);
	if (!opener && !t->nrun) {
		hand_out(o, t, src, n, depth);
		t->run_expect_second = 0;
		return 0;
	}
	if (t->nrun + n > t->run_cap) {
		size_t cap = t->run_cap ? t->run_cap : 4096;
		while (cap < t->nrun + n)
			cap *= 2;
		uint64_t *bigger = realloc(t->run, cap * sizeof(*bigger));
		if (!bigger)
			return -1;
		t->run = bigger;
		t->run_cap = cap;
	}
	memcpy(t->run + t->nrun, src, (size_t)n * 8);
	t->nrun += n;
	if (!opener) {
		t->run_expect_second = 0;
		return 0;
	}
	for (uint32_t i = 0; i < n; i++) {
		uint64_t w = src[i];
		if (t->run_expect_second)
			t->run_expect_second = 0;
		else if (wpp_word_opens_pair(w))
			t->run_expect_second = 1;
	}
	return 0;
}

static void deliver_gap(struct wpp_online *o, struct othread *t, uint64_t lost_words)
{
	flush_run(o, t, 0);
	for (size_t c = 0; c < o->nconsumers; c++)
		if (t->states[c])
			o->consumers[c].thread_gap(t->states[c], lost_words);
	o->stats.gaps_delivered++;
}

/* ---- completing pieces ---- */

static int gap_covers(const struct othread *t, uint64_t seq, uint64_t *resume)
{
	for (size_t g = 0; g < t->ngaps; g++) {
		const struct wpp_gap_ref *gr = &t->gaps[g];
		uint64_t first = gr->after_seq == UINT64_MAX ? 0 : gr->after_seq + 1;
		if (gr->lost_batches && gr->lost_batches != UINT64_MAX && seq >= first &&
		    seq - first < gr->lost_batches) {
			*resume = first + gr->lost_batches;
			return 1;
		}
	}
	return 0;
}

/* Number of held batches that form complete splice trees: those before the
 * last main batch reached from next_seq without an unexplained hole. */
static size_t complete_prefix(const struct othread *t)
{
	uint64_t want = t->next_seq, resume;
	size_t boundary = 0;

	for (size_t i = 0; i < t->nheld; i++) {
		uint64_t seq = t->held[i].ref.seq;
		while (seq != want && gap_covers(t, want, &resume) && resume > want)
			want = resume;
		if (seq != want)
			break;
		if (i > 0 && !(t->held[i].ref.flags & WPP_BATCH_SIGNAL))
			boundary = i;
		want = seq + 1;
	}
	return boundary;
}

/* Deliver held[0..n) and the gaps that sit before seq `limit` (all gaps if
 * limit is UINT64_MAX and n is everything). */
static int deliver_piece(struct wpp_online *o, struct othread *t, size_t n, uint64_t limit,
			 int all_gaps)
{
	struct wpp_batch_ref *refs = malloc((n ? n : 1) * sizeof(*refs));
	struct wpp_gap_ref *gaps = malloc((t->ngaps ? t->ngaps : 1) * sizeof(*gaps));
	struct wpp_stream s;
	size_t ng = 0, kept = 0;
	int rc = -1;

	if (!refs || !gaps)
		goto out;
	for (size_t i = 0; i < n; i++)
		refs[i] = t->held[i].ref;
	for (size_t g = 0; g < t->ngaps; g++) {
		if (all_gaps || t->gaps[g].after_seq < limit)
			gaps[ng++] = t->gaps[g];
		else
			t->gaps[kept++] = t->gaps[g];
	}
	t->ngaps = kept;
	if (wpp_stream_assemble_piece(refs, n, gaps, ng, &t->carry, &s) < 0)
		goto out;
	o->stats.missing_seqs += s.missing_seqs;
	o->stats.orphan_signal_batches += s.orphan_signal_batches;
	rc = 0;
	for (size_t k = 0; k < s.nsegs && rc == 0; k++) {
		const struct wpp_segment *seg = &s.segs[k];
		if (seg->kind == WPP_SEG_GAP)
			deliver_gap(o, t, seg->lost_words);
		else
			rc = append_run(o, t, seg->batch, seg->from, seg->to, seg->signal_depth);
	}
	/* Hand out the run now, except a record whose second word is still to
	 * come (the next piece may continue at the same depth). */
	if (rc == 0)
		flush_run(o, t, t->run_expect_second ? 1 : 0);
	wpp_stream_free(&s);
	for (size_t i = 0; i < n; i++) {
		t->held_words -= t->held[i].ref.nwords;
		free(t->held[i].words);
	}
	if (n)
		memmove(t->held, t->held + n, (t->nheld - n) * sizeof(*t->held));
	t->nheld -= n;
	if (t->nheld)
		t->next_seq = t->held[0].ref.seq;
	else if (n)
		t->next_seq = refs[n - 1].seq + 1;
out:
	free(refs);
	free(gaps);
	return rc;
}

static int try_deliver(struct wpp_online *o, struct othread *t)
{
	size_t n = complete_prefix(t);

	if (n && deliver_piece(o, t, n, t->held[n].ref.seq, 0) < 0)
		return -1;
	if (t->held_words <= o->hold_limit)
		return 0;
	/* Over the bound: give up waiting for the hole(s) before the newest
	 * main batch.  Its own tree may still grow, so it stays; a thread
	 * holding a single tree keeps waiting (only a signal handler that
	 * never returns could make that tree large). */
	for (n = t->nheld; n-- > 1;)
		if (!(t->held[n].ref.flags & WPP_BATCH_SIGNAL))
			break;
	if (n == 0)
		return 0;
	o->stats.forced_pieces++;
	return deliver_piece(o, t, n, t->held[n].ref.seq, 0);
}

/* ---- the transport's events ---- */

void wpp_online_batch(struct wpp_online *o, const struct wpp_chunk_batch *b, const uint64_t *words)
{
	struct wpp_thread_key key = {b->pid, b->tid, b->generation};
	struct othread *t;
	size_t lo = 0, hi;

	if (o->worker && !o->worker_packed)
		online_worker_batch(o->worker, b, words);
	if (!o->nconsumers)
		return;
	if (o->failed || !(t = get_thread(o, &key))) {
		o->failed = 1;
		return;
	}
	o->stats.batches++;
	if (b->seq < t->next_seq) {
		/* A salvaged copy of a batch already delivered is expected
		 * (stream.h), not late. */
		if (!(b->flags & WPP_BATCH_SALVAGED))
			o->stats.late_batches++;
		return;
	}
	for (hi = t->nheld; lo < hi;) {
		size_t mid = lo + (hi - lo) / 2;
		if (t->held[mid].ref.seq < b->seq)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < t->nheld && t->held[lo].ref.seq == b->seq) {
		/* As offline (wpp_batch_order): the held one, which came first,
		 * wins unless it is a salvaged copy and this is the published
		 * batch; counted only when neither is a copy. */
		struct held_batch *old = &t->held[lo];
		struct wpp_batch_ref now = {.seq = b->seq, .flags = b->flags};
		if (wpp_batch_order(&old->ref, 0, &now, 1) < 0) {
			if (!((b->flags | old->ref.flags) & WPP_BATCH_SALVAGED))
				o->stats.duplicate_batches++;
			return;
		}
		t->held_words -= old->ref.nwords;
		free(old->words);
		memmove(t->held + lo, t->held + lo + 1, (t->nheld - lo - 1) * sizeof(*t->held));
		t->nheld--;
	}
	if (t->nheld == t->held_cap) {
		size_t cap = t->held_cap ? 2 * t->held_cap : 16;
		struct held_batch *bigger = realloc(t->held, cap * sizeof(*bigger));
		if (!bigger) {
			o->failed = 1;
			return;
		}
		t->held = bigger;
		t->held_cap = cap;
	}
	struct held_batch h = {0};
	h.words = malloc(b->nwords ? (size_t)b->nwords * 8 : 8);
	if (!h.words) {
		o->failed = 1;
		return;
	}
	memcpy(h.words, words, (size_t)b->nwords * 8);
	h.ref = (struct wpp_batch_ref){.seq = b->seq,
				       .parent_seq = b->parent_seq,
				       .parent_off = b->parent_off,
				       .flags = b->flags,
				       .time_ns = b->time_ns,
				       .nwords = b->nwords,
				       .words = (const unsigned char *)h.words};
	memmove(t->held + lo + 1, t->held + lo, (t->nheld - lo) * sizeof(*t->held));
	t->held[lo] = h;
	t->nheld++;
	t->held_words += b->nwords;
	if (try_deliver(o, t) < 0)
		o->failed = 1;
}

void wpp_online_gap(struct wpp_online *o, const struct wpp_chunk_gap *g)
{
	struct othread *t = NULL;

	if (o->worker)
		online_worker_gap(o->worker, g);
	if (o->failed || !o->nconsumers)
		return;
	/* A GAP chunk names no generation: it belongs to the newest image of
	 * the thread seen so far. */
	for (size_t i = 0; i < o->nthreads; i++)
		if (o->threads[i]->key.pid == g->pid && o->threads[i]->key.tid == g->tid)
			t = o->threads[i];
	if (!t && !(t = get_thread(o, &(struct wpp_thread_key){g->pid, g->tid, 0}))) {
		o->failed = 1;
		return;
	}
	if (t->ngaps == t->gaps_cap) {
		size_t cap = t->gaps_cap ? 2 * t->gaps_cap : 8;
		struct wpp_gap_ref *bigger = realloc(t->gaps, cap * sizeof(*bigger));
		if (!bigger) {
			o->failed = 1;
			return;
		}
		t->gaps = bigger;
		t->gaps_cap = cap;
	}
	t->gaps[t->ngaps++] = (struct wpp_gap_ref){g->after_seq, g->lost_words, g->lost_batches};
	if (try_deliver(o, t) < 0)
		o->failed = 1;
}

static void free_thread(struct othread *t)
{
	for (size_t i = 0; i < t->nheld; i++)
		free(t->held[i].words);
	free(t->held);
	free(t->gaps);
	free(t->run);
	free(t->states);
	free(t);
}

/* Deliver everything held, close the consumers, forget the thread. */
static int close_thread(struct wpp_online *o, size_t idx, struct wpp_writer *w)
{
	struct othread *t = o->threads[idx];
	int rc = 0, err;

	if (!o->failed && deliver_piece(o, t, t->nheld, UINT64_MAX, 1) < 0)
		o->failed = 1;
	flush_run(o, t, 0);
	for (size_t c = 0; c < o->nconsumers; c++) {
		if (!t->states[c])
			continue;
		err = o->consumers[c].thread_close(t->states[c], w, &t->key);
		if (err && !rc)
			rc = err;
	}
	memmove(o->threads + idx, o->threads + idx + 1,
		(o->nthreads - idx - 1) * sizeof(*o->threads));
	o->nthreads--;
	free_thread(t);
	if (o->failed && !rc)
		rc = -ENOMEM;
	return rc;
}

int wpp_online_thread_exit(struct wpp_online *o, const struct wpp_thread_key *key,
			   struct wpp_writer *w)
{
	size_t i = thread_pos(o, key);
	int rc = 0, err;

	if (o->worker) {
		online_worker_thread_exit(o->worker, key);
		/* Results of threads the worker has closed meanwhile. */
		rc = online_worker_write(o->worker, w);
	}
	if (i >= o->nthreads || key_cmp(&o->threads[i]->key, key))
		return rc; /* nothing was recorded for it */
	err = close_thread(o, i, w);
	return rc ? rc : err;
}

int wpp_online_finish(struct wpp_online *o, struct wpp_writer *w)
{
	int rc = 0, err;

	while (o->nthreads) {
		err = close_thread(o, 0, w);
		if (err && !rc)
			rc = err;
	}
	if (o->worker && (err = online_worker_finish(o->worker, w)) < 0 && !rc)
		rc = err;
	return rc;
}

void wpp_online_free(struct wpp_online *o)
{
	if (!o)
		return;
	/* Threads still open lose their results: free consumer state by
	 * closing without a writer (consumers must accept w == NULL). */
	o->failed = 1;
	online_worker_free(o->worker);
	o->worker = NULL;
	wpp_online_finish(o, NULL);
	free(o->threads);
	free(o);
}
