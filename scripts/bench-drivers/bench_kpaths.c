/* SPDX-License-Identifier: MIT */
/*
 * bench_kpaths.c — k-BLPP against a hash-table path counter on the same
 * recorded streams (driven by scripts/bench-kpaths).
 *
 *   bench_kpaths [-r REPEAT] [-R] FILE.wpp K...
 *
 * Every thread's words are assembled (as the collector's online assembler
 * hands them to consumers) before timing.  Timed, in process CPU time, best
 * of REPEAT: (1) a Ball-Larus profiler's hash table of (fid, path id) ->
 * count over the words, (2) for each K, the streaming k-SF over the same
 * words, and (3) its conversion to the k-IPF.  Both read the raw words with
 * the same reader (kslab_words.h), so the difference is the data structure.
 * With -R, runs of one record are first rewritten as REPEAT words (see
 * write_runs).  One line per measurement: "name k items cpu_s items_per_s
 * nodes extra" (extra: the words read, for the hash line).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "decode/batch_words.h"
#include "analysis/kpaths/kipf.h"
#include "analysis/kpaths/kslab.h"
#include "analysis/kpaths/kslab_words.h"
#include "decode/stream.h"
#include "decode/trace_file.h"
#include "wpp/trace_abi.h"

struct words {
	uint64_t *w;
	size_t n, cap;
};

static void push(struct words *v, uint64_t w)
{
	if (v->n == v->cap) {
		v->cap = v->cap ? v->cap * 2 : 1 << 16;
		v->w = realloc(v->w, v->cap * sizeof(*v->w));
		if (!v->w) {
			fprintf(stderr, "bench_kpaths: out of memory\n");
			exit(1);
		}
	}
	v->w[v->n++] = w;
}

static double cpu_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The BLPP baseline: count[(fid, id)]++ in an open-addressing table. */
struct slot {
	uint64_t value, count;
	uint32_t fid;
};

struct table {
	struct slot *s;
	size_t cap, n;
};

static void grow(struct table *t);

static inline void count_path(struct table *t, uint32_t fid, uint64_t value, uint64_t times)
{
	size_t i;

	if ((t->n + 1) * 2 > t->cap)
		grow(t);
	for (i = (size_t)((value * 0x9e3779b97f4a7c15u ^ fid * 0xc2b2ae3d27d4eb4fu) >> 20) &
		 (t->cap - 1);
	     t->s[i].fid; i = (i + 1) & (t->cap - 1))
		if (t->s[i].value == value && t->s[i].fid == fid) {
			t->s[i].count += times;
			return;
		}
	t->s[i] = (struct slot){.value = value, .count = times, .fid = fid};
	t->n++;
}

static void grow(struct table *t)
{
	struct table n = {.cap = t->cap ? t->cap * 2 : 1024};

	n.s = calloc(n.cap, sizeof(*n.s));
	for (size_t i = 0; i < t->cap; i++)
		if (t->s[i].fid)
			for (size_t j = 0;; j++) {
				size_t k = (size_t)((t->s[i].value * 0x9e3779b97f4a7c15u ^
						     t->s[i].fid * 0xc2b2ae3d27d4eb4fu) >>
						    20) +
					   j;
				k &= n.cap - 1;
				if (!n.s[k].fid) {
					n.s[k] = t->s[i];
					n.n++;
					break;
				}
			}
	free(t->s);
	*t = n;
}

/* The hash profiler behind the same word reader as the k-SF (kslab_words.h):
 * a REPEAT run adds its length to one counter, as a BLPP profiler would. */
struct hash_sink {
	struct table *t;
	uint64_t items;
};

static int hash_items(void *ctx, uint32_t fid, uint64_t value, uint64_t times)
{
	struct hash_sink *h = ctx;

	count_path(h->t, fid, value, times);
	h->items += times;
	return 0;
}

static void hash_mark(void *ctx)
{
	(void)ctx;
}

static uint64_t hash_profile(struct table *t, const uint64_t *w, size_t n)
{
	struct hash_sink h = {.t = t};
	struct kslab_words r;

	kslab_words_init(
	    &r, (struct kslab_words_sink){.items = hash_items, .mark = hash_mark, .ctx = &h});
	kslab_words_feed(&r, w, n, 0);
	return h.items;
}

/* -R: rewrite each run of one narrow record as the record and a REPEAT
 * word, as a runtime that counts repeated loop paths writes it
 * (trace_abi.h), to time the readers on such streams. */
static void write_runs(struct words *v)
{
	size_t out = 0;
	uint64_t last = 0; /* the record a REPEAT at out would repeat, 0: none */

	for (size_t i = 0; i < v->n; i++) {
		uint64_t w = v->w[i];
		int narrow = w != 0 && wpp_word_fid(w) != WPP_FID_CONTROL;
		if (narrow && w == last) {
			if (out && wpp_word_fid(v->w[out - 1]) == WPP_FID_CONTROL &&
			    wpp_ctrl_op(v->w[out - 1]) == WPP_CTRL_REPEAT &&
			    wpp_ctrl_operand(v->w[out - 1]) < WPP_REPEAT_MAX)
				v->w[out - 1]++;
			else
				v->w[out++] = wpp_make_ctrl(WPP_CTRL_REPEAT, 1);
			continue;
		}
		/* Copy a wide or gap record whole; it ends any run. */
		if (!narrow && w != 0 &&
		    (wpp_ctrl_op(w) == WPP_CTRL_WIDE_PATH || wpp_ctrl_op(w) == WPP_CTRL_GAP) &&
		    i + 1 < v->n) {
			v->w[out++] = w;
			w = v->w[++i];
		}
		v->w[out++] = w;
		last = narrow ? w : 0;
	}
	v->n = out;
}

int main(int argc, char **argv)
{
	struct wpp_trace *t;
	struct words *th;
	int repeat = 3, a = 1, runs = 0;
	size_t nth;

	for (;;) {
		if (argc > a + 1 && !strcmp(argv[a], "-r")) {
			repeat = atoi(argv[a + 1]);
			a += 2;
		} else if (argc > a && !strcmp(argv[a], "-R")) {
			runs = 1;
			a++;
		} else {
			break;
		}
	}
	if (argc - a < 2) {
		fprintf(stderr, "usage: bench_kpaths [-r REPEAT] [-R] FILE.wpp K...\n");
		return 2;
	}
	t = wpp_trace_load(argv[a]);
	if (!t)
		return 1;
	nth = t->nthreads;
	th = calloc(nth ? nth : 1, sizeof(*th));
	for (size_t i = 0; i < nth; i++) {
		struct wpp_stream s;
		if (wpp_stream_assemble(&t->threads[i], &s) < 0)
			return 1;
		for (size_t g = 0; g < s.nsegs; g++) {
			const struct wpp_segment *seg = &s.segs[g];
			if (seg->kind == WPP_SEG_GAP) {
				push(&th[i], wpp_make_ctrl(WPP_CTRL_GAP, 0));
				push(&th[i], 0);
				continue;
			}
			const unsigned char *words = wpp_batch_words_get(seg->batch);
			for (uint32_t j = seg->from; j < seg->to; j++) {
				uint64_t w;
				memcpy(&w, words + (size_t)j * 8, 8);
				push(&th[i], w);
			}
			wpp_batch_words_put(seg->batch);
		}
		wpp_stream_free(&s);
		if (runs)
			write_runs(&th[i]);
	}

	/* Baseline. */
	{
		double best = 1e30;
		uint64_t items = 0;
		size_t entries = 0;
		for (int r = 0; r < repeat; r++) {
			double t0 = cpu_now(), dt;
			items = 0;
			entries = 0;
			for (size_t i = 0; i < nth; i++) {
				struct table tab = {0};
				items += hash_profile(&tab, th[i].w, th[i].n);
				entries += tab.n;
				free(tab.s);
			}
			dt = cpu_now() - t0;
			if (dt < best)
				best = dt;
		}
		size_t nwords = 0;
		for (size_t i = 0; i < nth; i++)
			nwords += th[i].n;
		printf("hash 1 %" PRIu64 " %.6f %.0f %zu words=%zu\n", items, best,
		       (double)items / best, entries, nwords);
	}
	for (int ai = a + 1; ai < argc; ai++) {
		unsigned k = (unsigned)atoi(argv[ai]);
		double best = 1e30, best_conv = 1e30;
		uint64_t items = 0, peak = 0, ipf_nodes = 0, lookups = 0;
		for (int r = 0; r < repeat; r++) {
			double t0, dt, conv = 0;
			items = peak = ipf_nodes = lookups = 0;
			dt = 0;
			for (size_t i = 0; i < nth; i++) {
				struct kslab *s = kslab_new(k, 0);
				struct kipf *f = kipf_new(k);
				struct kslab_words rd;
				double c0;
				if (!s || !f)
					return 1;
				kslab_words_init(&rd, kslab_flat_sink(s));
				t0 = cpu_now();
				if (kslab_words_feed(&rd, th[i].w, th[i].n, 0) < 0) {
					fprintf(stderr, "bench_kpaths: out of memory at k %u\n", k);
					return 1;
				}
				c0 = cpu_now();
				dt += c0 - t0;
				if (kipf_add_kslab(f, s) < 0)
					return 1;
				conv += cpu_now() - c0;
				items += kslab_stats(s)->items;
				peak += kslab_stats(s)->peak_nodes;
				lookups += kslab_stats(s)->root_lookups;
				ipf_nodes += f->nnodes;
				kslab_free(s);
				kipf_free(f);
			}
			if (dt < best)
				best = dt;
			if (conv < best_conv)
				best_conv = conv;
		}
		printf("kslab %u %" PRIu64 " %.6f %.0f %" PRIu64 " lookups=%" PRIu64 "\n", k, items,
		       best, (double)items / best, peak, lookups);
		printf("kipf %u %" PRIu64 " %.6f %.0f %" PRIu64 " -\n", k, items, best_conv,
		       (double)items / best_conv, ipf_nodes);
	}
	for (size_t i = 0; i < nth; i++)
		free(th[i].w);
	free(th);
	wpp_trace_free(t);
	return 0;
}
