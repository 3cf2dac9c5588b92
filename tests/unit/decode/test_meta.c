/* SPDX-License-Identifier: MIT */
/*
 * Metadata parser: a valid blob parses into the expected model; specific
 * hostile blobs are rejected with a reason; thousands of random corruptions
 * (byte flips, huge counts and offsets, truncations) never crash (ASan/UBSan
 * watch), and when one is accepted anyway the model is still safe to use.
 * A PPP unit's version 2 blob: its interesting sets parse into the model,
 * hostile sets are refused with a reason, and damage to them never crashes.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "symbolizer/meta_model.h"
#include "decode/path_regen.h"
#include "testlib.h"

static void *valid_blob(size_t *size, unsigned seed)
{
	struct tl_func f[3];

	tl_random_dag(&f[0], 6, &seed);
	f[0].name = "alpha";
	tl_random_dag(&f[1], 12, &seed);
	f[1].name = "beta";
	tl_random_dag(&f[2], 3, &seed);
	f[2].name = "gamma";
	return tl_blob(f, 3, 0xfeed, WPP_MODE_PATHS, size);
}

static void test_valid(void **state)
{
	char err[200] = "";
	size_t size;
	void *blob = valid_blob(&size, 7);
	struct wpp_tu *tu = wpp_meta_parse(blob, size, err, sizeof(err));

	(void)state;
	assert_non_null(tu);
	assert_int_equal(tu->tu_hash, 0xfeed);
	assert_int_equal(tu->nfuncs, 3);
	assert_string_equal(tu->source, "t.c");
	assert_string_equal(tu->producer, "wppcc test");
	assert_string_equal(tu->by_local[1]->name, "beta");
	assert_int_equal(tu->by_local[1]->nblocks, 12);
	assert_string_equal(wpp_tu_str(tu, tu->by_local[2]->blocks[0].first_line ? 0 : 0), "");
	const struct wpp_meta_line *l = wpp_fn_block_line(tu->by_local[2], 1);
	assert_non_null(l);
	assert_int_equal(l->line, 202);
	wpp_tu_free(tu);
	free(blob);
}

/* Apply fn to a fresh copy of a valid blob and expect rejection with a reason containing what. */
static void expect_reject(void (*mutate)(unsigned char *b, size_t *size), const char *what)
{
	char err[200] = "";
	size_t size;
	unsigned char *blob = valid_blob(&size, 11);
	struct wpp_tu *tu;

	mutate(blob, &size);
	tu = wpp_meta_parse(blob, size, err, sizeof(err));
	if (tu || !strstr(err, what))
		fail_msg("expected rejection containing '%s', got '%s'", what, tu ? "(accepted)" : err);
	free(blob);
}

static struct wpp_meta_header hdr(const unsigned char *b)
{
	struct wpp_meta_header h;
	memcpy(&h, b, sizeof(h));
	return h;
}
static void put_hdr(unsigned char *b, const struct wpp_meta_header *h) { memcpy(b, h, sizeof(*h)); }

static void m_magic(unsigned char *b, size_t *s) { (void)s; b[0] = 'X'; }
static void m_version(unsigned char *b, size_t *s)
{
	struct wpp_meta_header h = hdr(b);
	(void)s;
	h.version = 3; /* 1 and 2 (PPP units) exist */
	put_hdr(b, &h);
}
static void m_short(unsigned char *b, size_t *s) { (void)b; *s = 40; }
static void m_total(unsigned char *b, size_t *s) { (void)b; *s -= 1; }
static void m_huge_funcs(unsigned char *b, size_t *s)
{
	struct wpp_meta_header h = hdr(b);
	(void)s;
	h.nfuncs = 0xffffffffu;
	put_hdr(b, &h);
}
static void m_bad_off(unsigned char *b, size_t *s)
{
	struct wpp_meta_header h = hdr(b);
	(void)s;
	h.edges_off = UINT64_MAX - 8;
	put_hdr(b, &h);
}
static void m_unterminated(unsigned char *b, size_t *s)
{
	struct wpp_meta_header h = hdr(b);
	(void)s;
	b[h.strtab_off + h.strtab_size - 1] = 'x';
}
static struct wpp_meta_edge *edge_at(unsigned char *b, uint32_t i)
{
	struct wpp_meta_header h = hdr(b);
	return (struct wpp_meta_edge *)(void *)(b + h.edges_off + i * sizeof(struct wpp_meta_edge));
}
static void m_edge_dst(unsigned char *b, size_t *s)
{
	(void)s;
	edge_at(b, 1)->dst = 1000;
}
static void m_edge_order(unsigned char *b, size_t *s)
{
	struct wpp_meta_edge e0 = *edge_at(b, 0), e1;
	(void)s;
	/* find an edge with a different source than edge 0 and swap it to the front */
	for (uint32_t i = 1;; i++) {
		e1 = *edge_at(b, i);
		if (e1.src != e0.src) {
			*edge_at(b, 0) = e1;
			*edge_at(b, i) = e0;
			return;
		}
	}
}
static void m_kind(unsigned char *b, size_t *s)
{
	(void)s;
	for (uint32_t i = 0;; i++) {
		if (edge_at(b, i)->kind == WPP_EDGE_FUNC_ENTRY) {
			edge_at(b, i)->kind = WPP_EDGE_REAL; /* a REAL edge leaving ENTRY */
			return;
		}
	}
}
static void m_local_dup(unsigned char *b, size_t *s)
{
	struct wpp_meta_header h = hdr(b);
	uint32_t one = 0;
	(void)s;
	memcpy(b + h.funcs_off + sizeof(struct wpp_meta_func) + offsetof(struct wpp_meta_func, local_index),
	       &one, 4);
}
static void m_line_range(unsigned char *b, size_t *s)
{
	struct wpp_meta_header h = hdr(b);
	uint32_t big = 0xfffffff0u;
	(void)s;
	memcpy(b + h.blocks_off + offsetof(struct wpp_meta_block, first_line), &big, 4);
}

static void test_rejects(void **state)
{
	(void)state;
	expect_reject(m_magic, "magic");
	expect_reject(m_version, "version");
	expect_reject(m_short, "truncated");
	expect_reject(m_total, "total_size");
	expect_reject(m_huge_funcs, "function table");
	expect_reject(m_bad_off, "edge table");
	expect_reject(m_unterminated, "NUL");
	expect_reject(m_edge_dst, "destination");
	expect_reject(m_edge_order, "sorted");
	expect_reject(m_kind, "kind");
	expect_reject(m_local_dup, "local index");
	expect_reject(m_line_range, "line range");
}

static void test_cycle(void **state)
{
	/* 0 -> 1 -> 0 is a cycle; vals are irrelevant, the parser must refuse it. */
	struct tl_func f = {.name = "loop", .nblocks = 2, .nedges = 4,
			    .edges = {{0, 1, WPP_EDGE_REAL, 0}, {1, 0, WPP_EDGE_REAL, 0},
				      {1, 3, WPP_EDGE_RETURN, 1}, {2, 0, WPP_EDGE_FUNC_ENTRY, 0}},
			    .npaths = 1};
	char err[200] = "";
	size_t size;
	void *blob = tl_blob(&f, 1, 1, WPP_MODE_PATHS, &size);

	(void)state;
	assert_null(wpp_meta_parse(blob, size, err, sizeof(err)));
	assert_non_null(strstr(err, "cycle"));
	free(blob);
}

/* Use every part of an accepted model, so a latent bad index would trip ASan. */
static void exercise(const struct wpp_tu *tu, unsigned *seed)
{
	uint32_t blocks[1024];
	struct wpp_path p;

	for (uint32_t i = 0; i < tu->nfuncs; i++) {
		const struct wpp_fn *fn = tu->by_local[i];
		assert_non_null(fn);
		(void)strlen(fn->name);
		for (uint32_t b = 0; b < fn->nblocks; b++) {
			const struct wpp_meta_line *l = wpp_fn_block_line(fn, b);
			if (l)
				(void)strlen(wpp_tu_str(tu, l->file_str));
		}
		for (int k = 0; k < 8 && fn->nblocks <= 1024; k++) {
			uint64_t id = k < 4 ? (uint64_t)k : (uint64_t)rand_r(seed) << (rand_r(seed) % 40);
			if (wpp_path_expand(fn, id, blocks, 1024, &p) == 0)
				for (uint32_t j = 0; j < p.nblocks; j++)
					assert_true(p.blocks[j] < fn->nblocks);
		}
	}
}

static void test_random_corruption(void **state)
{
	unsigned seed = 12345;
	int accepted = 0, rejected = 0;

	(void)state;
	for (int iter = 0; iter < 3000; iter++) {
		char err[200];
		size_t size;
		unsigned char *blob = valid_blob(&size, (unsigned)iter);
		int kind = rand_r(&seed) % 4;
		struct wpp_tu *tu;

		if (kind == 0) { /* flip a few random bytes */
			for (int k = 1 + rand_r(&seed) % 4; k > 0; k--)
				blob[rand_r(&seed) % size] ^= (unsigned char)(1 + rand_r(&seed) % 255);
		} else if (kind == 1) { /* a huge or random 32-bit value at a 4-aligned spot */
			uint32_t v = rand_r(&seed) % 2 ? 0xffffffffu - (uint32_t)(rand_r(&seed) % 4)
						       : (uint32_t)rand_r(&seed);
			memcpy(blob + (rand_r(&seed) % (size / 4)) * 4, &v, 4);
		} else if (kind == 2) { /* a huge 64-bit value in the header */
			uint64_t v = UINT64_MAX - (uint64_t)(rand_r(&seed) % 64);
			memcpy(blob + 8 * (1 + rand_r(&seed) % 12), &v, 8);
		} else { /* truncate (the header's total_size still claims the whole) */
			size = (size_t)rand_r(&seed) % size;
		}
		/* Parse from an exact-size heap copy so over-reads are caught. */
		unsigned char *copy = malloc(size ? size : 1);
		memcpy(copy, blob, size);
		tu = wpp_meta_parse(copy, size, err, sizeof(err));
		if (tu) {
			accepted++;
			exercise(tu, &seed);
			wpp_tu_free(tu);
		} else {
			rejected++;
			assert_true(strlen(err) > 0 && !strchr(err, '\n'));
		}
		free(copy);
		free(blob);
	}
	print_message("corruptions: %d rejected, %d accepted and exercised\n", rejected, accepted);
	assert_true(rejected > 1000);
}

static void test_section_walk(void **state)
{
	size_t s1, s2;
	void *b1 = valid_blob(&s1, 1), *b2 = valid_blob(&s2, 2);
	size_t pad1 = (s1 + 7) & ~(size_t)7;
	unsigned char *sec = calloc(1, pad1 + s2);
	const void *found;
	size_t fsize;
	char err[200];
	struct wpp_meta_header h;

	(void)state;
	memcpy(&h, b2, sizeof(h));
	h.tu_hash = 0xbeef;
	memcpy(b2, &h, sizeof(h));
	memcpy(sec, b1, s1);
	memcpy(sec + pad1, b2, s2);
	assert_int_equal(wpp_meta_find(sec, pad1 + s2, 0xbeef, &found, &fsize, err, sizeof(err)), 1);
	assert_ptr_equal(found, sec + pad1);
	assert_int_equal(fsize, s2);
	assert_int_equal(wpp_meta_find(sec, pad1 + s2, 0xfeed, &found, &fsize, err, sizeof(err)), 1);
	assert_ptr_equal(found, sec);
	assert_int_equal(wpp_meta_find(sec, pad1 + s2, 0x1234, &found, &fsize, err, sizeof(err)), 0);
	/* a section cut inside the second blob is malformed */
	assert_int_equal(wpp_meta_find(sec, pad1 + 20, 0x1234, &found, &fsize, err, sizeof(err)), -1);
	/* garbage between blobs */
	sec[pad1] = 'Z';
	assert_int_equal(wpp_meta_find(sec, pad1 + s2, 0xbeef, &found, &fsize, err, sizeof(err)), -1);
	free(sec);
	free(b1);
	free(b2);
}

/* npaths of the first function of a blob. */
static uint64_t alpha_npaths_of(const unsigned char *b)
{
	struct wpp_meta_header h;
	struct wpp_meta_func f;
	memcpy(&h, b, sizeof(h));
	memcpy(&f, b + h.funcs_off, sizeof(f));
	return f.npaths;
}

/* A PPP unit (version 2): valid_blob's functions moved behind the longer
 * header, then one wpp_meta_ppp_func per function and the id table.
 * alpha: ids 0 and the last path, counted by PPP; beta: none; gamma:
 * stale.  The caller may change ppp[] and ids[] through the pointers. */
static unsigned char *ppp_blob(size_t *size, struct wpp_meta_ppp_func **ppp, uint64_t **ids)
{
	size_t v1size;
	unsigned char *v1 = valid_blob(&v1size, 7);
	struct wpp_meta_header h;
	struct wpp_meta_header_v2 h2;
	const size_t shift = sizeof(h2) - sizeof(h);
	memcpy(&h, v1, sizeof(h));
	size_t tables = (v1size - sizeof(h) + shift + 7) & ~(size_t)7;
	size_t total = sizeof(h) + tables + 3 * sizeof(struct wpp_meta_ppp_func) + 2 * 8;
	unsigned char *b = calloc(1, total);
	memcpy(b + sizeof(h2), v1 + sizeof(h), v1size - sizeof(h));
	h.version = WPP_META_VERSION_PPP;
	h.header_size = sizeof(h2);
	h.mode = WPP_MODE_PPP;
	h.funcs_off += shift, h.blocks_off += shift, h.edges_off += shift;
	h.lines_off += shift, h.strtab_off += shift;
	h.total_size = total;
	memset(&h2, 0, sizeof(h2));
	h2.v1 = h;
	h2.ppp_funcs_off = sizeof(h) + tables;
	h2.ppp_ids_off = h2.ppp_funcs_off + 3 * sizeof(struct wpp_meta_ppp_func);
	h2.nppp_ids_total = 2;
	memcpy(b, &h2, sizeof(h2));
	struct wpp_meta_func alpha;
	memcpy(&alpha, b + h.funcs_off, sizeof(alpha));
	*ppp = (struct wpp_meta_ppp_func *)(b + h2.ppp_funcs_off);
	*ids = (uint64_t *)(b + h2.ppp_ids_off);
	(*ppp)[0] = (struct wpp_meta_ppp_func){0, 2, WPP_PPP_ARRAY, 0, 2};
	(*ppp)[1] = (struct wpp_meta_ppp_func){2, 0, WPP_PPP_EMPTY, 0, 0};
	(*ppp)[2] = (struct wpp_meta_ppp_func){2, 0, WPP_PPP_STALE, 0, 0};
	(*ids)[0] = 0;
	(*ids)[1] = alpha.npaths - 1;
	free(v1);
	*size = total;
	return b;
}

static void test_ppp_sets(void **state)
{
	char err[200] = "";
	size_t size;
	struct wpp_meta_ppp_func *ppp;
	uint64_t *ids;
	unsigned char *b = ppp_blob(&size, &ppp, &ids);
	struct wpp_tu *tu = wpp_meta_parse(b, size, err, sizeof(err));

	(void)state;
	if (!tu)
		fail_msg("a PPP blob was refused: %s", err);
	assert_int_equal(tu->mode, WPP_MODE_PPP);
	const struct wpp_fn *alpha = tu->by_local[0];
	assert_true(alpha->npaths >= 2); /* the premise of the two ids below */
	assert_int_equal(alpha->ppp_how, WPP_PPP_ARRAY);
	assert_int_equal(alpha->ppp_nids, 2);
	assert_int_equal(alpha->ppp_interval, 2);
	assert_true(wpp_fn_ppp_interesting(alpha, 0));
	assert_true(wpp_fn_ppp_interesting(alpha, alpha->npaths - 1));
	assert_true(alpha->npaths < 3 || !wpp_fn_ppp_interesting(alpha, 1));
	assert_int_equal(tu->by_local[1]->ppp_how, WPP_PPP_EMPTY);
	assert_false(wpp_fn_ppp_interesting(tu->by_local[1], 0));
	assert_int_equal(tu->by_local[2]->ppp_how, WPP_PPP_STALE);
	wpp_tu_free(tu);

	/* hostile sets: each refused with a reason */
	static const struct {
		int what;
		const char *why;
	} cases[] = {{0, "out of order"}, {1, "out of order"}, {2, "kind"},
		     {3, "id range"},     {4, "table out of bounds"}, {5, "does not match"}};
	for (size_t c = 0; c < sizeof(cases) / sizeof(*cases); c++) {
		free(b);
		b = ppp_blob(&size, &ppp, &ids);
		struct wpp_meta_header_v2 h2;
		memcpy(&h2, b, sizeof(h2));
		switch (cases[c].what) {
		case 0: /* an id at or above the path count */
			ids[1] = alpha_npaths_of(b);
			break;
		case 1: /* ids not increasing */
			ids[0] = ids[1];
			break;
		case 2:
			ppp[1].how = 9;
			break;
		case 3:
			ppp[2].first_id = 2, ppp[2].nids = 1;
			break;
		case 4:
			h2.ppp_ids_off = h2.v1.total_size - 8;
			memcpy(b, &h2, sizeof(h2));
			break;
		case 5: /* a PPP set in a version 1 header */
			h2.v1.version = WPP_META_VERSION;
			h2.v1.header_size = sizeof(struct wpp_meta_header);
			memcpy(b, &h2, sizeof(h2));
			break;
		}
		tu = wpp_meta_parse(b, size, err, sizeof(err));
		if (tu || !strstr(err, cases[c].why))
			fail_msg("case %zu: expected '%s', got '%s'", c, cases[c].why,
				 tu ? "(accepted)" : err);
	}
	free(b);

	/* random damage to the sets never crashes; what is accepted is usable */
	unsigned seed = 99;
	for (int iter = 0; iter < 2000; iter++) {
		b = ppp_blob(&size, &ppp, &ids);
		for (int k = 1 + rand_r(&seed) % 3; k > 0; k--) {
			size_t at = sizeof(struct wpp_meta_header) + (size_t)rand_r(&seed) % 24;
			if (rand_r(&seed) % 2)
				at = size - 1 - (size_t)rand_r(&seed) % (3 * 24 + 16);
			b[at] ^= (unsigned char)(1 + rand_r(&seed) % 255);
		}
		unsigned char *copy = malloc(size);
		memcpy(copy, b, size);
		tu = wpp_meta_parse(copy, size, err, sizeof(err));
		if (tu) {
			for (uint32_t i = 0; i < tu->nfuncs; i++)
				for (uint32_t k = 0; k < tu->by_local[i]->ppp_nids; k++)
					assert_true(tu->by_local[i]->ppp_ids[k] <
						    tu->by_local[i]->npaths);
			wpp_tu_free(tu);
		}
		free(copy);
		free(b);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_valid),
		cmocka_unit_test(test_rejects),
		cmocka_unit_test(test_cycle),
		cmocka_unit_test(test_random_corruption),
		cmocka_unit_test(test_section_walk),
		cmocka_unit_test(test_ppp_sets),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
