/* SPDX-License-Identifier: MIT */
/*
 * kipf_build.c — offline k-IPF construction and stored-forest loading.
 */
#include "analysis/kpaths/kipf_build.h"

#include <inttypes.h>

#include "analysis/kpaths/kipf_kinds.h"
#include "analysis/kpaths/kslab_act.h"
#include "common/log.h"
#include "wpp/trace_abi.h"
#include "common/wppfile.h"

/* Where the decoder's events go: one stream, or one per activation. */
struct sink {
	struct kslab *s;
	struct kact act;
	struct kipf_kinds kinds;
	enum kipf_view view;
	/* Per-instance costs, when asked for: the weights in event order and
	 * the ordinal of the next PATH/BLOCK event. */
	struct kipf_inst_cost *ic;
	const struct kipf_inst_weight *w;
	size_t nw, wi;
	uint64_t ordinal;
};

/* The weight of this event (PATH/BLOCK events are numbered as costs.h
 * numbers sample hits; other items weigh nothing). */
static double weight_of(struct sink *k, const struct wpp_event *ev)
{
	double cost = 0;

	if (ev->kind != WPP_EV_PATH && ev->kind != WPP_EV_BLOCK)
		return 0;
	while (k->wi < k->nw && k->w[k->wi].event <= k->ordinal) {
		if (k->w[k->wi].event == k->ordinal)
			cost += k->w[k->wi].cost;
		k->wi++;
	}
	k->ordinal++;
	return cost;
}

static int sink_place(struct sink *k, const struct wpp_event *ev)
{
	int flags = KACT_UNKNOWN;

	if (k->view == KIPF_VIEW_FLAT)
		return kslab_item(k->s, ev->fid, ev->value);
	/* Blocks-mode records and functions without metadata: kinds unknown. */
	if (ev->kind == WPP_EV_PATH && ev->fn) {
		flags = kipf_kinds_of(&k->kinds, ev->fn, ev->fid, ev->value);
		if (flags < 0)
			return -1;
	}
	return kact_item(&k->act, ev->fid, ev->value, (unsigned)flags);
}

/* The costs of a run's instances (events ordinal .. ordinal + times - 1
 * when they are PATH/BLOCK events, which costs.h numbers), handed over
 * without walking the run; fed: the forest took the run (else it was cut
 * off and only the numbering moves on). */
static int run_costs(struct sink *k, const struct wpp_event *ev, int fed)
{
	uint64_t first = k->ordinal;
	size_t from;

	if (ev->kind == WPP_EV_PATH || ev->kind == WPP_EV_BLOCK) {
		while (k->wi < k->nw && k->w[k->wi].event < first)
			k->wi++;
		from = k->wi;
		while (k->wi < k->nw && k->w[k->wi].event - first < ev->times)
			k->wi++;
		k->ordinal += ev->times;
	} else {
		from = k->wi;
	}
	if (!fed)
		return 0;
	return kipf_inst_cost_run(k->ic, k->s, ev->fid, ev->value, ev->times, first, k->w + from,
				  k->wi - from);
}

static void sink_mark(struct sink *k);

/*
 * A run's repetitions (WPP_DECODE_RUNS: ev->times of them after the record
 * as written, which came as its own event) without walking them: the
 * forests' own run steps are exactly `times` single items at O(k) cost
 * (kslab.h, kslab_act.h), and so are per-instance costs (run_costs).  A
 * path that starts at its function's entry or ends at a return never
 * repeats in a loop (runs count call-free loop nests,
 * docs/instrumentation.md): a run of one comes only from a crafted file,
 * and would push an activation per repetition, so it is cut off like a
 * malformed record instead (docs/security.md, "Files").
 */
static int sink_run(struct sink *k, const struct wpp_event *ev)
{
	int flags = KACT_UNKNOWN, rc;

	if (k->view == KIPF_VIEW_FLAT) {
		rc = kslab_item_run(k->s, ev->fid, ev->value, ev->times);
	} else {
		if (ev->kind == WPP_EV_PATH && ev->fn) {
			flags = kipf_kinds_of(&k->kinds, ev->fn, ev->fid, ev->value);
			if (flags < 0)
				return -1;
		}
		if (flags & (KACT_ENTRY | KACT_RETURN)) {
			sink_mark(k);
			return k->ic ? run_costs(k, ev, 0) : 0;
		}
		rc = kact_item_run(&k->act, ev->fid, ev->value, (unsigned)flags, ev->times);
	}
	return rc < 0 || !k->ic ? rc : run_costs(k, ev, 1);
}

static int sink_item(struct sink *k, const struct wpp_event *ev)
{
	if (ev->times > 1)
		return sink_run(k, ev);
	if (sink_place(k, ev) < 0)
		return -1;
	/* Right after the item: kslab_item_stream() names its stream. */
	return k->ic ? kipf_inst_cost_item(k->ic, k->s, ev->fid, ev->value, weight_of(k, ev)) : 0;
}

static void sink_mark(struct sink *k)
{
	if (k->view == KIPF_VIEW_FLAT)
		kslab_mark(k->s);
	else
		kact_mark(&k->act);
	if (k->ic)
		kipf_inst_cost_end(k->ic);
}

/* Decode thread th into k's forest. */
static int feed_thread(struct sink *k, const struct wpp_thread_trace *th, struct wpp_modules *mods)
{
	/* Runs come whole, for the forests and the per-instance costs alike
	 * (sink_run). */
	struct wpp_decoder *d = wpp_decoder_open(th, mods, WPP_DECODE_RUNS);
	struct wpp_event ev;
	int rc = 0;

	if (!d)
		return -1;
	while (rc == 0 && wpp_decoder_next(d, &ev)) {
		switch (ev.kind) {
		case WPP_EV_PATH:
		case WPP_EV_BLOCK:
			rc = sink_item(k, &ev);
			break;
		case WPP_EV_UNATTRIBUTED:
			/* A known fid without metadata is still one function's
			 * path; an unregistered one is anybody's. */
			if (ev.fid != 0 && ev.fid != WPP_FID_UNREGISTERED)
				rc = sink_item(k, &ev);
			else
				sink_mark(k);
			break;
		case WPP_EV_GAP:
		case WPP_EV_CORRUPT:
			sink_mark(k);
			break;
		}
	}
	wpp_decoder_close(d);
	return rc;
}

int kipf_build_thread(struct kipf *f, const struct wpp_thread_trace *th, struct wpp_modules *mods,
		      uint64_t max_nodes, enum kipf_view view)
{
	struct sink k = {.s = kslab_new(f->k, max_nodes), .view = view};
	int rc;

	if (!k.s) {
		wpp_err("k-paths: cannot build a k-slab forest (k %u, %" PRIu64 " nodes)", f->k,
			max_nodes);
		return -1;
	}
	kact_init(&k.act, k.s);
	f->activation = view == KIPF_VIEW_ACTIVATION;
	rc = feed_thread(&k, th, mods);
	if (rc == 0)
		rc = kipf_add_kslab(f, k.s);
	if (rc < 0)
		wpp_err("k-paths: out of memory building the forest of thread %u", th->tid);
	kact_fini(&k.act);
	kipf_kinds_free(&k.kinds);
	kslab_free(k.s);
	return rc;
}

int kipf_inst_costs_thread(struct kipf_inst_cost *c, unsigned k, const struct wpp_thread_trace *th,
			   struct wpp_modules *mods, enum kipf_view view,
			   const struct kipf_inst_weight *w, size_t nw)
{
	struct sink sk = {.s = kslab_new(k, 0), .view = view, .ic = c, .w = w, .nw = nw};
	int rc = -1;

	if (sk.s) {
		kact_init(&sk.act, sk.s);
		rc = feed_thread(&sk, th, mods);
		kipf_inst_cost_end(c);
		kact_fini(&sk.act);
		kipf_kinds_free(&sk.kinds);
		kslab_free(sk.s);
	}
	if (rc < 0)
		wpp_err("k-paths: out of memory costing the k-paths of thread %u", th->tid);
	return rc;
}

unsigned kipf_store_load(struct kipf_store *st, const struct wpp_trace *t)
{
	struct wpp_chunk c;
	unsigned bad = 0;
	char err[160];

	wppr_rewind(t->reader);
	while (wppr_next(t->reader, &c) == 1) {
		if (c.type != WPP_CHUNK_KIPF)
			continue;
		if (kipf_store_add(st, c.payload, c.length, err, sizeof(err)) < 0) {
			wpp_warn("%s: k-IPF chunk at offset %" PRIu64 " rejected: %s", t->path,
				 c.file_offset, err);
			bad++;
		}
	}
	return bad;
}
