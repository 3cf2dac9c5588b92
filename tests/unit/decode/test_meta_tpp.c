/* SPDX-License-Identifier: MIT */
/*
 * TPP plan tables (wpp/meta_tpp.h) in the metadata parser: a unit whose
 * function alpha is "planned" with every edge of its DAG hot and counted
 * (rec = hot = the DAG, so counter c must decode to Ball-Larus path c,
 * counter npaths to the cold counter, anything above to nothing), beta
 * counted plainly, gamma with a plan of one obvious path; hostile tables
 * refused with a reason; a crafted cycle decodes to nothing, in bounded
 * time; random damage to the tables never crashes (ASan/UBSan watch) and
 * what is accepted still decodes every counter safely.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "symbolizer/meta_model.h"
#include "testlib.h"

struct tpp_blob {
	unsigned char *b;
	size_t size;
	struct wpp_meta_tpp_header *h;
	struct wpp_meta_tpp_func *f;
	struct wpp_meta_tpp_edge *e;
	struct wpp_meta_tpp_obvious *o;
};

/* The blob of three random functions as mode TPP with plan tables. */
static void make(struct tpp_blob *t)
{
	struct tl_func fn[3];
	unsigned seed = 11;
	size_t v1size;
	tl_random_dag(&fn[0], 8, &seed);
	fn[0].name = "alpha";
	tl_random_dag(&fn[1], 5, &seed);
	fn[1].name = "beta";
	tl_random_dag(&fn[2], 3, &seed);
	fn[2].name = "gamma";
	unsigned char *v1 = tl_blob(fn, 3, 0xbeef, WPP_MODE_TPP, &v1size);
	struct wpp_meta_header h;
	struct wpp_meta_func alpha, gamma;
	memcpy(&h, v1, sizeof(h));
	memcpy(&alpha, v1 + h.funcs_off, sizeof(alpha));
	memcpy(&gamma, v1 + h.funcs_off + 2 * sizeof(gamma), sizeof(gamma));
	size_t tail = (h.strtab_off + h.strtab_size + 7) & ~(size_t)7;
	uint32_t ne = alpha.nedges + 2; /* alpha's, a spare, gamma's */
	size_t funcs = sizeof(struct wpp_meta_tpp_header);
	size_t edges = funcs + 3 * sizeof(struct wpp_meta_tpp_func);
	size_t obv = edges + ne * sizeof(struct wpp_meta_tpp_edge);
	size_t end = obv + sizeof(struct wpp_meta_tpp_obvious);
	t->size = tail + end;
	t->b = calloc(1, t->size);
	memcpy(t->b, v1, h.strtab_off + h.strtab_size);
	h.total_size = t->size;
	memcpy(t->b, &h, sizeof(h));
	t->h = (struct wpp_meta_tpp_header *)(t->b + tail);
	t->f = (struct wpp_meta_tpp_func *)(t->b + tail + funcs);
	t->e = (struct wpp_meta_tpp_edge *)(t->b + tail + edges);
	t->o = (struct wpp_meta_tpp_obvious *)(t->b + tail + obv);
	memcpy(t->h->magic, WPP_META_TPP_MAGIC, 8);
	t->h->version = WPP_META_TPP_VERSION;
	t->h->header_size = sizeof(*t->h);
	t->h->nfuncs = 3;
	t->h->nedges = ne;
	t->h->nobvious = 1;
	t->h->funcs_off = funcs, t->h->edges_off = edges, t->h->obvious_off = obv;
	/* alpha: its own DAG, all hot and counted */
	for (uint32_t i = 0; i < alpha.nedges; i++) {
		struct wpp_meta_edge de;
		memcpy(&de, v1 + h.edges_off + (alpha.first_edge + i) * sizeof(de), sizeof(de));
		t->e[i] = (struct wpp_meta_tpp_edge){.src = de.src,
						     .dst = de.dst,
						     .kind = de.kind,
						     .cfg_src = de.cfg_src,
						     .cfg_dst = de.cfg_dst,
						     .hot = 1,
						     .rec = 1,
						     .in_dag = 1,
						     .hot_val = de.val,
						     .rec_val = de.val,
						     .bl_val = de.val};
	}
	t->f[0] = (struct wpp_meta_tpp_func){WPP_TPP_HOW_PLAN, alpha.nedges, 0, 0, 0, 0,
					     alpha.npaths, alpha.npaths};
	t->f[1] = (struct wpp_meta_tpp_func){.how = WPP_TPP_HOW_PLAIN};
	/* gamma: one edge ENTRY -> EXIT that is no DAG edge, its one obvious path */
	t->e[alpha.nedges + 1] = (struct wpp_meta_tpp_edge){
	    .src = gamma.nblocks, .dst = gamma.nblocks + 1, .hot = 1, .kind = WPP_EDGE_CUT_EXIT};
	t->f[2] = (struct wpp_meta_tpp_func){WPP_TPP_HOW_PLAN, 1, alpha.nedges + 1, 1, 0, 0, 0, 1};
	t->o[0] = (struct wpp_meta_tpp_obvious){0, 0, 0};
	free(v1);
}

static void test_decode(void **state)
{
	struct tpp_blob t;
	char err[200] = "";
	uint64_t id;
	(void)state;
	make(&t);
	struct wpp_tu *tu = wpp_meta_parse(t.b, t.size, err, sizeof(err));
	if (!tu)
		fail_msg("a TPP blob was refused: %s", err);
	assert_int_equal(tu->mode, WPP_MODE_TPP);
	const struct wpp_fn *alpha = tu->by_local[0];
	assert_non_null(alpha->tpp);
	assert_null(tu->by_local[1]->tpp);
	for (uint64_t c = 0; c < alpha->npaths; c++) {
		assert_int_equal(wpp_tpp_counter_path(alpha, c, &id), WPP_TPP_COUNTER_PATH);
		assert_int_equal(id, c);
	}
	assert_int_equal(wpp_tpp_counter_path(alpha, alpha->npaths, &id), WPP_TPP_COUNTER_COLD);
	/* alpha has no obvious path: its poison slots follow the cold counter */
	for (uint64_t c = alpha->npaths + 1; c < 2 * alpha->npaths + 1; c++)
		assert_int_equal(wpp_tpp_counter_path(alpha, c, &id), WPP_TPP_COUNTER_COLD);
	assert_int_equal(wpp_tpp_counter_path(alpha, 2 * alpha->npaths + 1, &id),
			 WPP_TPP_COUNTER_BAD);
	assert_int_equal(wpp_tpp_counter_path(alpha, UINT64_MAX, &id), WPP_TPP_COUNTER_BAD);
	const struct wpp_fn *gamma = tu->by_local[2];
	assert_int_equal(wpp_tpp_counter_path(gamma, 0, &id), WPP_TPP_COUNTER_COLD);
	assert_int_equal(wpp_tpp_counter_path(gamma, 1, &id), WPP_TPP_COUNTER_PIECE);
	assert_int_equal(wpp_tpp_counter_path(gamma, 2, &id), WPP_TPP_COUNTER_BAD);
	wpp_tu_free(tu);
	free(t.b);
}

/* A split function (WPP_TPP_HOW_SPLIT): the array's counters first (the
 * cold counter, then the edge counters), the hash's after them (slots,
 * then the cold id), nothing past that. */
static void test_split_counters(void **state)
{
	struct tpp_blob t;
	char err[200] = "";
	uint64_t id;
	(void)state;
	make(&t);
	t.f[0].how = WPP_TPP_HOW_SPLIT;
	t.f[2].how = WPP_TPP_HOW_SPLIT;
	struct wpp_tu *tu = wpp_meta_parse(t.b, t.size, err, sizeof(err));
	if (!tu)
		fail_msg("a split TPP blob was refused: %s", err);
	const struct wpp_fn *alpha = tu->by_local[0], *gamma = tu->by_local[2];
	uint64_t n = alpha->npaths; /* alpha: nslots = npaths, no edge counter */
	assert_int_equal(wpp_tpp_counter_path(alpha, 0, &id), WPP_TPP_COUNTER_COLD);
	for (uint64_t s = 0; s < n; s++) {
		assert_int_equal(wpp_tpp_counter_path(alpha, 1 + s, &id), WPP_TPP_COUNTER_PATH);
		assert_int_equal(id, s);
	}
	assert_int_equal(wpp_tpp_counter_path(alpha, 1 + n, &id), WPP_TPP_COUNTER_COLD);
	assert_int_equal(wpp_tpp_counter_path(alpha, 2 + n, &id), WPP_TPP_COUNTER_BAD);
	assert_int_equal(wpp_tpp_counter_path(alpha, UINT64_MAX, &id), WPP_TPP_COUNTER_BAD);
	/* gamma: no slot, one edge counter (a loop piece) */
	assert_int_equal(wpp_tpp_counter_path(gamma, 0, &id), WPP_TPP_COUNTER_COLD);
	assert_int_equal(wpp_tpp_counter_path(gamma, 1, &id), WPP_TPP_COUNTER_PIECE);
	assert_int_equal(wpp_tpp_counter_path(gamma, 2, &id), WPP_TPP_COUNTER_COLD);
	assert_int_equal(wpp_tpp_counter_path(gamma, 3, &id), WPP_TPP_COUNTER_BAD);
	wpp_tu_free(tu);
	free(t.b);
}

static void test_rejects(void **state)
{
	static const char *const why[] = {
	    "magic",	     "version", "do not match", "out of bounds", "kind",
	    "out of range",  "endpoint", "flags",	"obvious",	 "counter count",
	};
	char err[200];
	(void)state;
	for (size_t c = 0; c < sizeof(why) / sizeof(*why); c++) {
		struct tpp_blob t;
		make(&t);
		switch (c) {
		case 0:
			t.h->magic[0] = 'X';
			break;
		case 1:
			t.h->version = 2;
			break;
		case 2:
			t.h->nfuncs = 2;
			break;
		case 3:
			t.h->edges_off = t.size;
			break;
		case 4:
			t.f[1].how = 7;
			break;
		case 5:
			t.f[0].nedges = t.h->nedges + 1;
			break;
		case 6:
			t.e[0].dst = 1000;
			break;
		case 7:
			t.e[0].hot = 0; /* rec without hot */
			break;
		case 8:
			t.o[0].edge = 5;
			break;
		case 9:
			t.f[0].nslots = t.f[0].hot_npaths + 1;
			break;
		}
		err[0] = 0;
		struct wpp_tu *tu = wpp_meta_parse(t.b, t.size, err, sizeof(err));
		if (tu || !strstr(err, why[c]))
			fail_msg("case %zu: expected '%s', got '%s'", c, why[c], tu ? "(accepted)" : err);
		free(t.b);
	}
}

/* Every counter of every plan function, decoded; ids within the DAG. */
static void decode_all(const struct wpp_tu *tu)
{
	for (uint32_t i = 0; i < tu->nfuncs; i++) {
		const struct wpp_fn *fn = tu->by_local[i];
		uint64_t id;
		if (!fn->tpp)
			continue;
		uint64_t n = 2 * fn->tpp->nslots + 2 + fn->tpp->nobvious;
		for (uint64_t c = 0; c < n && c < 4096; c++)
			if (wpp_tpp_counter_path(fn, c, &id) == WPP_TPP_COUNTER_PATH)
				assert_true(id < fn->npaths);
	}
}

static void test_cycle(void **state)
{
	struct tpp_blob t;
	char err[200];
	uint64_t id;
	(void)state;
	make(&t);
	/* a zero-valued hot cycle between two blocks, reachable from ENTRY */
	t.e[0] = (struct wpp_meta_tpp_edge){.src = 8, .dst = 0, .hot = 1, .rec = 1};
	t.e[1] = (struct wpp_meta_tpp_edge){.src = 0, .dst = 1, .hot = 1, .rec = 1};
	t.e[2] = (struct wpp_meta_tpp_edge){.src = 1, .dst = 0, .hot = 1, .rec = 1};
	t.f[0].nedges = 3;
	struct wpp_tu *tu = wpp_meta_parse(t.b, t.size, err, sizeof(err));
	if (!tu)
		fail_msg("refused: %s", err);
	assert_int_equal(tu->by_local[0]->nblocks, 8);
	assert_int_equal(wpp_tpp_counter_path(tu->by_local[0], 0, &id), WPP_TPP_COUNTER_BAD);
	wpp_tu_free(tu);
	free(t.b);
}

static void test_random_damage(void **state)
{
	unsigned seed = 5;
	char err[200];
	(void)state;
	for (int iter = 0; iter < 3000; iter++) {
		struct tpp_blob t;
		make(&t);
		size_t tail = (size_t)((unsigned char *)t.h - t.b);
		for (int k = 1 + rand_r(&seed) % 4; k > 0; k--)
			t.b[tail + (size_t)rand_r(&seed) % (t.size - tail)] ^=
			    (unsigned char)(1 + rand_r(&seed) % 255);
		struct wpp_tu *tu = wpp_meta_parse(t.b, t.size, err, sizeof(err));
		if (tu) {
			decode_all(tu);
			wpp_tu_free(tu);
		}
		free(t.b);
	}
}

struct split {
	int n;
	uint64_t ids;
	uint32_t blocks;
};

static void on_piece(void *ctx, int cold, uint64_t hot_id, uint32_t nblocks)
{
	struct split *s = ctx;
	assert_false(cold);
	s->n++, s->ids += hot_id, s->blocks += nblocks;
}

/* Path c of fn's DAG: whether it takes edge (u -> v), and its blocks. */
static int takes(const struct wpp_fn *fn, uint64_t c, uint32_t u, uint32_t v, uint32_t *blocks)
{
	uint32_t node = fn->nblocks, hit = 0;
	*blocks = 0;
	while (node != fn->nblocks + 1) {
		const struct wpp_meta_edge *de = NULL;
		for (uint32_t k = fn->out_first[node]; k < fn->out_first[node + 1]; k++)
			if (fn->edges[k].val <= c)
				de = &fn->edges[k];
		c -= de->val;
		hit |= de->src == u && de->dst == v;
		node = de->dst;
		*blocks += node != fn->nblocks + 1;
	}
	return hit;
}

/* Footnote 5: a path through a disconnected loop's cut is two pieces, the
 * second starting at ENTRY -> v; elsewhere one piece, its own id. */
static void test_split(void **state)
{
	struct tpp_blob t;
	char err[200];
	(void)state;
	make(&t);
	uint32_t na = t.f[0].nedges, k = 0, nb;
	while (k < na && !(t.e[k].src < 8 && t.e[k].dst < 8))
		k++;
	assert_true(k < na); /* a REAL edge to cut */
	uint32_t u = t.e[k].src, v = t.e[k].dst, entry = UINT32_MAX;
	for (uint32_t i = 0; i < na; i++)
		if (t.e[i].src == 8 && t.e[i].dst == v)
			entry = i;
	uint64_t mark = UINT64_C(1) << 40;
	if (entry == UINT32_MAX) { /* the plan adds ENTRY -> v */
		t.e[na] = (struct wpp_meta_tpp_edge){
		    .src = 8, .dst = v, .kind = WPP_EDGE_CUT_ENTRY, .hot = 1, .hot_val = mark};
		t.f[0].nedges = na + 1;
	} else {
		mark = t.e[entry].hot_val;
	}
	struct wpp_tu *plain = wpp_meta_parse(t.b, t.size, err, sizeof(err));
	assert_non_null(plain);
	const struct wpp_fn *alpha = plain->by_local[0];
	for (uint64_t c = 0; c < alpha->npaths; c++) { /* uncut: the path itself */
		struct split s = {0};
		assert_int_equal(wpp_tpp_split_path(alpha, c, on_piece, &s), 0);
		takes(alpha, c, u, v, &nb);
		assert_int_equal(s.n, 1);
		assert_int_equal(s.ids, c);
		assert_int_equal(s.blocks, nb);
	}
	wpp_tu_free(plain);
	t.e[k].dst = 9, t.e[k].kind = WPP_EDGE_CUT_EXIT, t.e[k].cut = 1, t.e[k].in_dag = 0;
	struct wpp_tu *tu = wpp_meta_parse(t.b, t.size, err, sizeof(err));
	if (!tu)
		fail_msg("refused: %s", err);
	alpha = tu->by_local[0];
	int cut = 0;
	for (uint64_t c = 0; c < alpha->npaths; c++) {
		struct split s = {0};
		assert_int_equal(wpp_tpp_split_path(alpha, c, on_piece, &s), 0);
		int through = takes(alpha, c, u, v, &nb);
		cut += through;
		assert_int_equal(s.n, through ? 2 : 1);
		assert_int_equal(s.ids, c + (through ? mark : 0));
		assert_int_equal(s.blocks, nb);
	}
	assert_true(cut > 0);
	struct split s = {0};
	assert_int_equal(wpp_tpp_split_path(alpha, alpha->npaths, on_piece, &s), -1);
	wpp_tu_free(tu);
	free(t.b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_decode),
	    cmocka_unit_test(test_split_counters),
	    cmocka_unit_test(test_rejects),
	    cmocka_unit_test(test_cycle),
	    cmocka_unit_test(test_split),
	    cmocka_unit_test(test_random_damage),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
