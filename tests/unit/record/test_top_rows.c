/* SPDX-License-Identifier: MIT */
/*
 * test_top_rows.c — `wpptrace top`'s rows (user/record/top_rows.c) and TU
 * table (top_tu.c): --merge sums one function's path over the processes
 * of one binary (same build-id and TU hash, wherever mapped and whatever
 * fids it got; the path when there is no build-id), counts them once per
 * pid, and leaves rows without a function per process; interning gives
 * one record per distinct TU.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "record/top_rows.h"

static const struct top_tu *tu(struct top_tus *t, uint32_t fid_base, uint8_t id0, const char *path)
{
	struct top_tu x = {.fid_base = fid_base, .nfuncs = 5, .tu_hash = 7, .path = path};
	if (id0) {
		x.build_id[0] = id0;
		x.build_id_len = 20;
	}
	const struct top_tu *in = top_tus_intern(t, &x);
	assert_non_null(in);
	return in;
}

static void test_intern(void **state)
{
	(void)state;
	struct top_tus *t = top_tus_new();
	char path[] = "/bin/x";
	const struct top_tu *a = tu(t, 10, 1, path);
	path[5] = 'y'; /* the table keeps its own copy */
	assert_string_equal(a->path, "/bin/x");
	assert_ptr_equal(tu(t, 10, 1, "/bin/x"), a);
	assert_ptr_not_equal(tu(t, 11, 1, "/bin/x"), a);
	assert_ptr_not_equal(tu(t, 10, 2, "/bin/x"), a);
	/* one binary: the same build-id wherever it is, and fid base */
	assert_int_equal(top_tu_binary_cmp(a, tu(t, 30, 1, "/elsewhere/x")), 0);
	assert_int_not_equal(top_tu_binary_cmp(a, tu(t, 10, 2, "/bin/x")), 0);
	/* without a build-id, the path decides */
	assert_int_equal(top_tu_binary_cmp(tu(t, 1, 0, "/c"), tu(t, 4, 0, "/c")), 0);
	assert_int_not_equal(top_tu_binary_cmp(tu(t, 1, 0, "/c"), tu(t, 1, 0, "/d")), 0);
	assert_int_not_equal(top_tu_binary_cmp(a, tu(t, 10, 0, "/bin/x")), 0);
	top_tus_free(t);
}

static const struct top_row *find(const struct top_rows *r, const struct wpp_fn *fn, pid_t pid,
				  uint64_t id)
{
	for (size_t i = 0; i < r->n; i++)
		if (r->v[i].fn == fn && r->v[i].id == id && (fn || r->v[i].pid == pid))
			return &r->v[i];
	return NULL;
}

static void test_merge(void **state)
{
	(void)state;
	struct top_tus *t = top_tus_new();
	/* fn pointers stand for functions; what merges is (binary, local
	 * index), so two processes' models of one function may differ */
	struct wpp_fn f1 = {.local_index = 1, .name = "f"}, f1b = f1, g1 = f1, h1 = f1, h1b = f1,
		      k1 = f1;
	const struct top_tu *a = tu(t, 10, 1, "/a"), *a2 = tu(t, 20, 1, "/copy/a");
	const struct top_tu *b = tu(t, 10, 2, "/b"), *c = tu(t, 10, 0, "/c"), *c2 = tu(t, 40, 0, "/c");
	const struct top_tu *d = tu(t, 10, 0, "/d");
	struct top_row in[] = {
	    {100, 1, a, &f1, 11, 5, 10, 0, 0},	  {200, 1, a2, &f1b, 21, 5, 20, 0, 0},
	    {200, 1, a2, &f1b, 21, 6, 1, 0, 0},	  {300, 1, b, &g1, 11, 5, 4, 0, 0},
	    {100, 1, NULL, NULL, 99, 5, 3, 0, 0}, {200, 1, NULL, NULL, 99, 5, 2, 0, 0},
	    {300, 1, c, &h1, 11, 5, 7, 0, 0},	  {100, 1, c2, &h1b, 41, 5, 8, 0, 0},
	    {400, 1, d, &k1, 11, 5, 9, 0, 0},	  {400, 1, a, &f1, 11, 5, 100, 0, 0},
	};
	struct top_rows r = {0};
	for (size_t i = 0; i < sizeof(in) / sizeof(in[0]); i++) {
		assert_int_equal(top_rows_add(&r, &in[i]), 0);
		assert_int_equal(top_rows_saw(&r, in[i].pid), 0);
	}
	assert_int_equal(r.total, 164);
	assert_int_equal(top_rows_processes(&r), 4);
	top_rows_merge(&r);
	assert_int_equal(r.n, 7);
	assert_int_equal(r.total, 164);
	const struct top_row *m;
	/* a's function 1, path 5: three processes, the lowest pid shown */
	m = find(&r, &f1, 0, 5);
	if (!m)
		m = find(&r, &f1b, 0, 5);
	assert_non_null(m);
	assert_int_equal(m->count, 130);
	assert_int_equal(m->nprocs, 3);
	assert_int_equal(m->pid, 100);
	m = find(&r, &f1b, 0, 6);
	assert_non_null(m);
	assert_int_equal(m->count, 1);
	assert_int_equal(m->nprocs, 1);
	m = find(&r, &g1, 0, 5); /* another build: its own row */
	assert_non_null(m);
	assert_int_equal(m->count, 4);
	m = find(&r, &h1, 0, 5);
	if (!m)
		m = find(&r, &h1b, 0, 5);
	assert_non_null(m);
	assert_int_equal(m->count, 15);
	assert_int_equal(m->nprocs, 2);
	m = find(&r, &k1, 0, 5);
	assert_non_null(m);
	assert_int_equal(m->count, 9);
	/* no function: per process */
	m = find(&r, NULL, 100, 5);
	assert_non_null(m);
	assert_int_equal(m->count, 3);
	m = find(&r, NULL, 200, 5);
	assert_non_null(m);
	assert_int_equal(m->count, 2);
	top_rows_free(&r);
	top_tus_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_intern),
	    cmocka_unit_test(test_merge),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
