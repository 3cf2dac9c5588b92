/* SPDX-License-Identifier: MIT */
/*
 * kipf_serial.c — writing and validating WPP_CHUNK_KIPF chunks.
 */
#include "analysis/kpaths/kipf_serial.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct chunk_out {
	unsigned char *buf;
	uint32_t max_payload;
	struct wpp_chunk_kipf hdr;
	uint32_t node_cap; /* nodes that fit with this chunk's context */
	kipf_emit_fn emit;
	void *ctx;
};

static size_t nodes_at(const struct chunk_out *o)
{
	return sizeof(o->hdr) + (size_t)o->hdr.context_len * sizeof(struct wpp_kipf_label);
}

static int flush(struct chunk_out *o, int last)
{
	uint32_t len =
	    (uint32_t)(nodes_at(o) + (size_t)o->hdr.nnodes * sizeof(struct wpp_kipf_node));
	int rc;

	if (last)
		o->hdr.flags |= WPP_KIPF_LAST;
	memcpy(o->buf, &o->hdr, sizeof(o->hdr));
	rc = o->emit(o->ctx, o->buf, len);
	o->hdr.part++;
	o->hdr.nnodes = 0;
	return rc;
}

/* Start a chunk whose first node hangs below path[0 .. depth). */
static void begin(struct chunk_out *o, const struct kipf *f, const uint32_t *path, unsigned depth)
{
	struct wpp_kipf_label *ctx = (struct wpp_kipf_label *)(o->buf + sizeof(o->hdr));

	o->hdr.context_len = depth;
	for (unsigned i = 0; i < depth; i++)
		ctx[i] = (struct wpp_kipf_label){.fid = f->nodes[path[i]].fid,
						 .value = f->nodes[path[i]].value};
	o->node_cap = (uint32_t)((o->max_payload - nodes_at(o)) / sizeof(struct wpp_kipf_node));
}

int kipf_write_chunks(const struct kipf *f, uint32_t pid, uint32_t tid, uint32_t generation,
		      uint32_t max_payload, kipf_emit_fn emit, void *ctx)
{
	struct chunk_out o = {.max_payload = max_payload, .emit = emit, .ctx = ctx};
	uint32_t path[WPP_KIPF_MAX_K], next[WPP_KIPF_MAX_K];
	unsigned depth = 0;
	size_t r = 0;
	int rc = 0;

	if (max_payload < KIPF_CHUNK_MIN_PAYLOAD || max_payload > WPP_CHUNK_MAX_PAYLOAD)
		return -EINVAL;
	o.buf = malloc(max_payload);
	if (!o.buf)
		return -ENOMEM;
	o.hdr = (struct wpp_chunk_kipf){.pid = pid,
					.tid = tid,
					.generation = generation,
					.k = f->k,
					.flags = (f->lost_items ? WPP_KIPF_PRUNED : 0) |
						 (f->activation ? WPP_KIPF_ACTIVATION : 0),
					.items = f->items,
					.lost_items = f->lost_items,
					.peak_slab_nodes = f->peak_slab_nodes};
	begin(&o, f, path, 0);
	/* Preorder without recursion: next[d] is the node to visit at depth d. */
	for (;;) {
		uint32_t idx;
		struct wpp_kipf_node *out;

		if (depth == 0) {
			if (r == f->nroots)
				break;
			idx = f->roots[r++];
		} else {
			idx = next[depth - 1];
			if (!idx) {
				depth--;
				continue;
			}
			next[depth - 1] = f->nodes[idx].sibling;
		}
		if (o.hdr.nnodes == o.node_cap) {
			rc = flush(&o, 0);
			if (rc)
				break;
			begin(&o, f, path, depth);
		}
		out = (struct wpp_kipf_node *)(o.buf + nodes_at(&o)) + o.hdr.nnodes++;
		*out = (struct wpp_kipf_node){.depth = depth,
					      .fid = f->nodes[idx].fid,
					      .value = f->nodes[idx].value,
					      .count = f->nodes[idx].count};
		path[depth] = idx;
		if (depth + 1 < f->k && f->nodes[idx].child) {
			next[depth] = f->nodes[idx].child;
			depth++;
		}
	}
	if (!rc)
		rc = flush(&o, 1);
	free(o.buf);
	return rc;
}

struct kipf_stored *kipf_store_find(struct kipf_store *st, uint32_t pid, uint32_t generation,
				    uint32_t tid)
{
	for (size_t i = 0; i < st->n; i++)
		if (st->threads[i].pid == pid && st->threads[i].generation == generation &&
		    st->threads[i].tid == tid)
			return &st->threads[i];
	return NULL;
}

static int fail(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int fail(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -1;
}

static int label_after(const struct kipf_node *prev, uint32_t fid, uint64_t value)
{
	return fid > prev->fid || (fid == prev->fid && value > prev->value);
}

/* Add the nodes of one validated-size part; -1 with err on bad content. */
static int add_nodes(struct kipf_stored *t, const struct wpp_kipf_node *nodes, uint32_t n,
		     char *err, size_t errlen)
{
	struct kipf *f = t->ipf;

	for (uint32_t i = 0; i < n; i++) {
		struct wpp_kipf_node nd;
		uint32_t parent, idx;

		memcpy(&nd, &nodes[i], sizeof(nd)); /* payloads may be unaligned */
		if (nd.depth >= f->k || nd.depth > t->path_len)
			return fail(err, errlen, "node %u: depth %u out of preorder", i, nd.depth);
		if (nd.fid == 0 || nd.count == 0)
			return fail(err, errlen, "node %u: zero fid or count", i);
		parent = nd.depth ? t->path[nd.depth - 1] : 0;
		/* The previous sibling, if any, is the rightmost node at this depth. */
		if (nd.depth < t->path_len &&
		    !label_after(&f->nodes[t->path[nd.depth]], nd.fid, nd.value))
			return fail(err, errlen, "node %u: siblings out of order or repeated", i);
		if (parent && nd.count > f->nodes[parent].count)
			return fail(err, errlen, "node %u: counts more than its prefix", i);
		idx = kipf_new_child(f, parent, nd.fid, nd.value);
		if (!idx)
			return fail(err, errlen, "out of memory");
		f->nodes[idx].count = nd.count;
		t->path[nd.depth] = idx;
		t->path_len = nd.depth + 1;
	}
	return 0;
}

static struct kipf_stored *thread_entry(struct kipf_store *st, const struct wpp_chunk_kipf *h)
{
	struct kipf_stored *t = kipf_store_find(st, h->pid, h->generation, h->tid);

	if (t)
		return t;
	if (st->n == st->cap) {
		size_t ncap = st->cap ? st->cap * 2 : 8;
		struct kipf_stored *nt = realloc(st->threads, ncap * sizeof(*nt));
		if (!nt)
			return NULL;
		st->threads = nt;
		st->cap = ncap;
	}
	t = &st->threads[st->n];
	*t = (struct kipf_stored){.pid = h->pid, .generation = h->generation, .tid = h->tid};
	t->ipf = kipf_new(h->k);
	if (!t->ipf)
		return NULL;
	t->ipf->items = h->items;
	t->ipf->lost_items = h->lost_items;
	t->ipf->peak_slab_nodes = h->peak_slab_nodes;
	t->pruned = !!(h->flags & WPP_KIPF_PRUNED);
	t->ipf->activation = !!(h->flags & WPP_KIPF_ACTIVATION);
	st->n++;
	return t;
}

int kipf_store_add(struct kipf_store *st, const void *payload, uint32_t len, char *err,
		   size_t errlen)
{
	struct wpp_chunk_kipf h;
	struct kipf_stored *t;
	const unsigned char *p = payload;
	uint64_t want;

	if (len < sizeof(h))
		return fail(err, errlen, "k-IPF chunk shorter than its header");
	memcpy(&h, p, sizeof(h));
	if (h.k < 1 || h.k > WPP_KIPF_MAX_K)
		return fail(err, errlen, "k-IPF chunk with k = %u", h.k);
	if (h.context_len >= h.k)
		return fail(err, errlen, "k-IPF chunk context %u not below k = %u", h.context_len,
			    h.k);
	if (h.flags & ~(uint32_t)(WPP_KIPF_LAST | WPP_KIPF_PRUNED | WPP_KIPF_ACTIVATION))
		return fail(err, errlen, "k-IPF chunk with unknown flags 0x%x", h.flags);
	if (!!(h.flags & WPP_KIPF_PRUNED) != (h.lost_items != 0))
		return fail(err, errlen, "k-IPF chunk: pruned flag disagrees with lost items");
	want = sizeof(h) + (uint64_t)h.context_len * sizeof(struct wpp_kipf_label) +
	       (uint64_t)h.nnodes * sizeof(struct wpp_kipf_node);
	if (want != len)
		return fail(err, errlen, "k-IPF chunk size %u, contents need %llu", len,
			    (unsigned long long)want);
	t = thread_entry(st, &h);
	if (!t)
		return fail(err, errlen, "out of memory");
	if (t->bad)
		return fail(err, errlen, "k-IPF part %u of thread %u after a rejected part", h.part,
			    h.tid);
	t->bad = 1; /* until this part is accepted */
	if (t->complete || h.part != t->next_part)
		return fail(err, errlen, "k-IPF part %u of thread %u out of sequence", h.part,
			    h.tid);
	if (h.k != t->ipf->k || h.items != t->ipf->items || h.lost_items != t->ipf->lost_items ||
	    !!(h.flags & WPP_KIPF_ACTIVATION) != t->ipf->activation)
		return fail(err, errlen, "k-IPF part %u of thread %u disagrees with part 0", h.part,
			    h.tid);
	if (h.context_len > t->path_len ||
	    (h.part == 0) != (h.context_len == 0 && t->path_len == 0))
		return fail(err, errlen, "k-IPF part %u of thread %u: context does not follow",
			    h.part, h.tid);
	for (uint32_t i = 0; i < h.context_len; i++) {
		struct wpp_kipf_label l;
		const struct kipf_node *n = &t->ipf->nodes[t->path[i]];
		memcpy(&l, p + sizeof(h) + i * sizeof(l), sizeof(l));
		if (l.fid != n->fid || l.value != n->value)
			return fail(err, errlen,
				    "k-IPF part %u of thread %u: context does not follow", h.part,
				    h.tid);
	}
	/* The context is the parent chain of the first node: forget deeper
	 * nodes of the previous part so preorder checks start from there. */
	if (h.part > 0 && h.nnodes == 0 && !(h.flags & WPP_KIPF_LAST))
		return fail(err, errlen, "k-IPF part %u of thread %u is empty", h.part, h.tid);
	if (h.nnodes) {
		struct wpp_kipf_node first;
		memcpy(&first, p + sizeof(h) + h.context_len * sizeof(struct wpp_kipf_label),
		       sizeof(first));
		if (first.depth != h.context_len)
			return fail(err, errlen,
				    "k-IPF part %u of thread %u: first node off its context",
				    h.part, h.tid);
		if (t->path_len > first.depth + 1)
			t->path_len = first.depth + 1;
	}
	if (add_nodes(t,
		      (const struct wpp_kipf_node *)(p + sizeof(h) +
						     h.context_len * sizeof(struct wpp_kipf_label)),
		      h.nnodes, err, errlen) < 0)
		return -1;
	t->next_part++;
	if (h.flags & WPP_KIPF_LAST) {
		t->complete = 1;
		if (kipf_sort(t->ipf) < 0)
			return fail(err, errlen, "out of memory");
	}
	t->bad = 0;
	return 0;
}

void kipf_store_free(struct kipf_store *st)
{
	for (size_t i = 0; i < st->n; i++)
		kipf_free(st->threads[i].ipf);
	free(st->threads);
	*st = (struct kipf_store){0};
}
