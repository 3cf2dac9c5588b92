/* SPDX-License-Identifier: MIT */
/*
 * cost_select.h — `--cost NAME` the one way every command takes it
 * (report, annotate, export, hot, kpaths).
 *
 * NAME is insns (the default: IR instructions, exact), count where the
 * command can rank by executions, or a counter recorded with `record -e`.
 * For a counter, its samples are loaded (costs.h) and attributed to the
 * paths of the threads the command selected, and a one-line summary says
 * it is an estimate and from how many samples.  A NAME the recording does
 * not have is a mistake on the command line: one error line saying what
 * --cost takes and which counters the file has, and WPP_EXIT_USAGE, the
 * same in every command.
 */
#ifndef WPP_COSTS_COST_SELECT_H
#define WPP_COSTS_COST_SELECT_H

#include "costs/costs.h"

struct cost_selection {
	int active; /* NAME was a counter of the recording: data and attr are set */
	struct cost_data data;
	struct cost_attribution attr;
	char summary[512]; /* cost_summary()'s line; "" when not active */
};

/* Whether the command also takes `--cost count` (path executions). */
enum cost_takes { COST_TAKES_INSNS, COST_TAKES_INSNS_OR_COUNT };

/* Select NAME (NULL = insns) for the threads pid/tid (negative = any) of
 * trace t, recorded in file (named in the error line, after "WHO: ").  0
 * (sel->active says whether a counter was selected), or an exit status
 * after one error line: WPP_EXIT_USAGE for a counter the file does not
 * have, WPP_EXIT_ERROR when the samples cannot be loaded or attributed.
 * Free with cost_selection_free() whatever it returned. */
int cost_select(struct cost_selection *sel, struct wpp_trace *t, struct wpp_modules *mods,
		const char *name, enum cost_takes takes, long pid, long tid, const char *who,
		const char *file);
void cost_selection_free(struct cost_selection *sel);

#endif
