/* SPDX-License-Identifier: MIT */
/*
 * test_e2e.c — compiles small C programs with bin/wppcc in paths mode and in
 * blocks mode (the naive oracle: one record per block entered), at -O0 and
 * -O2, links them with the test-double runtime (testrt.c), runs them, and
 * decodes the words with the metadata the programs registered:
 *   - every word decodes exactly (known fid, remainder 0 at EXIT);
 *   - the block sequence decoded from path ids equals the blocks-mode
 *     sequence (blocks whose path ends in `unreachable` cannot be recorded
 *     in paths mode, so those are compared by counts where longjmp is used);
 *   - independent facts: fib(8) makes 67 calls at -O0; the 48/72-branch
 *     functions are wide / truncated and still decode;
 *   - runs (WPP_CTRL_REPEAT): REPEAT words expand to that many more
 *     instances of the record before them; the loops of progs/runs.c must
 *     produce REPEAT words with runs on and none with -fwpp-no-runs, both
 *     decoding to the blocks-mode sequence; a run longer than 2^32 is
 *     split into REPEAT words that add up to the iteration count.
 * Run from the repository root (make test does).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cmocka.h>

#include "wpp/meta_format.h"
#include "wpp/trace_abi.h"

#define WORKDIR "tests/work/instrument"

struct tu {
	uint32_t base;
	uint8_t *blob;
	uint64_t size;
	const struct wpp_meta_header *h;
	const struct wpp_meta_func *funcs;
	const struct wpp_meta_block *blocks;
	const struct wpp_meta_edge *edges;
	const char *strtab;
};

struct step {
	const struct tu *tu;
	const struct wpp_meta_func *fn;
	uint32_t block;
};

struct run {
	struct tu tus[8];
	int ntu;
	uint64_t *words;
	size_t nwords;
	size_t repeat_words; /* REPEAT control words read */
	uint64_t repeats;    /* instances they stood for */
	uint64_t repeated_words; /* words those instances would have taken */
	struct step *steps;
	size_t nsteps, cap;
};

static void run_free(struct run *r)
{
	for (int i = 0; i < r->ntu; i++)
		free(r->tus[i].blob);
	free(r->words);
	free(r->steps);
	memset(r, 0, sizeof(*r));
}

static void sh(const char *fmt, ...)
{
	char cmd[4096];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	int rc = system(cmd);
	if (rc != 0)
		fprintf(stderr, "command failed (%d): %s\n", rc, cmd);
	assert_int_equal(rc, 0);
}

static void load_tu(struct tu *t)
{
	assert_true(t->size >= sizeof(struct wpp_meta_header));
	t->h = (const struct wpp_meta_header *)t->blob;
	assert_memory_equal(t->h->magic, WPP_META_MAGIC, 8);
	assert_int_equal(t->h->version, WPP_META_VERSION);
	assert_true(t->h->total_size <= t->size);
	assert_true(t->h->funcs_off + (uint64_t)t->h->nfuncs * sizeof(struct wpp_meta_func) <= t->size);
	assert_true(t->h->blocks_off + (uint64_t)t->h->nblocks_total * sizeof(struct wpp_meta_block) <= t->size);
	assert_true(t->h->edges_off + (uint64_t)t->h->nedges_total * sizeof(struct wpp_meta_edge) <= t->size);
	assert_true(t->h->strtab_off + t->h->strtab_size <= t->size);
	t->funcs = (const void *)(t->blob + t->h->funcs_off);
	t->blocks = (const void *)(t->blob + t->h->blocks_off);
	t->edges = (const void *)(t->blob + t->h->edges_off);
	t->strtab = (const char *)t->blob + t->h->strtab_off;
	for (uint32_t i = 0; i < t->h->nfuncs; i++) {
		assert_true(t->funcs[i].name_str < t->h->strtab_size);
		assert_true(t->funcs[i].first_block + t->funcs[i].nblocks <= t->h->nblocks_total);
		assert_true(t->funcs[i].first_edge + t->funcs[i].nedges <= t->h->nedges_total);
	}
}

static void read_dump(struct run *r, const char *path)
{
	FILE *f = fopen(path, "rb");
	assert_non_null(f);
	int c;
	while ((c = fgetc(f)) != EOF) {
		if (c == 'M') {
			assert_true(r->ntu < 8);
			struct tu *t = &r->tus[r->ntu++];
			assert_int_equal(fread(&t->base, 4, 1, f), 1);
			assert_int_equal(fread(&t->size, 8, 1, f), 1);
			t->blob = malloc(t->size);
			assert_int_equal(fread(t->blob, 1, t->size, f), t->size);
			load_tu(t);
		} else {
			assert_int_equal(c, 'W');
			uint64_t n;
			assert_int_equal(fread(&n, 8, 1, f), 1);
			r->words = realloc(r->words, (r->nwords + n) * 8);
			assert_int_equal(fread(r->words + r->nwords, 8, n, f), n);
			r->nwords += n;
		}
	}
	fclose(f);
}

static const struct tu *find_fid(const struct run *r, uint32_t fid, const struct wpp_meta_func **fn)
{
	for (int i = 0; i < r->ntu; i++) {
		const struct tu *t = &r->tus[i];
		if (fid >= t->base && fid < t->base + t->h->nfuncs) {
			*fn = &t->funcs[fid - t->base];
			assert_int_equal((*fn)->local_index, fid - t->base);
			return t;
		}
	}
	fail_msg("word names unknown fid %u", fid);
	return NULL;
}

static void push_step(struct run *r, const struct tu *t, const struct wpp_meta_func *fn, uint32_t b)
{
	if (r->nsteps == r->cap) {
		r->cap = r->cap ? r->cap * 2 : 1024;
		r->steps = realloc(r->steps, r->cap * sizeof(*r->steps));
	}
	r->steps[r->nsteps++] = (struct step){t, fn, b};
}

/* Ball-Larus regeneration: at each node take the last out-edge (edges are
 * sorted by src, val) whose val does not exceed the remainder. */
static void decode_path(struct run *r, const struct tu *t, const struct wpp_meta_func *fn, uint64_t id)
{
	uint32_t n = fn->nblocks, v = n, steps = 0;
	uint64_t rem = id;
	assert_true(id < fn->npaths);
	while (v != n + 1) {
		const struct wpp_meta_edge *best = NULL;
		for (uint32_t i = 0; i < fn->nedges; i++) {
			const struct wpp_meta_edge *e = &t->edges[fn->first_edge + i];
			if (e->src == v && e->val <= rem)
				best = e;
		}
		assert_non_null(best);
		rem -= best->val;
		v = best->dst;
		assert_true(v <= n + 1);
		if (v < n)
			push_step(r, t, fn, v);
		assert_true(++steps <= n + 2);
	}
	assert_int_equal(rem, 0);
}

/* The record a REPEAT word repeats: the last narrow word or wide pair. */
struct last_record {
	const struct tu *t;
	const struct wpp_meta_func *fn;
	uint64_t id;
	unsigned nwords; /* 1 narrow, 2 wide */
};

static void decode(struct run *r)
{
	uint32_t mode = r->ntu ? r->tus[0].h->mode : WPP_MODE_PATHS;
	struct last_record last = {0};
	for (size_t i = 0; i < r->nwords; i++) {
		uint64_t w = r->words[i];
		const struct wpp_meta_func *fn;
		if (wpp_word_fid(w) == WPP_FID_CONTROL && wpp_ctrl_op(w) == WPP_CTRL_REPEAT) {
			/* runs come from paths-mode loops, always after a record */
			assert_int_equal(mode, WPP_MODE_PATHS);
			assert_non_null(last.fn);
			assert_true(wpp_ctrl_operand(w) >= 1);
			r->repeat_words++;
			r->repeats += wpp_ctrl_operand(w);
			r->repeated_words += (uint64_t)wpp_ctrl_operand(w) * last.nwords;
			for (uint32_t k = 0; k < wpp_ctrl_operand(w); k++)
				decode_path(r, last.t, last.fn, last.id);
			continue;
		}
		if (wpp_word_fid(w) == WPP_FID_CONTROL) {
			assert_int_equal(wpp_ctrl_op(w), WPP_CTRL_WIDE_PATH);
			assert_true(i + 1 < r->nwords);
			const struct tu *t = find_fid(r, wpp_ctrl_operand(w), &fn);
			assert_true(fn->flags & WPP_FUNC_WIDE);
			uint64_t id = r->words[++i];
			assert_true(id & WPP_WIDE_ID_MARK);
			decode_path(r, t, fn, id & ~WPP_WIDE_ID_MARK);
			last = (struct last_record){t, fn, id & ~WPP_WIDE_ID_MARK, 2};
			continue;
		}
		const struct tu *t = find_fid(r, wpp_word_fid(w), &fn);
		if (mode == WPP_MODE_BLOCKS) {
			assert_true(wpp_word_payload(w) < fn->nblocks);
			push_step(r, t, fn, (uint32_t)wpp_word_payload(w));
		} else {
			assert_false(fn->flags & WPP_FUNC_WIDE);
			decode_path(r, t, fn, wpp_word_payload(w));
			last = (struct last_record){t, fn, wpp_word_payload(w), 1};
		}
	}
}

static const char *fname(const struct step *s) { return s->tu->strtab + s->fn->name_str; }

/* Builds prog in mode with opt (one option, no spaces) and extra wppcc
 * options (tag names that variant's files), runs it with args, reads the
 * dump without decoding it. */
static void run_program(struct run *r, const char *prog, const char *mode, const char *opt,
			const char *extra, const char *tag, const char *args)
{
	char exe[512], out[512];
	mkdir("tests/work", 0755);
	mkdir(WORKDIR, 0755);
	snprintf(exe, sizeof(exe), WORKDIR "/%s.%s%s%s", prog, mode, opt, tag);
	snprintf(out, sizeof(out), "%s.dump", exe);
	sh("bin/wppcc -fwpp-mode=%s %s %s -c tests/unit/instrument/progs/%s.c -o %s.o", mode, opt, extra,
	   prog, exe);
	sh("clang-19 -Iuser/include %s.o tests/unit/instrument/testrt.c -o %s", exe, exe);
	sh("WPP_TEST_OUT=%s %s %s >/dev/null", out, exe, args);
	read_dump(r, out);
}

static void trace_variant(struct run *r, const char *prog, const char *mode, const char *opt,
			  const char *extra, const char *tag)
{
	run_program(r, prog, mode, opt, extra, tag, "");
	assert_true(r->ntu >= 1);
	assert_int_equal(r->tus[0].h->mode, strcmp(mode, "blocks") == 0 ? WPP_MODE_BLOCKS : WPP_MODE_PATHS);
	decode(r);
	assert_true(r->nsteps > 0);
}

static void trace_program(struct run *r, const char *prog, const char *mode, const char *opt)
{
	trace_variant(r, prog, mode, opt, "", "");
}

static int same_step(const struct step *a, const struct step *b)
{
	return strcmp(fname(a), fname(b)) == 0 && a->block == b->block;
}

static const struct wpp_meta_block *meta_block(const struct step *s)
{
	return &s->tu->blocks[s->fn->first_block + s->block];
}

/* Where paths mode puts a block: a path ends before each call, so the
 * block holding the call starts the next path, which is recorded when it
 * ends, after the callee's paths.  This turns the blocks-mode sequence
 * (one record at each block entry) into that order by following
 * activations: block 0 starts one (entry blocks have no predecessors), a
 * RETURN block ends it, and a call-head block is held back until its own
 * activation makes its next step (or returns).  Call heads still held when
 * the program ends (exit, _exit, abort) are never recorded in paths mode. */
static void reorder_call_heads(struct run *b)
{
	struct act {
		const struct step *pending;
	} stack[4096];
	int sp = 0;
	struct step *out = malloc((b->nsteps + 1) * sizeof(*out));
	size_t n = 0;
	for (size_t i = 0; i < b->nsteps; i++) {
		const struct step *s = &b->steps[i];
		if (s->block != 0) {
			/* returning from callees: the caller's held call head
			 * comes first; if it was also a RETURN block the caller
			 * is done and s belongs further down the stack */
			while (sp > 0 && stack[sp - 1].pending) {
				const struct step *p = stack[sp - 1].pending;
				out[n++] = *p;
				stack[sp - 1].pending = NULL;
				if (meta_block(p)->flags & WPP_BLOCK_RETURN)
					sp--;
				else
					break;
			}
		} else {
			assert_true(sp < 4096);
			stack[sp++].pending = NULL;
		}
		if (meta_block(s)->flags & WPP_BLOCK_CALL_HEAD) {
			assert_true(sp > 0);
			stack[sp - 1].pending = s;
			continue;
		}
		out[n++] = *s;
		if ((meta_block(s)->flags & WPP_BLOCK_RETURN) && sp > 0)
			sp--;
	}
	/* RETURN call heads held at the end still get recorded (at their ret)
	 * when the program ends normally */
	for (int k = sp - 1; k >= 0; k--)
		if (stack[k].pending && (meta_block(stack[k].pending)->flags & WPP_BLOCK_RETURN))
			out[n++] = *stack[k].pending;
		else
			break;
	free(b->steps);
	b->steps = out;
	b->nsteps = n;
	b->cap = b->nsteps + 1;
}

/* Paths mode must reproduce the (reordered) blocks-mode sequence exactly,
 * except that a path ending in `unreachable` is never recorded: such
 * trailing blocks may be missing at the very end. */
static void compare_sequences(const struct run *paths, const struct run *blocks)
{
	size_t n = paths->nsteps;
	assert_true(n <= blocks->nsteps);
	for (size_t i = 0; i < n; i++)
		if (!same_step(&paths->steps[i], &blocks->steps[i]))
			fail_msg("step %zu differs: %s:%u vs %s:%u", i, fname(&paths->steps[i]),
				 paths->steps[i].block, fname(&blocks->steps[i]), blocks->steps[i].block);
	for (size_t i = n; i < blocks->nsteps; i++) {
		const struct step *s = &blocks->steps[i];
		const struct wpp_meta_block *b = &s->tu->blocks[s->fn->first_block + s->block];
		assert_true(b->flags & WPP_BLOCK_UNREACHABLE);
	}
}

static size_t count_entries(const struct run *r, const char *fn)
{
	size_t n = 0;
	for (size_t i = 0; i < r->nsteps; i++)
		n += r->steps[i].block == 0 && strcmp(fname(&r->steps[i]), fn) == 0;
	return n;
}

static const struct wpp_meta_func *find_func(const struct run *r, const char *name)
{
	for (int i = 0; i < r->ntu; i++)
		for (uint32_t k = 0; k < r->tus[i].h->nfuncs; k++)
			if (strcmp(r->tus[i].strtab + r->tus[i].funcs[k].name_str, name) == 0)
				return &r->tus[i].funcs[k];
	return NULL;
}

static void check_program(const char *prog, const char *opt, int exact)
{
	struct run p = {0}, b = {0};
	trace_program(&p, prog, "paths", opt);
	trace_program(&b, prog, "blocks", opt);
	/* same source, same flags: identical metadata except the mode */
	assert_int_equal(p.ntu, b.ntu);
	for (int i = 0; i < p.ntu; i++) {
		assert_int_equal(p.tus[i].h->nfuncs, b.tus[i].h->nfuncs);
		for (uint32_t k = 0; k < p.tus[i].h->nfuncs; k++)
			assert_int_equal(p.tus[i].funcs[k].stable_id, b.tus[i].funcs[k].stable_id);
	}
	if (exact) {
		reorder_call_heads(&b);
		compare_sequences(&p, &b);
	} else {
		/* longjmp: the call-head block of setjmp is re-entered without
		 * a block record; compare function entry counts instead. */
		for (size_t i = 0; i < b.nsteps; i++) {
			const char *f = fname(&b.steps[i]);
			assert_int_equal(count_entries(&p, f), count_entries(&b, f));
		}
	}
	if (strcmp(prog, "loops_switch") == 0 && strcmp(opt, "-O0") == 0)
		assert_int_equal(count_entries(&p, "fib"), 67);
	if (strcmp(prog, "jumps") == 0)
		assert_int_equal(count_entries(&p, "thrower"), 7);
	if (strcmp(prog, "manypaths") == 0) {
		const struct wpp_meta_func *w = find_func(&p, "wide48"), *t = find_func(&p, "trunc72");
		assert_non_null(w);
		assert_non_null(t);
		assert_true(w->flags & WPP_FUNC_WIDE);
		assert_false(w->flags & WPP_FUNC_TRUNCATED);
		assert_true(t->flags & WPP_FUNC_WIDE);
		assert_true(t->flags & WPP_FUNC_TRUNCATED);
		assert_int_equal(count_entries(&p, "wide48"), 5);
		assert_int_equal(count_entries(&p, "trunc72"), 5);
	}
	fprintf(stderr, "%s %s: %zu words -> %zu blocks (blocks mode: %zu words)\n", prog, opt, p.nwords,
		p.nsteps, b.nwords);
	run_free(&p);
	run_free(&b);
}

/* Runs on and off must both decode to the blocks-mode sequence; only runs
 * on may (and for progs/runs.c must) write REPEAT words, and then fewer
 * words in all.  Runs on: the default choice of regions, then every kind
 * of region (runs.h: innermost loops, whole nests, levels) with no
 * minimum trip estimate, so that short loops count too, and the default
 * without regions around calls (WPP_RUN_CALLS=0).  Returns the words. */
static size_t check_runs_on(const char *opt, const struct run *off, const struct run *b,
			    const char *nests, int calls)
{
	struct run on = {0};
	char tag[32] = "";
	if (nests) {
		setenv("WPP_RUN_NESTS", nests, 1);
		setenv("WPP_RUN_MIN_RECORDS", "0", 1);
		snprintf(tag, sizeof(tag), ".nests%s", nests);
	}
	if (!calls) {
		setenv("WPP_RUN_CALLS", "0", 1);
		snprintf(tag + strlen(tag), sizeof(tag) - strlen(tag), ".nocalls");
	}
	trace_variant(&on, "runs", "paths", opt, "", tag);
	unsetenv("WPP_RUN_NESTS");
	unsetenv("WPP_RUN_MIN_RECORDS");
	unsetenv("WPP_RUN_CALLS");
	compare_sequences(&on, b);
	assert_int_equal(on.nsteps, off->nsteps);
	assert_true(on.repeat_words > 0);
	assert_true(on.nwords + on.repeated_words == off->nwords + on.repeat_words);
	fprintf(stderr, "runs %s%s: %zu words with runs (%zu REPEAT for %llu records), %zu without\n", opt,
		tag, on.nwords, on.repeat_words, (unsigned long long)on.repeats, off->nwords);
	size_t words = on.nwords;
	run_free(&on);
	return words;
}

static void check_runs(const char *opt)
{
	struct run off = {0}, b = {0};
	trace_variant(&off, "runs", "paths", opt, "-fwpp-no-runs", ".noruns");
	trace_program(&b, "runs", "blocks", opt);
	reorder_call_heads(&b);
	compare_sequences(&off, &b);
	assert_int_equal(off.repeat_words, 0);
	size_t with_calls = check_runs_on(opt, &off, &b, NULL, 1);
	check_runs_on(opt, &off, &b, "0", 1);
	check_runs_on(opt, &off, &b, "1", 1);
	check_runs_on(opt, &off, &b, "2", 1);
	/* rare_call's and rare_qsort's loops count only with calls inside */
	assert_true(with_calls < check_runs_on(opt, &off, &b, NULL, 0));
	run_free(&off);
	run_free(&b);
}

/* Records of spin() in a run, REPEAT words expanded, without decoding
 * paths (expanding 2^32 of them would take long). */
static uint64_t spin_records(struct run *r, size_t *nrep)
{
	uint64_t records = 0;
	*nrep = 0;
	for (size_t i = 0; i < r->nwords; i++) {
		uint64_t w = r->words[i];
		if (wpp_word_fid(w) == WPP_FID_CONTROL && wpp_ctrl_op(w) == WPP_CTRL_REPEAT) {
			/* after the record, or after a REPEAT word adding to it */
			assert_true(i > 0);
			uint64_t prev = r->words[i - 1];
			assert_true(wpp_word_fid(prev) != WPP_FID_CONTROL ||
				    wpp_ctrl_op(prev) == WPP_CTRL_REPEAT);
			records += wpp_ctrl_operand(w);
			(*nrep)++;
			continue;
		}
		const struct wpp_meta_func *fn;
		const struct tu *t = find_fid(r, wpp_word_fid(w), &fn);
		records += strcmp(t->strtab + fn->name_str, "spin") == 0;
	}
	return records;
}

/* spin(n) repeats one path about n times; past 2^32 - 1 repeats the count
 * needs several REPEAT words.  The reference is the same program without
 * runs at a small n: spin() records n + c words, for a constant c. */
static void test_long_run(void **s)
{
	(void)s;
	const uint64_t small = 1000, n = (UINT64_C(1) << 32) + 7;
	struct run ref = {0}, r = {0};
	size_t nrep;
	run_program(&ref, "longrun", "paths", "-O2", "-fwpp-no-runs", ".noruns", "1000");
	uint64_t c = spin_records(&ref, &nrep) - small;
	assert_int_equal(nrep, 0);
	run_program(&r, "longrun", "paths", "-O2", "", "", "4294967303");
	assert_int_equal(spin_records(&r, &nrep), n + c);
	assert_int_equal(nrep, 2); /* WPP_REPEAT_MAX, then the rest */
	run_free(&ref);
	run_free(&r);
}

static void test_runs_O0(void **s) { (void)s; check_runs("-O0"); }
static void test_runs_O2(void **s) { (void)s; check_runs("-O2"); }

static void test_loops_switch_O0(void **s) { (void)s; check_program("loops_switch", "-O0", 1); }
static void test_loops_switch_O2(void **s) { (void)s; check_program("loops_switch", "-O2", 1); }
static void test_manypaths_O0(void **s) { (void)s; check_program("manypaths", "-O0", 1); }
static void test_manypaths_O2(void **s) { (void)s; check_program("manypaths", "-O2", 1); }
static void test_jumps_O0(void **s) { (void)s; check_program("jumps", "-O0", 0); }
static void test_jumps_O2(void **s) { (void)s; check_program("jumps", "-O2", 0); }

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_loops_switch_O0), cmocka_unit_test(test_loops_switch_O2),
		cmocka_unit_test(test_manypaths_O0),    cmocka_unit_test(test_manypaths_O2),
		cmocka_unit_test(test_jumps_O0),        cmocka_unit_test(test_jumps_O2),
		cmocka_unit_test(test_runs_O0),         cmocka_unit_test(test_runs_O2),
		cmocka_unit_test(test_long_run),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
