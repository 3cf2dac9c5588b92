/* SPDX-License-Identifier: MIT */
/* ppp_plan.c — a function's counting plan in PPP mode (see ppp_plan.h). */
#include "instrument/ppp_plan.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "instrument/placement.h"
#include "instrument/ppp.h"
#include "wpp/meta_format.h"
#include "wpp/trace_abi.h"

uint64_t wpp_ppp_min_paths(uint64_t array_limit)
{
	const char *v = getenv("WPP_PPP_MIN_PATHS");
	return v && *v ? strtoull(v, NULL, 10) : array_limit;
}

uint64_t wpp_ppp_max_interval(uint64_t array_limit)
{
	return array_limit < WPP_PPP_MAX_INTERVAL ? array_limit : WPP_PPP_MAX_INTERVAL;
}

int wpp_ppp_cost_on(void)
{
	const char *v = getenv("WPP_PPP_COST");
	return !(v && !strcmp(v, "0"));
}

const char *wpp_ppp_plan_counted(const struct wpp_ppp_plan *p)
{
	return p->cache ? "cache" : wpp_ppp_how_name(p->how);
}

const char *wpp_ppp_how_name(uint32_t how)
{
	switch (how) {
	case WPP_PPP_ARRAY:
		return "ppp";
	case WPP_PPP_PLAIN:
		return "plain";
	case WPP_PPP_EMPTY:
		return "empty";
	case WPP_PPP_STALE:
		return "stale";
	case WPP_PPP_WIDE:
		return "wide";
	}
	return "?";
}

/* The increments and the slot table of a numbering that fits. */
static int fill_array_plan(const struct wpp_dag *d, const struct wpp_ppp *pp,
			   struct wpp_ppp_plan *out)
{
	uint64_t *w = malloc(((size_t)d->nedges + 1) * sizeof(uint64_t));
	out->inc = malloc(((size_t)d->nedges + 1) * sizeof(uint64_t));
	out->slot_bl = malloc(((size_t)pp->interval + 1) * sizeof(uint64_t));
	if (!w || !out->inc || !out->slot_bl) {
		free(w);
		return -1;
	}
	/* two's complement: a negative weight is the same increment mod 2^64 */
	for (uint32_t e = 0; e < d->nedges; e++)
		w[e] = (uint64_t)pp->weight[e];
	int rc = wpp_dag_place_values(d, w, out->inc);
	free(w);
	if (rc)
		return -1;
	for (uint64_t k = 0; k < pp->interval; k++)
		out->slot_bl[k] = WPP_PPP_HOLE;
	for (uint32_t k = 0; k < pp->npaths; k++)
		out->slot_bl[pp->slot_ppp[k]] = pp->slot_bl[k];
	return 0;
}

int wpp_ppp_plan_make(const struct wpp_dag *d, const uint64_t *ids, const uint64_t *counts,
		      size_t n, int stale, const struct wpp_ppp_policy *pol,
		      struct wpp_ppp_plan *out)
{
	struct wpp_ppp pp;

	memset(out, 0, sizeof(*out));
	if (stale) {
		out->how = WPP_PPP_STALE;
		return 0;
	}
	out->nids = (uint32_t)n;
	if (!n) {
		out->how = WPP_PPP_EMPTY;
		return 0;
	}
	/* numbered even where it is not used: --wpp-stats reports Γ */
	if (wpp_ppp_number(d, ids, n, &pp, out->why, sizeof(out->why))) {
		if (!strncmp(out->why, "out of memory", 13))
			return -1;
		out->how = WPP_PPP_WIDE;
		return 0;
	}
	out->interval = pp.interval;
	out->gamma = wpp_ppp_compactness(&pp);
	if (d->npaths <= pol->min_paths)
		out->how = WPP_PPP_PLAIN;
	else if (pp.interval > pol->max_slots)
		out->how = WPP_PPP_WIDE;
	else
		out->how = WPP_PPP_ARRAY;
	int rc = out->how == WPP_PPP_ARRAY ? fill_array_plan(d, &pp, out) : 0;
	wpp_ppp_free(&pp);
	/* the increments are placed now: what each way would cost */
	if (!rc && out->how == WPP_PPP_ARRAY && pol->decide) {
		rc = wpp_ppp_cost(d, out->inc, ids, counts, n, pol->cache_log2, &out->cost);
		out->costed = !rc;
		if (!rc && out->cost.ppp >= out->cost.count) {
			free(out->inc);
			free(out->slot_bl);
			out->inc = out->slot_bl = NULL;
			out->how = WPP_PPP_PLAIN;
			out->cache = 1;
		}
	}
	if (rc)
		wpp_ppp_plan_free(out);
	return rc;
}

void wpp_ppp_plan_free(struct wpp_ppp_plan *p)
{
	free(p->inc);
	free(p->slot_bl);
	memset(p, 0, sizeof(*p));
}
