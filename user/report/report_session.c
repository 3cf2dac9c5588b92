/* SPDX-License-Identifier: MIT */
#include "report_session.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "cost_lines.h"
#include "costs.h"
#include "log.h"

int rpt_open(struct session *s, struct rpt_profile *p, const char *file,
	     const struct thread_filter *f)
{
	int rc = session_open(s, file);

	if (rc)
		return rc;
	if (rpt_profile_build(p, file, s->trace, s->mods, f->pid, f->tid) < 0) {
		session_close(s);
		return WPP_EXIT_ERROR;
	}
	if ((f->pid >= 0 || f->tid >= 0) && p->nimages == 0)
		wpp_warn("%s: no thread matches the --pid/--tid filter", file);
	return 0;
}

void rpt_close(struct session *s, struct rpt_profile *p)
{
	rpt_profile_free(p);
	session_close(s);
}

int rpt_merge_inputs(char *const *files, int n, const struct thread_filter *f, const char *who,
		     int (*add)(void *ctx, const struct rpt_profile *p), void *ctx, int *worst)
{
	struct session s;
	struct rpt_profile p;
	int rc;

	*worst = 0;
	for (int i = 0; i < n; i++) {
		if ((rc = rpt_open(&s, &p, files[i], f)) != 0)
			return rc;
		if (s.exit_status > *worst)
			*worst = s.exit_status;
		rc = add(ctx, &p);
		rpt_close(&s, &p);
		if (rc < 0) {
			wpp_err("%s: out of memory", who);
			return WPP_EXIT_ERROR;
		}
	}
	return 0;
}

int rpt_apply_counter(struct session *s, struct rpt_profile *p, const char *counter,
		      const struct thread_filter *f, char *summary, size_t len)
{
	struct cost_data cd;
	struct cost_attribution a;
	static char unit[WPP_COUNTER_NAME_MAX];

	if (len)
		summary[0] = 0;
	if (!counter || strcmp(counter, "insns") == 0)
		return 0;
	if (cost_load(s->trace, &cd) < 0)
		return WPP_EXIT_ERROR;
	int idx = cost_counter_find(&cd, counter);
	if (idx < 0) {
		cost_data_free(&cd);
		return WPP_EXIT_USAGE;
	}
	if (cost_attribute(s->trace, s->mods, &cd, (uint32_t)idx, f->pid, f->tid, &a) < 0) {
		cost_data_free(&cd);
		return WPP_EXIT_ERROR;
	}
	snprintf(unit, sizeof(unit), "%s", cd.counters[idx].name);
	cost_summary(summary, len, &cd, &a);
	cost_tally_of(&cd, &a, &p->cost_tally);
	p->has_cost_tally = 1;
	int rc = rpt_profile_apply_costs(p, &a, unit) < 0 ? WPP_EXIT_ERROR : 0;
	/* Per line by the sampled ip (annotate and the per-path line costs). */
	if (rc == 0 && (!(p->line_costs = calloc(1, sizeof(*p->line_costs))) ||
			line_costs_build(s->mods, &a, p->line_costs) < 0))
		rc = WPP_EXIT_ERROR;
	cost_attribution_free(&a);
	cost_data_free(&cd);
	return rc;
}
