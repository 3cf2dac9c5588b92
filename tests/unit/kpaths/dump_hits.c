/* SPDX-License-Identifier: MIT */
/*
 * dump_hits.c — the samples of one counter attributed to path instances
 * (user/costs/costs.h), one JSON line per hit:
 *   {"pid":P,"gen":G,"tid":T,"event":E,"weight":W}
 * E is the instance's ordinal among its thread's PATH/BLOCK events.  The
 * per-instance k-path cost check (tests/e2e/kpaths-cost.sh) feeds these to
 * its brute force with `script --format jsonl`.
 *
 * Usage: dump_hits FILE.wpp COUNTER
 */
#include <inttypes.h>
#include <stdio.h>

#include "costs/cost_select.h"
#include "common/log.h"
#include "decode/module_map.h"
#include "symbolizer/symbolizer.h"
#include "decode/trace_file.h"

int main(int argc, char **argv)
{
	struct cost_selection sel;
	struct wpp_symbolizer *sym;
	struct wpp_modules *mods;
	struct wpp_trace *t;

	if (argc != 3) {
		fprintf(stderr, "usage: dump_hits FILE.wpp COUNTER\n");
		return 2;
	}
	t = wpp_trace_load(argv[1]);
	if (!t)
		return 1;
	sym = wpp_sym_new();
	mods = wpp_modules_new(t, sym);
	if (cost_select(&sel, t, mods, argv[2], COST_TAKES_INSNS, -1, -1, "dump_hits", argv[1]) ||
	    !sel.active)
		return 1;
	const struct cost_attribution *a = &sel.attr;
	for (size_t i = 0; i < a->nhits; i++)
		printf("{\"pid\":%" PRIu32 ",\"gen\":%" PRIu32 ",\"tid\":%" PRIu32
		       ",\"event\":%" PRIu64 ",\"weight\":%" PRIu64 "}\n",
		       a->hits[i].pid, a->hits[i].gen, a->hits[i].tid, a->hits[i].event,
		       a->hits[i].weight);
	cost_selection_free(&sel);
	wpp_modules_free(mods);
	wpp_sym_free(sym);
	wpp_trace_free(t);
	return 0;
}
