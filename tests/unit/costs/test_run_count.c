/* SPDX-License-Identifier: MIT */
/*
 * test_run_count.c — the run count read from a sample's registers
 * (user/costs/cost_run_end.h run_count_place, symbolizer/dwarf_var.c).
 *
 * 1. DWARF location expressions -> register / register + offset / constant
 *    / unknown, and their values from a register set: hand-made cases.
 * 2. Which execution a sample at a run's REPEAT slot belongs to, against
 *    an independent simulation of what the instrumented loop does
 *    (docs/instrumentation.md "Runs": a back-edge path end increments the
 *    count when its word repeats, else writes REPEAT(count) and its own
 *    record; an exit writes the pending count): every iteration of
 *    several loops is sampled with the (cursor, count) it really had, and
 *    the rule must put each sample on that iteration's event.  Two
 *    mutants of the rule (off by one either way) must disagree.
 * 3. The location of wppcc's count in a real build (bin/wppcc -O2 -g of
 *    tests/unit/costs/progs/faults.c) at every address of touch_b must
 *    be what llvm-dwarfdump-19 prints for __wpp_run_count there, and in
 *    touch_b's loop it must be a register.
 * 4. Attribution end to end on that build's real trace (recorded through
 *    the shm transport, no counters) with hand-made samples at the REPEAT
 *    slot of touch_b's run: counts 0, 1, K-1 land on repetitions 1, 2, K,
 *    count K on the record after the run, and a count above K, a sample
 *    without registers and one whose ip is outside touch_b keep the
 *    older rule (the run's first repetition); the thread's hits stay in
 *    event order.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <dwarf.h>

#include "costs/cost_run_end.h"
#include "costs/costs.h"
#include "decode/decoder.h"
#include "symbolizer/dwarf_lookup.h"
#include "symbolizer/symbolizer.h"

/* ---- 1. location expressions ---- */

static void check_ops(void **state)
{
	(void)state;
	struct {
		struct wpp_dwarf_op ops[3];
		size_t n;
		enum wpp_varloc_kind kind;
		uint32_t reg;
		uint64_t value;
	} cases[] = {
	    {{{DW_OP_reg3, 0, 0}}, 1, WPP_VARLOC_REG, 3, 0},
	    {{{DW_OP_reg0, 0, 0}}, 1, WPP_VARLOC_REG, 0, 0},
	    {{{DW_OP_regx, 14, 0}}, 1, WPP_VARLOC_REG, 14, 0},
	    {{{DW_OP_lit0, 0, 0}, {DW_OP_stack_value, 0, 0}}, 2, WPP_VARLOC_CONST, 0, 0},
	    {{{DW_OP_lit7, 0, 0}, {DW_OP_stack_value, 0, 0}}, 2, WPP_VARLOC_CONST, 0, 7},
	    {{{DW_OP_constu, 300, 0}, {DW_OP_stack_value, 0, 0}}, 2, WPP_VARLOC_CONST, 0, 300},
	    {{{DW_OP_breg1, (uint64_t)-1, 0}, {DW_OP_stack_value, 0, 0}},
	     2,
	     WPP_VARLOC_REG_OFFSET,
	     1,
	     (uint64_t)-1},
	    {{{DW_OP_bregx, 12, 2}, {DW_OP_stack_value, 0, 0}}, 2, WPP_VARLOC_REG_OFFSET, 12, 2},
	    /* memory, a register's memory, pieces, no stack_value: unknown */
	    {{{DW_OP_fbreg, (uint64_t)-8, 0}}, 1, WPP_VARLOC_NONE, 0, 0},
	    {{{DW_OP_breg7, 8, 0}}, 1, WPP_VARLOC_NONE, 0, 0},
	    {{{DW_OP_reg3, 0, 0}, {DW_OP_piece, 4, 0}}, 2, WPP_VARLOC_NONE, 0, 0},
	    {{{DW_OP_lit0, 0, 0}, {DW_OP_stack_value, 0, 0}, {DW_OP_piece, 8, 0}},
	     3,
	     WPP_VARLOC_NONE,
	     0,
	     0},
	    {{{DW_OP_regx, 1000, 0}}, 1, WPP_VARLOC_NONE, 0, 0},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct wpp_varloc l = wpp_varloc_from_ops(cases[i].ops, cases[i].n);
		if (l.kind != cases[i].kind ||
		    (l.kind != WPP_VARLOC_NONE &&
		     (l.reg != cases[i].reg || l.value != cases[i].value)))
			fail_msg("case %zu: kind %d reg %u value %llu", i, l.kind, l.reg,
				 (unsigned long long)l.value);
	}
	uint64_t regs[16], v = 0;
	for (int r = 0; r < 16; r++)
		regs[r] = 100 + (uint64_t)r;
	struct wpp_varloc reg3 = {WPP_VARLOC_REG, 3, 0}, off = {WPP_VARLOC_REG_OFFSET, 1, -1ull},
			  k = {WPP_VARLOC_CONST, 0, 9}, far = {WPP_VARLOC_REG, 16, 0},
			  none = {WPP_VARLOC_NONE, 0, 0};
	assert_int_equal(wpp_varloc_eval(&reg3, regs, 16, &v), 1);
	assert_int_equal(v, 103);
	assert_int_equal(wpp_varloc_eval(&off, regs, 16, &v), 1);
	assert_int_equal(v, 100);
	assert_int_equal(wpp_varloc_eval(&k, NULL, 0, &v), 1);
	assert_int_equal(v, 9);
	assert_int_equal(wpp_varloc_eval(&far, regs, 16, &v), 0);
	assert_int_equal(wpp_varloc_eval(&none, regs, 16, &v), 0);
	assert_int_equal(wpp_varloc_eval(&reg3, NULL, 0, &v), 0);
}

/* ---- 2. the count rule against a simulated loop ---- */

#define EXIT_PATH 'X' /* the iteration leaves the loop; its path ends later */
#define MAXW	  64

/* What the trace holds: records (a path letter) and REPEAT(n) words. */
struct word {
	char path; /* 0 = REPEAT */
	uint64_t n;
};

/* One sample per iteration, taken in its body: the cursor slot and the
 * count register as the instrumented code has them there. */
struct snap {
	uint32_t slot;
	uint64_t count;
};

/* The loop of docs/instrumentation.md "Runs", iteration by iteration:
 * iteration i takes paths[i] (a back-edge path, or EXIT_PATH). */
static uint32_t simulate(const char *paths, struct word *w, struct snap *snap)
{
	uint32_t nw = 0;
	char last = 0;
	uint64_t count = 0;
	for (uint32_t i = 0; paths[i]; i++) {
		snap[i] = (struct snap){nw, count}; /* the body runs at the cursor */
		if (paths[i] == EXIT_PATH) {
			if (count)
				w[nw++] = (struct word){0, count};
			last = 0, count = 0;
			w[nw++] = (struct word){EXIT_PATH, 1}; /* the exit path's own record */
			break;
		}
		if (paths[i] == last) {
			count++;
		} else {
			if (count)
				w[nw++] = (struct word){0, count};
			w[nw++] = (struct word){paths[i], 1};
			last = paths[i], count = 0;
		}
	}
	return nw;
}

typedef enum run_count_where (*place_fn)(uint64_t c, uint64_t k, int has_next, uint64_t *index);

static enum run_count_where mutant_le(uint64_t c, uint64_t k, int has_next, uint64_t *index)
{
	/* off by one: c == K taken as a repetition */
	if (c <= k) {
		*index = c;
		return RUN_COUNT_REPEAT;
	}
	return has_next ? RUN_COUNT_NEXT : RUN_COUNT_UNSURE;
}

static enum run_count_where mutant_plus(uint64_t c, uint64_t k, int has_next, uint64_t *index)
{
	/* off by one: the count taken as the repetition's number */
	if (c >= 1 && c <= k) {
		*index = c - 1;
		return RUN_COUNT_REPEAT;
	}
	return c == 0 || !has_next ? RUN_COUNT_UNSURE : RUN_COUNT_NEXT;
}

/* Decodes the words (each record one event, REPEAT(n) n events of the
 * record before it) and places every sample by `place`; returns how many
 * land on another event or path than their own iteration's (iteration i
 * is event i, of path paths[i]). */
static int misplaced(const char *paths, place_fn place)
{
	struct word w[MAXW];
	struct snap snap[MAXW];
	uint32_t first_event[MAXW], nw = simulate(paths, w, snap), ev = 0, bad = 0;
	char repeated[MAXW];
	for (uint32_t j = 0; j < nw; j++) {
		first_event[j] = ev;
		ev += w[j].path ? 1 : (uint32_t)w[j].n;
		repeated[j] = w[j].path ? w[j].path : repeated[j - 1];
	}
	for (uint32_t i = 0; paths[i]; i++) {
		uint32_t j = snap[i].slot, got = UINT32_MAX;
		uint64_t index = 0;
		char path = 0;
		if (j >= nw) {
			bad++;
			continue;
		}
		if (w[j].path) {
			got = first_event[j]; /* a record's own position */
			path = w[j].path;
		} else {
			switch (place(snap[i].count, w[j].n, j + 1 < nw, &index)) {
			case RUN_COUNT_REPEAT:
				got = first_event[j] + (uint32_t)index;
				path = repeated[j];
				break;
			case RUN_COUNT_NEXT:
				got = first_event[j + 1];
				path = repeated[j + 1];
				break;
			default:
				break;
			}
		}
		bad += got != i || path != paths[i];
		if (paths[i] == EXIT_PATH)
			break;
	}
	return (int)bad;
}

static void check_rule(void **state)
{
	(void)state;
	static const char *loops[] = {
	    "PPPPPX", /* one run, left by the exit */
	    "PX",     /* no run */
	    "PPX",    /* a run of one repeat */
	    "PPPQX",  /* a run ended by another path, which is no run itself */
	    "PPQQQPX", "PQPQPQX", "PPPPQQQQQQQQPPX", "QPPPPPPPPPPPPPPPPPPPPX",
	};
	int caught_le = 0, caught_plus = 0;
	for (size_t i = 0; i < sizeof(loops) / sizeof(loops[0]); i++) {
		int bad = misplaced(loops[i], run_count_place);
		if (bad)
			fail_msg("loop %s: %d samples on the wrong iteration", loops[i], bad);
		caught_le += misplaced(loops[i], mutant_le) > 0;
		caught_plus += misplaced(loops[i], mutant_plus) > 0;
	}
	/* The simulation must be able to tell: both mutants are caught. */
	assert_true(caught_le > 0);
	assert_true(caught_plus > 0);
	/* And the rule's answers on the boundaries, worked out by hand. */
	uint64_t index = 99;
	assert_int_equal(run_count_place(0, 3, 1, &index), RUN_COUNT_REPEAT);
	assert_int_equal(index, 0);
	assert_int_equal(run_count_place(2, 3, 1, &index), RUN_COUNT_REPEAT);
	assert_int_equal(index, 2);
	assert_int_equal(run_count_place(3, 3, 1, &index), RUN_COUNT_NEXT);
	assert_int_equal(run_count_place(3, 3, 0, &index), RUN_COUNT_UNSURE);
	assert_int_equal(run_count_place(4, 3, 1, &index), RUN_COUNT_UNSURE);
}

/* ---- 3. a real build against llvm-dwarfdump ---- */

static char dir[256], exe[300], trace[300];

/* One location range of __wpp_run_count in llvm-dwarfdump's text. */
struct range {
	uint64_t lo, hi;
	struct wpp_varloc loc;
};

static int parse_op(const char *s, struct wpp_varloc *l)
{
	unsigned r;
	unsigned long long v;
	*l = (struct wpp_varloc){WPP_VARLOC_NONE, 0, 0};
	if (sscanf(s, "DW_OP_reg%u", &r) == 1 && !strchr(s, ',')) {
		*l = (struct wpp_varloc){WPP_VARLOC_REG, r, 0};
	} else if (sscanf(s, "DW_OP_lit%u, DW_OP_stack_value", &r) == 1 && !strstr(s, "piece")) {
		*l = (struct wpp_varloc){WPP_VARLOC_CONST, 0, r};
	} else if (sscanf(s, "DW_OP_consts %lld, DW_OP_stack_value", (long long *)&v) == 1 ||
		   sscanf(s, "DW_OP_constu 0x%llx, DW_OP_stack_value", &v) == 1) {
		*l = (struct wpp_varloc){WPP_VARLOC_CONST, 0, v};
	} else if (sscanf(s, "DW_OP_breg%u %*s %lld, DW_OP_stack_value", &r, (long long *)&v) ==
		   2) {
		*l = (struct wpp_varloc){WPP_VARLOC_REG_OFFSET, r, v};
	}
	return 0;
}

/* The ranges llvm-dwarfdump-19 lists for the variable of function fn.
 * Returns the number, -1 when the tool is missing or prints nothing. */
static int dump_ranges(const char *fn, struct range *out, int max)
{
	char cmd[600], line[512];
	/* --name finds the subprogram; its children are printed with -c. */
	snprintf(cmd, sizeof(cmd), "llvm-dwarfdump-19 --debug-info -c --name=%s %s 2>/dev/null",
		 fn, exe);
	FILE *p = popen(cmd, "r");
	int n = 0, in_var = 0, found = 0;
	if (!p)
		return -1;
	struct range pending[64];
	int npending = 0;
	while (fgets(line, sizeof(line), p)) {
		unsigned long long lo, hi;
		char *s = line;
		while (*s == ' ')
			s++;
		if (strstr(line, "DW_TAG_")) {
			in_var = strstr(line, "DW_TAG_variable") != NULL;
			npending = 0;
			continue;
		}
		if (!in_var)
			continue;
		if (!strncmp(s, "DW_AT_location", 14) && (s = strchr(s, '[')) == NULL)
			continue;
		if (*s == '[' && sscanf(s, "[0x%llx, 0x%llx)", &lo, &hi) == 2 && npending < 64) {
			char *op = strstr(s, "): ");
			pending[npending].lo = lo;
			pending[npending].hi = hi;
			parse_op(op ? op + 3 : "", &pending[npending].loc);
			npending++;
		}
		if (strstr(line, "DW_AT_name") && strstr(line, "\"" WPP_RUN_COUNT_VAR "\"")) {
			for (int i = 0; i < npending && n < max; i++)
				out[n++] = pending[i];
			found = 1;
		}
	}
	pclose(p);
	return found ? n : -1;
}

static int sym_range(const char *fn, uint64_t *lo, uint64_t *hi)
{
	char cmd[600];
	unsigned long long a = 0, sz = 0;
	snprintf(cmd, sizeof(cmd), "nm -S %s | awk '$4 == \"%s\" {print $1, $2}'", exe, fn);
	FILE *p = popen(cmd, "r");
	int ok = p && fscanf(p, "%llx %llx", &a, &sz) == 2;
	if (p)
		pclose(p);
	*lo = a;
	*hi = a + sz;
	return ok ? 0 : -1;
}

static int setup(void **state)
{
	(void)state;
	char cmd[900];
	snprintf(dir, sizeof(dir), "/tmp/wpp-test-run-count-%d", (int)getpid());
	snprintf(exe, sizeof(exe), "%s/faults", dir);
	snprintf(cmd, sizeof(cmd),
		 "mkdir -p %s && bin/wppcc -O2 -g -o %s tests/unit/costs/progs/faults.c", dir,
		 exe);
	return system(cmd) == 0 ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	unlink(exe);
	unlink(trace);
	rmdir(dir);
	return 0;
}

static int same_loc(const struct wpp_varloc *a, const struct wpp_varloc *b)
{
	if (a->kind != b->kind)
		return 0;
	if (a->kind == WPP_VARLOC_NONE)
		return 1;
	return a->reg == b->reg && a->value == b->value;
}

static void check_build(void **state)
{
	(void)state;
	struct range r[64];
	uint64_t lo, hi;
	char err[256];
	int n = dump_ranges("touch_b", r, 64);
	if (n < 0)
		fail_msg("llvm-dwarfdump-19 shows no %s in touch_b of %s", WPP_RUN_COUNT_VAR, exe);
	assert_int_equal(sym_range("touch_b", &lo, &hi), 0);
	struct wpp_dwarf *d = wpp_dwarf_new();
	for (uint64_t a = lo; a < hi; a++) {
		struct wpp_varloc want = {WPP_VARLOC_NONE, 0, 0}, got;
		for (int i = 0; i < n; i++)
			if (a >= r[i].lo && a < r[i].hi)
				want = r[i].loc;
		assert_int_equal(wpp_dwarf_var_location(d, exe, NULL, 0, 0, a, WPP_RUN_COUNT_VAR,
							&got, err, sizeof(err)),
				 1);
		if (!same_loc(&want, &got))
			fail_msg("%#llx: dwarfdump kind %d reg %u value %llu, lookup kind %d reg %u "
				 "value %llu",
				 (unsigned long long)a, want.kind, want.reg,
				 (unsigned long long)want.value, got.kind, got.reg,
				 (unsigned long long)got.value);
	}
	/* Every store of touch_b's loop (its only faulting instructions:
	 * `movb $0x2`, several when the loop is unrolled) runs with the count
	 * in a register: where a page fault can be sampled, the count can be
	 * read. */
	char cmd[600];
	snprintf(cmd, sizeof(cmd),
		 "objdump -d --no-show-raw-insn %s | awk '/<touch_b>:/,/^$/' | "
		 "sed -n 's/^ *\\([0-9a-f]*\\):.*movb *\\$0x2,.*/\\1/p'",
		 exe);
	FILE *p = popen(cmd, "r");
	unsigned long long at;
	int stores = 0;
	assert_non_null(p);
	while (fscanf(p, "%llx", &at) == 1) {
		struct wpp_varloc got;
		uint64_t regs[16] = {0}, c = 0;
		wpp_dwarf_var_location(d, exe, NULL, 0, 0, at, WPP_RUN_COUNT_VAR, &got, err,
				       sizeof(err));
		if (got.kind != WPP_VARLOC_REG)
			fail_msg("store at %#llx: the count is not in a register (kind %d)", at,
				 got.kind);
		regs[got.reg] = 41;
		assert_int_equal(wpp_varloc_eval(&got, regs, 16, &c), 1);
		assert_int_equal(c, 41);
		stores++;
	}
	pclose(p);
	if (stores == 0)
		fail_msg("no store found in touch_b of %s", exe);
	/* A load bias moves every address alike. */
	struct wpp_varloc biased, plain;
	assert_int_equal(wpp_dwarf_var_location(d, exe, NULL, 0, 0x555500000000ull,
						0x555500000000ull + at, WPP_RUN_COUNT_VAR,
						&biased, err, sizeof(err)),
			 1);
	wpp_dwarf_var_location(d, exe, NULL, 0, 0, at, WPP_RUN_COUNT_VAR, &plain, err,
			       sizeof(err));
	assert_true(same_loc(&biased, &plain));
	/* main counts no runs: no such variable there. */
	assert_int_equal(sym_range("main", &lo, &hi), 0);
	struct wpp_varloc in_main;
	assert_int_equal(wpp_dwarf_var_location(d, exe, NULL, 0, 0, lo + 4, WPP_RUN_COUNT_VAR,
						&in_main, err, sizeof(err)),
			 1);
	assert_int_equal(in_main.kind, WPP_VARLOC_NONE);
	wpp_dwarf_free(d);
}

/* The address of the first `movb $0x2` store of touch_b (link-time). */
static uint64_t first_store(void)
{
	char cmd[600];
	unsigned long long at = 0;
	snprintf(cmd, sizeof(cmd),
		 "objdump -d --no-show-raw-insn %s | awk '/<touch_b>:/,/^$/' | "
		 "sed -n 's/^ *\\([0-9a-f]*\\):.*movb *\\$0x2,.*/\\1/p' | head -1",
		 exe);
	FILE *p = popen(cmd, "r");
	if (!p || fscanf(p, "%llx", &at) != 1)
		at = 0;
	if (p)
		pclose(p);
	return at;
}

static void check_attribution(void **state)
{
	(void)state;
	char cmd[900], err[256];
	snprintf(trace, sizeof(trace), "%s/t.wpp", dir);
	snprintf(cmd, sizeof(cmd),
		 "bin/wpptrace record -q --transport=shm -o %s -- %s 3 50 0 >/dev/null", trace,
		 exe);
	assert_int_equal(system(cmd), 0);
	struct wpp_trace *t = wpp_trace_load(trace);
	assert_non_null(t);
	assert_int_equal(t->nthreads, 1);
	struct wpp_symbolizer *sym = wpp_sym_new();
	struct wpp_modules *mods = wpp_modules_new(t, sym);
	const struct wpp_thread_trace *th = &t->threads[0];

	/* touch_b's first run, as the decoder sees it: the slot of its REPEAT
	 * word, its first repetition's ordinal, K, and the record after it. */
	struct wpp_decoder *d = wpp_decoder_open(th, mods, 0);
	struct wpp_event ev;
	uint64_t ordinal = 0, first = 0, k = 0, run_value = 0, next_value = 0, seq = 0;
	uint32_t word = 0, fid = 0;
	int state_ = 0; /* 0 before the run, 1 in it, 2 after */
	while (state_ < 2 && wpp_decoder_next(d, &ev)) {
		int is_path = ev.kind == WPP_EV_PATH;
		if (is_path && state_ == 0 && ev.repeat == 1 && ev.fn &&
		    !strcmp(ev.fn->name, "touch_b")) {
			state_ = 1, first = ordinal, seq = ev.batch_seq, word = ev.word_index;
			run_value = ev.value, fid = ev.fid;
		}
		if (state_ == 1 && is_path) {
			if (ev.repeat)
				k++;
			else
				state_ = 2, next_value = ev.value;
		}
		ordinal += ev.kind == WPP_EV_PATH || ev.kind == WPP_EV_BLOCK;
	}
	wpp_decoder_close(d);
	if (state_ != 2 || k < 3)
		fail_msg("no run of touch_b with K >= 3 followed by a record (K %llu)",
			 (unsigned long long)k);
	assert_true(next_value != run_value);

	/* The count's register at the store, and the run-time address. */
	const struct wpp_fn *fn;
	const struct wpp_fid_range *range;
	assert_int_equal(wpp_image_resolve(wpp_modules_image(mods, th->pid, th->generation), fid,
					   &fn, &range),
			 WPP_RESOLVED);
	uint64_t store = first_store(), bias = range->module->load_bias;
	assert_true(store != 0);
	struct wpp_dwarf *dw = wpp_dwarf_new();
	struct wpp_varloc loc;
	wpp_dwarf_var_location(dw, exe, NULL, 0, 0, store, WPP_RUN_COUNT_VAR, &loc, err,
			       sizeof(err));
	wpp_dwarf_free(dw);
	assert_int_equal(loc.kind, WPP_VARLOC_REG);
	uint64_t main_lo, main_hi;
	assert_int_equal(sym_range("main", &main_lo, &main_hi), 0);

	/* The samples: weight = case number (hits carry no sample index). */
	struct {
		int regs;
		uint64_t c, ip;
		uint64_t want_event, want_value;
	} cases[] = {
	    {1, 0, store, first, run_value},
	    {1, 1, store, first + 1, run_value},
	    {1, k - 1, store, first + k - 1, run_value},
	    {1, k, store, first + k, next_value},
	    {1, k + 1, store, first, run_value}, /* contradicts the trace: older rule */
	    {0, 0, store, first, run_value},	 /* no registers: older rule */
	    {1, 1, main_lo + 4, first, run_value}, /* not touch_b's ip: older rule */
	};
	size_t n = sizeof(cases) / sizeof(cases[0]);
	struct wpp_sample smp[8];
	struct wpp_sample_regs regs[8];
	uint32_t regs_at[8];
	for (size_t i = 0; i < n; i++) {
		smp[i] = (struct wpp_sample){.pid = th->pid,
					     .tid = th->tid,
					     .generation = th->generation,
					     .pos = WPP_POS_BUFFER,
					     .seq = seq,
					     .word = word,
					     .flags = cases[i].regs ? WPP_SAMPLE_REGS : 0,
					     .ip = cases[i].ip + bias,
					     .value = i + 1,
					     .time_ns = t->procs[0].time_ns + 1};
		memset(&regs[i], 0x5a, sizeof(regs[i]));
		regs[i].r[loc.reg] = cases[i].c;
		regs_at[i] = (uint32_t)i;
	}
	struct wpp_counter_desc desc = {.name = "page-faults", .period = 1};
	struct cost_data cd = {.counters = &desc,
			       .ncounters = 1,
			       .samples = smp,
			       .nsamples = n,
			       .regs = regs,
			       .regs_at = regs_at,
			       .nregs = n};
	struct cost_attribution a;
	assert_int_equal(cost_attribute(t, mods, &cd, 0, -1, -1, &a), 0);
	assert_int_equal(a.nhits, n);
	for (size_t h = 0; h < a.nhits; h++) {
		size_t i = a.hits[h].weight - 1;
		assert_true(i < n);
		if (a.hits[h].event != cases[i].want_event || a.hits[h].value != cases[i].want_value)
			fail_msg("case %zu (count %llu): event %llu path %llu, expected event %llu "
				 "path %llu",
				 i, (unsigned long long)cases[i].c, (unsigned long long)a.hits[h].event,
				 (unsigned long long)a.hits[h].value,
				 (unsigned long long)cases[i].want_event,
				 (unsigned long long)cases[i].want_value);
		if (h)
			assert_true(a.hits[h - 1].event <= a.hits[h].event);
	}
	cost_attribution_free(&a);
	wpp_modules_free(mods);
	wpp_sym_free(sym);
	wpp_trace_free(t);
}

int main(void)
{
	const struct CMUnitTest pure[] = {
	    cmocka_unit_test(check_ops),
	    cmocka_unit_test(check_rule),
	};
	const struct CMUnitTest built[] = {
	    cmocka_unit_test(check_build),
	    cmocka_unit_test(check_attribution),
	};
	int rc = cmocka_run_group_tests(pure, NULL, NULL);
	return rc | cmocka_run_group_tests(built, setup, teardown);
}
