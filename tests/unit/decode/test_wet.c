/* SPDX-License-Identifier: MIT */
/*
 * WET records on the reading side (docs/wet.md, wet_abi.h, meta_wet.h):
 *   - the value word encoding round trip, escapes included, against the
 *     definition (zigzag + 1 below 2^62, else the escape and the value);
 *   - the raw word reader skips value words by their shape, transparently
 *     to REPEAT;
 *   - the statement tables' parser on a blob written here by hand, then on
 *     one crafted damage per rule (one error line each) and on random
 *     damage (must never crash: run under the sanitizers);
 *   - the decoder on a recording of WET records: values handed out per
 *     path, and torn, short, long and stray records counted as lost.
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
#include "symbolizer/meta_model.h"
#include "symbolizer/symbolizer.h"
#include "testlib.h"
#include "decode/trace_words.h"
#include "decode/wet_values.h"
#include "wpp/meta_wet.h"
#include "wpp/trace_abi.h"
#include "wpp/wet_abi.h"

/* ---- encoding ---- */

/* The definition, written out independently of wet_abi.h's helpers. */
static int encode_ref(int64_t v, uint64_t out[2])
{
	uint64_t z = v >= 0 ? 2 * (uint64_t)v : 2 * (uint64_t)(-(v + 1)) + 1;
	if (z + 1 < (UINT64_C(1) << 62) && z != UINT64_MAX) {
		out[0] = (UINT64_C(1) << 63) | (z + 1);
		return 1;
	}
	out[0] = UINT64_C(1) << 63;
	out[1] = (uint64_t)v;
	return 2;
}

static void test_encoding_round_trip(void **state)
{
	static const int64_t edges[] = {0,
					1,
					-1,
					2,
					-2,
					(INT64_C(1) << 61) - 1,
					-(INT64_C(1) << 61),
					INT64_C(1) << 61,
					-(INT64_C(1) << 61) - 1,
					(INT64_C(1) << 62) - 1,
					INT64_C(1) << 62,
					INT64_MAX,
					INT64_MIN,
					INT64_MIN + 1,
					0x7ffd12345678,
					-0x7ffd12345678};
	uint64_t seed = 0x9e3779b97f4a7c15u;
	(void)state;
	for (size_t i = 0; i < sizeof(edges) / sizeof(edges[0]) + 200000; i++) {
		int64_t v, back = 0;
		uint64_t w[2] = {0, 0}, ref[2] = {0, 0};
		if (i < sizeof(edges) / sizeof(edges[0])) {
			v = edges[i];
		} else {
			seed ^= seed << 13, seed ^= seed >> 7, seed ^= seed << 17;
			v = (int64_t)(seed >> (seed & 63)); /* all magnitudes */
			if (seed & 64)
				v = -v;
		}
		int n = wpp_wet_encode(v, w), nr = encode_ref(v, ref);
		assert_int_equal(n, nr);
		assert_memory_equal(w, ref, (size_t)n * 8);
		assert_true(w[0] != 0 && (n == 1 || w[1] != 0)); /* never the empty word */
		assert_true(wpp_wet_is_value_word(w[0]));
		assert_int_equal(wpp_word_fid(w[0]) >= 0x800000 && wpp_word_fid(w[0]) <= 0xbfffff, 1);
		assert_true(wpp_word_fid(w[0]) > WPP_FID_MAX);
		assert_int_equal(wpp_wet_decode(w, (uint64_t)n, &back), n);
		assert_true(back == v);
		if (n == 2)
			assert_int_equal(wpp_wet_decode(w, 1, &back), 0); /* cut short */
	}
	/* An escape around a value that fits one word is not canonical. */
	uint64_t bad[2] = {WPP_WET_ESCAPE, 5};
	int64_t v;
	assert_int_equal(wpp_wet_decode(bad, 2, &v), 0);
	/* Records and control words are no value words. */
	assert_false(wpp_wet_is_value_word(wpp_make_word(WPP_FID_MAX, 7)));
	assert_false(wpp_wet_is_value_word(wpp_make_word(WPP_FID_UNREGISTERED, 7)));
	assert_false(wpp_wet_is_value_word(wpp_make_ctrl(WPP_CTRL_REPEAT, 3)));
	assert_false(wpp_wet_is_value_word(WPP_WIDE_ID_MARK >> 1));
}

/* ---- the raw word reader ---- */

static void test_reader_skips_values(void **state)
{
	uint64_t esc[2];
	(void)state;
	assert_int_equal(wpp_wet_encode(INT64_MIN, esc), 2);
	esc[1] = (uint64_t)(INT64_C(1) << 61); /* raw, fid 0x200000: would be a record */
	uint64_t words[] = {wpp_make_word(5, 9),
			    WPP_WET_VALUE_BIT | 3,
			    esc[0],
			    esc[1],
			    WPP_WET_VALUE_BIT | 8,
			    wpp_make_ctrl(WPP_CTRL_REPEAT, 4),
			    wpp_make_word(6, 1)};
	struct wpp_word_counts c = {0};
	struct wpp_words r;
	struct wpp_word_item it;
	size_t i = 0;
	int kinds[8], n = 0;

	wpp_words_init(&r, (struct wpp_words_sink){0});
	while (i < sizeof(words) / 8) {
		int taken = wpp_words_read(&r, words + i, sizeof(words) / 8 - i, 0, &it);
		kinds[n++] = it.kind;
		if (it.kind == WPP_WORD_RECORDS && it.first_repeat) {
			/* the REPEAT repeats the record, across its value words */
			assert_int_equal(it.fid, 5);
			assert_int_equal(it.value, 9);
			assert_int_equal(it.times, 4);
		}
		i += (size_t)taken;
	}
	assert_int_equal(n, 6);
	assert_int_equal(kinds[0], WPP_WORD_RECORDS);
	assert_int_equal(kinds[1], WPP_WORD_VALUE);
	assert_int_equal(kinds[2], WPP_WORD_VALUE); /* the escape pair, one item */
	assert_int_equal(kinds[3], WPP_WORD_VALUE);
	assert_int_equal(kinds[4], WPP_WORD_RECORDS);
	assert_int_equal(kinds[5], WPP_WORD_RECORDS);
	wpp_words_count((const unsigned char *)words, sizeof(words) / 8, &c);
	assert_int_equal(c.records, 2);
	assert_int_equal(c.values, 3);
	assert_int_equal(c.repeats, 1);
	assert_int_equal(c.malformed, 0);
}

/* ---- a WET blob written by hand ---- */

/* diamond: 0 -> {1, 2} -> 3, function entry and a back edge (testlib's
 * tl_diamond); path 0 is 0,1,3, path 2 is 0,2,3.  Block 0 loads (address
 * and value), block 1 stores a pointer (address, value), block 2 calls an
 * external function (its result), block 3 has a phi, an add and the ret. */
static struct tl_func diamond;

struct fixture {
	unsigned char *blob;
	size_t size;
	size_t tail; /* the wet header's offset in the blob */
	struct wpp_meta_wet_header h;
};

#define OP(k, i, b) ((struct wpp_meta_wet_operand){(k), (i), (b), 0})

static void build_fixture(struct fixture *fx)
{
	size_t base_size;
	unsigned char *base = tl_blob(&diamond, 1, 0x5E7, WPP_MODE_WET, &base_size);
	struct wpp_meta_header mh;
	struct wpp_meta_wet_func func = {.ninsns = 6, .nargs = 1, .max_words = 8};
	struct wpp_meta_wet_block blocks[4] = {{0, 1}, {1, 1}, {2, 1}, {3, 3}};
	struct wpp_meta_wet_operand ops[] = {
	    OP(WPP_WET_OP_ARG, 0, WPP_WET_NO_BLOCK),			/* load's address */
	    OP(WPP_WET_OP_ARG, 0, WPP_WET_NO_BLOCK),			/* store: value */
	    OP(WPP_WET_OP_INSN, 0, WPP_WET_NO_BLOCK),			/* store: address */
	    OP(WPP_WET_OP_GLOBAL, 1, WPP_WET_NO_BLOCK),			/* call: callee */
	    OP(WPP_WET_OP_INSN, 0, 1), OP(WPP_WET_OP_INSN, 2, 2),	/* phi */
	    OP(WPP_WET_OP_INSN, 3, WPP_WET_NO_BLOCK), OP(WPP_WET_OP_CONST, 5, WPP_WET_NO_BLOCK),
	    OP(WPP_WET_OP_INSN, 4, WPP_WET_NO_BLOCK), /* ret */
	};
	struct wpp_meta_wet_stmt stmts[6] = {
	    {.insn = 0, .kind = WPP_WET_LOAD, .records = WPP_WET_REC_ADDR | WPP_WET_REC_VALUE,
	     .vtype = WPP_WET_VT_INT, .bits = 32, .access = 4, .file_str = 1, .line = 10,
	     .column = 3, .first_op = 0, .nops = 1},
	    {.insn = 1, .kind = WPP_WET_STORE, .records = WPP_WET_REC_ADDR | WPP_WET_REC_VALUE,
	     .vtype = WPP_WET_VT_PTR, .bits = 64, .access = 8, .file_str = 1, .line = 11,
	     .first_op = 1, .nops = 2},
	    {.insn = 2, .kind = WPP_WET_EXTCALL, .records = WPP_WET_REC_VALUE,
	     .vtype = WPP_WET_VT_INT, .bits = 64, .file_str = 1, .line = 12, .first_op = 3,
	     .nops = 1},
	    {.insn = 3, .kind = WPP_WET_PHI, .vtype = WPP_WET_VT_INT, .bits = 32, .first_op = 4,
	     .nops = 2},
	    {.insn = 4, .kind = WPP_WET_COMPUTED, .vtype = WPP_WET_VT_INT, .bits = 32,
	     .line = 13, .first_op = 6, .nops = 2},
	    {.insn = 5, .kind = WPP_WET_RET, .first_op = 8, .nops = 1},
	};
	struct wpp_meta_wet_header *h = &fx->h;
	size_t off;

	memcpy(&mh, base, sizeof(mh));
	memset(h, 0, sizeof(*h));
	memcpy(h->magic, WPP_META_WET_MAGIC, 8);
	h->version = WPP_META_WET_VERSION;
	h->header_size = sizeof(*h);
	h->values = WPP_WET_VALUES_MEMORY;
	h->nfuncs = 1;
	h->nblocks = 4;
	h->nstmts = 6;
	h->nops = sizeof(ops) / sizeof(ops[0]);
	off = sizeof(*h);
	h->funcs_off = off, off += sizeof(func);
	h->blocks_off = off, off += sizeof(blocks);
	h->stmts_off = off, off += sizeof(stmts);
	h->ops_off = off, off += sizeof(ops);
	fx->tail = (base_size + 7) & ~(size_t)7;
	fx->size = fx->tail + off;
	fx->blob = calloc(1, fx->size + 8);
	assert_non_null(fx->blob);
	memcpy(fx->blob, base, base_size);
	mh.total_size = fx->size;
	memcpy(fx->blob, &mh, sizeof(mh));
	unsigned char *t = fx->blob + fx->tail;
	memcpy(t, h, sizeof(*h));
	memcpy(t + h->funcs_off, &func, sizeof(func));
	memcpy(t + h->blocks_off, blocks, sizeof(blocks));
	memcpy(t + h->stmts_off, stmts, sizeof(stmts));
	memcpy(t + h->ops_off, ops, sizeof(ops));
	free(base);
}

static void test_meta_parse(void **state)
{
	struct fixture fx;
	char err[256] = "";
	(void)state;
	build_fixture(&fx);
	struct wpp_tu *tu = wpp_meta_parse(fx.blob, fx.size, err, sizeof(err));
	if (!tu)
		fail_msg("parse: %s", err);
	assert_int_equal(tu->mode, WPP_MODE_WET);
	assert_non_null(tu->wet);
	const struct wpp_fn *fn = &tu->fns[0];
	assert_non_null(fn->wet);
	assert_int_equal(fn->wet->ninsns, 6);
	assert_int_equal(fn->wet->block_slots[0], 2);
	assert_int_equal(fn->wet->block_slots[1], 2);
	assert_int_equal(fn->wet->block_slots[2], 1);
	assert_int_equal(fn->wet->block_slots[3], 0);
	assert_int_equal(tu->wet->stmts[fn->wet->blocks[3].first_stmt].kind, WPP_WET_PHI);
	assert_int_equal(tu->wet->ops[tu->wet->stmts[3].first_op + 1].block, 2);

	/* The slots of path 0 (0, 1, 3) and path 2 (0, 2, 3), in record order. */
	uint32_t blocks[8];
	struct wpp_path p;
	struct wpp_wet_item items[8];
	assert_int_equal(wpp_path_expand(fn, 0, blocks, 8, &p), 0);
	assert_int_equal(wpp_wet_path_nslots(fn, &p), 4);
	wpp_wet_path_items(fn, &p, items);
	assert_int_equal(items[0].what, WPP_WET_REC_ADDR);
	assert_int_equal(items[0].stmt->kind, WPP_WET_LOAD);
	assert_int_equal(items[1].what, WPP_WET_REC_VALUE);
	assert_int_equal(items[2].stmt->kind, WPP_WET_STORE);
	assert_int_equal(items[2].what, WPP_WET_REC_ADDR);
	assert_int_equal(items[3].block, 1);
	assert_int_equal(wpp_path_expand(fn, 2, blocks, 8, &p), 0);
	assert_int_equal(wpp_wet_path_nslots(fn, &p), 3);
	wpp_wet_path_items(fn, &p, items);
	assert_int_equal(items[2].stmt->kind, WPP_WET_EXTCALL);
	wpp_tu_free(tu);
	free(fx.blob);
}

/* One damage per rule of meta_wet_model.h: each is refused in one line. */
struct damage {
	const char *what;
	size_t off;  /* from the wet header */
	size_t size; /* 1, 2, 4 or 8 */
	uint64_t value;
};

#define HDR(field)	offsetof(struct wpp_meta_wet_header, field)
#define STMT(i, field)	(fx.h.stmts_off + (i) * sizeof(struct wpp_meta_wet_stmt) + \
			 offsetof(struct wpp_meta_wet_stmt, field))
#define OPND(i, field)	(fx.h.ops_off + (i) * sizeof(struct wpp_meta_wet_operand) + \
			 offsetof(struct wpp_meta_wet_operand, field))
#define BLK(i, field)	(fx.h.blocks_off + (i) * sizeof(struct wpp_meta_wet_block) + \
			 offsetof(struct wpp_meta_wet_block, field))
#define FUNC(field)	(fx.h.funcs_off + offsetof(struct wpp_meta_wet_func, field))

static void poke(unsigned char *p, size_t size, uint64_t v)
{
	memcpy(p, &v, size); /* little-endian */
}

static void test_meta_hostile(void **state)
{
	struct fixture fx;
	(void)state;
	build_fixture(&fx);
	const struct damage damages[] = {
	    {"magic", HDR(magic), 1, 'X'},
	    {"version", HDR(version), 4, 2},
	    {"header size", HDR(header_size), 4, 8},
	    {"value set", HDR(values), 4, 3},
	    {"function count", HDR(nfuncs), 4, 2},
	    {"block count", HDR(nblocks), 4, 3},
	    {"statement table", HDR(stmts_off), 8, UINT64_C(1) << 40},
	    {"operand table", HDR(nops), 4, 0xffffffff},
	    {"function table", HDR(funcs_off), 8, 0xfffffff0},
	    {"block statements", BLK(2, first_stmt), 4, 6},
	    {"block statement count", BLK(3, nstmts), 4, 0xffffffff},
	    {"kind 0", STMT(0, kind), 1, 0},
	    {"kind past the last", STMT(0, kind), 1, WPP_WET_KIND_MAX + 1},
	    {"unknown record bits", STMT(0, records), 1, 4},
	    {"value without type", STMT(2, vtype), 1, WPP_WET_VT_NONE},
	    {"unknown value type", STMT(2, vtype), 1, WPP_WET_VT_MAX + 1},
	    {"address of a call", STMT(2, records), 1, WPP_WET_REC_ADDR | WPP_WET_REC_VALUE},
	    {"instruction id", STMT(4, insn), 4, 6},
	    {"file string", STMT(0, file_str), 4, 0x7fffffff},
	    {"callee string", STMT(2, callee_str), 4, 0x7fffffff},
	    {"operand range", STMT(5, nops), 4, 2},
	    {"operand kind 0", OPND(0, kind), 4, 0},
	    {"operand kind past the last", OPND(0, kind), 4, WPP_WET_OP_KIND_MAX + 1},
	    {"operand instruction", OPND(2, id), 4, 6},
	    {"operand argument", OPND(0, id), 4, 1},
	    {"operand global name", OPND(3, id), 4, 0x7fffffff},
	    {"phi block", OPND(5, block), 4, 4},
	    {"path bound", FUNC(max_words), 4, WPP_WET_MAX_WORDS + 1},
	};
	for (size_t i = 0; i < sizeof(damages) / sizeof(damages[0]); i++) {
		unsigned char *copy = malloc(fx.size);
		char err[256] = "";
		memcpy(copy, fx.blob, fx.size);
		poke(copy + fx.tail + damages[i].off, damages[i].size, damages[i].value);
		struct wpp_tu *tu = wpp_meta_parse(copy, fx.size, err, sizeof(err));
		if (tu)
			fail_msg("damage '%s' was accepted", damages[i].what);
		if (!err[0] || strchr(err, '\n'))
			fail_msg("damage '%s': no one-line reason ('%s')", damages[i].what, err);
		free(copy);
	}
	/* Tables cut off: the blob ends at its string table. */
	{
		unsigned char *copy = malloc(fx.size);
		struct wpp_meta_header mh;
		char err[256] = "";
		memcpy(copy, fx.blob, fx.size);
		memcpy(&mh, copy, sizeof(mh));
		mh.total_size = mh.strtab_off + mh.strtab_size;
		memcpy(copy, &mh, sizeof(mh));
		assert_null(wpp_meta_parse(copy, fx.size, err, sizeof(err)));
		assert_non_null(strstr(err, "missing"));
		free(copy);
	}
	free(fx.blob);
}

/* Random damage to the tables (and sometimes the rest): parsed or refused,
 * never a fault; whatever is accepted is walked whole. */
static void test_meta_random_damage(void **state)
{
	struct fixture fx;
	uint64_t seed = 12345;
	unsigned accepted = 0;
	(void)state;
	build_fixture(&fx);
	for (int round = 0; round < 30000; round++) {
		unsigned char *copy = malloc(fx.size);
		char err[256];
		memcpy(copy, fx.blob, fx.size);
		int flips = 1 + (int)(seed % 4);
		for (int k = 0; k < flips; k++) {
			seed ^= seed << 13, seed ^= seed >> 7, seed ^= seed << 17;
			size_t from = (seed >> 60) == 0 ? 0 : fx.tail;
			size_t at = from + (size_t)((seed >> 8) % (fx.size - from));
			copy[at] = (seed >> 32) & 1 ? (unsigned char)(seed >> 40) : copy[at] ^ 0xff;
		}
		struct wpp_tu *tu = wpp_meta_parse(copy, fx.size, err, sizeof(err));
		if (tu) {
			accepted++;
			for (uint32_t f = 0; f < tu->nfuncs; f++) {
				const struct wpp_fn *fn = &tu->fns[f];
				for (uint32_t b = 0; fn->wet && b < fn->nblocks; b++) {
					const struct wpp_meta_wet_block *bl = &fn->wet->blocks[b];
					for (uint32_t s = 0; s < bl->nstmts; s++) {
						const struct wpp_meta_wet_stmt *st =
						    &tu->wet->stmts[bl->first_stmt + s];
						for (uint32_t o = 0; o < st->nops; o++)
							assert_true(tu->wet->ops[st->first_op + o].kind <=
								    WPP_WET_OP_KIND_MAX);
						assert_non_null(wpp_tu_str(tu, st->file_str));
					}
				}
			}
			wpp_tu_free(tu);
		} else {
			assert_non_null(err[0] ? err : NULL);
		}
		free(copy);
	}
	assert_true(accepted > 0); /* damage to unchecked bytes (lines, columns) passes */
	free(fx.blob);
}

/* ---- the decoder on WET records ---- */

static char dir[256], elf_path[300], wpp_path[300];

static int setup(void **state)
{
	struct fixture fx;
	char err[200];
	struct wpp_elf_object *obj;
	struct tl_writer w;

	(void)state;
	tl_diamond(&diamond);
	if (tl_scratch_dir(dir, sizeof(dir), "wet") < 0)
		return -1;
	snprintf(elf_path, sizeof(elf_path), "%s/prog.elf", dir);
	snprintf(wpp_path, sizeof(wpp_path), "%s/run.wpp", dir);
	build_fixture(&fx);
	int copied = tl_exe_with_meta(elf_path, fx.blob, fx.size);
	free(fx.blob);
	if (copied < 0)
		return -1;
	obj = wpp_elf_open(elf_path, err, sizeof(err));
	if (!obj || obj->build_id_len == 0 || !obj->meta)
		return -1;
	if (tl_wopen(&w, wpp_path) < 0)
		return -1;
	tl_process(&w, 200, 1, 0, 0);
	tl_module(&w, 200, 0, 40, 1, 0x5E7, obj->build_id, obj->build_id_len, elf_path);
	wpp_elf_close(obj);
	{
		uint64_t v[8], e[2];
		int n;
#define V(x) (wpp_wet_encode((x), v), v[0])
		uint64_t words[64];
		size_t k = 0;
		/* path 0: load 0x1000 -> 7, store 0x2000 <- 0x7fff0000 */
		words[k++] = wpp_make_word(40, 0);
		words[k++] = V(0x1000);
		words[k++] = V(7);
		words[k++] = V(0x2000);
		words[k++] = V(0x7fff0000);
		/* path 2: load 0x1004 -> -3, call -> INT64_MIN (escaped) */
		words[k++] = wpp_make_word(40, 2);
		words[k++] = V(0x1004);
		words[k++] = V(-3);
		n = wpp_wet_encode(INT64_MIN, e);
		assert_int_equal(n, 2);
		words[k++] = e[0];
		words[k++] = e[1];
		/* path 0 with too few values: lost */
		words[k++] = wpp_make_word(40, 0);
		words[k++] = V(0x1000);
		words[k++] = V(1);
		/* value words without their record (a torn salvaged record) */
		words[k++] = 0;
		words[k++] = V(5);
		words[k++] = V(6);
		/* path 2 with one value too many: lost */
		words[k++] = wpp_make_word(40, 2);
		words[k++] = V(1), words[k++] = V(2), words[k++] = V(3), words[k++] = V(4);
		/* path 2 with a non-canonical escape: lost */
		words[k++] = wpp_make_word(40, 2);
		words[k++] = V(1), words[k++] = V(2);
		words[k++] = WPP_WET_ESCAPE, words[k++] = 9;
		/* a record from before registration: its value cannot be placed */
		words[k++] = wpp_make_word(WPP_FID_UNREGISTERED, 0);
		words[k++] = V(11);
		/* path 2 again, fine */
		words[k++] = wpp_make_word(40, 2);
		words[k++] = V(0x1008), words[k++] = V(42), words[k++] = V(0);
#undef V
		tl_batch(&w, 200, 0, 200, 0, 0, 0, 0, words, (uint32_t)k);
	}
	tl_wclose(&w, 1);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	tl_scratch_remove(dir);
	return 0;
}

static void next_path(struct wpp_decoder *d, struct wpp_event *ev, uint64_t id,
		      enum wpp_wet_state wet)
{
	assert_int_equal(wpp_decoder_next(d, ev), 1);
	if (ev->kind != WPP_EV_PATH)
		fail_msg("expected path %llu, got kind %d (%s)", (unsigned long long)id, ev->kind,
			 ev->reason ? ev->reason : "");
	assert_int_equal(ev->value, id);
	assert_int_equal(ev->wet, wet);
}

static void test_decode_values(void **state)
{
	struct wpp_trace *t = wpp_trace_load(wpp_path);
	struct wpp_symbolizer *sym = wpp_sym_new();
	struct wpp_modules *mods;
	struct wpp_event ev;
	(void)state;
	assert_non_null(t);
	mods = wpp_modules_new(t, sym);
	/* Without EXPAND as with it: the values need the path's blocks. */
	for (unsigned flags = 0; flags <= WPP_DECODE_EXPAND; flags += WPP_DECODE_EXPAND) {
		struct wpp_decoder *d = wpp_decoder_open(&t->threads[0], mods, flags);
		next_path(d, &ev, 0, WPP_WET_OK);
		assert_int_equal(ev.nvalues, 4);
		assert_true(ev.values[0] == 0x1000 && ev.values[1] == 7);
		assert_true(ev.values[2] == 0x2000 && ev.values[3] == 0x7fff0000);
		next_path(d, &ev, 2, WPP_WET_OK);
		assert_int_equal(ev.nvalues, 3);
		assert_true(ev.values[0] == 0x1004 && ev.values[1] == -3 &&
			    ev.values[2] == INT64_MIN);
		next_path(d, &ev, 0, WPP_WET_LOST);
		assert_null(ev.values);
		assert_int_equal(wpp_decoder_next(d, &ev), 1);
		assert_int_equal(ev.kind, WPP_EV_CORRUPT);
		assert_non_null(strstr(ev.reason, "outside a WET record"));
		assert_int_equal(ev.lost_words, 2);
		next_path(d, &ev, 2, WPP_WET_LOST);
		next_path(d, &ev, 2, WPP_WET_LOST);
		assert_int_equal(wpp_decoder_next(d, &ev), 1);
		assert_int_equal(ev.kind, WPP_EV_UNATTRIBUTED);
		assert_int_equal(wpp_decoder_next(d, &ev), 1); /* its value */
		assert_int_equal(ev.kind, WPP_EV_CORRUPT);
		assert_int_equal(ev.lost_words, 1);
		next_path(d, &ev, 2, WPP_WET_OK);
		assert_true(ev.values[0] == 0x1008 && ev.values[1] == 42 && ev.values[2] == 0);
		assert_int_equal(wpp_decoder_next(d, &ev), 0);
		const struct wpp_decode_stats *st = wpp_decoder_stats(d);
		assert_int_equal(st->paths, 6);
		assert_int_equal(st->wet_records, 6);
		assert_int_equal(st->wet_values, 4 + 3 + 3);
		assert_int_equal(st->wet_lost, 3);
		/* lost: 2 (short) + 2 (stray) + 4 (long) + 4 (bad escape) + 1 (unregistered) */
		assert_int_equal(st->wet_lost_words, 13);
		assert_int_equal(st->corrupt, 2);
		assert_int_equal(st->unattributed, 1);
		wpp_decoder_close(d);
	}
	wpp_modules_free(mods);
	wpp_sym_free(sym);
	wpp_trace_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_encoding_round_trip),
	    cmocka_unit_test(test_reader_skips_values),
	    cmocka_unit_test(test_meta_parse),
	    cmocka_unit_test(test_meta_hostile),
	    cmocka_unit_test(test_meta_random_damage),
	    cmocka_unit_test(test_decode_values),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
