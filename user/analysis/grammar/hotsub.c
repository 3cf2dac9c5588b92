/* SPDX-License-Identifier: MIT */
/* Minimal hot subpaths; see hotsub.h for the definitions. */
#include "analysis/grammar/hotsub.h"

#include <stdlib.h>
#include <string.h>

#define HASH_BASE 0x100000001b3ull

/* Distinct L-grams of the end-padded stream with their occurrence counts. */
struct gramset {
	uint32_t L;
	uint32_t *syms;	  /* gram i is syms[i*L .. i*L+L) */
	uint64_t *weight; /* occurrences of gram i */
	uint32_t n, cap;
	uint64_t *slot_hash; /* open addressing: hash, and gram index + 1 */
	uint32_t *slot_gram;
	uint32_t mask;
	uint64_t base_pow; /* HASH_BASE^(L-1) */
	uint64_t seen;
	uint8_t *covered; /* after the scan: gram i has a hot prefix */
	/* Filter: keep a gram only if its prev->L prefix is a kept, uncovered
	 * gram of the previous level with at least min_weight occurrences. */
	const struct gramset *prev;
	uint64_t prev_base_pow, min_weight;
};

static uint64_t mix(uint64_t h)
{
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdull;
	h ^= h >> 33;
	return h;
}

static int grow_slots(struct gramset *gs)
{
	uint32_t cap = gs->mask ? 2 * (gs->mask + 1) : 1024;
	uint64_t *h = calloc(cap, sizeof(*h));
	uint32_t *gi = calloc(cap, sizeof(*gi));

	if (!h || !gi) {
		free(h);
		free(gi);
		return -1;
	}
	for (uint32_t i = 0; gs->slot_gram && i <= gs->mask; i++) {
		if (!gs->slot_gram[i])
			continue;
		uint32_t j = (uint32_t)mix(gs->slot_hash[i]) & (cap - 1);
		while (gi[j])
			j = (j + 1) & (cap - 1);
		h[j] = gs->slot_hash[i];
		gi[j] = gs->slot_gram[i];
	}
	free(gs->slot_hash);
	free(gs->slot_gram);
	gs->slot_hash = h;
	gs->slot_gram = gi;
	gs->mask = cap - 1;
	return 0;
}

static int add_gram(struct gramset *gs, const uint32_t *gram, uint64_t hash, uint64_t weight)
{
	uint32_t L = gs->L;

	gs->seen++;
	for (uint32_t j = (uint32_t)mix(hash) & gs->mask;; j = (j + 1) & gs->mask) {
		uint32_t gi = gs->slot_gram[j];
		if (!gi) {
			if (gs->n == gs->cap) {
				uint32_t cap = gs->cap ? 2 * gs->cap : 1024;
				uint32_t *s = realloc(gs->syms, (size_t)cap * L * sizeof(*s));
				if (s)
					gs->syms = s;
				uint64_t *w = realloc(gs->weight, (size_t)cap * sizeof(*w));
				if (w)
					gs->weight = w;
				if (!s || !w)
					return -1;
				gs->cap = cap;
			}
			memcpy(gs->syms + (size_t)gs->n * L, gram, L * sizeof(*gram));
			gs->weight[gs->n] = weight;
			gs->slot_hash[j] = hash;
			gs->slot_gram[j] = ++gs->n;
			if ((uint64_t)gs->n * 2 > gs->mask)
				return grow_slots(gs);
			return 0;
		}
		if (gs->slot_hash[j] == hash &&
		    !memcmp(gs->syms + (size_t)(gi - 1) * L, gram, L * sizeof(*gram))) {
			gs->weight[gi - 1] += weight;
			return 0;
		}
	}
}

static int64_t find_gram(const struct gramset *gs, const uint32_t *gram, uint64_t hash)
{
	for (uint32_t j = (uint32_t)mix(hash) & gs->mask;; j = (j + 1) & gs->mask) {
		uint32_t gi = gs->slot_gram[j];
		if (!gi)
			return -1;
		if (gs->slot_hash[j] == hash &&
		    !memcmp(gs->syms + (size_t)(gi - 1) * gs->L, gram, gs->L * sizeof(*gram)))
			return gi - 1;
	}
}

static int wanted(const struct gramset *gs, const uint32_t *gram, uint64_t prefix_hash)
{
	int64_t i;

	if (!gs->prev)
		return 1;
	i = find_gram(gs->prev, gram, prefix_hash);
	return i >= 0 && !gs->prev->covered[i] && gs->prev->weight[i] >= gs->min_weight;
}

/* Polynomial hashes (of the gram and of its previous-level prefix) rolled
 * along the window: O(1) per gram. */
static int add_window(void *ctx, const uint32_t *w, uint32_t nstarts, uint32_t q, uint64_t weight)
{
	struct gramset *gs = ctx;
	uint32_t qp = gs->prev ? gs->prev->L : 0;
	uint64_t h = 0, hp = 0;

	for (uint32_t i = 0; i < q; i++)
		h = h * HASH_BASE + w[i];
	for (uint32_t i = 0; i < qp; i++)
		hp = hp * HASH_BASE + w[i];
	for (uint32_t s = 0;; s++) {
		if (wanted(gs, w + s, hp) && add_gram(gs, w + s, h, weight) < 0)
			return -1;
		if (s + 1 == nstarts)
			return 0;
		h = (h - w[s] * gs->base_pow) * HASH_BASE + w[s + q];
		if (qp)
			hp = (hp - w[s] * gs->prev_base_pow) * HASH_BASE + w[s + qp];
	}
}

struct sorter {
	const uint32_t *syms;
	uint32_t L;
};

static int cmp_grams(const void *a, const void *b, void *arg)
{
	const struct sorter *so = arg;
	const uint32_t *x = so->syms + (size_t)*(const uint32_t *)a * so->L;
	const uint32_t *y = so->syms + (size_t)*(const uint32_t *)b * so->L;

	for (uint32_t i = 0; i < so->L; i++)
		if (x[i] != y[i])
			return x[i] < y[i] ? -1 : 1;
	return 0;
}

static uint32_t lcp(const uint32_t *x, const uint32_t *y, uint32_t L)
{
	uint32_t i = 0;
	while (i < L && x[i] == y[i])
		i++;
	return i;
}

static uint64_t sat_mul(uint64_t a, uint64_t b)
{
	unsigned __int128 p = (unsigned __int128)a * b;
	return p > UINT64_MAX ? UINT64_MAX : (uint64_t)p;
}

static int emit(struct hotsub_result *r, const uint32_t *gram, uint32_t len, uint64_t occ,
		uint64_t cost)
{
	/* Capacity is 64, then doubles: grow when n reaches it. */
	if (r->n == 0 || (r->n >= 64 && (r->n & (r->n - 1)) == 0)) {
		size_t c = r->n ? 2 * r->n : 64;
		struct hotsub_path *p = realloc(r->paths, c * sizeof(*p));
		if (!p)
			return -1;
		r->paths = p;
	}
	uint32_t *copy = malloc(len * sizeof(*copy));
	if (!copy)
		return -1;
	memcpy(copy, gram, len * sizeof(*copy));
	r->paths[r->n++] = (struct hotsub_path){copy, len, occ, cost};
	return 0;
}

/*
 * With the distinct grams sorted, the grams sharing the first l symbols
 * with gram k form a contiguous range around k whose ends are found by
 * walking "previous/next smaller LCP" chains: as l falls the range only
 * grows, and each chain has at most L+1 links.  occ(G_k[0..l)) is the
 * weight of that range (prefix sums).
 */
static int scan_sorted(struct gramset *gs, const uint32_t *order, const struct hotsub_params *p,
		       uint32_t lo_len, uint32_t hi_len, struct hotsub_result *r)
{
	uint32_t D = gs->n, L = gs->L;
	/* lcp[k] = lcp(G[k-1], G[k]); lcp[0] and lcp[D] are -1 sentinels */
	int32_t *lc = malloc(((size_t)D + 1) * sizeof(*lc));
	uint32_t *pse = malloc(((size_t)D + 1) * sizeof(*pse));
	uint32_t *nse = malloc(((size_t)D + 1) * sizeof(*nse));
	uint32_t *stack = malloc(((size_t)D + 1) * sizeof(*stack));
	uint64_t *sum = malloc(((size_t)D + 1) * sizeof(*sum));
	uint64_t *prefix_cost = malloc(((size_t)L + 1) * sizeof(*prefix_cost));
	uint64_t *occ_at = malloc(((size_t)L + 1) * sizeof(*occ_at));
	int rc = -1;

	gs->covered = calloc(D ? D : 1, 1);
	if (!gs->covered || !lc || !pse || !nse || !stack || !sum || !prefix_cost || !occ_at)
		goto out;
#define GRAM(k) (gs->syms + (size_t)order[k] * L)
	lc[0] = lc[D] = -1;
	sum[0] = 0;
	for (uint32_t k = 0; k < D; k++) {
		if (k)
			lc[k] = (int32_t)lcp(GRAM(k - 1), GRAM(k), L);
		sum[k + 1] = sum[k] + gs->weight[order[k]];
	}
	/* pse[j]: largest i < j with lc[i] < lc[j]; nse[j]: smallest i > j. */
	uint32_t top = 0;
	for (uint32_t j = 0; j <= D; j++) {
		while (top && lc[stack[top - 1]] >= lc[j])
			top--;
		pse[j] = top ? stack[top - 1] : 0;
		stack[top++] = j;
	}
	top = 0;
	for (uint32_t j = D + 1; j-- > 0;) {
		while (top && lc[stack[top - 1]] >= lc[j])
			top--;
		nse[j] = top ? stack[top - 1] : D;
		stack[top++] = j;
	}
	uint32_t prev_h = 0;
	for (uint32_t k = 0; k < D; k++) {
		const uint32_t *gram = GRAM(k);
		uint32_t real = 0;
		while (real < L && gram[real] != WPPDAG_PAD_END)
			real++;
		uint32_t top_len = real < hi_len ? real : hi_len;
		prefix_cost[0] = 0;
		for (uint32_t l = 0; l < top_len; l++)
			prefix_cost[l + 1] =
			    prefix_cost[l] + (gram[l] < p->ncost ? p->cost[gram[l]] : 0);
		/* Walk l downwards; the ends move outwards along the chains. */
		uint32_t left = k, right = k + 1, h = 0;
		for (uint32_t l = top_len; l >= lo_len && l >= 1; l--) {
			while (lc[left] >= (int32_t)l)
				left = pse[left];
			while (lc[right] >= (int32_t)l)
				right = nse[right];
			occ_at[l] = sum[right] - sum[left];
			if (sat_mul(occ_at[l], prefix_cost[l]) >= p->min_cost)
				h = l;
		}
		/* Grams sharing a minimal hot prefix are adjacent and have the
		 * same h: report it once. */
		if (h && !(k && prev_h == h && lc[k] >= (int32_t)h) &&
		    emit(r, gram, h, occ_at[h], sat_mul(occ_at[h], prefix_cost[h])) < 0)
			goto out;
		prev_h = h;
		gs->covered[order[k]] = h != 0;
	}
#undef GRAM
	rc = 0;
out:
	free(lc);
	free(pse);
	free(nse);
	free(stack);
	free(sum);
	free(prefix_cost);
	free(occ_at);
	return rc;
}

static void gramset_free(struct gramset *gs)
{
	free(gs->syms);
	free(gs->weight);
	free(gs->slot_hash);
	free(gs->slot_gram);
	free(gs->covered);
	memset(gs, 0, sizeof(*gs));
}

/* One level: all L-grams (end-padded) that pass the previous level's
 * filter, sorted, and scanned for minimal hot prefixes of lengths
 * [lo_len, hi_len]. */
static int run_level(const struct wppdag *d, const struct hotsub_params *p, struct gramset *gs,
		     uint32_t lo_len, uint32_t hi_len, struct hotsub_result *r)
{
	uint32_t *order = NULL;
	int rc = -1;

	gs->base_pow = 1;
	for (uint32_t i = 1; i < gs->L; i++)
		gs->base_pow *= HASH_BASE;
	if (gs->prev) {
		gs->prev_base_pow = 1;
		for (uint32_t i = 1; i < gs->prev->L; i++)
			gs->prev_base_pow *= HASH_BASE;
	}
	if (grow_slots(gs) < 0)
		return -1;
	/* End padding makes every start position begin exactly one L-gram. */
	if (wppdag_for_each_window(d, gs->L, 0, gs->L - 1, add_window, gs) != 0)
		return -1;
	order = malloc((gs->n ? gs->n : 1) * sizeof(*order));
	if (!order)
		return -1;
	for (uint32_t i = 0; i < gs->n; i++)
		order[i] = i;
	struct sorter so = {gs->syms, gs->L};
	qsort_r(order, gs->n, sizeof(*order), cmp_grams, &so);
	rc = scan_sorted(gs, order, p, lo_len, hi_len, r);
	r->grams_seen += gs->seen;
	r->distinct_grams += gs->n;
	free(order);
	return rc;
}

static int cmp_paths(const void *a, const void *b)
{
	const struct hotsub_path *x = a, *y = b;
	uint32_t n = x->len < y->len ? x->len : y->len;
	for (uint32_t i = 0; i < n; i++)
		if (x->syms[i] != y->syms[i])
			return x->syms[i] < y->syms[i] ? -1 : 1;
	return (x->len > y->len) - (x->len < y->len);
}

#define FIRST_LEVEL 4

/*
 * Levels q0 < q1 < ... = max_len (q0 = max(min_len, 4), then doubling).
 * Starting short costs little (a level's walk is O(E x q)) and lets the
 * filter below act before the distinct long grams pile up: on real
 * programs' streams a first level of 16 kept millions of distinct
 * 16-grams (docs/sequitur.md).
 * A string occurring fewer than theta = ceil(min_cost / (max_len x
 * max path cost)) times cannot be hot at any length <= max_len, nor can
 * any extension of it (occurrences only fall as a string grows).  So a
 * level keeps only grams whose previous-level prefix occurs >= theta
 * times and has no hot prefix yet; all grams sharing a longer prefix share
 * that filter decision, so the counts a level scans (lengths above the
 * previous level) are exact.  This keeps the distinct grams few without
 * changing the answer.
 */
int hotsub_find(const struct wppdag *d, const struct hotsub_params *p, struct hotsub_result *r)
{
	struct gramset levels[2] = {{0}, {0}};
	uint64_t max_cost = 0;
	int rc = -1;

	memset(r, 0, sizeof(*r));
	if (p->min_len < 1 || p->max_len < p->min_len)
		return -1;
	for (uint32_t t = 0; t < p->ncost; t++)
		if (p->cost[t] > max_cost)
			max_cost = p->cost[t];
	uint64_t theta = 0;
	if (p->min_cost && max_cost) {
		unsigned __int128 most = (unsigned __int128)p->max_len * max_cost;
		theta = (uint64_t)((p->min_cost + most - 1) / most);
	} else if (p->min_cost) {
		return 0; /* nothing costs anything: nothing is hot */
	}
	uint32_t q = p->min_len > FIRST_LEVEL ? p->min_len : FIRST_LEVEL, lo = p->min_len;
	if (q > p->max_len)
		q = p->max_len;
	struct gramset *cur = &levels[0], *prev = NULL;
	for (;;) {
		cur->L = q;
		cur->prev = prev;
		cur->min_weight = theta;
		if (run_level(d, p, cur, lo, q, r) < 0)
			goto out;
		if (q == p->max_len)
			break;
		if (prev)
			gramset_free(prev);
		prev = cur;
		cur = cur == &levels[0] ? &levels[1] : &levels[0];
		lo = q + 1;
		q = q * 2 < p->max_len ? q * 2 : p->max_len;
	}
	if (r->n)
		qsort(r->paths, r->n, sizeof(*r->paths), cmp_paths);
	rc = 0;
out:
	gramset_free(&levels[0]);
	gramset_free(&levels[1]);
	if (rc < 0)
		hotsub_result_free(r);
	return rc;
}

void hotsub_result_free(struct hotsub_result *r)
{
	for (size_t i = 0; i < r->n; i++)
		free(r->paths[i].syms);
	free(r->paths);
	memset(r, 0, sizeof(*r));
}

static int by_cost_desc(const void *a, const void *b)
{
	const struct hotsub_path *x = a, *y = b;
	if (x->cost != y->cost)
		return x->cost > y->cost ? -1 : 1;
	if (x->len != y->len)
		return x->len < y->len ? -1 : 1;
	return memcmp(x->syms, y->syms, x->len * sizeof(*x->syms));
}

void hotsub_sort_by_cost(struct hotsub_result *r)
{
	if (r->n)
		qsort(r->paths, r->n, sizeof(*r->paths), by_cost_desc);
}
