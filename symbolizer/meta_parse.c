/* SPDX-License-Identifier: MIT */
/*
 * meta_parse.c — hostile-input parser for one wpp_meta blob.
 *
 * Order of work: check the header, copy each table out of the blob (the blob
 * may sit unaligned inside an ELF section), then check every cross-reference
 * before building the derived indices.  All range arithmetic is done in
 * 64 bits on values that are at most 32 bits wide or already checked against
 * the blob size, so nothing can wrap.
 */
#include "symbolizer/meta_check.h"
#include "symbolizer/meta_model.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void *fail(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

void wpp_meta_failv(char *err, size_t errlen, const char *fmt, va_list ap)
{
	if (err && errlen)
		vsnprintf(err, errlen, fmt, ap);
}

static void *fail(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	wpp_meta_failv(err, errlen, fmt, ap);
	va_end(ap);
	return NULL;
}

static int str_ok(const struct wpp_tu *tu, uint32_t idx)
{
	return idx < tu->strtab_size;
}

const char *wpp_tu_str(const struct wpp_tu *tu, uint32_t idx)
{
	return idx < tu->strtab_size ? tu->strtab + idx : "";
}

static int entry_kind(uint32_t kind)
{
	return kind == WPP_EDGE_FUNC_ENTRY || kind == WPP_EDGE_BACK_ENTRY ||
	       kind == WPP_EDGE_CALL_ENTRY || kind == WPP_EDGE_CUT_ENTRY;
}

static int exit_kind(uint32_t kind)
{
	return kind == WPP_EDGE_RETURN || kind == WPP_EDGE_NORETURN || kind == WPP_EDGE_BACK_EXIT ||
	       kind == WPP_EDGE_CALL_EXIT || kind == WPP_EDGE_CUT_EXIT;
}

/* Check one function's edges (endpoints, kinds, order) and fill out_first. */
static const char *check_edges(const struct wpp_fn *fn, uint32_t *out_first)
{
	const uint32_t entry = fn->nblocks, exit_node = fn->nblocks + 1;
	uint32_t node = 0;

	for (uint32_t i = 0; i < fn->nedges; i++) {
		const struct wpp_meta_edge *e = &fn->edges[i];

		if (e->src > entry)
			return "edge source out of range";
		if (e->dst > exit_node || e->dst == entry)
			return "edge destination out of range";
		if (e->src == entry && e->dst == exit_node)
			return "edge from ENTRY straight to EXIT";
		if (e->src == e->dst)
			return "self-loop edge in the DAG";
		if (e->src == entry	  ? !entry_kind(e->kind)
		    : e->dst == exit_node ? !exit_kind(e->kind)
					  : e->kind != WPP_EDGE_REAL)
			return "edge kind does not match its endpoints";
		if (i > 0) {
			const struct wpp_meta_edge *p = &fn->edges[i - 1];
			if (e->src < p->src || (e->src == p->src && e->val < p->val))
				return "edges not sorted by (source, value)";
		}
		while (node <= e->src)
			out_first[node++] = i;
	}
	while (node <= exit_node + 1)
		out_first[node++] = fn->nedges;
	return NULL;
}

/* Kahn's algorithm: the path numbering is only meaningful on a DAG. */
static const char *check_acyclic(const struct wpp_fn *fn, const uint32_t *out_first)
{
	const uint32_t nnodes = fn->nblocks + 2;
	uint32_t *indeg, *queue, head = 0, tail = 0;
	const char *why = NULL;

	indeg = calloc(nnodes, sizeof(*indeg));
	queue = calloc(nnodes, sizeof(*queue));
	if (!indeg || !queue) {
		why = "out of memory";
		goto out;
	}
	for (uint32_t i = 0; i < fn->nedges; i++)
		indeg[fn->edges[i].dst]++;
	for (uint32_t n = 0; n < nnodes; n++)
		if (indeg[n] == 0)
			queue[tail++] = n;
	while (head < tail) {
		uint32_t n = queue[head++];
		for (uint32_t i = out_first[n]; i < out_first[n + 1]; i++)
			if (--indeg[fn->edges[i].dst] == 0)
				queue[tail++] = fn->edges[i].dst;
	}
	if (tail != nnodes)
		why = "the DAG has a cycle";
out:
	free(indeg);
	free(queue);
	return why;
}

/* A PPP unit's sets (version 2), copied and checked against each function
 * (mf in blob order, like the set entries). */
static const char *parse_ppp(struct wpp_tu *tu, const unsigned char *b,
			     const struct wpp_meta_header_v2 *h2)
{
	const struct wpp_meta_header *h = &h2->v1;
	struct wpp_meta_ppp_func *pf;

	if (!wpp_meta_fits(h2->ppp_funcs_off, h->nfuncs, sizeof(*pf), h->total_size))
		return "PPP function table out of bounds";
	if (!wpp_meta_fits(h2->ppp_ids_off, h2->nppp_ids_total, sizeof(uint64_t), h->total_size))
		return "PPP id table out of bounds";
	pf = malloc(((size_t)h->nfuncs + 1) * sizeof(*pf));
	tu->ppp_id_store = malloc(((size_t)h2->nppp_ids_total + 1) * sizeof(uint64_t));
	if (!pf || !tu->ppp_id_store) {
		free(pf);
		return "out of memory";
	}
	memcpy(pf, b + h2->ppp_funcs_off, (size_t)h->nfuncs * sizeof(*pf));
	memcpy(tu->ppp_id_store, b + h2->ppp_ids_off, (size_t)h2->nppp_ids_total * 8);
	const char *why = NULL;
	for (uint32_t i = 0; i < h->nfuncs && !why; i++) {
		struct wpp_fn *fn = &tu->fns[i];
		const struct wpp_meta_ppp_func *p = &pf[i];
		if (p->how < WPP_PPP_ARRAY || p->how > WPP_PPP_WIDE)
			why = "unknown PPP counting kind";
		else if ((uint64_t)p->first_id + p->nids > h2->nppp_ids_total)
			why = "PPP id range out of bounds";
		if (why)
			break;
		fn->ppp_how = p->how;
		fn->ppp_nids = p->nids;
		fn->ppp_ids = tu->ppp_id_store + p->first_id;
		fn->ppp_interval = p->interval;
		for (uint32_t k = 0; k < p->nids && !why; k++)
			if (fn->ppp_ids[k] >= fn->npaths ||
			    (k && fn->ppp_ids[k] <= fn->ppp_ids[k - 1]))
				why = "interesting path ids out of order or range";
	}
	free(pf);
	return why;
}

int wpp_fn_ppp_interesting(const struct wpp_fn *fn, uint64_t id)
{
	uint32_t lo = 0, hi = fn->ppp_nids;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (fn->ppp_ids[mid] == id)
			return 1;
		if (fn->ppp_ids[mid] < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return 0;
}

struct wpp_tu *wpp_meta_parse(const void *buf, size_t avail, char *err, size_t errlen)
{
	const unsigned char *b = buf;
	struct wpp_meta_header_v2 h2;
	struct wpp_meta_header h;
	struct wpp_meta_func *mf = NULL;
	struct wpp_tu *tu = NULL;
	uint64_t out_total = 0;
	const char *why;

	if (avail < sizeof(h))
		return fail(err, errlen, "metadata blob truncated (%zu bytes, header needs %zu)",
			    avail, sizeof(h));
	memcpy(&h, b, sizeof(h));
	memset(&h2, 0, sizeof(h2));
	if (memcmp(h.magic, WPP_META_MAGIC, sizeof(h.magic)) != 0)
		return fail(err, errlen, "bad metadata magic");
	if (h.version != WPP_META_VERSION && h.version != WPP_META_VERSION_PPP)
		return fail(err, errlen,
			    "metadata version %" PRIu32 " not supported (expected %u or %u)",
			    h.version, WPP_META_VERSION, WPP_META_VERSION_PPP);
	if (h.header_size !=
	    (h.version == WPP_META_VERSION_PPP ? sizeof(h2) : sizeof(struct wpp_meta_header)))
		return fail(err, errlen, "bad metadata header size %" PRIu32, h.header_size);
	if (h.version == WPP_META_VERSION_PPP) {
		if (avail < sizeof(h2))
			return fail(err, errlen, "metadata blob truncated (%zu bytes)", avail);
		memcpy(&h2, b, sizeof(h2));
	}
	if (h.total_size < h.header_size || h.total_size > avail)
		return fail(err, errlen,
			    "metadata total_size %" PRIu64 " out of range (%zu available)",
			    h.total_size, avail);
	if (h.mode != WPP_MODE_PATHS && h.mode != WPP_MODE_BLOCKS && h.mode != WPP_MODE_COUNTS &&
	    h.mode != WPP_MODE_PPP && h.mode != WPP_MODE_WET && h.mode != WPP_MODE_TPP)
		return fail(err, errlen, "unknown metadata mode %" PRIu32, h.mode);
	/* PPP units carry their sets, other units none */
	if ((h.mode == WPP_MODE_PPP) != (h.version == WPP_META_VERSION_PPP))
		return fail(err, errlen,
			    "metadata version %" PRIu32 " does not match mode %" PRIu32, h.version,
			    h.mode);
	if (!wpp_meta_fits(h.funcs_off, h.nfuncs, sizeof(struct wpp_meta_func), h.total_size))
		return fail(err, errlen, "function table out of bounds");
	if (!wpp_meta_fits(h.blocks_off, h.nblocks_total, sizeof(struct wpp_meta_block),
			   h.total_size))
		return fail(err, errlen, "block table out of bounds");
	if (!wpp_meta_fits(h.edges_off, h.nedges_total, sizeof(struct wpp_meta_edge), h.total_size))
		return fail(err, errlen, "edge table out of bounds");
	if (!wpp_meta_fits(h.lines_off, h.nlines_total, sizeof(struct wpp_meta_line), h.total_size))
		return fail(err, errlen, "line table out of bounds");
	if (!wpp_meta_fits(h.strtab_off, h.strtab_size, 1, h.total_size))
		return fail(err, errlen, "string table out of bounds");
	if (h.strtab_size == 0 || b[h.strtab_off] != '\0' ||
	    b[h.strtab_off + h.strtab_size - 1] != '\0')
		return fail(err, errlen, "string table must start and end with NUL");

	tu = calloc(1, sizeof(*tu));
	mf = calloc(h.nfuncs ? h.nfuncs : 1, sizeof(*mf));
	if (!tu || !mf)
		goto oom;
	tu->tu_hash = h.tu_hash;
	tu->mode = (enum wpp_meta_mode)h.mode;
	tu->nfuncs = h.nfuncs;
	tu->nlines = h.nlines_total;
	tu->strtab_size = h.strtab_size;
	tu->strtab = malloc(h.strtab_size);
	tu->fns = calloc(h.nfuncs ? h.nfuncs : 1, sizeof(*tu->fns));
	tu->by_local = calloc(h.nfuncs ? h.nfuncs : 1, sizeof(*tu->by_local));
	tu->block_store = calloc(h.nblocks_total ? h.nblocks_total : 1, sizeof(*tu->block_store));
	tu->edge_store = calloc(h.nedges_total ? h.nedges_total : 1, sizeof(*tu->edge_store));
	tu->lines = calloc(h.nlines_total ? h.nlines_total : 1, sizeof(*tu->lines));
	if (!tu->strtab || !tu->fns || !tu->by_local || !tu->block_store || !tu->edge_store ||
	    !tu->lines)
		goto oom;
	memcpy(tu->strtab, b + h.strtab_off, h.strtab_size);
	memcpy(mf, b + h.funcs_off, (size_t)h.nfuncs * sizeof(*mf));
	memcpy(tu->block_store, b + h.blocks_off,
	       (size_t)h.nblocks_total * sizeof(*tu->block_store));
	memcpy(tu->edge_store, b + h.edges_off, (size_t)h.nedges_total * sizeof(*tu->edge_store));
	memcpy(tu->lines, b + h.lines_off, (size_t)h.nlines_total * sizeof(*tu->lines));

	if (!str_ok(tu, h.source_str) || !str_ok(tu, h.producer_str)) {
		fail(err, errlen, "header string index out of range");
		goto bad;
	}
	tu->source = wpp_tu_str(tu, h.source_str);
	tu->producer = wpp_tu_str(tu, h.producer_str);

	for (uint32_t i = 0; i < h.nlines_total; i++) {
		if (!str_ok(tu, tu->lines[i].file_str) ||
		    !str_ok(tu, tu->lines[i].inlined_from_str)) {
			fail(err, errlen, "line %" PRIu32 ": string index out of range", i);
			goto bad;
		}
	}
	for (uint32_t i = 0; i < h.nblocks_total; i++) {
		const struct wpp_meta_block *bl = &tu->block_store[i];
		if ((uint64_t)bl->first_line + bl->nlines > h.nlines_total) {
			fail(err, errlen, "block %" PRIu32 ": line range out of bounds", i);
			goto bad;
		}
	}
	for (uint32_t i = 0; i < h.nfuncs; i++) {
		const struct wpp_meta_func *m = &mf[i];
		if (m->local_index >= h.nfuncs || tu->by_local[m->local_index]) {
			fail(err, errlen,
			     "function %" PRIu32 ": local index %" PRIu32 " invalid or repeated", i,
			     m->local_index);
			goto bad;
		}
		if ((uint64_t)m->first_block + m->nblocks > h.nblocks_total ||
		    (uint64_t)m->first_edge + m->nedges > h.nedges_total) {
			fail(err, errlen, "function %" PRIu32 ": block or edge range out of bounds",
			     i);
			goto bad;
		}
		if (!str_ok(tu, m->name_str) || !str_ok(tu, m->file_str)) {
			fail(err, errlen, "function %" PRIu32 ": string index out of range", i);
			goto bad;
		}
		/* nblocks <= nblocks_total < 2^32 - 3 keeps ENTRY/EXIT and out_first in range. */
		if (m->nblocks > UINT32_MAX - 3) {
			fail(err, errlen, "function %" PRIu32 ": too many blocks", i);
			goto bad;
		}
		out_total += (uint64_t)m->nblocks + 3;
		tu->by_local[m->local_index] = &tu->fns[i];
	}
	tu->out_store = calloc(out_total ? out_total : 1, sizeof(*tu->out_store));
	if (!tu->out_store)
		goto oom;
	out_total = 0;
	for (uint32_t i = 0; i < h.nfuncs; i++) {
		const struct wpp_meta_func *m = &mf[i];
		struct wpp_fn *fn = &tu->fns[i];
		uint32_t *out_first = tu->out_store + out_total;

		fn->tu = tu;
		fn->local_index = m->local_index;
		fn->flags = m->flags;
		fn->stable_id = m->stable_id;
		fn->npaths = m->npaths;
		fn->name = wpp_tu_str(tu, m->name_str);
		fn->file = wpp_tu_str(tu, m->file_str);
		fn->line = m->line;
		fn->nblocks = m->nblocks;
		fn->nedges = m->nedges;
		fn->blocks = tu->block_store + m->first_block;
		fn->edges = tu->edge_store + m->first_edge;
		fn->out_first = out_first;
		out_total += (uint64_t)m->nblocks + 3;
		why = check_edges(fn, out_first);
		if (!why)
			why = check_acyclic(fn, out_first);
		if (why) {
			fail(err, errlen, "function %s: %s", fn->name[0] ? fn->name : "(unnamed)",
			     why);
			goto bad;
		}
	}
	if (h.version == WPP_META_VERSION_PPP && (why = parse_ppp(tu, b, &h2))) {
		fail(err, errlen, "%s", why);
		goto bad;
	}
	if (tu->mode == WPP_MODE_WET && wpp_meta_wet_parse(tu, b, &h, err, errlen))
		goto bad;
	if (tu->mode == WPP_MODE_TPP && wpp_meta_tpp_parse(tu, b, &h, err, errlen))
		goto bad;
	free(mf);
	return tu;
oom:
	fail(err, errlen, "out of memory parsing metadata");
bad:
	free(mf);
	wpp_tu_free(tu);
	return NULL;
}

void wpp_tu_free(struct wpp_tu *tu)
{
	if (!tu)
		return;
	free(tu->fns);
	free(tu->by_local);
	free(tu->lines);
	free(tu->block_store);
	free(tu->edge_store);
	free(tu->out_store);
	free(tu->ppp_id_store);
	free(tu->strtab);
	wpp_meta_wet_free(tu->wet);
	wpp_meta_tpp_free(tu->tpp);
	free(tu);
}

int wpp_meta_find(const void *section, size_t size, uint64_t tu_hash, const void **blob,
		  size_t *blob_size, char *err, size_t errlen)
{
	const unsigned char *s = section;
	uint64_t off = 0;

	while (off < size) {
		struct wpp_meta_header h;
		uint64_t next;

		if (size - off < sizeof(h)) {
			fail(err, errlen, "truncated metadata blob at section offset %" PRIu64,
			     off);
			return -1;
		}
		memcpy(&h, s + off, sizeof(h));
		if (memcmp(h.magic, WPP_META_MAGIC, sizeof(h.magic)) != 0) {
			fail(err, errlen, "bad metadata magic at section offset %" PRIu64, off);
			return -1;
		}
		if (h.total_size < sizeof(h) || h.total_size > size - off) {
			fail(err, errlen,
			     "metadata blob at section offset %" PRIu64 " has bad size %" PRIu64,
			     off, h.total_size);
			return -1;
		}
		if (h.tu_hash == tu_hash) {
			*blob = s + off;
			*blob_size = (size_t)h.total_size;
			return 1;
		}
		/* total_size <= size - off, so rounding up to 8 cannot wrap in 64 bits. */
		next = off + ((h.total_size + 7) & ~UINT64_C(7));
		if (next >= size)
			break;
		off = next;
	}
	return 0;
}

int wpp_meta_fail(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	wpp_meta_failv(err, errlen, fmt, ap);
	va_end(ap);
	return -1;
}
