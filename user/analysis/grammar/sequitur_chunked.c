/* SPDX-License-Identifier: MIT */
/*
 * sequitur_chunked.c — building the chunked grammar: runs collapsed into
 * atoms, atoms cut into content-defined chunks, new chunks fed to the body
 * SEQUITUR(1), chunk ids to the top one.  See sequitur_chunked.h; the
 * export is in sequitur_chunked_export.c.
 */
#include "analysis/grammar/sequitur_chunked_internal.h"

#include <stdlib.h>
#include <string.h>

/* Every count the grammar holds stays below seq_grammar_finish's bound. */
#define MAX_INPUT (1ull << 61)

static uint64_t mix64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ull;
	x ^= x >> 33;
	return x;
}

static uint32_t run_hash(uint32_t sym, uint64_t n)
{
	return (uint32_t)(mix64(n * 0x9e3779b97f4a7c15ull ^ sym) >> 32);
}

/* ---- run tables ---- */

static int run_table_init(struct seqc_run_table *t)
{
	memset(t, 0, sizeof(*t));
	t->mask = 255;
	t->slots = calloc(t->mask + 1, sizeof(*t->slots));
	return t->slots ? 0 : -1;
}

static void run_table_free(struct seqc_run_table *t)
{
	free(t->runs);
	free(t->slots);
}

/* Both tables are open-addressing arrays of (hash << 32 | index) slots,
 * 0 = empty: double one, rehashing by the stored hash. */
static int slots_grow(uint64_t **slotsp, uint32_t *maskp)
{
	uint32_t cap = (*maskp + 1) * 2;
	uint64_t *old = *slotsp, *slots = calloc(cap, sizeof(*slots));

	if (!slots)
		return -1;
	for (uint32_t i = 0; i <= *maskp; i++) {
		if (!old[i])
			continue;
		uint32_t k = (uint32_t)(old[i] >> 32) & (cap - 1);
		while (slots[k])
			k = (k + 1) & (cap - 1);
		slots[k] = old[i];
	}
	free(old);
	*slotsp = slots;
	*maskp = cap - 1;
	return 0;
}

static int run_table_grow(struct seqc_run_table *t)
{
	return slots_grow(&t->slots, &t->mask);
}

uint32_t seqc_run_find(const struct seqc_run_table *t, uint32_t sym, uint64_t n)
{
	uint32_t h = run_hash(sym, n), k = h & t->mask;

	for (; t->slots[k]; k = (k + 1) & t->mask) {
		uint64_t s = t->slots[k];
		uint32_t id = (uint32_t)s - 1;
		if ((uint32_t)(s >> 32) == h && t->runs[id].sym == sym && t->runs[id].n == n)
			return id;
	}
	return UINT32_MAX;
}

/* The id of (sym, n), added when new; UINT32_MAX when out of memory or
 * out of ids (ids become SEQUITUR terminals). */
static uint32_t run_id(struct seqc_run_table *t, uint32_t sym, uint64_t n)
{
	uint32_t h = run_hash(sym, n), k, id = seqc_run_find(t, sym, n);

	if (id != UINT32_MAX)
		return id;
	if (t->nruns >= SEQ_TERMINAL_LIMIT - 1)
		return UINT32_MAX;
	if (t->nruns == t->runs_cap) {
		uint32_t cap = t->runs_cap ? 2 * t->runs_cap : 64;
		struct seqc_run *r = realloc(t->runs, (size_t)cap * sizeof(*r));
		if (!r)
			return UINT32_MAX;
		t->runs = r;
		t->runs_cap = cap;
	}
	if ((uint64_t)(t->nruns + 1) * 2 > (uint64_t)t->mask + 1) {
		if (run_table_grow(t) < 0)
			return UINT32_MAX;
	}
	for (k = h & t->mask; t->slots[k]; k = (k + 1) & t->mask)
		;
	id = t->nruns++;
	t->runs[id] = (struct seqc_run){n, sym};
	t->slots[k] = (uint64_t)h << 32 | (id + 1);
	return id;
}

/* ---- the chunk table ---- */

static int chunk_table_init(struct seqc_chunk_table *t)
{
	memset(t, 0, sizeof(*t));
	t->mask = 255;
	t->slots = calloc(t->mask + 1, sizeof(*t->slots));
	t->off_cap = 64;
	t->off = malloc(t->off_cap * sizeof(*t->off));
	if (!t->slots || !t->off)
		return -1;
	t->off[0] = 0;
	return 0;
}

static void chunk_table_free(struct seqc_chunk_table *t)
{
	free(t->arena);
	free(t->off);
	free(t->slots);
}

/* A chunk's hash is built as its atoms come (add_atom: chunk_hash_step
 * from 0), where it overlaps the rest of the per-atom work, instead of in
 * a loop over the finished chunk whose every step waits for the last one;
 * chunk_hash_final mixes in the length.  Only the table's slots depend on
 * it, never an id, so the grammar does not. */
static inline uint64_t chunk_hash_step(uint64_t h, uint32_t a)
{
	return (h ^ a) * 0x100000001b3ull + (h >> 29);
}

static uint32_t chunk_hash_final(uint64_t h, uint32_t n)
{
	return (uint32_t)(mix64(h ^ (uint64_t)n << 32) >> 32);
}

static int chunk_table_grow(struct seqc_chunk_table *t)
{
	return slots_grow(&t->slots, &t->mask);
}

/* The id of chunk a[0..n) (h: its chunk_hash_final); *is_new set when it
 * was added.  UINT32_MAX when out of memory or ids. */
static uint32_t chunk_id(struct seqc_chunk_table *t, const uint32_t *a, uint32_t n, uint32_t h,
			 int *is_new)
{
	uint32_t k = h & t->mask;

	*is_new = 0;
	for (; t->slots[k]; k = (k + 1) & t->mask) {
		uint64_t s = t->slots[k];
		if ((uint32_t)(s >> 32) != h)
			continue;
		uint32_t id = (uint32_t)s - 1;
		if (t->off[id + 1] - t->off[id] == n &&
		    !memcmp(t->arena + t->off[id], a, (size_t)n * sizeof(*a)))
			return id;
	}
	if (t->nchunks >= SEQ_TERMINAL_LIMIT - 1)
		return UINT32_MAX;
	if (t->nchunks + 1 == t->off_cap) {
		uint64_t *off = realloc(t->off, 2 * (size_t)t->off_cap * sizeof(*off));
		if (!off)
			return UINT32_MAX;
		t->off = off;
		t->off_cap *= 2;
	}
	if (t->arena_len + n > t->arena_cap) {
		uint64_t cap = t->arena_cap ? 2 * t->arena_cap : 1024;
		while (cap < t->arena_len + n)
			cap *= 2;
		uint32_t *arena = realloc(t->arena, cap * sizeof(*arena));
		if (!arena)
			return UINT32_MAX;
		t->arena = arena;
		t->arena_cap = cap;
	}
	if ((uint64_t)(t->nchunks + 1) * 2 > (uint64_t)t->mask + 1) {
		if (chunk_table_grow(t) < 0)
			return UINT32_MAX;
		for (k = h & t->mask; t->slots[k]; k = (k + 1) & t->mask)
			;
	}
	uint32_t id = t->nchunks++;
	memcpy(t->arena + t->arena_len, a, (size_t)n * sizeof(*a));
	t->arena_len += n;
	t->off[id + 1] = t->arena_len;
	t->slots[k] = (uint64_t)h << 32 | (id + 1);
	*is_new = 1;
	return id;
}

/* ---- the builder ---- */

/* Defaults (docs/sequitur.md, measured on real streams): one level of
 * ~20-atom chunks.  A short first level (1, 1, 16) under it dedups bzip2's
 * and xz's atoms 20-fold, but their second level is then as unique as
 * their first was, so SEQUITUR(1) still sees about as many symbols, and
 * lua's chunk ids double its cost. */
static const struct seqc_level_params default_levels[] = {{4, 4, 256}};
#define DEFAULT_NLEVELS (sizeof(default_levels) / sizeof(default_levels[0]))

static int level_init(struct seqc_level *l, const struct seqc_level_params *p, int chunking)
{
	const struct seqc_level_params *d = &default_levels[DEFAULT_NLEVELS - 1];

	memset(l, 0, sizeof(*l));
	if (run_table_init(&l->atoms) < 0)
		return -1;
	if (!chunking)
		return 0;
	l->p = *p;
	if (!l->p.avg_bits || l->p.avg_bits > 30)
		l->p.avg_bits = d->avg_bits;
	if (!l->p.min_len)
		l->p.min_len = d->min_len;
	if (!l->p.max_len)
		l->p.max_len = d->max_len;
	if (l->p.max_len < l->p.min_len)
		l->p.max_len = l->p.min_len;
	l->cur = malloc((size_t)l->p.max_len * sizeof(*l->cur));
	l->pend = malloc((size_t)l->p.max_len * sizeof(*l->pend));
	l->body = seq_builder_new(SEQ_LOOKAHEAD);
	return chunk_table_init(&l->chunks) < 0 || !l->cur || !l->pend || !l->body ? -1 : 0;
}

static void level_free(struct seqc_level *l)
{
	run_table_free(&l->atoms);
	chunk_table_free(&l->chunks);
	seq_builder_free(l->body);
	free(l->single);
	free(l->cur);
	free(l->pend);
}

struct seqc_builder *seqc_builder_new(const struct seqc_params *params)
{
	struct seqc_builder *b = calloc(1, sizeof(*b));
	int rc = 0;

	if (!b)
		return NULL;
	if (params && params->nlevels) {
		b->nlevels = params->nlevels < SEQC_MAX_LEVELS ? params->nlevels : SEQC_MAX_LEVELS;
		for (uint32_t k = 0; k < b->nlevels && rc == 0; k++)
			rc = level_init(&b->lv[k], &params->level[k], 1);
	} else {
		b->nlevels = DEFAULT_NLEVELS;
		for (uint32_t k = 0; k < b->nlevels && rc == 0; k++)
			rc = level_init(&b->lv[k], &default_levels[k], 1);
	}
	b->segments = 1;
	b->top = seq_builder_new(SEQ_LOOKAHEAD);
	if (rc < 0 || level_init(&b->lv[b->nlevels], NULL, 0) < 0 || !b->top) {
		seqc_builder_free(b);
		return NULL;
	}
	return b;
}

void seqc_builder_free(struct seqc_builder *b)
{
	if (!b)
		return;
	for (uint32_t k = 0; k <= b->nlevels; k++)
		level_free(&b->lv[k]);
	seq_builder_free(b->top);
	free(b);
}

int seqc_builder_failed(const struct seqc_builder *b)
{
	return b->failed;
}

static void flush_top_pending(struct seqc_builder *b)
{
	if (b->ntop_pending && seq_append_many(b->top, b->top_pending, b->ntop_pending) < 0)
		b->failed = 1;
	b->ntop_pending = 0;
}

static void level_unit(struct seqc_builder *b, uint32_t k, uint32_t unit);

/* The chunk cut last at level k, if any, is looked up now: its id is a
 * unit of level k + 1, and a new chunk goes to the body. */
static void settle_chunk(struct seqc_builder *b, uint32_t k)
{
	struct seqc_level *l = &b->lv[k];
	int is_new;
	uint32_t c;

	if (!l->pend_len)
		return;
	c = chunk_id(&l->chunks, l->pend, l->pend_len, l->pend_hash, &is_new);
	if (c == UINT32_MAX) {
		b->failed = 1;
	} else if (is_new) {
		/* Each unique chunk is one segment of the body grammar. */
		if ((c > 0 && seq_append_gap(l->body) < 0) ||
		    seq_append_many(l->body, l->pend, l->pend_len) < 0)
			b->failed = 1;
	}
	l->pend_len = 0;
	if (c != UINT32_MAX)
		level_unit(b, k + 1, c);
}

/* The chunk in progress at level k is complete.  Its table slot is
 * fetched now and the chunk looked up at the next cut (settle_chunk),
 * about a chunk's worth of atoms later: on data-dependent streams the
 * table is far larger than the caches and nearly every chunk is new, so
 * a lookup right away waited for memory once per chunk.  The one cut
 * before it is looked up first: ids, the body's input and the level
 * above's units come in the same order as without the wait. */
static void cut_chunk(struct seqc_builder *b, uint32_t k)
{
	struct seqc_level *l = &b->lv[k];
	uint32_t *swap;

	if (!l->cur_len)
		return;
	l->nchunks_cut++;
	settle_chunk(b, k);
	swap = l->pend;
	l->pend = l->cur;
	l->cur = swap;
	l->pend_len = l->cur_len;
	l->pend_hash = chunk_hash_final(l->chash, l->cur_len);
	__builtin_prefetch(&l->chunks.slots[l->pend_hash & l->chunks.mask]);
	l->cur_len = 0;
	l->roll = 0;
	l->chash = 0;
}

/* One more atom at level k (below the top); a cut after it when the hash
 * of the last few atoms says so (content-defined), or at the maximum
 * length. */
static void add_atom(struct seqc_builder *b, uint32_t k, uint32_t a)
{
	struct seqc_level *l = &b->lv[k];

	l->cur[l->cur_len++] = a;
	l->chash = chunk_hash_step(l->chash, a);
	/* Shifting by 16 keeps the last four atoms in the hash; the
	 * multiplication below mixes them into the bits tested. */
	l->roll = (l->roll << 16) + (a + 1) * 0xc2b2ae3d27d4eb4full;
	if (l->cur_len >= l->p.max_len ||
	    (l->cur_len >= l->p.min_len &&
	     (l->roll * 0x9e3779b97f4a7c15ull) >> (64 - l->p.avg_bits) == 0))
		cut_chunk(b, k);
}

/* The atom of a single unit u (u < SEQC_SINGLE_LIMIT). */
static uint32_t single_atom(struct seqc_level *l, uint32_t u)
{
	if (u < l->single_cap && l->single[u])
		return l->single[u] - 1;
	if (u >= l->single_cap) {
		uint32_t cap = l->single_cap ? l->single_cap : 1024;
		while (cap <= u)
			cap *= 2;
		uint32_t *s = realloc(l->single, (size_t)cap * sizeof(*s));
		if (!s)
			return UINT32_MAX;
		memset(s + l->single_cap, 0, (size_t)(cap - l->single_cap) * sizeof(*s));
		l->single = s;
		l->single_cap = cap;
	}
	uint32_t a = run_id(&l->atoms, u, 1);
	if (a != UINT32_MAX)
		l->single[u] = a + 1;
	return a;
}

/* The finished run at level k becomes an atom: chunked below the top,
 * queued for the top SEQUITUR(1) at the top. */
static void flush_run(struct seqc_builder *b, uint32_t k)
{
	struct seqc_level *l = &b->lv[k];
	uint32_t a = l->run_n == 1 && l->run_sym < SEQC_SINGLE_LIMIT
			 ? single_atom(l, l->run_sym)
			 : run_id(&l->atoms, l->run_sym, l->run_n);

	l->natoms++;
	l->run_n = 0;
	if (a == UINT32_MAX) {
		b->failed = 1;
	} else if (k < b->nlevels) {
		add_atom(b, k, a);
	} else {
		if (b->ntop_pending == SEQC_TOP_BATCH)
			flush_top_pending(b);
		b->top_pending[b->ntop_pending++] = a;
	}
}

/* One unit (a chunk id of the level below) at level k >= 1. */
static void level_unit(struct seqc_builder *b, uint32_t k, uint32_t unit)
{
	struct seqc_level *l = &b->lv[k];

	if (l->run_n && l->run_sym == unit) {
		l->run_n++;
		return;
	}
	if (l->run_n)
		flush_run(b, k);
	l->run_sym = unit;
	l->run_n = 1;
}

int seqc_append_run(struct seqc_builder *b, uint32_t terminal, uint64_t count)
{
	struct seqc_level *l = &b->lv[0];

	if (b->failed || terminal >= SEQ_TERMINAL_LIMIT || count > MAX_INPUT - b->input_symbols)
		return -1;
	if (!count)
		return 0;
	b->input_symbols += count;
	if (l->run_n && l->run_sym == terminal) {
		l->run_n += count;
		return 0;
	}
	if (l->run_n)
		flush_run(b, 0);
	l->run_sym = terminal;
	l->run_n = count;
	return b->failed ? -1 : 0;
}

int seqc_append(struct seqc_builder *b, uint32_t terminal)
{
	return seqc_append_run(b, terminal, 1);
}

int seqc_append_many(struct seqc_builder *b, const uint32_t *terminals, size_t n)
{
	struct seqc_level *l = &b->lv[0];

	for (size_t i = 0; i < n; i++) {
		uint32_t t = terminals[i];
		if (l->run_n && l->run_sym == t && b->input_symbols < MAX_INPUT) {
			l->run_n++;
			b->input_symbols++;
		} else if (seqc_append_run(b, t, 1) < 0) {
			return -1;
		}
	}
	return b->failed ? -1 : 0;
}

void seqc_settle(struct seqc_builder *b)
{
	for (uint32_t k = 0; k < b->nlevels; k++)
		settle_chunk(b, k);
}

int seqc_append_gap(struct seqc_builder *b)
{
	if (b->failed)
		return -1;
	/* Bottom up: each level's last run and chunk reach the next. */
	for (uint32_t k = 0; k <= b->nlevels; k++) {
		if (b->lv[k].run_n)
			flush_run(b, k);
		if (k < b->nlevels) {
			cut_chunk(b, k);
			settle_chunk(b, k);
		}
	}
	flush_top_pending(b);
	if (!b->failed && seq_append_gap(b->top) < 0)
		b->failed = 1;
	b->segments++;
	return b->failed ? -1 : 0;
}

void seqc_builder_stats(const struct seqc_builder *b, struct seqc_stats *st)
{
	memset(st, 0, sizeof(*st));
	st->input_symbols = b->input_symbols;
	st->nlevels = b->nlevels;
	st->bytes = sizeof(*b);
	for (uint32_t k = 0; k <= b->nlevels; k++) {
		const struct seqc_level *l = &b->lv[k];
		st->bytes += (uint64_t)(l->atoms.mask + 1) * 8 +
			     (uint64_t)l->atoms.runs_cap * sizeof(struct seqc_run) +
			     (uint64_t)l->single_cap * 4;
		if (k == b->nlevels)
			break;
		struct seqc_level_stats *ls = &st->level[k];
		ls->atoms = l->natoms;
		ls->chunks = l->nchunks_cut;
		ls->unique_chunks = l->chunks.nchunks;
		ls->distinct_atoms = l->atoms.nruns;
		seq_builder_stats(l->body, &ls->body);
		st->bytes += ls->body.bytes + (uint64_t)(l->chunks.mask + 1) * 8 +
			     l->chunks.arena_cap * 4 + (uint64_t)l->chunks.off_cap * 8 +
			     (uint64_t)l->p.max_len * 4;
	}
	seq_builder_stats(b->top, &st->top);
	st->bytes += st->top.bytes;
}
