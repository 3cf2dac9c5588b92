/* SPDX-License-Identifier: MIT */
/*
 * cmd_residual.c — `wpptrace residual`: the executed paths outside the
 * interesting sets of a -fwpp-mode=ppp build (residual path profiling:
 * what ran in this run that the recordings the set came from never ran).
 *
 * The recording holds Ball-Larus ids whatever way each function counted
 * (the runtime turns PPP slots back into them), and each PPP unit's
 * metadata holds its functions' interesting sets, so the residual paths
 * are the profile's paths of PPP units whose id is not in their
 * function's set: the profile (profile.h) is built as for `paths`, its
 * entries are selected, and the tables are `paths`' own (paths_table.h).
 * A function whose set was recorded from another build (stale) had no
 * usable set: all its paths are residual, and the totals say how many such
 * functions ran.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "common/json_out.h"
#include "common/log.h"
#include "common/options.h"
#include "cli/paths_table.h"
#include "report/profile.h"
#include "decode/session.h"

struct residual_totals {
	uint64_t all;		/* executions in the profile */
	uint64_t ppp;		/* ... in PPP units */
	uint64_t residual;	/* ... of residual paths */
	size_t ppp_distinct;	/* distinct paths of PPP units */
	size_t stale_functions; /* executed functions with a stale set */
};

static int is_ppp_unit(const struct wpp_tu *tu)
{
	return tu->mode == WPP_MODE_PPP;
}

static int is_residual(const struct rpt_path *r)
{
	return !r->is_block && r->fn->tu->mode == WPP_MODE_PPP &&
	       !wpp_fn_ppp_interesting(r->fn, r->id);
}

/* A shallow copy of p holding only the entries keep() accepts (the
 * entries' static facts stay the profile's). */
static void select_paths(const struct rpt_profile *p, int (*keep)(const struct rpt_path *),
			 struct rpt_profile *out)
{
	*out = *p;
	out->paths = malloc((p->npaths + 1) * sizeof(*out->paths));
	if (!out->paths)
		wpp_die("out of memory");
	out->npaths = 0;
	out->total_count = out->total_cost = 0;
	for (size_t i = 0; i < p->npaths; i++)
		if (keep(&p->paths[i])) {
			out->paths[out->npaths++] = p->paths[i];
			out->total_count += p->paths[i].count;
			out->total_cost += p->paths[i].cost;
		}
}

static int in_ppp_unit(const struct rpt_path *r)
{
	return !r->is_block && r->fn->tu->mode == WPP_MODE_PPP;
}

static double share(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

static void print_text(FILE *out, const char *file, const struct paths_table *t,
		       const struct residual_totals *n)
{
	fprintf(out,
		"Residual paths of %s: executed paths outside the interesting sets of the "
		"-fwpp-mode=ppp units\n",
		file);
	fprintf(out,
		"%" PRIu64 " residual executions, %zu distinct residual paths in %zu functions\n\n",
		n->residual, t->npaths, t->nfns);
	paths_table_text(out, t);
	fprintf(out,
		"\nresidual: %zu of %zu distinct paths (%.1f%%), %" PRIu64 " of %" PRIu64
		" executions (%.1f%%) in ppp units; %.1f%% of all %" PRIu64 " executions\n",
		t->npaths, n->ppp_distinct, share(t->npaths, n->ppp_distinct), n->residual, n->ppp,
		share(n->residual, n->ppp), share(n->residual, n->all), n->all);
	if (n->all > n->ppp)
		fprintf(out, "not compared: %" PRIu64 " executions in units of other modes\n",
			n->all - n->ppp);
	if (n->stale_functions)
		fprintf(out,
			"stale: %zu function%s had an interesting set recorded from another build; "
			"all their paths are residual\n",
			n->stale_functions, n->stale_functions == 1 ? "" : "s");
}

/* paths_table_json's totals: ctx is a struct residual_json. */
struct residual_json {
	const struct paths_table *t;
	const struct residual_totals *n;
};

static void json_totals(struct json_out *j, const void *ctx)
{
	const struct residual_json *r = ctx;

	json_u64(j, "residual_distinct", r->t->npaths);
	json_u64(j, "residual_executions", r->n->residual);
	json_u64(j, "ppp_distinct", r->n->ppp_distinct);
	json_u64(j, "ppp_executions", r->n->ppp);
	json_u64(j, "all_executions", r->n->all);
	json_u64(j, "stale_functions", r->n->stale_functions);
}

static const struct opt_command residual_cmd = {
    .name = "residual",
    OPT_OPERANDS("one .wpp file", 1, 1),
    .usage = "residual run.wpp [options]",
    .about = "For a program built with wppcc -fwpp-mode=ppp --wpp-interesting=SET: the\n"
	     "paths this recording executed that SET does not hold (residual paths: what\n"
	     "ran here that the recordings SET came from never ran), per function and\n"
	     "path as `paths` lists them, with their source lines and counts; then how\n"
	     "many there were of all paths and executions of the ppp units.  A function\n"
	     "whose set was recorded from another build counts all its paths as residual.\n"};

int cmd_residual(int argc, char **argv)
{
	struct thread_filter filter = THREAD_FILTER_ANY;
	struct rpt_profile prof, resid, ppp;
	struct residual_totals n = {0};
	struct paths_table t = {0};
	struct rpt_row *rows, *fns, *ppp_rows;
	long top = -1;
	int json = 0, rc, first;
	struct session s;
	struct opt table[] = {
	    OPT_FORMAT(&json, opt_text_json),
	    OPTS_THREADS(filter),
	    OPT_COUNT_('n', "top", "N", "only the N most executed residual paths", &top, 0,
		       LONG_MAX, 0),
	    OPT_END_,
	};

	if ((rc = opts_parse(&residual_cmd, table, argc, argv, &first)) != 0)
		return rc > 0 ? WPP_EXIT_OK : WPP_EXIT_USAGE;
	const char *file = argv[first];
	if ((rc = session_open(&s, file)))
		return rc;
	if (!session_find_tu(&s, NULL, is_ppp_unit)) {
		wpp_err("residual: %s: no module of the recording was built with -fwpp-mode=ppp, "
			"so there is no interesting set to compare with (wppcc -fwpp-mode=ppp "
			"--wpp-interesting=FILE)",
			file);
		session_close(&s);
		return WPP_EXIT_ERROR;
	}
	if (rpt_profile_build(&prof, file, s.trace, s.mods, filter.pid, filter.tid, filter.gen) <
	    0) {
		session_close(&s);
		return WPP_EXIT_ERROR;
	}

	if ((filter.pid >= 0 || filter.tid >= 0 || filter.gen >= 0) && prof.nimages == 0) {
		rc = no_thread_selected("residual", file, &filter, WPP_EXIT_OK);
		rpt_profile_free(&prof);
		session_close(&s);
		return rc;
	}
	select_paths(&prof, is_residual, &resid);
	select_paths(&prof, in_ppp_unit, &ppp);
	t.npaths = rpt_rows(&resid, RPT_BY_PATH, RPT_SORT_COUNT, &rows);
	t.nfns = rpt_rows(&resid, RPT_BY_FUNCTION, RPT_SORT_COUNT, &fns);
	t.paths = rows;
	t.fns = fns;
	t.shown = top >= 0 && (size_t)top < t.npaths ? (size_t)top : t.npaths;
	t.share_of = prof.total_count;
	n.all = prof.total_count;
	n.ppp = ppp.total_count;
	n.residual = resid.total_count;
	n.ppp_distinct = rpt_rows(&ppp, RPT_BY_PATH, RPT_SORT_COUNT, &ppp_rows);
	for (size_t i = 0; i < t.nfns; i++)
		n.stale_functions += fns[i].fn->ppp_how == WPP_PPP_STALE;
	if (json)
		paths_table_json(stdout, file, &t, json_totals, &(struct residual_json){&t, &n});
	else
		print_text(stdout, file, &t, &n);
	if ((filter.pid >= 0 || filter.tid >= 0 || filter.gen >= 0) && prof.total_count == 0)
		wpp_warn("%s: no paths for the selected threads", file);
	rc = s.exit_status;
	free(rows);
	free(fns);
	free(ppp_rows);
	free(resid.paths);
	free(ppp.paths);
	rpt_profile_free(&prof);
	session_close(&s);
	return rc;
}
