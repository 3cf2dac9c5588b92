/* SPDX-License-Identifier: MIT */
/*
 * stream.c — see stream.h.  The splice tree is walked with an explicit
 * stack: a hostile file can nest signal batches arbitrarily deep.
 */
#include "decode/stream.h"

#include <stdlib.h>
#include <string.h>

struct batch_node {
	const struct wpp_batch_ref *b;
	size_t file_index;
	size_t first_child, nchildren; /* into the children array */
	int placed;
};

struct assembler {
	struct wpp_stream *out;
	struct batch_node *nodes; /* unique seqs, sorted by seq */
	size_t nnodes;
	size_t *children; /* node indices, grouped by parent */
};

static int push_seg(struct wpp_stream *s, struct wpp_segment seg)
{
	if (seg.kind == WPP_SEG_WORDS && seg.from == seg.to)
		return 0;
	if (s->nsegs == s->cap) {
		size_t ncap = s->cap ? s->cap * 2 : 16;
		struct wpp_segment *n = realloc(s->segs, ncap * sizeof(*n));
		if (!n)
			return -1;
		s->segs = n;
		s->cap = ncap;
	}
	s->segs[s->nsegs++] = seg;
	return 0;
}

int wpp_batch_order(const struct wpp_batch_ref *x, size_t xi, const struct wpp_batch_ref *y,
		    size_t yi)
{
	uint32_t xs = x->flags & WPP_BATCH_SALVAGED, ys = y->flags & WPP_BATCH_SALVAGED;

	if (x->seq != y->seq)
		return x->seq < y->seq ? -1 : 1;
	if (xs != ys)
		return xs ? 1 : -1;
	return xi < yi ? -1 : xi > yi;
}

static int by_seq_then_file(const void *a, const void *b)
{
	const struct batch_node *x = a, *y = b;
	return wpp_batch_order(x->b, x->file_index, y->b, y->file_index);
}

static long find_seq(const struct assembler *as, uint64_t seq)
{
	size_t lo = 0, hi = as->nnodes;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (as->nodes[mid].b->seq < seq)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < as->nnodes && as->nodes[lo].b->seq == seq ? (long)lo : -1;
}

static uint32_t splice_off(const struct assembler *as, size_t child, size_t parent)
{
	uint32_t off = as->nodes[child].b->parent_off, n = as->nodes[parent].b->nwords;
	return off < n ? off : n;
}

/* Parent of a signal node, or -1 if it is top-level (main batch or orphan). */
static long parent_of(const struct assembler *as, size_t i)
{
	const struct wpp_batch_ref *b = as->nodes[i].b;
	long p;

	if (!(b->flags & WPP_BATCH_SIGNAL))
		return -1;
	p = find_seq(as, b->parent_seq);
	return p == (long)i ? -1 : p;
}

static int child_cmp(const void *a, const void *b, void *ctx)
{
	const struct assembler *as = ctx;
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	long px = parent_of(as, x);
	uint32_t ox = splice_off(as, x, (size_t)px), oy = splice_off(as, y, (size_t)px);

	if (ox != oy)
		return ox < oy ? -1 : 1;
	return x < y ? -1 : x > y; /* node order is seq order */
}

static int build_children(struct assembler *as)
{
	size_t *fill;
	long p;

	as->children = calloc(as->nnodes ? as->nnodes : 1, sizeof(*as->children));
	fill = calloc(as->nnodes ? as->nnodes : 1, sizeof(*fill));
	if (!as->children || !fill) {
		free(fill);
		return -1;
	}
	for (size_t i = 0; i < as->nnodes; i++) {
		p = parent_of(as, i);
		if (p >= 0)
			as->nodes[p].nchildren++;
		else if (as->nodes[i].b->flags & WPP_BATCH_SIGNAL)
			as->out->orphan_signal_batches++;
	}
	for (size_t i = 0, pos = 0; i < as->nnodes; i++) {
		as->nodes[i].first_child = pos;
		pos += as->nodes[i].nchildren;
	}
	for (size_t i = 0; i < as->nnodes; i++) {
		p = parent_of(as, i);
		if (p >= 0)
			as->children[as->nodes[p].first_child + fill[p]++] = i;
	}
	for (size_t i = 0; i < as->nnodes; i++) {
		const struct batch_node *n = &as->nodes[i];
		qsort_r(as->children + n->first_child, n->nchildren, sizeof(size_t), child_cmp, as);
		for (size_t k = 0; k < n->nchildren; k++)
			if (as->nodes[as->children[n->first_child + k]].b->parent_off >
			    n->b->nwords)
				as->out->clamped_offsets++;
	}
	free(fill);
	return 0;
}

struct frame {
	size_t node;
	uint32_t cursor;
	size_t next_child;
	uint32_t depth;
};

/* Emit node and everything spliced into it, depth first. */
static int emit_tree(struct assembler *as, size_t root)
{
	struct frame *stack;
	size_t top = 0;
	int rc = 0;

	stack = malloc((as->nnodes + 1) * sizeof(*stack));
	if (!stack)
		return -1;
	as->nodes[root].placed = 1;
	stack[top++] = (struct frame){root, 0, 0, 0};
	while (top && rc == 0) {
		struct frame *f = &stack[top - 1];
		struct batch_node *n = &as->nodes[f->node];
		size_t c;

		/* Skip children already placed (only possible through a parent cycle). */
		while (f->next_child < n->nchildren &&
		       as->nodes[as->children[n->first_child + f->next_child]].placed)
			f->next_child++;
		if (f->next_child == n->nchildren) {
			rc = push_seg(as->out, (struct wpp_segment){.kind = WPP_SEG_WORDS,
								    .batch = n->b,
								    .from = f->cursor,
								    .to = n->b->nwords,
								    .signal_depth = f->depth});
			top--;
			continue;
		}
		c = as->children[n->first_child + f->next_child++];
		uint32_t off = splice_off(as, c, f->node);
		rc = push_seg(as->out, (struct wpp_segment){.kind = WPP_SEG_WORDS,
							    .batch = n->b,
							    .from = f->cursor,
							    .to = off,
							    .signal_depth = f->depth});
		f->cursor = off;
		as->nodes[c].placed = 1;
		stack[top] = (struct frame){c, 0, 0, f->depth + 1};
		top++;
	}
	free(stack);
	return rc;
}

static int gap_cmp(const void *a, const void *b)
{
	const struct wpp_gap_ref *x = a, *y = b;
	return x->after_seq < y->after_seq ? -1 : x->after_seq > y->after_seq;
}

int wpp_stream_assemble(const struct wpp_thread_trace *th, struct wpp_stream *out)
{
	return wpp_stream_assemble_piece(th->batches, th->nbatches, th->gaps, th->ngaps, NULL, out);
}

static int push_gap(struct wpp_stream *out, const struct wpp_gap_ref *g)
{
	return push_seg(out, (struct wpp_segment){.kind = WPP_SEG_GAP,
						  .lost_words = g->lost_words,
						  .lost_batches = g->lost_batches});
}

int wpp_stream_assemble_piece(const struct wpp_batch_ref *batches, size_t nbatches,
			      const struct wpp_gap_ref *gap_refs, size_t ngaps,
			      struct wpp_stream_carry *carry, struct wpp_stream *out)
{
	struct assembler as = {.out = out};
	struct wpp_stream_carry local = {0};
	struct wpp_gap_ref *gaps = NULL;
	size_t ngap_done = 0, nuniq = 0;
	int rc = -1;

	if (!carry)
		carry = &local;
	*out = (struct wpp_stream){0};
	as.nodes = calloc(nbatches ? nbatches : 1, sizeof(*as.nodes));
	gaps = malloc((ngaps ? ngaps : 1) * sizeof(*gaps));
	if (!as.nodes || !gaps)
		goto out;
	for (size_t i = 0; i < nbatches; i++)
		as.nodes[i] = (struct batch_node){.b = &batches[i], .file_index = i};
	qsort(as.nodes, nbatches, sizeof(*as.nodes), by_seq_then_file);
	for (size_t i = 0; i < nbatches; i++) {
		if (nuniq && as.nodes[nuniq - 1].b->seq == as.nodes[i].b->seq) {
			if (!(as.nodes[i].b->flags & WPP_BATCH_SALVAGED))
				out->duplicate_batches++;
			continue;
		}
		as.nodes[nuniq++] = as.nodes[i];
	}
	as.nnodes = nuniq;
	if (ngaps)
		memcpy(gaps, gap_refs, ngaps * sizeof(*gaps));
	qsort(gaps, ngaps, sizeof(*gaps), gap_cmp);
	if (build_children(&as) < 0)
		goto out;

	for (size_t i = 0; i < as.nnodes; i++) {
		uint64_t seq = as.nodes[i].b->seq;

		if (parent_of(&as, i) >= 0) {
			carry->present_since_prev++;
			continue;
		}
		while (ngap_done < ngaps && gaps[ngap_done].after_seq < seq) {
			carry->gap_since_prev = 1;
			if (push_gap(out, &gaps[ngap_done++]) < 0)
				goto out;
		}
		if (carry->have_prev) {
			/* Seqs strictly between the two top-level batches, minus the
			 * batches present there (they are spliced signal batches). */
			uint64_t span = seq - carry->prev_seq - 1;
			uint64_t present = carry->present_since_prev;
			if (span > present) {
				out->missing_seqs += span - present;
				if (!carry->gap_since_prev &&
				    push_seg(out, (struct wpp_segment){
						      .kind = WPP_SEG_GAP,
						      .lost_words = WPP_LOST_UNKNOWN,
						      .lost_batches = span - present}) < 0)
					goto out;
			}
		}
		*carry = (struct wpp_stream_carry){.have_prev = 1, .prev_seq = seq};
		if (emit_tree(&as, i) < 0)
			goto out;
	}
	/* Batches caught in a parent cycle were never reached: append them. */
	for (size_t i = 0; i < as.nnodes; i++) {
		if (as.nodes[i].placed)
			continue;
		out->orphan_signal_batches++;
		if (emit_tree(&as, i) < 0)
			goto out;
	}
	while (ngap_done < ngaps) {
		carry->gap_since_prev = 1;
		if (push_gap(out, &gaps[ngap_done++]) < 0)
			goto out;
	}
	rc = 0;
out:
	free(as.nodes);
	free(as.children);
	free(gaps);
	if (rc < 0)
		wpp_stream_free(out);
	return rc;
}

void wpp_stream_free(struct wpp_stream *s)
{
	free(s->segs);
	*s = (struct wpp_stream){0};
}
