/* SPDX-License-Identifier: MIT */
/*
 * End to end through the decoder: metadata blobs placed (objcopy) into a
 * copy of this very executable (so it has a real GNU build-id), a .wpp file
 * written by the test writer, then the event iterator checked record by
 * record: narrow and wide paths, a signal splice, blocks mode, gap words,
 * pads and zero words, unregistered/unknown fids, corrupt ids, an object
 * with a wrong build-id, and a forked child inheriting its parent's modules.
 *
 * `test_decode --write-fixture DIR` only writes DIR/prog.elf and DIR/run.wpp
 * (used by cli-smoke.sh).
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

#include "decode/decoder.h"
#include "symbolizer/elf_object.h"
#include "symbolizer/symbolizer.h"
#include "testlib.h"
#include "wpp/trace_abi.h"

static char dir[256], elf_path[300], wpp_path[300];
static struct tl_func fa[2], fb[1];

static void make_funcs(void)
{
	unsigned seed = 99;

	tl_diamond(&fa[0]);
	tl_random_dag(&fa[1], 5, &seed);
	fa[1].name = "helper";
	tl_random_dag(&fb[0], 4, &seed);
	fb[0].name = "oracle_fn";
}

static int write_fixture(const char *d)
{
	size_t sa, sb;
	void *ba, *bb;
	unsigned char *sec;
	char nometa_path[320];
	struct wpp_elf_object *obj;
	char err[200];
	struct tl_writer w;
	uint8_t bad_id[20] = {1, 2, 3};

	snprintf(elf_path, sizeof(elf_path), "%s/prog.elf", d);
	snprintf(wpp_path, sizeof(wpp_path), "%s/run.wpp", d);
	make_funcs();
	ba = tl_blob(fa, 2, 0xA, WPP_MODE_PATHS, &sa);
	bb = tl_blob(fb, 1, 0xB, WPP_MODE_BLOCKS, &sb);
	size_t pa = (sa + 7) & ~(size_t)7;
	sec = calloc(1, pa + sb);
	memcpy(sec, ba, sa);
	memcpy(sec + pa, bb, sb);
	int copied = tl_exe_with_meta(elf_path, sec, pa + sb);
	free(sec);
	free(ba);
	free(bb);
	if (copied < 0)
		return -1;
	obj = wpp_elf_open(elf_path, err, sizeof(err));
	if (!obj || obj->build_id_len == 0 || !obj->meta)
		return -1;

	if (tl_wopen(&w, wpp_path) < 0)
		return -1;
	tl_process(&w, 100, 1, 0, 0);
	tl_module(&w, 100, 0, 10, 2, 0xA, obj->build_id, obj->build_id_len, elf_path);
	tl_module(&w, 100, 0, 20, 1, 0xB, obj->build_id, obj->build_id_len, elf_path);
	tl_module(&w, 100, 0, 30, 1, 0xA, bad_id, 20, elf_path); /* wrong build-id */
	wpp_elf_close(obj);
	{
		uint64_t b0[] = {
			wpp_make_word(10, 0),                  /* diamond path 0 */
			wpp_make_word(11, 0),                  /* helper path 0 */
			wpp_make_ctrl(WPP_CTRL_WIDE_PATH, 10), /* diamond path 7, wide */
			WPP_WIDE_ID_MARK | 7,
			wpp_make_word(WPP_FID_UNREGISTERED, 5),
			wpp_make_word(15, 1), /* no module */
			0,                    /* unwritten slot */
			wpp_make_ctrl(WPP_CTRL_PAD, 0),
		};
		uint64_t sig[] = {wpp_make_word(10, 1)}; /* spliced after b0[1] */
		uint64_t b1[] = {
			wpp_make_ctrl(WPP_CTRL_GAP, 0),
			42,
			wpp_make_word(10, 8), /* not a path of diamond */
			wpp_make_word(20, 2), /* blocks mode, block 2 */
			wpp_make_word(20, 99),
			wpp_make_word(30, 0),           /* module with wrong build-id */
			wpp_make_ctrl((enum wpp_ctrl_op)9, 0),
			wpp_make_ctrl(WPP_CTRL_WIDE_PATH, 10), /* cut short */
		};
		/* written out of order on purpose */
		tl_batch(&w, 100, 0, 100, 2, 0, 0, 0, b1, 8);
		tl_batch(&w, 100, 0, 100, 0, 0, 0, 0, b0, 8);
		tl_batch(&w, 100, 0, 100, 1, WPP_BATCH_SIGNAL, 0, 2, sig, 1);
	}
	tl_process(&w, 101, 100, WPP_PROC_FORKED, 0);
	{
		uint64_t c0[] = {wpp_make_word(10, 3), wpp_make_word(10, 4)};
		tl_batch(&w, 101, 0, 101, 0, 0, 0, 0, c0, 2);
	}
	tl_wclose(&w, 1);

	/* A trace of a program whose binary carries no metadata (for cli-smoke.sh). */
	snprintf(nometa_path, sizeof(nometa_path), "%s/nometa.wpp", d);
	if (tl_wopen(&w, nometa_path) < 0)
		return -1;
	tl_process(&w, 7, 1, 0, 0);
	tl_module(&w, 7, 0, 1, 1, 0xA, bad_id, 0, "/bin/true");
	{
		uint64_t words[] = {wpp_make_word(1, 0)};
		tl_batch(&w, 7, 0, 7, 0, 0, 0, 0, words, 1);
	}
	tl_wclose(&w, 1);
	return 0;
}

static int setup(void **state)
{
	(void)state;
	return tl_scratch_dir(dir, sizeof(dir), "decode") < 0 ? -1 : write_fixture(dir);
}

static int teardown(void **state)
{
	(void)state;
	tl_scratch_remove(dir);
	return 0;
}

static void expect_path(struct wpp_decoder *d, const char *fn, uint64_t id, uint32_t nblocks,
			const uint32_t *blocks)
{
	struct wpp_event ev;

	assert_int_equal(wpp_decoder_next(d, &ev), 1);
	if (ev.kind != WPP_EV_PATH)
		fail_msg("expected a path of %s, got kind %d (%s)", fn, ev.kind, ev.reason ? ev.reason : "");
	assert_string_equal(ev.fn->name, fn);
	assert_int_equal(ev.value, id);
	assert_non_null(ev.path);
	if (blocks) {
		assert_int_equal(ev.path->nblocks, nblocks);
		assert_memory_equal(ev.path->blocks, blocks, nblocks * 4);
	}
}

static void expect_kind(struct wpp_decoder *d, enum wpp_event_kind kind, const char *reason_part)
{
	struct wpp_event ev;

	assert_int_equal(wpp_decoder_next(d, &ev), 1);
	if (ev.kind != kind)
		fail_msg("expected kind %d, got %d (%s)", kind, ev.kind, ev.reason ? ev.reason : "");
	if (reason_part && !strstr(ev.reason, reason_part))
		fail_msg("reason '%s' lacks '%s'", ev.reason, reason_part);
}

static void test_decode_events(void **state)
{
	struct wpp_trace *t = wpp_trace_load(wpp_path);
	struct wpp_symbolizer *sym = wpp_sym_new();
	struct wpp_modules *mods;
	struct wpp_decoder *d;
	struct wpp_event ev;
	static const uint32_t p0[] = {0, 1, 3}, p7[] = {0, 2, 3}, p1[] = {0, 1, 3};

	(void)state;
	assert_non_null(t);
	assert_int_equal(t->stop_reason[0], '\0');
	assert_int_equal(t->nthreads, 2);
	assert_int_equal(t->threads[0].pid, 100);
	mods = wpp_modules_new(t, sym);
	d = wpp_decoder_open(&t->threads[0], mods, WPP_DECODE_EXPAND);
	expect_path(d, "diamond", 0, 3, p0);
	expect_path(d, "helper", 0, 0, NULL);
	expect_path(d, "diamond", 1, 3, p1); /* spliced signal batch */
	expect_path(d, "diamond", 7, 3, p7); /* wide record */
	expect_kind(d, WPP_EV_UNATTRIBUTED, "registered");
	expect_kind(d, WPP_EV_UNATTRIBUTED, "no module");
	assert_int_equal(wpp_decoder_next(d, &ev), 1);
	assert_int_equal(ev.kind, WPP_EV_GAP);
	assert_int_equal(ev.lost_words, 42);
	expect_kind(d, WPP_EV_CORRUPT, "not a path");
	assert_int_equal(wpp_decoder_next(d, &ev), 1);
	assert_int_equal(ev.kind, WPP_EV_BLOCK);
	assert_string_equal(ev.fn->name, "oracle_fn");
	assert_int_equal(ev.value, 2);
	expect_kind(d, WPP_EV_CORRUPT, "block index");
	expect_kind(d, WPP_EV_UNATTRIBUTED, "metadata");
	expect_kind(d, WPP_EV_CORRUPT, "unknown control");
	expect_kind(d, WPP_EV_CORRUPT, "cut short");
	assert_int_equal(wpp_decoder_next(d, &ev), 0);
	const struct wpp_decode_stats *st = wpp_decoder_stats(d);
	assert_int_equal(st->words, 17);
	assert_int_equal(st->paths, 4);
	assert_int_equal(st->blocks, 1);
	assert_int_equal(st->unattributed, 3);
	assert_int_equal(st->corrupt, 4);
	assert_int_equal(st->zero_words, 1);
	assert_int_equal(st->pad_words, 1);
	wpp_decoder_close(d);

	/* The forked child registered nothing itself: fids resolve through the parent. */
	d = wpp_decoder_open(&t->threads[1], mods, WPP_DECODE_EXPAND);
	expect_path(d, "diamond", 3, 3, NULL);
	expect_path(d, "diamond", 4, 3, NULL);
	assert_int_equal(wpp_decoder_next(d, &ev), 0);
	wpp_decoder_close(d);

	/* Without EXPAND, ids pass through unchecked (for counting). */
	d = wpp_decoder_open(&t->threads[0], mods, 0);
	assert_int_equal(wpp_decoder_next(d, &ev), 1);
	assert_int_equal(ev.kind, WPP_EV_PATH);
	assert_null(ev.path);
	wpp_decoder_close(d);

	wpp_modules_free(mods);
	wpp_sym_free(sym);
	wpp_trace_free(t);
}

/* A repeat of record (fn, id) number k, at (seq, word). */
static void expect_repeat(struct wpp_decoder *d, enum wpp_event_kind kind, const char *fn, uint64_t id,
			  uint64_t k, uint64_t seq, uint32_t word)
{
	struct wpp_event ev;

	assert_int_equal(wpp_decoder_next(d, &ev), 1);
	if (ev.kind != kind)
		fail_msg("expected kind %d, got %d (%s)", kind, ev.kind, ev.reason ? ev.reason : "");
	assert_string_equal(ev.fn->name, fn);
	assert_int_equal(ev.value, id);
	assert_int_equal(ev.repeat, k);
	assert_int_equal(ev.batch_seq, seq);
	assert_int_equal(ev.word_index, word);
	if (kind == WPP_EV_PATH)
		assert_non_null(ev.path);
}

/*
 * REPEAT words: expanded after narrow, wide and blocks-mode records, across a
 * batch boundary, around a spliced signal handler (which has its own record to
 * repeat), and unattributable at the stream's start and after a gap or a
 * malformed record.
 */
static void test_decode_repeats(void **state)
{
	char path[320], err[200];
	struct tl_writer w;
	struct wpp_elf_object *obj = wpp_elf_open(elf_path, err, sizeof(err));
	uint64_t b0[] = {
	    wpp_make_ctrl(WPP_CTRL_REPEAT, 2), /* nothing to repeat yet */
	    wpp_make_word(10, 1),
	    wpp_make_ctrl(WPP_CTRL_REPEAT, 2), /* after the handler: diamond 1 again */
	};
	uint64_t sig[] = {wpp_make_word(11, 0), wpp_make_ctrl(WPP_CTRL_REPEAT, 1)};
	uint64_t b1[] = {
	    wpp_make_ctrl(WPP_CTRL_REPEAT, 1), /* continues the run across batches */
	    wpp_make_ctrl(WPP_CTRL_WIDE_PATH, 10),
	    WPP_WIDE_ID_MARK | 7,
	    wpp_make_ctrl(WPP_CTRL_REPEAT, 2),
	    wpp_make_ctrl(WPP_CTRL_GAP, 0),
	    5,
	    wpp_make_ctrl(WPP_CTRL_REPEAT, 1), /* the gap took its record */
	    wpp_make_word(20, 2),
	    wpp_make_ctrl(WPP_CTRL_REPEAT, 2),
	    wpp_make_ctrl((enum wpp_ctrl_op)9, 0),
	    wpp_make_ctrl(WPP_CTRL_REPEAT, 3), /* after a malformed word */
	    wpp_make_word(10, 0),
	    wpp_make_ctrl(WPP_CTRL_REPEAT, 0),
	};
	struct wpp_event ev;

	(void)state;
	assert_non_null(obj);
	snprintf(path, sizeof(path), "%s/repeat.wpp", dir);
	assert_int_equal(tl_wopen(&w, path), 0);
	tl_process(&w, 200, 1, 0, 0);
	tl_module(&w, 200, 0, 10, 2, 0xA, obj->build_id, obj->build_id_len, elf_path);
	tl_module(&w, 200, 0, 20, 1, 0xB, obj->build_id, obj->build_id_len, elf_path);
	wpp_elf_close(obj);
	tl_batch(&w, 200, 0, 200, 0, 0, 0, 0, b0, 3);
	tl_batch(&w, 200, 0, 200, 1, WPP_BATCH_SIGNAL, 0, 2, sig, 2);
	tl_batch(&w, 200, 0, 200, 2, 0, 0, 0, b1, sizeof(b1) / sizeof(b1[0]));
	tl_wclose(&w, 1);

	struct wpp_trace *t = wpp_trace_load(path);
	struct wpp_symbolizer *sym = wpp_sym_new();
	assert_non_null(t);
	struct wpp_modules *mods = wpp_modules_new(t, sym);
	struct wpp_decoder *d = wpp_decoder_open(&t->threads[0], mods, WPP_DECODE_EXPAND);

	assert_int_equal(wpp_decoder_next(d, &ev), 1);
	assert_int_equal(ev.kind, WPP_EV_UNATTRIBUTED);
	assert_int_equal(ev.lost_words, 2);
	assert_non_null(strstr(ev.reason, "repeat"));
	expect_repeat(d, WPP_EV_PATH, "diamond", 1, 0, 0, 1);
	expect_repeat(d, WPP_EV_PATH, "helper", 0, 0, 1, 0); /* the handler */
	expect_repeat(d, WPP_EV_PATH, "helper", 0, 1, 1, 1);
	expect_repeat(d, WPP_EV_PATH, "diamond", 1, 1, 0, 2);
	expect_repeat(d, WPP_EV_PATH, "diamond", 1, 2, 0, 2);
	expect_repeat(d, WPP_EV_PATH, "diamond", 1, 3, 2, 0);
	expect_repeat(d, WPP_EV_PATH, "diamond", 7, 0, 2, 1);
	expect_repeat(d, WPP_EV_PATH, "diamond", 7, 1, 2, 3);
	expect_repeat(d, WPP_EV_PATH, "diamond", 7, 2, 2, 3);
	assert_int_equal(wpp_decoder_next(d, &ev), 1);
	assert_int_equal(ev.kind, WPP_EV_GAP);
	assert_int_equal(wpp_decoder_next(d, &ev), 1);
	assert_int_equal(ev.kind, WPP_EV_UNATTRIBUTED);
	assert_int_equal(ev.lost_words, 1);
	expect_repeat(d, WPP_EV_BLOCK, "oracle_fn", 2, 0, 2, 7);
	expect_repeat(d, WPP_EV_BLOCK, "oracle_fn", 2, 1, 2, 8);
	expect_repeat(d, WPP_EV_BLOCK, "oracle_fn", 2, 2, 2, 8);
	expect_kind(d, WPP_EV_CORRUPT, "unknown control");
	expect_kind(d, WPP_EV_UNATTRIBUTED, "repeat");
	expect_repeat(d, WPP_EV_PATH, "diamond", 0, 0, 2, 11);
	expect_kind(d, WPP_EV_CORRUPT, "zero");
	assert_int_equal(wpp_decoder_next(d, &ev), 0);

	const struct wpp_decode_stats *st = wpp_decoder_stats(d);
	assert_int_equal(st->paths, 10);
	assert_int_equal(st->blocks, 3);
	assert_int_equal(st->repeat_words, 9);
	assert_int_equal(st->repeats, 8);
	assert_int_equal(st->unattributed, 2 + 1 + 3);
	assert_int_equal(st->corrupt, 2);
	struct wpp_decode_stats expanded_stats = *st;
	wpp_decoder_close(d);

	/* WPP_DECODE_RUNS: each run is one event carrying its count; its
	 * expansion (repeat, repeat + 1, ...) is the event sequence above,
	 * and the stats are the same. */
	for (unsigned flags = WPP_DECODE_RUNS; flags <= (WPP_DECODE_RUNS | WPP_DECODE_EXPAND);
	     flags += WPP_DECODE_EXPAND) {
		struct wpp_decoder *x = wpp_decoder_open(&t->threads[0], mods, WPP_DECODE_EXPAND);
		struct wpp_decoder *r = wpp_decoder_open(&t->threads[0], mods, flags);
		struct wpp_event re, xe;
		unsigned runs = 0;
		while (wpp_decoder_next(r, &re)) {
			runs += re.times > 1;
			for (uint64_t i = 0; i < re.times; i++) {
				assert_int_equal(wpp_decoder_next(x, &xe), 1);
				assert_int_equal(xe.kind, re.kind);
				assert_int_equal(xe.fid, re.fid);
				assert_int_equal(xe.value, re.value);
				assert_int_equal(xe.repeat, re.repeat + i);
				assert_int_equal(xe.batch_seq, re.batch_seq);
				assert_int_equal(xe.word_index, re.word_index);
				assert_int_equal(xe.signal_depth, re.signal_depth);
				assert_int_equal(xe.lost_words, re.lost_words);
				assert_int_equal(xe.times, 1);
			}
		}
		assert_int_equal(wpp_decoder_next(x, &xe), 0);
		assert_int_equal(runs, 3); /* diamond 1 x2, diamond 7 x2, oracle_fn 2 x2 */
		assert_memory_equal(wpp_decoder_stats(r), &expanded_stats, sizeof(expanded_stats));
		wpp_decoder_close(x);
		wpp_decoder_close(r);
	}
	wpp_modules_free(mods);
	wpp_sym_free(sym);
	wpp_trace_free(t);
	unlink(path);
}

/* A crafted REPEAT of 2^32 - 1 (the largest one word carries), twice in a
 * row: counted, not walked, with WPP_DECODE_RUNS (this test would take
 * minutes the other way). */
static void test_decode_huge_run(void **state)
{
	char path[320], err[200];
	struct tl_writer w;
	struct wpp_elf_object *obj = wpp_elf_open(elf_path, err, sizeof(err));
	uint64_t b0[] = {wpp_make_word(10, 1), wpp_make_ctrl(WPP_CTRL_REPEAT, UINT32_MAX),
			 wpp_make_ctrl(WPP_CTRL_REPEAT, UINT32_MAX), wpp_make_word(10, 0)};
	struct wpp_event ev;

	(void)state;
	assert_non_null(obj);
	snprintf(path, sizeof(path), "%s/huge-run.wpp", dir);
	assert_int_equal(tl_wopen(&w, path), 0);
	tl_process(&w, 300, 1, 0, 0);
	tl_module(&w, 300, 0, 10, 2, 0xA, obj->build_id, obj->build_id_len, elf_path);
	wpp_elf_close(obj);
	tl_batch(&w, 300, 0, 300, 0, 0, 0, 0, b0, 4);
	tl_wclose(&w, 1);
	struct wpp_trace *t = wpp_trace_load(path);
	struct wpp_symbolizer *sym = wpp_sym_new();
	assert_non_null(t);
	struct wpp_modules *mods = wpp_modules_new(t, sym);
	struct wpp_decoder *d =
	    wpp_decoder_open(&t->threads[0], mods, WPP_DECODE_RUNS | WPP_DECODE_EXPAND);
	expect_repeat(d, WPP_EV_PATH, "diamond", 1, 0, 0, 0);
	/* one event per REPEAT word, numbered on from the one before */
	for (uint32_t k = 0; k < 2; k++) {
		assert_int_equal(wpp_decoder_next(d, &ev), 1);
		assert_int_equal(ev.kind, WPP_EV_PATH);
		assert_int_equal(ev.value, 1);
		assert_int_equal(ev.repeat, 1 + k * (uint64_t)UINT32_MAX);
		assert_int_equal(ev.times, UINT32_MAX);
		assert_int_equal(ev.word_index, 1 + k);
	}
	expect_repeat(d, WPP_EV_PATH, "diamond", 0, 0, 0, 3);
	assert_int_equal(wpp_decoder_next(d, &ev), 0);
	assert_int_equal(wpp_decoder_stats(d)->paths, 2 + 2 * (uint64_t)UINT32_MAX);
	assert_int_equal(wpp_decoder_stats(d)->repeats, 2 * (uint64_t)UINT32_MAX);
	wpp_decoder_close(d);
	wpp_modules_free(mods);
	wpp_sym_free(sym);
	wpp_trace_free(t);
	unlink(path);
}

static void test_missing_object(void **state)
{
	struct wpp_symbolizer *sym = wpp_sym_new();
	uint8_t id[20] = {0};

	(void)state;
	assert_null(wpp_sym_tu(sym, "/nonexistent/object", id, 20, 1));
	assert_null(wpp_sym_tu(sym, "/nonexistent/object", id, 20, 1)); /* cached, no crash */
	assert_null(wpp_sym_tu(sym, "/etc/passwd", id, 0, 1));      /* not ELF */
	assert_non_null(wpp_sym_tu(sym, elf_path, id, 0, 0xA));        /* no id recorded: accepted */
	assert_null(wpp_sym_tu(sym, elf_path, id, 0, 0xC));            /* no such TU */
	wpp_sym_free(sym);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_decode_events),
		cmocka_unit_test(test_decode_repeats),
		cmocka_unit_test(test_decode_huge_run),
		cmocka_unit_test(test_missing_object),
	};
	if (argc == 3 && !strcmp(argv[1], "--write-fixture"))
		return write_fixture(argv[2]) == 0 ? 0 : 1;
	return cmocka_run_group_tests(tests, setup, teardown);
}
