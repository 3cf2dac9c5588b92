/* SPDX-License-Identifier: MIT */
#include "report/report_session.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/exit_status.h"
#include "costs/cost_lines.h"
#include "costs/cost_select.h"
#include "common/log.h"

static int filtered(const struct thread_filter *f)
{
	return f->pid >= 0 || f->tid >= 0 || f->gen >= 0;
}

/* rpt_open without its word on a filter that matched nothing. */
static int open_profile(struct session *s, struct rpt_profile *p, const char *file,
			const struct thread_filter *f)
{
	int rc = session_open(s, file);

	if (rc)
		return rc;
	if (rpt_profile_build(p, file, s->trace, s->mods, f->pid, f->tid, f->gen) < 0) {
		session_close(s);
		return WPP_EXIT_ERROR;
	}
	return 0;
}

int rpt_open(struct session *s, struct rpt_profile *p, const char *file,
	     const struct thread_filter *f, const char *who)
{
	int rc = open_profile(s, p, file, f);

	/* a typo must not pass for an empty report (as script, wpp, hot) */
	if (!rc && filtered(f) && p->nimages == 0) {
		rpt_close(s, p);
		return no_thread_selected(who, file, f, WPP_EXIT_OK);
	}
	return rc;
}

void rpt_close(struct session *s, struct rpt_profile *p)
{
	rpt_profile_free(p);
	session_close(s);
}

int rpt_merge_inputs(char *const *files, int n, const struct thread_filter *f, const char *who,
		     int (*add)(void *ctx, const struct rpt_profile *p), void *ctx, int *worst)
{
	unsigned char *missed = calloc((size_t)n + 1, 1); /* [i]: the filter matched nothing */
	struct session s;
	struct rpt_profile p;
	char what[96];
	int rc = 0, matched = 0;

	*worst = 0;
	if (!missed) {
		wpp_err("%s: out of memory", who);
		return WPP_EXIT_ERROR;
	}
	for (int i = 0; i < n && !rc; i++) {
		if ((rc = open_profile(&s, &p, files[i], f)) != 0)
			break;
		if (s.exit_status > *worst)
			*worst = s.exit_status;
		missed[i] = p.nimages == 0;
		matched += !missed[i];
		if (add(ctx, &p) < 0) {
			wpp_err("%s: out of memory", who);
			rc = WPP_EXIT_ERROR;
		}
		rpt_close(&s, &p);
	}
	/* What these commands write feeds a compiler: a filter that matched
	 * nothing would make an empty file that builds like no file at all,
	 * so it is a mistake on the command line, as in script, wpp and hot. */
	if (!rc && filtered(f) && !matched) {
		if (n == 1) {
			no_thread_selected(who, files[0], f, WPP_EXIT_OK);
		} else {
			thread_filter_text(f, what, sizeof(what));
			wpp_err("%s: no thread in any of the %d recordings matches%s (`wpptrace "
				"info FILE` lists them)",
				who, n, what);
		}
		rc = WPP_EXIT_USAGE;
	}
	for (int i = 0; i < n && !rc && filtered(f); i++)
		if (missed[i])
			wpp_warn("%s: no thread matches the --pid/--tid filter", files[i]);
	free(missed);
	return rc;
}

int rpt_apply_counter(struct session *s, struct rpt_profile *p, const char *counter,
		      const struct thread_filter *f, const char *who, char *summary, size_t len)
{
	struct cost_selection sel;
	static char unit[WPP_COUNTER_NAME_MAX];
	int rc;

	if (len)
		summary[0] = 0;
	rc = cost_select(&sel, s->trace, s->mods, counter, COST_TAKES_INSNS, f->pid, f->tid, who,
			 p->file);
	if (rc || !sel.active) {
		cost_selection_free(&sel);
		return rc;
	}
	snprintf(unit, sizeof(unit), "%s", sel.data.counters[sel.attr.counter].name);
	snprintf(summary, len, "%s", sel.summary);
	cost_tally_of(&sel.data, &sel.attr, &p->cost_tally);
	p->has_cost_tally = 1;
	rc = rpt_profile_apply_costs(p, &sel.attr, unit) < 0 ? WPP_EXIT_ERROR : 0;
	/* Per line by the sampled ip (annotate and the per-path line costs). */
	if (rc == 0 && (!(p->line_costs = calloc(1, sizeof(*p->line_costs))) ||
			line_costs_build(s->mods, &sel.attr, p->line_costs) < 0))
		rc = WPP_EXIT_ERROR;
	cost_selection_free(&sel);
	return rc;
}
