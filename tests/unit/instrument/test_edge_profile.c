/* SPDX-License-Identifier: MIT */
/*
 * test_edge_profile.c — the edge profile reader (edge_profile_read.h), the
 * pass's and wppcc's view of an untrusted file: a valid profile is read
 * exactly (version 2, and version 1 without source files, whose stale
 * check goes by name alone); each kind of damage is refused with the line
 * it is on; 20 000
 * random mutations of a valid file are each either read or refused, never
 * a crash or an overrun (ASan/UBSan); measured weights order edges by
 * count, ties by the static estimate, and a profile of another build of
 * the function is not applied.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "instrument/dag.h"
#include "instrument/edge_profile_read.h"
#include "instrument/numbering.h"
#include "wpp/meta_format.h"

static const char good[] = "wpp-edge-profile 2\n"
			   "# comment\n"
			   "f 0000000000000010 3 alpha a.c\n"
			   "e 1 0 1 7 0\n"
			   "e 0 2 2 3 1\n"
			   "e 1 2 1 4 1\n"
			   "\n"
			   "f 00000000000000ff 1 beta src/my?b.c\n"
			   "e 1 2 1 18446744073709551615 0\n"
			   "f 0000000000000100 0 beta c.c\n";

static const char good_v1[] = "wpp-edge-profile 1\n"
			      "f 0000000000000010 1 alpha\n"
			      "e 1 2 1 7 0\n"
			      "f 00000000000000ff 0 beta\n";

static void test_good(void **state)
{
	(void)state;
	struct wpp_edge_prof p;
	char why[128] = "";
	assert_int_equal(wpp_edge_prof_parse(&p, good, strlen(good), why, sizeof(why)), 0);
	assert_int_equal(p.nfns, 3);
	const struct wpp_edge_prof_fn *f = wpp_edge_prof_find(&p, 0x10);
	assert_non_null(f);
	assert_string_equal(f->name, "alpha");
	assert_string_equal(f->source, "a.c");
	assert_int_equal(f->nedges, 3);
	assert_int_equal(f->edges[1].src, 0);
	assert_int_equal(f->edges[1].dst, 2);
	assert_int_equal(f->edges[1].kind, 2);
	assert_int_equal(f->edges[1].count, 3);
	f = wpp_edge_prof_find(&p, 0xff);
	assert_non_null(f);
	assert_int_equal(f->edges[0].count, UINT64_MAX);
	assert_null(wpp_edge_prof_find(&p, 0x11));
	assert_string_equal(f->source, "src/my?b.c");
	/* the stale check: name and source file, the source as given to the
	 * compiler (a space in it is written '?') */
	assert_true(wpp_edge_prof_has_name(&p, "beta", "src/my b.c", 10));
	assert_true(wpp_edge_prof_has_name(&p, "beta", "c.c", 3));
	assert_true(wpp_edge_prof_has_name(&p, "alpha", "a.c", 3));
	assert_false(wpp_edge_prof_has_name(&p, "beta", "a.c", 3));
	assert_false(wpp_edge_prof_has_name(&p, "beta", "c.c2", 3 + 1));
	assert_false(wpp_edge_prof_has_name(&p, "alpha", "a.", 2));
	assert_false(wpp_edge_prof_has_name(&p, "gamma", "a.c", 3));
	wpp_edge_prof_free(&p);
}

/* Version 1 has no source files: read as before, stale check by name. */
static void test_version1(void **state)
{
	(void)state;
	struct wpp_edge_prof p;
	char why[128] = "";
	assert_int_equal(wpp_edge_prof_parse(&p, good_v1, strlen(good_v1), why, sizeof(why)), 0);
	assert_int_equal(p.nfns, 2);
	const struct wpp_edge_prof_fn *f = wpp_edge_prof_find(&p, 0x10);
	assert_non_null(f);
	assert_string_equal(f->name, "alpha");
	assert_null(f->source);
	assert_int_equal(f->edges[0].count, 7);
	assert_true(wpp_edge_prof_has_name(&p, "beta", "any.c", 5));
	assert_true(wpp_edge_prof_has_name(&p, "alpha", "", 0));
	assert_false(wpp_edge_prof_has_name(&p, "gamma", "any.c", 5));
	wpp_edge_prof_free(&p);
}

static void refused(const char *text, const char *want)
{
	struct wpp_edge_prof p;
	char why[160] = "";
	assert_int_equal(wpp_edge_prof_parse(&p, text, strlen(text), why, sizeof(why)), -1);
	if (!strstr(why, want))
		fail_msg("'%s' refused with '%s', want '%s'", text, why, want);
	assert_null(p.fns);
}

static void test_damage(void **state)
{
	(void)state;
	refused("", "empty file");
	refused("wpp-edge-profile 3\n", "line 1: unsupported edge profile version");
	refused("wpp-edge-profile 0\n", "line 1: unsupported edge profile version");
	refused("wpp-edge-profile 22\n", "line 1: unsupported edge profile version");
	refused("wpp-edge-profile\n", "line 1: not an edge profile");
	refused("wpp-edge-profile 2\nf 0000000000000010 1 a\ne 0 1 0 1 0\n",
		"line 2: malformed function name or source file");
	refused("wpp-edge-profile 2\nf 0000000000000010 1 a \ne 0 1 0 1 0\n",
		"line 2: malformed function name or source file");
	refused("wpp-edge-profile 2\nf 0000000000000010 1 a b c\ne 0 1 0 1 0\n",
		"line 2: malformed function name or source file");
	refused("wpp-edge-profile 1\nf 10 1 a\ne 0 1 0 1 0\n", "line 2: malformed function");
	refused("wpp-edge-profile 1\nf 0000000000000010 1\n", "line 2: malformed function");
	refused("wpp-edge-profile 1\nf 0000000000000010 1 a b\ne 0 1 0 1 0\n", "function name");
	refused("wpp-edge-profile 1\nf 0000000000000010 2 a\ne 0 1 0 1 0\n",
		"line 3: the file ends 1");
	refused("wpp-edge-profile 1\nf 0000000000000010 1 a\nf 0000000000000011 1 b\n",
		"line 3: 1 edge lines missing");
	refused("wpp-edge-profile 1\ne 0 1 0 1 0\n", "line 2: an edge line outside");
	refused("wpp-edge-profile 1\nf 0000000000000010 1 a\ne 0 1 10 1 0\n",
		"line 3: malformed edge");
	refused("wpp-edge-profile 1\nf 0000000000000010 1 a\ne 0 1 0 1 2\n",
		"line 3: malformed edge");
	refused("wpp-edge-profile 1\nf 0000000000000010 1 a\ne 0 1 0 18446744073709551616 0\n",
		"line 3: malformed edge");
	refused("wpp-edge-profile 1\nf 0000000000000010 1 a\ne 0 1 0 -1 0\n",
		"line 3: malformed edge");
	refused("wpp-edge-profile 1\nf 0000000000000010 1 a\ne 0 1 0 1 0 9\n",
		"line 3: malformed edge");
	refused("wpp-edge-profile 1\nf 0000000000000020 0 a\nf 0000000000000010 0 b\n",
		"line 3: functions out of order");
	refused("wpp-edge-profile 1\nf 0000000000000010 0 a\nf 0000000000000010 0 b\n",
		"out of order or repeated");
	refused("wpp-edge-profile 1\nf 0000000000000010 99999999 a\n", "malformed function");
	refused("wpp-edge-profile 1\nx\n", "line 2: expected");
	char *longline = malloc(6000);
	snprintf(longline, 6000, "wpp-edge-profile 1\nf 0000000000000010 0 %05000d\n", 1);
	refused(longline, "line 2: line longer");
	free(longline);
}

#define TEST_RNG_SEED UINT64_C(0x853c49e6748fea9b)
#include "test_rng.h"

static void test_mutations(void **state)
{
	(void)state;
	size_t n = strlen(good);
	char *buf = malloc(n + 8);
	int read_ok = 0;
	for (int round = 0; round < 20000; round++) {
		size_t len = n;
		memcpy(buf, good, n);
		for (int k = 0, edits = 1 + (int)(rnd() % 4); k < edits; k++) {
			size_t at = rnd() % len;
			switch (rnd() % 3) {
			case 0:
				buf[at] = (char)(rnd() & 0xff);
				break;
			case 1:
				buf[at] = "0123456789abcdef fe\n#"[rnd() % 21];
				break;
			default:
				len = at; /* truncate */
				break;
			}
			if (!len)
				break;
		}
		/* exactly len bytes: no terminator for the parser to lean on */
		char *exact = malloc(len ? len : 1);
		memcpy(exact, buf, len);
		struct wpp_edge_prof p;
		char why[128];
		if (wpp_edge_prof_parse(&p, exact, len, why, sizeof(why)) == 0) {
			read_ok++;
			for (size_t i = 0; i < p.nfns; i++)
				assert_ptr_equal(wpp_edge_prof_find(&p, p.fns[i].stable_id),
						 &p.fns[i]);
			wpp_edge_prof_free(&p);
		}
		free(exact);
	}
	print_message("mutations read: %d of 20000\n", read_ok);
	free(buf);
}

/* ENTRY(=1) -> block 0 -> EXIT(=2) and ENTRY -> EXIT: meta order is by
 * source then val: 0->2, then ENTRY's two edges. */
static void test_weights(void **state)
{
	(void)state;
	struct wpp_dag d = {0};
	d.nblocks = 1;
	d.edges = calloc(3, sizeof(*d.edges));
	d.nedges = 3;
	d.edges[0] = (struct wpp_dag_edge){.src = 1, .dst = 0, .kind = WPP_EDGE_FUNC_ENTRY};
	d.edges[1] = (struct wpp_dag_edge){.src = 0, .dst = 2, .kind = WPP_EDGE_RETURN};
	d.edges[2] = (struct wpp_dag_edge){.src = 1, .dst = 2, .kind = WPP_EDGE_FUNC_ENTRY};
	assert_int_equal(wpp_dag_number(&d, UINT64_C(1) << 40, UINT64_C(1) << 62), 0);
	const char *text = "wpp-edge-profile 1\n"
			   "f 0000000000000001 3 f\n"
			   "e 0 2 2 5 0\n"
			   "e 1 0 1 5 0\n"
			   "e 1 2 1 0 1\n"
			   "f 0000000000000002 3 g\n"
			   "e 0 2 2 5 0\n"
			   "e 1 0 1 5 0\n"
			   "e 1 2 9 0 1\n";
	struct wpp_edge_prof p;
	char why[128];
	assert_int_equal(wpp_edge_prof_parse(&p, text, strlen(text), why, sizeof(why)), 0);
	double w[3] = {1.0, 4.0, 2.0}; /* the static estimate */
	assert_int_equal(wpp_edge_prof_apply(wpp_edge_prof_find(&p, 1), &d, w), 0);
	assert_true(w[0] >= 5.0 && w[0] < 6.0);
	assert_true(w[1] >= 5.0 && w[1] < 6.0);
	assert_true(w[1] > w[0]); /* equal counts: the static estimate decides */
	assert_true(w[2] >= 0.0 && w[2] < 1.0);
	double w2[3] = {1.0, 4.0, 2.0};
	assert_int_equal(wpp_edge_prof_apply(wpp_edge_prof_find(&p, 2), &d, w2), 1);
	assert_true(w2[0] == 1.0 && w2[1] == 4.0 && w2[2] == 2.0);
	wpp_edge_prof_free(&p);
	free(d.edges);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_good),
	    cmocka_unit_test(test_version1),
	    cmocka_unit_test(test_damage),
	    cmocka_unit_test(test_mutations),
	    cmocka_unit_test(test_weights),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
