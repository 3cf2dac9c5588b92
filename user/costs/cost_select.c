/* SPDX-License-Identifier: MIT */
/*
 * cost_select.c — `--cost NAME`: pick the counter and attribute its
 * samples, with the one error line an unrecorded NAME gets (cost_select.h).
 * One function for every command, so that report, hot and kpaths cannot
 * again disagree on what an unrecorded counter is.
 */
#include "costs/cost_select.h"

#include <stdio.h>
#include <string.h>

#include "common/exit_status.h"
#include "common/log.h"

/* The index of the counter named name, or -1 after the error line. */
static int find_counter(const struct cost_data *cd, const char *name, enum cost_takes takes,
			const char *who, const char *file)
{
	const char *what = takes == COST_TAKES_INSNS_OR_COUNT ? "insns, count," : "insns";
	char list[512] = "";
	size_t used = 0;

	for (uint32_t i = 0; i < cd->ncounters; i++)
		if (strcmp(cd->counters[i].name, name) == 0)
			return (int)i;
	for (uint32_t i = 0; i < cd->ncounters && used < sizeof(list) - 64; i++)
		used += (size_t)snprintf(list + used, sizeof(list) - used, "%s%s", i ? ", " : "",
					 cd->counters[i].name);
	if (!cd->ncounters)
		wpp_err("%s: --cost %s: --cost takes %s or the name of a counter recorded with "
			"`record -e`; %s has none (the trace has no counters)",
			who, name, what, file);
	else
		wpp_err("%s: --cost %s: --cost takes %s or the name of a counter recorded with "
			"`record -e`; not in %s (it has: %s)",
			who, name, what, file, list);
	return -1;
}

int cost_select(struct cost_selection *sel, struct wpp_trace *t, struct wpp_modules *mods,
		const char *name, enum cost_takes takes, long pid, long tid, const char *who,
		const char *file)
{
	memset(sel, 0, sizeof(*sel));
	if (!name || strcmp(name, "insns") == 0 ||
	    (takes == COST_TAKES_INSNS_OR_COUNT && strcmp(name, "count") == 0))
		return 0;
	if (cost_load(t, &sel->data) < 0)
		return WPP_EXIT_ERROR;
	int idx = find_counter(&sel->data, name, takes, who, file);
	if (idx < 0)
		return WPP_EXIT_USAGE;
	if (cost_attribute(t, mods, &sel->data, (uint32_t)idx, pid, tid, &sel->attr) < 0)
		return WPP_EXIT_ERROR;
	sel->active = 1;
	cost_summary(sel->summary, sizeof(sel->summary), &sel->data, &sel->attr);
	return 0;
}

void cost_selection_free(struct cost_selection *sel)
{
	cost_attribution_free(&sel->attr);
	cost_data_free(&sel->data);
	memset(sel, 0, sizeof(*sel));
}
