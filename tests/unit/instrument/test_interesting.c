/* SPDX-License-Identifier: MIT */
/*
 * test_interesting.c — the interesting-path set reader (interesting_read.h),
 * the pass's and wppcc's view of untrusted files: a recorded set and a
 * hand-written list are read exactly and merged; each kind of damage is
 * refused with the file and line it is on; a listed id keeps the file
 * and line it was first given on; a function recorded from another build
 * is stale; 20 000 random mutations of a valid file are each
 * either read or refused, never a crash or an overrun (ASan/UBSan).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "instrument/interesting_read.h"

static const char recorded[] = "wpp-interesting 1\n"
			       "# from run.wpp\n"
			       "f 0000000000000010 5 2 alpha a.c\n"
			       "p 3 7\n"
			       "p 9 1\n"
			       "\n"
			       "f 00000000000000ff 3 1 beta b.c\n"
			       "p 0 18446744073709551615\n";
static const char listed[] = "# hot paths\n"
			     "gamma 4\n"
			     "  gamma\t1  \r\n"
			     "alpha 5\n"
			     "gamma 4\n";

static int parse2(struct wpp_interesting *s, const char *a, const char *b, char *why, size_t whylen)
{
	const char *texts[] = {a, b}, *names[] = {"A", "B"};
	size_t lens[] = {strlen(a), b ? strlen(b) : 0};
	return wpp_interesting_parse(s, texts, lens, names, b ? 2 : 1, why, whylen);
}

static void expect_ids(const struct wpp_interesting *s, uint64_t id, uint32_t nedges,
		       const char *name, const char *source, int want, const uint64_t *ids,
		       size_t n)
{
	uint64_t *got, *counts;
	size_t gn;
	assert_int_equal(wpp_interesting_lookup(s, id, nedges, name, source, &got, &counts, &gn),
			 want);
	assert_int_equal(gn, n);
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(got[i], ids[i]);
		/* each id's count: its counts in every entry naming it, summed */
		uint64_t sum = 0;
		for (size_t f = 0; f < s->nfns; f++) {
			const struct wpp_interesting_fn *e = &s->fns[f];
			if (e->by_name ? strcmp(e->name, name) : e->stable_id != id)
				continue;
			for (uint32_t k = 0; k < e->nids; k++)
				if (e->ids[k] == ids[i])
					sum = sum > UINT64_MAX - e->counts[k] ? UINT64_MAX
									      : sum + e->counts[k];
		}
		assert_int_equal(counts[i], sum);
	}
	free(got);
	free(counts);
}

static void test_good(void **state)
{
	(void)state;
	struct wpp_interesting s;
	char why[160] = "";
	assert_int_equal(parse2(&s, recorded, listed, why, sizeof(why)), 0);
	assert_int_equal(s.nrecorded, 2);
	assert_int_equal(s.nfns, 4); /* alpha, beta recorded; alpha, gamma listed */
	assert_int_equal(s.fns[1].counts[0], UINT64_MAX);
	/* alpha: recorded 3, 9 with the listed 5 */
	expect_ids(&s, 0x10, 5, "alpha", "a.c", WPP_INTERESTING_FOUND, (uint64_t[]){3, 5, 9}, 3);
	assert_string_equal(s.fns[0].source, "a.c");
	/* gamma: listed only, duplicates merged */
	expect_ids(&s, 0x77, 9, "gamma", "g.c", WPP_INTERESTING_FOUND, (uint64_t[]){1, 4}, 2);
	/* beta of b.c under another id, or with another edge count: stale */
	expect_ids(&s, 0x11, 3, "beta", "b.c", WPP_INTERESTING_STALE, NULL, 0);
	expect_ids(&s, 0xff, 4, "beta", "b.c", WPP_INTERESTING_STALE, NULL, 0);
	/* another file's static beta is another function: not in the set */
	expect_ids(&s, 0x11, 3, "beta", "c.c", WPP_INTERESTING_NONE, NULL, 0);
	expect_ids(&s, 0x12, 3, "delta", "b.c", WPP_INTERESTING_NONE, NULL, 0);
	/* where each listed id was first given: file B, its lines */
	const struct wpp_interesting_fn *g = wpp_interesting_listed(&s, "gamma");
	assert_non_null(g);
	assert_int_equal(g->nlines, 3); /* "gamma 4" twice, "gamma 1" */
	assert_int_equal(g->nids, 2);
	assert_int_equal(g->ids[0], 1);
	assert_int_equal(g->list_lines[0], 3);
	assert_int_equal(g->ids[1], 4);
	assert_int_equal(g->list_lines[1], 2); /* its first place, not line 5 */
	assert_int_equal(g->list_files[1], 1);
	assert_int_equal(s.nfiles, 2);
	assert_string_equal(s.files[g->list_files[1]], "B");
	assert_string_equal(s.files[0], "A");
	const struct wpp_interesting_fn *a = wpp_interesting_listed(&s, "alpha");
	assert_non_null(a);
	assert_true(a->by_name);
	assert_int_equal(a->nlines, 1);
	assert_int_equal(a->list_lines[0], 4);
	assert_null(wpp_interesting_listed(&s, "beta")); /* recorded only */
	assert_null(wpp_interesting_listed(&s, "delta"));
	wpp_interesting_free(&s);

	/* the same recorded set twice: one set, counts summed */
	assert_int_equal(parse2(&s, recorded, recorded, why, sizeof(why)), 0);
	assert_int_equal(s.nfns, 2);
	assert_int_equal(s.fns[0].nids, 2);
	assert_int_equal(s.fns[0].counts[0], 14);
	assert_int_equal(s.fns[1].counts[0], UINT64_MAX); /* saturated */
	wpp_interesting_free(&s);
}

static void refused2(const char *a, const char *b, const char *want)
{
	struct wpp_interesting s;
	char why[256] = "";
	assert_int_equal(parse2(&s, a, b, why, sizeof(why)), -1);
	if (!strstr(why, want))
		fail_msg("'%s' refused with '%s', want '%s'", a, why, want);
	assert_null(s.fns);
}

static void refused(const char *text, const char *want)
{
	refused2(text, NULL, want);
}

static void test_damage(void **state)
{
	(void)state;
	refused("wpp-interesting 2\n", "A: line 1: unsupported version");
	refused("wpp-interesting 1\nf 10 1 1 a x.c\np 0 1\n", "A: line 2: malformed function");
	refused("wpp-interesting 1\nf 0000000000000010 1 1\np 0 1\n", "malformed function");
	refused("wpp-interesting 1\nf 0000000000000010 1 1 a\np 0 1\n", "malformed function");
	refused("wpp-interesting 1\nf 0000000000000010 1 1 a \np 0 1\n", "malformed function");
	refused("wpp-interesting 1\nf 0000000000000010 1 1 a b c\np 0 1\n", "malformed function");
	refused("wpp-interesting 1\nf 0000000000000010 1 2 a x.c\np 0 1\n",
		"line 3: the file ends 1");
	refused("wpp-interesting 1\nf 0000000000000010 1 2 a x.c\np 4 1\np 4 1\n",
		"line 4: path ids out of order");
	refused("wpp-interesting 1\nf 0000000000000010 1 1 a x.c\np 0 1\n"
		"f 0000000000000010 1 1 b x.c\np 0 1\n",
		"line 4: functions out of order");
	refused("wpp-interesting 1\nf 0000000000000010 1 1 a x.c\np 9223372036854775808 1\n",
		"line 3: malformed path line");
	refused("wpp-interesting 1\nf 0000000000000010 1 1 a x.c\np -1 1\n", "malformed path");
	refused("wpp-interesting 1\nf 0000000000000010 1 1 a x.c\np 1 18446744073709551616\n",
		"malformed path");
	refused("wpp-interesting 1\np 0 1\n", "line 2: a path line outside");
	refused("wpp-interesting 1\nf 0000000000000010 1 99999999 a x.c\n", "malformed function");
	refused("wpp-interesting 1\nx\n", "expected 'f ...' or 'p ...'");
	refused("alpha\n", "A: line 1: expected 'FUNCTION PATH_ID'");
	refused("alpha 1 2\n", "expected 'FUNCTION PATH_ID'");
	refused("alpha 0x10\n", "expected 'FUNCTION PATH_ID'");
	/* an id out of range is named, with its function and the range */
	refused("# ok\nalpha 1\nalpha 99999999999999999999\n",
		"A: line 3: path id 99999999999999999999 of alpha is out of range: a path id is 0 "
		"to 9223372036854775807");
	refused("alpha 9223372036854775808\n", "path id 9223372036854775808 of alpha is out of range");
	refused("beta -1\n", "A: line 1: path id -1 of beta is out of range");
	char *longline = malloc(5000);
	memset(longline, 'a', 4990);
	strcpy(longline + 4990, " 1\n");
	refused(longline, "line 1: line longer than 4096");
	free(longline);
	/* two files disagreeing about one function */
	refused2(
	    "wpp-interesting 1\nf 0000000000000010 1 1 a x.c\np 0 1\n",
	    "wpp-interesting 1\nf 0000000000000010 2 1 a x.c\np 0 1\n",
	    "function 0000000000000010 is a (x.c) with 1 edges in one file and a (x.c) with 2");
	/* the second file's error is named as the second file's */
	refused2(recorded, "beta x\n", "B: line 1");
}

static void test_empty(void **state)
{
	(void)state;
	struct wpp_interesting s;
	char why[64];
	uint64_t *ids;
	size_t n;
	assert_int_equal(parse2(&s, "", NULL, why, sizeof(why)), 0);
	assert_int_equal(s.nfns, 0);
	assert_int_equal(wpp_interesting_lookup(&s, 1, 1, "x", "x.c", &ids, NULL, &n),
			 WPP_INTERESTING_NONE);
	wpp_interesting_free(&s);
}

static void test_mutations(void **state)
{
	(void)state;
	char base[sizeof(recorded) + sizeof(listed)];
	size_t blen = strlen(recorded);
	int read_ok = 0;
	memcpy(base, recorded, blen);
	srand(26);
	for (int round = 0; round < 20000; round++) {
		const char *src = round & 1 ? listed : base;
		size_t len = round & 1 ? strlen(listed) : blen;
		char *buf = malloc(len + 8);
		memcpy(buf, src, len);
		int k = 1 + rand() % 4;
		for (int j = 0; j < k; j++) {
			size_t at = (size_t)rand() % len;
			static const char alphabet[] = "0123456789abcdef fp\n#-x";
			buf[at] = rand() % 3 ? alphabet[rand() % (int)(sizeof(alphabet) - 1)]
					     : (char)(rand() % 256);
		}
		size_t cut = rand() % 8 ? len : (size_t)rand() % (len + 1);
		struct wpp_interesting s;
		char why[128];
		const char *texts[] = {buf}, *names[] = {"M"};
		if (wpp_interesting_parse(&s, texts, &cut, names, 1, why, sizeof(why)) == 0) {
			read_ok++;
			for (size_t f = 0; f < s.nfns; f++)
				for (uint32_t i = 1; i < s.fns[f].nids; i++)
					assert_true(s.fns[f].ids[i - 1] < s.fns[f].ids[i]);
			wpp_interesting_free(&s);
		} else {
			assert_true(why[0] != 0);
		}
		free(buf);
	}
	print_message("mutations read: %d of 20000\n", read_ok);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_good),
	    cmocka_unit_test(test_damage),
	    cmocka_unit_test(test_empty),
	    cmocka_unit_test(test_mutations),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
