/* SPDX-License-Identifier: MIT */
/*
 * test_cost_attr.c — counter samples -> path executions on a hand-made
 * stream (user/costs/cost_attr.c, cost_position.c, cost_summary.c).
 *
 * The trace is written by the decode tests' independent writer
 * (tests/unit/decode/testlib.c) with a metadata blob placed into a copy of
 * this executable.  The stream has runs (WPP_CTRL_REPEAT: one word, two in
 * a row, one at the start of a batch repeating the record that ended the
 * previous batch, one with no record before it), a lost batch (a hole in
 * the numbering), a thread whose end was lost (GAP chunk), and a second
 * process image.  Every sample's expected fate was worked out by hand
 * from the rules in trace_abi.h ("Runs") and wpp_file.h (sample
 * positions): the event ordinal it lands on, or the miss class.
 *
 * check_selection: `--cost NAME` on that file, which has no counters
 * (cost_select.c): insns, NULL and (where the command takes it) count
 * select nothing; a counter the file does not have, or count where the
 * command does not take it, is WPP_EXIT_USAGE after exactly one stderr
 * line naming the command and what --cost takes.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "common/exit_status.h"
#include "costs/cost_select.h"
#include "costs/costs.h"
#include "symbolizer/elf_object.h"
#include "symbolizer/symbolizer.h"
#include "tests/unit/decode/testlib.h"
#include "wpp/trace_abi.h"

static char dir[256], elf_path[300], wpp_path[300];

#define P(id) wpp_make_word(10, (id))
#define R(n)  wpp_make_ctrl(WPP_CTRL_REPEAT, (n))

static void process_at(struct tl_writer *w, uint32_t pid, uint32_t gen, uint32_t flags,
		       uint64_t time_ns)
{
	static const char tail[] = "/bin/prog\0prog\0";
	struct wpp_chunk_process p = {.pid = pid,
				      .ppid = 1,
				      .flags = flags,
				      .generation = gen,
				      .exe_len = 10,
				      .time_ns = time_ns,
				      .cmdline_len = 5};
	tl_chunk(w, WPP_CHUNK_PROCESS, &p, sizeof(p), tail, 15);
}

static int write_fixture(void)
{
	struct tl_func f;
	size_t size;
	char err[200];
	struct tl_writer w;

	unsigned seed = 7;
	/* Any DAG serves: attribution decodes without expanding paths. */
	tl_random_dag(&f, 4, &seed);
	f.name = "loop";
	void *blob = tl_blob(&f, 1, 0xA, WPP_MODE_PATHS, &size);
	snprintf(elf_path, sizeof(elf_path), "%s/prog.elf", dir);
	snprintf(wpp_path, sizeof(wpp_path), "%s/run.wpp", dir);
	int copied = tl_exe_with_meta(elf_path, blob, size);
	free(blob);
	if (copied < 0)
		return -1;
	struct wpp_elf_object *obj = wpp_elf_open(elf_path, err, sizeof(err));
	if (!obj || !obj->build_id_len)
		return -1;
	if (tl_wopen(&w, wpp_path) < 0)
		return -1;
	process_at(&w, 100, 0, 0, 1000);
	tl_module(&w, 100, 0, 10, 1, 0xA, obj->build_id, obj->build_id_len, elf_path);
	{
		/* thread 100: events (ordinal: path id)
		 *  seq 1: 0:0  1:1  [R3] 2,3,4:1  [R2] 5,6:1  7:0
		 *  seq 2: [R4] 8..11:0 (repeats the end of seq 1)  12:2
		 *  seq 3: 13:3  unregistered word
		 *  seq 4: lost (hole)
		 *  seq 5: [R2 with nothing before it: after the gap]  14:0 */
		uint64_t b1[] = {P(0), P(1), R(3), R(2), P(0)};
		uint64_t b2[] = {R(4), P(2)};
		uint64_t b3[] = {P(3), wpp_make_word(WPP_FID_UNREGISTERED, 1)};
		uint64_t b5[] = {R(2), P(0)};
		tl_batch(&w, 100, 0, 100, 2, 0, 0, 0, b2, 2);
		tl_batch(&w, 100, 0, 100, 1, 0, 0, 0, b1, 5);
		tl_batch(&w, 100, 0, 100, 3, 0, 0, 0, b3, 2);
		tl_batch(&w, 100, 0, 100, 5, WPP_BATCH_FINAL, 0, 0, b5, 2);
	}
	{
		/* thread 101: one batch, then its end was lost. */
		uint64_t b1[] = {P(1), P(2)};
		struct wpp_chunk_gap g = {
		    .pid = 100, .tid = 101, .after_seq = 1, .lost_words = 9, .lost_batches = 1};
		tl_batch(&w, 100, 0, 101, 1, 0, 0, 0, b1, 2);
		tl_chunk(&w, WPP_CHUNK_GAP, &g, sizeof(g), NULL, 0);
	}
	{
		/* thread 102: a signal handler's batch (seq 2, depth 1) spliced
		 * after the first word of seq 1; stream order P0 P2 P1 P3. */
		uint64_t b1[] = {P(0), P(1)}, sig[] = {P(2)}, b3[] = {P(3)};
		tl_batch(&w, 100, 0, 102, 1, 0, 0, 0, b1, 2);
		tl_batch(&w, 100, 0, 102, 2, WPP_BATCH_SIGNAL, 1, 1, sig, 1);
		tl_batch(&w, 100, 0, 102, 3, 0, 0, 0, b3, 1);
	}
	/* pid 100 exec'd a second image at time 5000. */
	process_at(&w, 100, 1, WPP_PROC_EXECED, 5000);
	tl_module(&w, 100, 1, 10, 1, 0xA, obj->build_id, obj->build_id_len, elf_path);
	{
		uint64_t b1[] = {P(3)};
		tl_batch(&w, 100, 1, 100, 1, 0, 0, 0, b1, 1);
	}
	wpp_elf_close(obj);
	tl_wclose(&w, 1);
	return 0;
}

static int setup(void **state)
{
	(void)state;
	return tl_scratch_dir(dir, sizeof(dir), "cost-attr") < 0 ? -1 : write_fixture();
}

static int teardown(void **state)
{
	(void)state;
	tl_scratch_remove(dir);
	return 0;
}

/* A sample and what must become of it: the event ordinal and path id it
 * lands on (miss < 0), or its miss class. */
struct case_ {
	struct wpp_sample s;
	int miss; /* enum cost_miss, or -1 for a hit */
	uint64_t ordinal, path;
};

#define S(tid_, pos_, seq_, word_, time_)                                                          \
	{.pid = 100,                                                                               \
	 .tid = (tid_),                                                                            \
	 .generation = 0,                                                                          \
	 .pos = (pos_),                                                                            \
	 .seq = (seq_),                                                                            \
	 .word = (word_),                                                                          \
	 .value = 10,                                                                              \
	 .time_ns = (time_),                                                                       \
	 .ip = 0x1000}
#define HIT(smp, ord, id) {smp, -1, (ord), (id)}
#define MISS(smp, why)	  {smp, (why), 0, 0}

static const struct case_ cases[] = {
    HIT(S(100, WPP_POS_BUFFER, 1, 0, 2000), 0, 0),
    HIT(S(100, WPP_POS_BUFFER, 1, 1, 2000), 1, 1),
    /* a REPEAT word's position: the first instance of its run, once */
    HIT(S(100, WPP_POS_BUFFER, 1, 2, 2000), 2, 1),
    /* the second REPEAT word in a row: the first instance it adds */
    HIT(S(100, WPP_POS_BUFFER, 1, 3, 2000), 5, 1),
    /* past the end of batch 1: word 0 of batch 2, a REPEAT of batch 1's last record */
    HIT(S(100, WPP_POS_BUFFER, 1, 5, 2000), 8, 0),
    /* not open yet: word 1 of the first batch numbered after 1 */
    HIT(S(100, WPP_POS_NEXT, 1, 1, 2000), 12, 2),
    HIT(S(100, WPP_POS_NUMBERED, 3, 0, 2000), 13, 3),
    MISS(S(100, WPP_POS_BUFFER, 3, 1, 2000), COST_MISS_NOT_A_PATH),
    MISS(S(100, WPP_POS_BUFFER, 4, 0, 2000), COST_MISS_LOST),
    /* the next batch after 3 would have been 4, which was lost */
    MISS(S(100, WPP_POS_NEXT, 3, 0, 2000), COST_MISS_LOST),
    MISS(S(100, WPP_POS_BUFFER, 3, 2, 2000), COST_MISS_LOST),
    /* a run whose record was lost with the batch before it */
    MISS(S(100, WPP_POS_BUFFER, 5, 0, 2000), COST_MISS_NOT_A_PATH),
    HIT(S(100, WPP_POS_BUFFER, 5, 1, 2000), 14, 0),
    MISS(S(100, WPP_POS_BUFFER, 5, 2, 2000), COST_MISS_AFTER_END),
    MISS(S(100, WPP_POS_NEXT, 5, 0, 2000), COST_MISS_AFTER_END),
    /* no position: before the image began (time 1000), in start-up after */
    MISS(S(100, WPP_POS_UNREGISTERED, 0, 0, 500), COST_MISS_BEFORE_IMAGE),
    MISS(S(100, WPP_POS_UNREGISTERED, 0, 0, 2000), COST_MISS_NOT_RECORDING),
    MISS(S(100, WPP_POS_UNKNOWN, 0, 0, 2000), COST_MISS_NO_POSITION),
    MISS(S(100, WPP_POS_DISCARD, 0, 0, 2000), COST_MISS_DISCARD),
    MISS(S(999, WPP_POS_BUFFER, 1, 0, 2000), COST_MISS_NO_THREAD),
    /* thread 101's end was lost: past its last batch is not "after the end" */
    MISS(S(101, WPP_POS_NEXT, 1, 0, 2000), COST_MISS_LOST),
    MISS(S(101, WPP_POS_BUFFER, 1, 2, 2000), COST_MISS_LOST),
    HIT(S(101, WPP_POS_BUFFER, 1, 1, 2000), 1, 2),
    /* the next main-level batch after 1 is 3: 2 is the handler's */
    HIT(S(102, WPP_POS_NEXT, 1, 0, 2000), 3, 3),
    HIT(S(102, WPP_POS_NEXT, 1, 0, 2000), 3, 3),
    /* ... and the next batch at depth 1 is 2 */
    {{.pid = 100,
      .tid = 102,
      .pos = WPP_POS_NEXT,
      .depth = 1,
      .seq = 1,
      .value = 10,
      .time_ns = 2000},
     -1,
     1,
     2},
    HIT(S(102, WPP_POS_BUFFER, 1, 1, 2000), 2, 1),
};

static void check_attribution(void **state)
{
	(void)state;
	size_t n = sizeof(cases) / sizeof(cases[0]);
	struct wpp_counter_desc desc[2] = {{.name = "page-faults", .period = 10},
					   {.name = "other", .period = 1}};
	/* the cases, plus one of another counter (ignored), plus one stamped
	 * with the new image's generation but taken before its exec (time
	 * 3000 < 5000): it belongs to image 0, where it lands on ordinal 0 */
	struct wpp_sample *smp = calloc(n + 2, sizeof(*smp));
	for (size_t i = 0; i < n; i++)
		smp[i] = cases[i].s;
	smp[n] = (struct wpp_sample)S(100, WPP_POS_BUFFER, 2, 1, 2000);
	smp[n].counter = 1;
	smp[n + 1] = (struct wpp_sample)S(100, WPP_POS_BUFFER, 1, 0, 3000);
	smp[n + 1].generation = 1;
	/* Per-batch counts of a multiplexed counter: each is scaled by
	 * enabled / running on its own (rounded down), then summed:
	 * 1000 * 20/10 + 500 * 30/10 + 7 * 3/2 = 2000 + 1500 + 10.  The other
	 * counter's count is not this counter's. */
	struct wpp_count counts[4] = {
	    {.pid = 100,
	     .tid = 100,
	     .counter = 0,
	     .seq = 1,
	     .count = 1000,
	     .enabled_ns = 20,
	     .running_ns = 10},
	    {.pid = 100,
	     .tid = 101,
	     .counter = 0,
	     .seq = 1,
	     .count = 500,
	     .enabled_ns = 30,
	     .running_ns = 10},
	    {.pid = 100,
	     .tid = 100,
	     .counter = 0,
	     .seq = 2,
	     .count = 7,
	     .enabled_ns = 3,
	     .running_ns = 2},
	    {.pid = 100,
	     .tid = 100,
	     .counter = 1,
	     .seq = 2,
	     .count = 999,
	     .enabled_ns = 1,
	     .running_ns = 1},
	};
	struct cost_data cd = {.counters = desc,
			       .ncounters = 2,
			       .samples = smp,
			       .nsamples = n + 2,
			       .counts = counts,
			       .ncounts = 4};

	struct wpp_trace *t = wpp_trace_load(wpp_path);
	assert_non_null(t);
	struct wpp_symbolizer *sym = wpp_sym_new();
	struct wpp_modules *mods = wpp_modules_new(t, sym);
	struct cost_attribution a;
	assert_int_equal(cost_attribute(t, mods, &cd, 0, -1, -1, &a), 0);

	uint64_t want_missed[COST_MISS_N] = {0};
	size_t want_hits = 1; /* the re-dated sample */
	for (size_t i = 0; i < n; i++) {
		if (cases[i].miss >= 0) {
			want_missed[cases[i].miss]++;
			continue;
		}
		want_hits++;
		size_t found = 0;
		for (size_t h = 0; h < a.nhits; h++)
			if (a.hits[h].tid == cases[i].s.tid && a.hits[h].gen == 0 &&
			    a.hits[h].event == cases[i].ordinal) {
				found++;
				assert_int_equal(a.hits[h].value, cases[i].path);
				assert_non_null(a.hits[h].fn);
				assert_string_equal(a.hits[h].fn->name, "loop");
			}
		/* one hit per sample on that record: the cases there, plus the
		 * re-dated sample on thread 100's first record */
		size_t want = cases[i].s.tid == 100 && cases[i].ordinal == 0;
		for (size_t j = 0; j < n; j++)
			want += cases[j].miss < 0 && cases[j].s.tid == cases[i].s.tid &&
				cases[j].ordinal == cases[i].ordinal;
		if (found != want)
			fail_msg("case %zu (tid %u ordinal %llu): %zu hits", i, cases[i].s.tid,
				 (unsigned long long)cases[i].ordinal, found);
	}
	assert_int_equal(a.samples, n + 1);
	assert_int_equal(a.nhits, want_hits);
	for (int m = 0; m < COST_MISS_N; m++)
		if (a.missed[m] != want_missed[m])
			fail_msg("class '%s': %llu samples, expected %llu",
				 cost_miss_text((enum cost_miss)m), (unsigned long long)a.missed[m],
				 (unsigned long long)want_missed[m]);
	/* nothing lost and nothing counted twice */
	uint64_t missed = 0;
	for (int m = 0; m < COST_MISS_N; m++)
		missed += a.missed[m];
	assert_int_equal(missed + a.nhits, a.samples);
	assert_int_equal(a.missed_weight, missed * 10);
	assert_int_equal(a.weight, a.samples * 10);

	/* The summary: misses while recording (share of those samples) and
	 * outside recording, each class named. */
	char line[512];
	cost_summary(line, sizeof(line), &cd, &a);
	uint64_t outside = want_missed[COST_MISS_BEFORE_IMAGE] +
			   want_missed[COST_MISS_NOT_RECORDING] + want_missed[COST_MISS_AFTER_END];
	char want[160];
	snprintf(want, sizeof(want),
		 "; %llu of the %llu samples taken while recording unattributed (%.2f%%)",
		 (unsigned long long)(missed - outside), (unsigned long long)(a.samples - outside),
		 100.0 * (double)(missed - outside) / (double)(a.samples - outside));
	if (!strstr(line, want))
		fail_msg("summary '%s' lacks '%s'", line, want);
	assert_non_null(
	    strstr(line, "page-faults: ~140 on paths, estimated from 28 samples (period 10)"));
	assert_non_null(strstr(line, "5 in lost batches"));
	assert_non_null(
	    strstr(line, "; 4 outside recording [1 before the program's exec, 1 in start-up"));
	assert_non_null(strstr(line, "2 after the thread's last record]"));
	assert_int_equal(a.has_counts, 1);
	assert_int_equal(a.counted, 3510);
	assert_non_null(strstr(line, "; counted exactly per batch: 3510"));

	/* The same figures as JSON (report, annotate, hot, info): every class
	 * by its key, samples = on paths + classes; compact even as a member
	 * of a spaced document (hot's). */
	char *json = NULL;
	size_t jlen = 0;
	FILE *mem = open_memstream(&json, &jlen);
	struct cost_tally tally;
	struct json_out doc;
	cost_tally_of(&cd, &a, &tally);
	json_init(&doc, mem, 1);
	json_object(&doc, NULL);
	json_u64(&doc, "before", 1);
	cost_tally_json(&doc, "cost_samples", &tally);
	json_close(&doc);
	fclose(mem);
	assert_non_null(strstr(
	    json,
	    "{\"before\": 1, \"cost_samples\": {\"counter\":\"page-faults\",\"estimated\":true,"
	    "\"period\":10,\"samples\":"));
	assert_int_equal(json[jlen - 2], '}');
	assert_int_equal(json[jlen - 1], '}');
	snprintf(want, sizeof(want),
		 "\"samples\":%llu,\"samples_on_paths\":%llu,\"events_on_paths\":%llu",
		 (unsigned long long)a.samples, (unsigned long long)a.nhits,
		 (unsigned long long)(a.nhits * 10));
	if (!strstr(json, want))
		fail_msg("JSON '%s' lacks '%s'", json, want);
	for (int m = 0; m < COST_MISS_N; m++) {
		snprintf(want, sizeof(want), "\"%s\":%llu", cost_miss_key((enum cost_miss)m),
			 (unsigned long long)want_missed[m]);
		if (!strstr(json, want))
			fail_msg("JSON '%s' lacks '%s'", json, want);
	}
	assert_non_null(strstr(json, "\"outside_recording\":4,"));
	assert_non_null(strstr(json, "\"counted\":3510}"));
	free(json);

	/* One thread alone: the filter selects its samples only. */
	struct cost_attribution b;
	assert_int_equal(cost_attribute(t, mods, &cd, 0, 100, 101, &b), 0);
	assert_int_equal(b.samples, 3);
	assert_int_equal(b.nhits, 1);
	assert_int_equal(b.missed[COST_MISS_LOST], 2);
	assert_int_equal(b.counted, 1500); /* thread 101's count only */
	cost_attribution_free(&b);

	cost_attribution_free(&a);
	free(smp);
	wpp_modules_free(mods);
	wpp_sym_free(sym);
	wpp_trace_free(t);
}

/* cost_select with stderr in a file: its return, and the text it wrote. */
static int select_capturing(struct wpp_trace *t, struct wpp_modules *mods, const char *name,
			    enum cost_takes takes, struct cost_selection *sel, char *err,
			    size_t len)
{
	char path[320];
	snprintf(path, sizeof(path), "%s/stderr", dir);
	fflush(stderr);
	int saved = dup(2);
	assert_true(saved >= 0);
	assert_non_null(freopen(path, "w", stderr));
	int rc = cost_select(sel, t, mods, name, takes, -1, -1, "demo", "f.wpp");
	fflush(stderr);
	assert_true(dup2(saved, 2) == 2);
	close(saved);
	FILE *f = fopen(path, "r");
	assert_non_null(f);
	size_t n = fread(err, 1, len - 1, f);
	err[n] = 0;
	fclose(f);
	return rc;
}

static void check_selection(void **state)
{
	(void)state;
	struct wpp_trace *t = wpp_trace_load(wpp_path);
	assert_non_null(t);
	struct wpp_symbolizer *sym = wpp_sym_new();
	struct wpp_modules *mods = wpp_modules_new(t, sym);
	struct cost_selection sel;
	char err[1024];

	/* Not counters: nothing selected, nothing said. */
	const char *none[] = {NULL, "insns"};
	for (int i = 0; i < 2; i++) {
		assert_int_equal(
		    select_capturing(t, mods, none[i], COST_TAKES_INSNS, &sel, err, sizeof(err)),
		    0);
		assert_false(sel.active);
		assert_string_equal(sel.summary, "");
		assert_string_equal(err, "");
		cost_selection_free(&sel);
	}
	assert_int_equal(
	    select_capturing(t, mods, "count", COST_TAKES_INSNS_OR_COUNT, &sel, err, sizeof(err)),
	    0);
	assert_false(sel.active);
	cost_selection_free(&sel);

	/* A counter the file does not have; count where it is not a cost. */
	struct {
		const char *name;
		enum cost_takes takes;
		const char *line;
	} bad[] = {
	    {"page-faults", COST_TAKES_INSNS,
	     "demo: --cost page-faults: --cost takes insns or the name of a counter recorded "
	     "with `record -e`; f.wpp has none (the trace has no counters)\n"},
	    {"cycles", COST_TAKES_INSNS_OR_COUNT,
	     "demo: --cost cycles: --cost takes insns, count, or the name of a counter recorded "
	     "with `record -e`; f.wpp has none (the trace has no counters)\n"},
	    {"count", COST_TAKES_INSNS,
	     "demo: --cost count: --cost takes insns or the name of a counter recorded with "
	     "`record -e`; f.wpp has none (the trace has no counters)\n"},
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(
		    select_capturing(t, mods, bad[i].name, bad[i].takes, &sel, err, sizeof(err)),
		    WPP_EXIT_USAGE);
		assert_false(sel.active);
		/* exactly one line: the log's prefix, then the text above */
		static const char prefix[] = "wpptrace: error: ";
		assert_int_equal(strncmp(err, prefix, sizeof(prefix) - 1), 0);
		assert_string_equal(err + sizeof(prefix) - 1, bad[i].line);
		cost_selection_free(&sel);
	}

	wpp_modules_free(mods);
	wpp_sym_free(sym);
	wpp_trace_free(t);
}

int main(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(check_attribution),
	    cmocka_unit_test(check_selection),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
