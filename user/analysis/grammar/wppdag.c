/* SPDX-License-Identifier: MIT */
/* DAG queries on a grammar; see wppdag.h for the contract. */
#include "analysis/grammar/wppdag.h"

#include <stdlib.h>
#include <string.h>

int wppdag_init(struct wppdag *d, const struct seq_grammar *g)
{
	uint32_t nodes = seq_grammar_nodes(g);

	d->g = g;
	d->freq = calloc(nodes ? nodes : 1, sizeof(*d->freq));
	if (!d->freq)
		return -1;
	/* Parents have higher numbers than children: one sweep downwards
	 * pushes each node's count to its children (a DAG path count). */
	for (uint32_t i = nodes; i-- > 0;) {
		if (i >= g->nrules)
			d->freq[i] = 1;
		const uint32_t *body = seq_grammar_body(g, i);
		for (uint32_t j = 0; j < seq_grammar_body_len(g, i); j++)
			if (seq_is_rule(body[j]))
				d->freq[body[j] & ~SEQ_RULE_BIT] += d->freq[i];
	}
	return 0;
}

void wppdag_free(struct wppdag *d)
{
	free(d->freq);
	d->freq = NULL;
}

/* The first / last (q-1) symbols of each rule's expansion, kept only until
 * the last node that uses them has been visited. */
struct ends {
	uint32_t *pre, *suf;
	uint32_t npre, nsuf;
};

/* A child of a body as the window logic sees it: its whole expansion if
 * short, else its (q-1)-prefix and (q-1)-suffix. */
struct piece {
	const uint32_t *pre, *suf;
	uint32_t npre, nsuf;
};

static struct piece piece_of(const struct ends *e, const uint32_t *sym)
{
	if (seq_is_rule(*sym)) {
		const struct ends *r = &e[*sym & ~SEQ_RULE_BIT];
		return (struct piece){r->pre, r->suf, r->npre, r->nsuf};
	}
	return (struct piece){sym, sym, 1, 1};
}

struct walker {
	const struct wppdag *d;
	uint32_t q, w; /* w = q - 1 */
	struct ends *ends;
	uint32_t *window, *right, *pads_start, *pads_end;
	wppdag_window_fn fn;
	void *ctx;
};

/* Children of node i as pieces, with the padding runs of a root added. */
static uint32_t pieces_of(const struct walker *wk, uint32_t i, uint32_t pad_start, uint32_t pad_end,
			  struct piece *out)
{
	const struct seq_grammar *g = wk->d->g;
	const uint32_t *body = seq_grammar_body(g, i);
	uint32_t n = 0, len = seq_grammar_body_len(g, i);
	int root = i >= g->nrules;

	if (root && pad_start)
		out[n++] = (struct piece){wk->pads_start, wk->pads_start, pad_start, pad_start};
	for (uint32_t j = 0; j < len; j++)
		out[n++] = piece_of(wk->ends, &body[j]);
	if (root && pad_end)
		out[n++] = (struct piece){wk->pads_end, wk->pads_end, pad_end, pad_end};
	return n;
}

static int visit(struct walker *wk, uint32_t i, const struct piece *p, uint32_t n)
{
	uint32_t w = wk->w, nright = 0;
	uint64_t weight = wk->d->freq[i];

	/* Right to left: `right` is the (q-1)-prefix of everything after
	 * child j; occurrences starting in child j's suffix and reaching past
	 * it are exactly the q-windows starting in the left part. */
	for (uint32_t j = n; j-- > 0;) {
		uint32_t nleft = p[j].nsuf;
		if (nright && weight) {
			memcpy(wk->window, p[j].suf, nleft * sizeof(uint32_t));
			memcpy(wk->window + nleft, wk->right, nright * sizeof(uint32_t));
			uint32_t starts = nleft + nright >= wk->q ? nleft + nright - wk->q + 1 : 0;
			if (starts > nleft)
				starts = nleft;
			if (starts) {
				int rc = wk->fn(wk->ctx, wk->window, starts, wk->q, weight);
				if (rc)
					return rc;
			}
		}
		/* new right = (q-1)-prefix of child j followed by old right */
		uint32_t keep = p[j].npre < w ? w - p[j].npre : 0;
		if (keep > nright)
			keep = nright;
		memmove(wk->right + p[j].npre, wk->right, keep * sizeof(uint32_t));
		memcpy(wk->right, p[j].pre, p[j].npre * sizeof(uint32_t));
		nright = p[j].npre + keep;
	}
	return 0;
}

/* Prefix and suffix of rule i, from its children's. */
static int compute_ends(struct walker *wk, uint32_t i, const struct piece *p, uint32_t n)
{
	struct ends *e = &wk->ends[i];
	uint32_t w = wk->w;

	e->pre = malloc(w * sizeof(uint32_t));
	e->suf = malloc(w * sizeof(uint32_t));
	if (!e->pre || !e->suf)
		return -1;
	e->npre = e->nsuf = 0;
	for (uint32_t j = 0; j < n && e->npre < w; j++) {
		uint32_t take = p[j].npre < w - e->npre ? p[j].npre : w - e->npre;
		memcpy(e->pre + e->npre, p[j].pre, take * sizeof(uint32_t));
		e->npre += take;
	}
	/* Suffix: gather from the right into the tail of a scratch buffer. */
	uint32_t *tail = wk->window + 2 * w, got = 0;
	for (uint32_t j = n; j-- > 0 && got < w;) {
		uint32_t take = p[j].nsuf < w - got ? p[j].nsuf : w - got;
		memcpy(tail + w - got - take, p[j].suf + p[j].nsuf - take, take * sizeof(uint32_t));
		got += take;
	}
	memcpy(e->suf, tail + w - got, got * sizeof(uint32_t));
	e->nsuf = got;
	return 0;
}

static int unigrams(const struct wppdag *d, wppdag_window_fn fn, void *ctx)
{
	const struct seq_grammar *g = d->g;

	for (uint32_t i = 0; i < seq_grammar_nodes(g); i++) {
		const uint32_t *body = seq_grammar_body(g, i);
		for (uint32_t j = 0; j < seq_grammar_body_len(g, i); j++) {
			if (seq_is_rule(body[j]) || !d->freq[i])
				continue;
			int rc = fn(ctx, &body[j], 1, 1, d->freq[i]);
			if (rc)
				return rc;
		}
	}
	return 0;
}

int wppdag_for_each_window(const struct wppdag *d, uint32_t q, uint32_t pad_start, uint32_t pad_end,
			   wppdag_window_fn fn, void *ctx)
{
	const struct seq_grammar *g = d->g;
	uint32_t nodes = seq_grammar_nodes(g), maxlen = 0;
	struct walker wk = {.d = d, .q = q, .w = q - 1, .fn = fn, .ctx = ctx};
	uint32_t *last_use = NULL;
	struct piece *pieces = NULL;
	int rc = -1;

	if (q == 0 || pad_start >= q || pad_end >= q)
		return -1;
	if (q == 1)
		return unigrams(d, fn, ctx);
	for (uint32_t i = 0; i < nodes; i++)
		if (seq_grammar_body_len(g, i) > maxlen)
			maxlen = seq_grammar_body_len(g, i);
	wk.ends = calloc(g->nrules ? g->nrules : 1, sizeof(*wk.ends));
	last_use = calloc(g->nrules ? g->nrules : 1, sizeof(*last_use));
	pieces = malloc(((size_t)maxlen + 2) * sizeof(*pieces));
	wk.window = malloc(3 * (size_t)q * sizeof(uint32_t));
	wk.right = malloc((size_t)q * sizeof(uint32_t));
	wk.pads_start = malloc((size_t)q * sizeof(uint32_t));
	wk.pads_end = malloc((size_t)q * sizeof(uint32_t));
	if (!wk.ends || !last_use || !pieces || !wk.window || !wk.right || !wk.pads_start ||
	    !wk.pads_end)
		goto out;
	for (uint32_t k = 0; k < q; k++) {
		wk.pads_start[k] = WPPDAG_PAD_START;
		wk.pads_end[k] = WPPDAG_PAD_END;
	}
	for (uint32_t i = 0; i < nodes; i++) {
		const uint32_t *body = seq_grammar_body(g, i);
		for (uint32_t j = 0; j < seq_grammar_body_len(g, i); j++)
			if (seq_is_rule(body[j]))
				last_use[body[j] & ~SEQ_RULE_BIT] = i;
	}
	for (uint32_t i = 0; i < nodes; i++) {
		uint32_t n = pieces_of(&wk, i, pad_start, pad_end, pieces);
		rc = visit(&wk, i, pieces, n);
		if (rc)
			goto out;
		rc = -1;
		if (i < g->nrules && compute_ends(&wk, i, pieces, n) < 0)
			goto out;
		/* Children whose last user this was are no longer needed. */
		const uint32_t *body = seq_grammar_body(g, i);
		for (uint32_t j = 0; j < seq_grammar_body_len(g, i); j++) {
			uint32_t r = body[j] & ~SEQ_RULE_BIT;
			if (seq_is_rule(body[j]) && last_use[r] == i) {
				free(wk.ends[r].pre);
				free(wk.ends[r].suf);
				wk.ends[r].pre = wk.ends[r].suf = NULL;
			}
		}
	}
	rc = 0;
out:
	if (wk.ends)
		for (uint32_t r = 0; r < g->nrules; r++) {
			free(wk.ends[r].pre);
			free(wk.ends[r].suf);
		}
	free(wk.ends);
	free(last_use);
	free(pieces);
	free(wk.window);
	free(wk.right);
	free(wk.pads_start);
	free(wk.pads_end);
	return rc;
}

struct gram_adapter {
	wppdag_gram_fn fn;
	void *ctx;
};

static int each_gram(void *ctx, const uint32_t *window, uint32_t nstarts, uint32_t q,
		     uint64_t weight)
{
	struct gram_adapter *a = ctx;

	for (uint32_t s = 0; s < nstarts; s++) {
		int rc = a->fn(a->ctx, window + s, q, weight);
		if (rc)
			return rc;
	}
	return 0;
}

int wppdag_for_each_qgram(const struct wppdag *d, uint32_t q, uint32_t pad_start, uint32_t pad_end,
			  wppdag_gram_fn fn, void *ctx)
{
	struct gram_adapter a = {fn, ctx};

	return wppdag_for_each_window(d, q, pad_start, pad_end, each_gram, &a);
}

struct seq_count {
	const uint32_t *seq;
	uint64_t total;
};

static int count_matches(void *ctx, const uint32_t *gram, uint32_t q, uint64_t weight)
{
	struct seq_count *c = ctx;

	if (!memcmp(gram, c->seq, q * sizeof(uint32_t)))
		c->total += weight;
	return 0;
}

uint64_t wppdag_sequence_frequency(const struct wppdag *d, const uint32_t *seq, uint32_t m,
				   int *failed)
{
	struct seq_count c = {seq, 0};

	if (m == 0)
		return 0;
	if (wppdag_for_each_qgram(d, m, 0, 0, count_matches, &c) < 0) {
		*failed = 1;
		return 0;
	}
	return c.total;
}

struct ctx_collect {
	const uint32_t *seq;
	uint32_t m, k;
	enum wppdag_side side;
	uint32_t *syms; /* k symbols per hit */
	uint64_t *counts;
	size_t n, cap;
};

static int collect_context(void *ctx, const uint32_t *gram, uint32_t q, uint64_t weight)
{
	struct ctx_collect *c = ctx;
	const uint32_t *at = c->side == WPPDAG_AFTER ? gram : gram + c->k;
	const uint32_t *context = c->side == WPPDAG_AFTER ? gram + c->m : gram;

	(void)q;
	if (memcmp(at, c->seq, c->m * sizeof(uint32_t)))
		return 0;
	if (c->n == c->cap) {
		size_t cap = c->cap ? 2 * c->cap : 64;
		uint32_t *s = realloc(c->syms, cap * (c->k ? c->k : 1) * sizeof(uint32_t));
		if (s)
			c->syms = s;
		uint64_t *w = realloc(c->counts, cap * sizeof(uint64_t));
		if (w)
			c->counts = w;
		if (!s || !w)
			return -1;
		c->cap = cap;
	}
	memcpy(c->syms + c->n * c->k, context, c->k * sizeof(uint32_t));
	c->counts[c->n++] = weight;
	return 0;
}

static int cmp_syms(const uint32_t *a, const uint32_t *b, uint32_t k)
{
	for (uint32_t i = 0; i < k; i++)
		if (a[i] != b[i])
			return a[i] < b[i] ? -1 : 1;
	return 0;
}

static int by_context(const void *a, const void *b, void *arg)
{
	const struct wppdag_context *x = a, *y = b;
	return cmp_syms(x->syms, y->syms, *(const uint32_t *)arg);
}

static int by_count_then_context(const void *a, const void *b, void *arg)
{
	const struct wppdag_context *x = a, *y = b;
	if (x->count != y->count)
		return x->count < y->count ? 1 : -1;
	return cmp_syms(x->syms, y->syms, *(const uint32_t *)arg);
}

int wppdag_contexts(const struct wppdag *d, const uint32_t *seq, uint32_t m, uint32_t k,
		    enum wppdag_side side, struct wppdag_context **out, size_t *n)
{
	struct ctx_collect c = {.seq = seq, .m = m, .k = k, .side = side};
	struct wppdag_context *res = NULL;
	size_t nres = 0;

	*out = NULL;
	*n = 0;
	if (m == 0)
		return -1;
	if (wppdag_for_each_qgram(d, m + k, side == WPPDAG_BEFORE ? k : 0,
				  side == WPPDAG_AFTER ? k : 0, collect_context, &c) != 0)
		goto fail;
	res = calloc(c.n ? c.n : 1, sizeof(*res));
	if (!res)
		goto fail;
	for (size_t i = 0; i < c.n; i++)
		res[i] = (struct wppdag_context){c.syms + i * k, c.counts[i]};
	qsort_r(res, c.n, sizeof(*res), by_context, &k);
	/* Merge equal contexts, copying each survivor's symbols out. */
	for (size_t i = 0; i < c.n;) {
		size_t j = i;
		uint64_t total = 0;
		while (j < c.n && cmp_syms(res[j].syms, res[i].syms, k) == 0)
			total += res[j++].count;
		uint32_t *copy = malloc((k ? k : 1) * sizeof(uint32_t));
		if (!copy) {
			wppdag_contexts_free(res, nres);
			res = NULL;
			goto fail;
		}
		memcpy(copy, res[i].syms, k * sizeof(uint32_t));
		res[nres++] = (struct wppdag_context){copy, total};
		i = j;
	}
	qsort_r(res, nres, sizeof(*res), by_count_then_context, &k);
	free(c.syms);
	free(c.counts);
	*out = res;
	*n = nres;
	return 0;
fail:
	free(res);
	free(c.syms);
	free(c.counts);
	return -1;
}

void wppdag_contexts_free(struct wppdag_context *c, size_t n)
{
	for (size_t i = 0; i < n && c; i++)
		free(c[i].syms);
	free(c);
}

struct terminal_freq_ctx {
	uint64_t *freq;
	uint32_t nterm;
};

static int add_terminal_freq(void *ctx, const uint32_t *gram, uint32_t q, uint64_t weight)
{
	struct terminal_freq_ctx *f = ctx;
	(void)q;
	if (gram[0] < f->nterm)
		f->freq[gram[0]] += weight;
	return 0;
}

int wppdag_terminal_frequencies(const struct wppdag *d, uint64_t *freq, uint32_t nterm)
{
	struct terminal_freq_ctx f = {freq, nterm};
	return wppdag_for_each_qgram(d, 1, 0, 0, add_terminal_freq, &f) < 0 ? -1 : 0;
}

/* The length of one body symbol's expansion. */
static uint64_t symbol_len(const struct seq_grammar *g, uint32_t s)
{
	return seq_is_rule(s) ? g->exp_len[s & ~SEQ_RULE_BIT] : 1;
}

/* Descend from node i, whose expansion spans [lo, hi), to the first (or,
 * with last set, the last) occurrence of t; holds[] says which nodes'
 * expansions contain t, and i's does.  Each step goes one level down, so
 * the walk reads at most every body once. */
static uint64_t locate(const struct seq_grammar *g, const uint8_t *holds, uint32_t i, uint32_t t,
		       uint64_t lo, uint64_t hi, int last)
{
	for (;;) {
		const uint32_t *body = seq_grammar_body(g, i);
		uint32_t len = seq_grammar_body_len(g, i), next = UINT32_MAX;
		for (uint32_t k = 0; k < len && next == UINT32_MAX; k++) {
			uint32_t s = body[last ? len - 1 - k : k];
			if (s == t)
				return last ? hi - 1 : lo;
			if (seq_is_rule(s) && holds[s & ~SEQ_RULE_BIT])
				next = s & ~SEQ_RULE_BIT;
			else if (last)
				hi -= symbol_len(g, s);
			else
				lo += symbol_len(g, s);
		}
		/* holds[i] promised an occurrence: t itself or a child holding it */
		i = next;
		if (last)
			lo = hi - g->exp_len[i];
		else
			hi = lo + g->exp_len[i];
	}
}

int wppdag_first_last(const struct wppdag *d, uint32_t t, uint64_t *first, uint64_t *last)
{
	const struct seq_grammar *g = d->g;
	uint32_t nodes = seq_grammar_nodes(g), first_root = UINT32_MAX, last_root = 0;
	uint8_t *holds = calloc(nodes ? nodes : 1, 1);
	uint64_t before_first = 0, total = 0, before_last = 0;

	if (!holds)
		return -1;
	/* Children have lower numbers than their parents. */
	for (uint32_t i = 0; i < nodes; i++) {
		const uint32_t *body = seq_grammar_body(g, i);
		for (uint32_t k = 0; k < seq_grammar_body_len(g, i) && !holds[i]; k++)
			holds[i] = body[k] == t ||
				   (seq_is_rule(body[k]) && holds[body[k] & ~SEQ_RULE_BIT]);
	}
	for (uint32_t r = g->nrules; r < nodes; r++) {
		if (holds[r]) {
			if (first_root == UINT32_MAX) {
				first_root = r;
				before_first = total;
			}
			last_root = r;
			before_last = total;
		}
		total += g->exp_len[r];
	}
	if (first_root != UINT32_MAX) {
		*first = locate(g, holds, first_root, t, before_first,
				before_first + g->exp_len[first_root], 0);
		*last = locate(g, holds, last_root, t, before_last,
			       before_last + g->exp_len[last_root], 1);
	}
	free(holds);
	return first_root != UINT32_MAX;
}
