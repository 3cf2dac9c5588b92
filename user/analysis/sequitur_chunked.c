/* SPDX-License-Identifier: MIT */
/*
 * sequitur_chunked.c — building the chunked grammar: runs collapsed into
 * atoms, atoms cut into content-defined chunks, new chunks fed to the body
 * SEQUITUR(1), chunk ids to the top one.  See sequitur_chunked.h; the
 * export is in sequitur_chunked_export.c.
 */
#include "sequitur_chunked_internal.h"

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

static int run_table_grow(struct seqc_run_table *t)
{
	uint32_t cap = (t->mask + 1) * 2;
	uint64_t *slots = calloc(cap, sizeof(*slots));

	if (!slots)
		return -1;
	for (uint32_t i = 0; i <= t->mask; i++) {
		if (!t->slots[i])
			continue;
		uint32_t k = (uint32_t)(t->slots[i] >> 32) & (cap - 1);
		while (slots[k])
			k = (k + 1) & (cap - 1);
		slots[k] = t->slots[i];
	}
	free(t->slots);
	t->slots = slots;
	t->mask = cap - 1;
	return 0;
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

static uint32_t chunk_hash(const uint32_t *a, uint32_t n)
{
	uint64_t h = n;

	for (uint32_t i = 0; i < n; i++)
		h = (h ^ a[i]) * 0x100000001b3ull + (h >> 29);
	return (uint32_t)(mix64(h) >> 32);
}

static int chunk_table_grow(struct seqc_chunk_table *t)
{
	uint32_t cap = (t->mask + 1) * 2;
	uint64_t *slots = calloc(cap, sizeof(*slots));

	if (!slots)
		return -1;
	for (uint32_t i = 0; i <= t->mask; i++) {
		if (!t->slots[i])
			continue;
		uint32_t k = (uint32_t)(t->slots[i] >> 32) & (cap - 1);
		while (slots[k])
			k = (k + 1) & (cap - 1);
		slots[k] = t->slots[i];
	}
	free(t->slots);
	t->slots = slots;
	t->mask = cap - 1;
	return 0;
}

/* The id of chunk a[0..n); *is_new set when it was added.  UINT32_MAX
 * when out of memory or ids. */
static uint32_t chunk_id(struct seqc_chunk_table *t, const uint32_t *a, uint32_t n, int *is_new)
{
	uint32_t h = chunk_hash(a, n), k = h & t->mask;

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

struct seqc_builder *seqc_builder_new(const struct seqc_params *params)
{
	struct seqc_builder *b = calloc(1, sizeof(*b));

	if (!b)
		return NULL;
	if (params)
		b->p = *params;
	if (!b->p.avg_bits || b->p.avg_bits > 30)
		b->p.avg_bits = SEQC_DEFAULT_AVG_BITS;
	if (!b->p.min_len)
		b->p.min_len = SEQC_DEFAULT_MIN_LEN;
	if (!b->p.max_len)
		b->p.max_len = SEQC_DEFAULT_MAX_LEN;
	if (b->p.max_len < b->p.min_len)
		b->p.max_len = b->p.min_len;
	b->segments = 1;
	b->cur = malloc((size_t)b->p.max_len * sizeof(*b->cur));
	b->body = seq_builder_new(SEQ_LOOKAHEAD);
	b->top = seq_builder_new(SEQ_LOOKAHEAD);
	if (run_table_init(&b->atoms) < 0 || run_table_init(&b->top_atoms) < 0 ||
	    chunk_table_init(&b->chunks) < 0 || !b->cur || !b->body || !b->top) {
		seqc_builder_free(b);
		return NULL;
	}
	return b;
}

void seqc_builder_free(struct seqc_builder *b)
{
	if (!b)
		return;
	run_table_free(&b->atoms);
	run_table_free(&b->top_atoms);
	chunk_table_free(&b->chunks);
	seq_builder_free(b->body);
	seq_builder_free(b->top);
	free(b->single);
	free(b->cur);
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

/* Level 3: the finished run top_c^top_n goes to the top SEQUITUR(1). */
static void flush_top_run(struct seqc_builder *b)
{
	if (!b->top_n)
		return;
	uint32_t a = run_id(&b->top_atoms, b->top_c, b->top_n);
	if (a == UINT32_MAX)
		b->failed = 1;
	else if (b->ntop_pending == SEQC_TOP_BATCH)
		flush_top_pending(b);
	b->top_pending[b->ntop_pending++] = a;
	b->top_n = 0;
}

/* Level 2: the chunk in progress is complete. */
static void cut_chunk(struct seqc_builder *b)
{
	int is_new;
	uint32_t c;

	if (!b->cur_len)
		return;
	b->nchunks_cut++;
	c = chunk_id(&b->chunks, b->cur, b->cur_len, &is_new);
	if (c == UINT32_MAX) {
		b->failed = 1;
	} else if (is_new) {
		/* Each unique chunk is one segment of the body grammar. */
		if ((c > 0 && seq_append_gap(b->body) < 0) ||
		    seq_append_many(b->body, b->cur, b->cur_len) < 0)
			b->failed = 1;
	}
	b->cur_len = 0;
	b->roll = 0;
	if (b->top_n && b->top_c == c) {
		b->top_n++;
	} else {
		flush_top_run(b);
		b->top_c = c;
		b->top_n = 1;
	}
}

/* Level 2: one more atom; a cut after it when the hash of the last few
 * atoms says so (content-defined), or at the maximum length. */
static void add_atom(struct seqc_builder *b, uint32_t a)
{
	b->cur[b->cur_len++] = a;
	/* Shifting by 16 keeps the last four atoms in the hash; the
	 * multiplication below mixes them into the bits tested. */
	b->roll = (b->roll << 16) + (a + 1) * 0xc2b2ae3d27d4eb4full;
	if (b->cur_len >= b->p.max_len ||
	    (b->cur_len >= b->p.min_len &&
	     (b->roll * 0x9e3779b97f4a7c15ull) >> (64 - b->p.avg_bits) == 0))
		cut_chunk(b);
}

/* The atom of a single record of t (t < SEQC_SINGLE_LIMIT). */
static uint32_t single_atom(struct seqc_builder *b, uint32_t t)
{
	if (t < b->single_cap && b->single[t])
		return b->single[t] - 1;
	if (t >= b->single_cap) {
		uint32_t cap = b->single_cap ? b->single_cap : 1024;
		while (cap <= t)
			cap *= 2;
		uint32_t *s = realloc(b->single, (size_t)cap * sizeof(*s));
		if (!s)
			return UINT32_MAX;
		memset(s + b->single_cap, 0, (size_t)(cap - b->single_cap) * sizeof(*s));
		b->single = s;
		b->single_cap = cap;
	}
	uint32_t a = run_id(&b->atoms, t, 1);
	if (a != UINT32_MAX)
		b->single[t] = a + 1;
	return a;
}

/* Level 1: the finished run run_t^run_n becomes an atom. */
static void flush_run(struct seqc_builder *b)
{
	uint32_t a = b->run_n == 1 && b->run_t < SEQC_SINGLE_LIMIT
			 ? single_atom(b, b->run_t)
			 : run_id(&b->atoms, b->run_t, b->run_n);

	b->natoms++;
	if (a == UINT32_MAX)
		b->failed = 1;
	else
		add_atom(b, a);
	b->run_n = 0;
}

int seqc_append_run(struct seqc_builder *b, uint32_t terminal, uint64_t count)
{
	if (b->failed || terminal >= SEQ_TERMINAL_LIMIT || count > MAX_INPUT - b->input_symbols)
		return -1;
	if (!count)
		return 0;
	b->input_symbols += count;
	if (b->run_n && b->run_t == terminal) {
		b->run_n += count;
		return 0;
	}
	if (b->run_n)
		flush_run(b);
	b->run_t = terminal;
	b->run_n = count;
	return b->failed ? -1 : 0;
}

int seqc_append(struct seqc_builder *b, uint32_t terminal)
{
	return seqc_append_run(b, terminal, 1);
}

int seqc_append_many(struct seqc_builder *b, const uint32_t *terminals, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		uint32_t t = terminals[i];
		if (b->run_n && b->run_t == t && b->input_symbols < MAX_INPUT) {
			b->run_n++;
			b->input_symbols++;
		} else if (seqc_append_run(b, t, 1) < 0) {
			return -1;
		}
	}
	return b->failed ? -1 : 0;
}

int seqc_append_gap(struct seqc_builder *b)
{
	if (b->failed)
		return -1;
	if (b->run_n)
		flush_run(b);
	cut_chunk(b);
	flush_top_run(b);
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
	st->atoms = b->natoms;
	st->chunks = b->nchunks_cut;
	st->unique_chunks = b->chunks.nchunks;
	st->distinct_atoms = b->atoms.nruns;
	seq_builder_stats(b->body, &st->body);
	seq_builder_stats(b->top, &st->top);
	st->bytes =
	    sizeof(*b) + st->body.bytes + st->top.bytes +
	    (uint64_t)(b->atoms.mask + 1 + b->top_atoms.mask + 1 + b->chunks.mask + 1) * 8 +
	    ((uint64_t)b->atoms.runs_cap + b->top_atoms.runs_cap) * sizeof(struct seqc_run) +
	    b->chunks.arena_cap * 4 + (uint64_t)b->chunks.off_cap * 8 + (uint64_t)b->p.max_len * 4;
}
