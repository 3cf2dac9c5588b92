/* SPDX-License-Identifier: MIT */
/*
 * meta_wet_parse.c — hostile-input parser for a WET blob's statement
 * tables (see meta_wet_model.h), called by meta_parse.c once the blob's own
 * tables are checked.
 *
 * Same order of work as meta_parse.c: check the header, copy the tables
 * out, then check every index against the function it belongs to.  Sizes
 * are 32-bit counts times small element sizes, compared in 64 bits against
 * ranges already inside the blob, so nothing wraps.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "symbolizer/meta_check.h"
#include "symbolizer/meta_model.h"
#include "wpp/wet_abi.h"

void wpp_meta_wet_free(struct wpp_wet_tu_model *w)
{
	if (!w)
		return;
	free(w->stmts), free(w->ops), free(w->blocks), free(w->slots), free(w->fns);
	free(w);
}

static const char *check_operand(const struct wpp_tu *tu, const struct wpp_fn *fn,
				 const struct wpp_meta_wet_operand *o)
{
	const struct wpp_wet_fn_model *m = fn->wet;

	if (o->kind < WPP_WET_OP_INSN || o->kind > WPP_WET_OP_KIND_MAX)
		return "operand of unknown kind";
	if (o->block != WPP_WET_NO_BLOCK && o->block >= fn->nblocks)
		return "operand block out of range";
	switch (o->kind) {
	case WPP_WET_OP_INSN:
		return o->id < m->ninsns ? NULL : "operand instruction out of range";
	case WPP_WET_OP_ARG:
		return o->id < m->nargs ? NULL : "operand argument out of range";
	case WPP_WET_OP_GLOBAL:
		return o->id < tu->strtab_size ? NULL : "operand name out of range";
	case WPP_WET_OP_BLOCK:
		return o->id < fn->nblocks ? NULL : "operand block out of range";
	default:
		return NULL;
	}
}

static const char *check_stmt(const struct wpp_tu *tu, const struct wpp_fn *fn,
			      const struct wpp_meta_wet_stmt *s)
{
	const struct wpp_wet_tu_model *w = tu->wet;

	if (s->kind < WPP_WET_LOAD || s->kind > WPP_WET_KIND_MAX)
		return "statement of unknown kind";
	if (s->records & ~(WPP_WET_REC_ADDR | WPP_WET_REC_VALUE))
		return "statement records unknown items";
	if (s->vtype > WPP_WET_VT_MAX)
		return "statement of unknown value type";
	if ((s->records & WPP_WET_REC_VALUE) && s->vtype == WPP_WET_VT_NONE)
		return "statement records a value it has no type for";
	if ((s->records & WPP_WET_REC_ADDR) && s->kind != WPP_WET_LOAD &&
	    s->kind != WPP_WET_STORE && s->kind != WPP_WET_RMW)
		return "statement records an address but touches no memory";
	if (s->insn >= fn->wet->ninsns)
		return "statement instruction out of range";
	if (s->file_str >= tu->strtab_size || s->callee_str >= tu->strtab_size)
		return "statement string out of range";
	if ((uint64_t)s->first_op + s->nops > w->nops)
		return "statement operands out of range";
	for (uint32_t k = 0; k < s->nops; k++) {
		const char *why = check_operand(tu, fn, &w->ops[s->first_op + k]);
		if (why)
			return why;
	}
	return NULL;
}

/* Point fn at its rows and check them. */
static const char *check_fn(struct wpp_tu *tu, struct wpp_fn *fn, uint32_t i)
{
	struct wpp_wet_tu_model *w = tu->wet;
	struct wpp_wet_fn_model *m = &w->fns[i];
	uint32_t first = (uint32_t)(fn->blocks - tu->block_store);

	if (m->max_words > WPP_WET_MAX_WORDS)
		return "path bound above the record limit";
	m->blocks = w->blocks + first;
	m->block_slots = w->slots + first;
	fn->wet = m;
	for (uint32_t b = 0; b < fn->nblocks; b++) {
		const struct wpp_meta_wet_block *bl = &m->blocks[b];
		uint64_t slots = 0;
		if ((uint64_t)bl->first_stmt + bl->nstmts > w->nstmts)
			return "block statements out of range";
		for (uint32_t k = 0; k < bl->nstmts; k++) {
			const struct wpp_meta_wet_stmt *s = &w->stmts[bl->first_stmt + k];
			const char *why = check_stmt(tu, fn, s);
			if (why)
				return why;
			slots += wpp_wet_stmt_slots(s);
		}
		if (slots > WPP_WET_MAX_WORDS)
			return "block records more than a path record holds";
		w->slots[first + b] = (uint32_t)slots;
	}
	return NULL;
}

int wpp_meta_wet_parse(struct wpp_tu *tu, const unsigned char *b, const struct wpp_meta_header *h,
		       char *err, size_t errlen)
{
	struct wpp_meta_wet_header x;
	struct wpp_wet_tu_model *w;
	uint64_t off = (h->strtab_off + h->strtab_size + 7) & ~UINT64_C(7), size;
	const unsigned char *t;

	/* strtab_off + strtab_size <= total_size was checked, so no wrap. */
	if (off > h->total_size || h->total_size - off < sizeof(x))
		return wpp_meta_fail(err, errlen, "WET statement tables missing");
	t = b + off;
	size = h->total_size - off;
	memcpy(&x, t, sizeof(x));
	if (memcmp(x.magic, WPP_META_WET_MAGIC, sizeof(x.magic)) != 0)
		return wpp_meta_fail(err, errlen, "bad WET statement table magic");
	if (x.version != WPP_META_WET_VERSION)
		return wpp_meta_fail(err, errlen,
				     "WET statement tables version %" PRIu32 " not supported",
				     x.version);
	if (x.header_size != sizeof(x))
		return wpp_meta_fail(err, errlen, "bad WET statement table header size %" PRIu32,
				     x.header_size);
	if (x.values != WPP_WET_VALUES_MEMORY && x.values != WPP_WET_VALUES_ALL)
		return wpp_meta_fail(err, errlen, "unknown WET value set %" PRIu32, x.values);
	if (x.nfuncs != h->nfuncs || x.nblocks != h->nblocks_total)
		return wpp_meta_fail(err, errlen,
				     "WET statement tables do not match the functions");
	if (!wpp_meta_fits(x.funcs_off, x.nfuncs, sizeof(struct wpp_meta_wet_func), size) ||
	    !wpp_meta_fits(x.blocks_off, x.nblocks, sizeof(struct wpp_meta_wet_block), size) ||
	    !wpp_meta_fits(x.stmts_off, x.nstmts, sizeof(struct wpp_meta_wet_stmt), size) ||
	    !wpp_meta_fits(x.ops_off, x.nops, sizeof(struct wpp_meta_wet_operand), size))
		return wpp_meta_fail(err, errlen, "WET statement table out of bounds");
	w = calloc(1, sizeof(*w));
	if (!w)
		return wpp_meta_fail(err, errlen, "out of memory parsing metadata");
	tu->wet = w;
	w->values = x.values;
	w->nstmts = x.nstmts;
	w->nops = x.nops;
	w->stmts = malloc(((size_t)x.nstmts + 1) * sizeof(*w->stmts));
	w->ops = malloc(((size_t)x.nops + 1) * sizeof(*w->ops));
	w->blocks = malloc(((size_t)x.nblocks + 1) * sizeof(*w->blocks));
	w->slots = calloc((size_t)x.nblocks + 1, sizeof(*w->slots));
	w->fns = calloc((size_t)x.nfuncs + 1, sizeof(*w->fns));
	if (!w->stmts || !w->ops || !w->blocks || !w->slots || !w->fns)
		return wpp_meta_fail(err, errlen, "out of memory parsing metadata");
	memcpy(w->stmts, t + x.stmts_off, (size_t)x.nstmts * sizeof(*w->stmts));
	memcpy(w->ops, t + x.ops_off, (size_t)x.nops * sizeof(*w->ops));
	memcpy(w->blocks, t + x.blocks_off, (size_t)x.nblocks * sizeof(*w->blocks));
	for (uint32_t i = 0; i < x.nfuncs; i++) {
		struct wpp_meta_wet_func f;
		memcpy(&f, t + x.funcs_off + (uint64_t)i * sizeof(f), sizeof(f));
		w->fns[i] = (struct wpp_wet_fn_model){f.ninsns, f.nargs, f.max_words, NULL, NULL};
	}
	for (uint32_t i = 0; i < tu->nfuncs; i++) {
		const char *why = check_fn(tu, &tu->fns[i], i);
		if (why)
			return wpp_meta_fail(err, errlen, "function %s: %s",
					     tu->fns[i].name[0] ? tu->fns[i].name : "(unnamed)",
					     why);
	}
	return 0;
}
