/* SPDX-License-Identifier: MIT */
/*
 * kipf_inst_cost.c — exact per-instance k-path costs (see kipf_inst_cost.h).
 */
#include "analysis/kpaths/kipf_inst_cost.h"

#include <stdlib.h>
#include <string.h>

struct label {
	uint64_t value;
	uint32_t fid;
};

/* A sampled instance and the items of its stream around it. */
struct context {
	double w;
	uint32_t nbefore, nafter;
	struct label *items; /* nbefore items, the instance, nafter items */
};

/* A live stream: its last k-1 labels and the contexts still waiting for
 * items after their instance. */
struct stream {
	uint64_t id;
	struct label *ring; /* k-1 slots */
	uint32_t nring, head;
	uint32_t *open; /* context indices, up to k-1 */
	uint32_t nopen;
};

struct kipf_inst_cost {
	unsigned k;
	struct stream *st; /* live streams, ids increasing */
	uint32_t nst, st_cap;
	struct context *ctx;
	uint32_t nctx, ctx_cap;
};

struct kipf_inst_cost *kipf_inst_cost_new(unsigned k)
{
	struct kipf_inst_cost *c = calloc(1, sizeof(*c));

	if (c)
		c->k = k < 1 ? 1 : k;
	return c;
}

static void stream_free(struct stream *s)
{
	free(s->ring);
	free(s->open);
}

void kipf_inst_cost_free(struct kipf_inst_cost *c)
{
	if (!c)
		return;
	for (uint32_t i = 0; i < c->nst; i++)
		stream_free(&c->st[i]);
	for (uint32_t i = 0; i < c->nctx; i++)
		free(c->ctx[i].items);
	free(c->st);
	free(c->ctx);
	free(c);
}

void kipf_inst_cost_end(struct kipf_inst_cost *c)
{
	for (uint32_t i = 0; i < c->nst; i++)
		stream_free(&c->st[i]);
	c->nst = 0;
}

/* Keep only the streams s still has live (outermost first, ids increasing
 * in both lists), then `id` on top. */
static void drop_dead(struct kipf_inst_cost *c, const struct kslab *s)
{
	uint32_t live = kslab_depth(s), j = 0, kept = 0;

	for (uint32_t i = 0; i < c->nst; i++) {
		uint64_t id = c->st[i].id;
		while (j < live && kslab_suspended_stream(s, j) < id)
			j++;
		if (j < live && kslab_suspended_stream(s, j) == id)
			c->st[kept++] = c->st[i];
		else
			stream_free(&c->st[i]);
	}
	c->nst = kept;
}

static struct stream *stream_of(struct kipf_inst_cost *c, const struct kslab *s, uint64_t id)
{
	struct stream *top;

	/* Streams above the one fed have ended (ids increase upwards). */
	while (c->nst && c->st[c->nst - 1].id > id)
		stream_free(&c->st[--c->nst]);
	if (c->nst && c->st[c->nst - 1].id == id)
		return &c->st[c->nst - 1];
	/* A new stream.  Streams that ended without a later item below them
	 * (callbacks from uninstrumented code) linger; sweep them when the
	 * list outgrows the k-SF's stack. */
	if (c->nst > 2u * kslab_depth(s) + 16)
		drop_dead(c, s);
	if (c->nst == c->st_cap) {
		uint32_t cap = c->st_cap ? 2 * c->st_cap : 16;
		struct stream *n = realloc(c->st, cap * sizeof(*n));
		if (!n)
			return NULL;
		c->st = n;
		c->st_cap = cap;
	}
	top = &c->st[c->nst];
	*top = (struct stream){.id = id};
	if (c->k > 1) {
		top->ring = malloc((c->k - 1) * sizeof(*top->ring));
		top->open = malloc((c->k - 1) * sizeof(*top->open));
		if (!top->ring || !top->open) {
			stream_free(top);
			return NULL;
		}
	}
	c->nst++;
	return top;
}

static int new_context(struct kipf_inst_cost *c, struct stream *st, uint32_t fid, uint64_t value,
		       double w)
{
	struct context *x;

	if (c->nctx == c->ctx_cap) {
		uint32_t cap = c->ctx_cap ? 2 * c->ctx_cap : 64;
		struct context *n = realloc(c->ctx, cap * sizeof(*n));
		if (!n)
			return -1;
		c->ctx = n;
		c->ctx_cap = cap;
	}
	x = &c->ctx[c->nctx];
	*x = (struct context){.w = w, .nbefore = st->nring};
	x->items = malloc((2 * c->k - 1) * sizeof(*x->items));
	if (!x->items)
		return -1;
	/* The ring, oldest first: head is the oldest once it is full. */
	for (uint32_t i = 0; i < st->nring; i++)
		x->items[i] = st->ring[(st->head + i) % (c->k - 1)];
	x->items[st->nring] = (struct label){value, fid};
	if (c->k > 1)
		st->open[st->nopen++] = c->nctx;
	c->nctx++;
	return 0;
}

/* One item of stream st with its cost w. */
static int feed(struct kipf_inst_cost *c, struct stream *st, uint32_t fid, uint64_t value, double w)
{
	uint32_t kept = 0;

	/* Contexts waiting for items after their instance get this one. */
	for (uint32_t i = 0; i < st->nopen; i++) {
		struct context *x = &c->ctx[st->open[i]];
		x->items[x->nbefore + 1 + x->nafter++] = (struct label){value, fid};
		if (x->nafter < c->k - 1)
			st->open[kept++] = st->open[i];
	}
	st->nopen = kept;
	if (w > 0 && new_context(c, st, fid, value, w) < 0)
		return -1;
	if (c->k > 1) {
		uint32_t slot = (st->head + st->nring) % (c->k - 1);
		st->ring[slot] = (struct label){value, fid};
		if (st->nring < c->k - 1)
			st->nring++;
		else
			st->head = (st->head + 1) % (c->k - 1);
	}
	return 0;
}

int kipf_inst_cost_item(struct kipf_inst_cost *c, const struct kslab *s, uint32_t fid,
			uint64_t value, double w)
{
	struct stream *st = stream_of(c, s, kslab_item_stream(s));

	return st ? feed(c, st, fid, value, w) : -1;
}

int kipf_inst_cost_run(struct kipf_inst_cost *c, const struct kslab *s, uint32_t fid,
		       uint64_t value, uint64_t times, uint64_t first_event,
		       const struct kipf_inst_weight *w, size_t nw)
{
	struct stream *st = stream_of(c, s, kslab_item_stream(s));
	uint64_t quiet = 0; /* items of the run fed since the last sampled one */
	size_t wi = 0;

	if (!st)
		return -1;
	for (uint64_t i = 0; i < times;) {
		double cost = 0;
		/* After k-1 unsampled items of the run the ring holds only this
		 * label (where its head stands no longer matters) and no
		 * context waits for items: until the next sampled instance,
		 * more of the same change nothing. */
		if (quiet >= c->k - 1) {
			i = wi < nw ? w[wi].event - first_event : times;
			if (i >= times)
				break;
		}
		while (wi < nw && w[wi].event - first_event == i)
			cost += w[wi++].cost;
		if (feed(c, st, fid, value, cost) < 0)
			return -1;
		quiet = cost > 0 ? 0 : quiet + 1;
		i++;
	}
	return 0;
}

void kipf_inst_cost_apply(const struct kipf_inst_cost *c, struct kipf *f, double *cost)
{
	for (uint32_t i = 0; i < c->nctx; i++) {
		const struct context *x = &c->ctx[i];
		uint32_t n = x->nbefore + 1 + x->nafter, q = x->nbefore;

		/* Every window [s, e] with s <= q <= e and e - s < k. */
		for (uint32_t s = 0; s <= q; s++) {
			uint32_t node = 0;
			for (uint32_t e = s; e < n && e - s < f->k; e++) {
				node = kipf_find(f, node, x->items[e].fid, x->items[e].value);
				if (!node)
					break;
				if (e >= q)
					cost[node] += x->w;
			}
		}
	}
}
