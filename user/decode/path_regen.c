/* SPDX-License-Identifier: MIT */
#include "decode/path_regen.h"

const char *wpp_path_start_name(enum wpp_path_start s)
{
	switch (s) {
	case WPP_START_ENTRY:
		return "entry";
	case WPP_START_BACK_EDGE:
		return "back-edge";
	case WPP_START_CALL:
		return "call";
	case WPP_START_CUT:
		return "cut";
	}
	return "?";
}

const char *wpp_path_end_name(enum wpp_path_end e)
{
	switch (e) {
	case WPP_END_RETURN:
		return "return";
	case WPP_END_BACK_EDGE:
		return "back-edge";
	case WPP_END_CALL:
		return "call";
	case WPP_END_CUT:
		return "cut";
	case WPP_END_NORETURN:
		return "noreturn";
	}
	return "?";
}

static enum wpp_path_start start_of(uint32_t kind)
{
	switch (kind) {
	case WPP_EDGE_BACK_ENTRY:
		return WPP_START_BACK_EDGE;
	case WPP_EDGE_CALL_ENTRY:
		return WPP_START_CALL;
	case WPP_EDGE_CUT_ENTRY:
		return WPP_START_CUT;
	default:
		return WPP_START_ENTRY;
	}
}

static enum wpp_path_end end_of(uint32_t kind)
{
	switch (kind) {
	case WPP_EDGE_BACK_EXIT:
		return WPP_END_BACK_EDGE;
	case WPP_EDGE_CALL_EXIT:
		return WPP_END_CALL;
	case WPP_EDGE_CUT_EXIT:
		return WPP_END_CUT;
	case WPP_EDGE_NORETURN:
		return WPP_END_NORETURN;
	default:
		return WPP_END_RETURN;
	}
}

/* Index of the last edge in [lo, hi) with val <= rem, or hi if there is none. */
static uint32_t last_le(const struct wpp_meta_edge *edges, uint32_t lo, uint32_t hi, uint64_t rem)
{
	uint32_t a = lo,
		 b = hi; /* answer is in [a-1, b-1]: first index with val > rem, minus one */

	while (a < b) {
		uint32_t mid = a + (b - a) / 2;
		if (edges[mid].val <= rem)
			a = mid + 1;
		else
			b = mid;
	}
	return a == lo ? hi : a - 1;
}

/* See struct wpp_path: the blocks the instance entered, in execution order. */
static int entered_view(const struct wpp_fn *fn, struct wpp_path *p, uint32_t cap)
{
	uint32_t skip = p->start == WPP_START_CALL && p->nblocks > 0;

	p->entered = p->blocks + skip;
	p->nentered = p->nblocks - skip;
	if (p->end == WPP_END_CALL) {
		uint32_t call_block = fn->edges[p->exit_edge].cfg_dst;
		/* Metadata that names no call block: nothing to add. */
		if (call_block >= fn->nblocks)
			return 0;
		if (p->nblocks >= cap)
			return -1;
		p->blocks[p->nblocks] = call_block;
		p->nentered++;
	}
	return 0;
}

int wpp_path_expand(const struct wpp_fn *fn, uint64_t id, uint32_t *blocks, uint32_t cap,
		    struct wpp_path *out)
{
	const uint32_t exit_node = WPP_DAG_EXIT(fn);
	uint32_t node = WPP_DAG_ENTRY(fn), steps = 0;
	uint64_t rem = id;

	out->nblocks = 0;
	out->blocks = blocks;
	while (node != exit_node) {
		uint32_t lo = fn->out_first[node], hi = fn->out_first[node + 1], i;
		const struct wpp_meta_edge *e;

		/* The parser proved the graph acyclic; this bound is belt and braces. */
		if (lo == hi || ++steps > fn->nblocks + 1)
			return -1;
		i = last_le(fn->edges, lo, hi, rem);
		if (i == hi)
			return -1;
		e = &fn->edges[i];
		rem -= e->val;
		if (node == WPP_DAG_ENTRY(fn)) {
			out->start = start_of(e->kind);
			out->entry_edge = i;
		}
		if (e->dst == exit_node) {
			out->end = end_of(e->kind);
			out->exit_edge = i;
		} else {
			if (out->nblocks >= cap)
				return -1;
			blocks[out->nblocks++] = e->dst;
		}
		node = e->dst;
	}
	if (rem != 0)
		return -1;
	return entered_view(fn, out, cap);
}
