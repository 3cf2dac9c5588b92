/* SPDX-License-Identifier: MIT */
/*
 * cmd_paths.c — `wpptrace paths`: the acyclic path profile.
 *
 * The counting is the shared report profile (user/report/profile.h: one pass
 * over the decoder, each distinct path expanded once, ids that do not expand
 * counted as corrupt); this file only picks the two views it prints — paths
 * and functions, merged across processes of the same binary, by count — and
 * opt_text_json them.
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

/* The two views `paths` prints, with the totals under them.  Cost is the
 * profile's exact one (count x static IR instructions), printed as the
 * dynamic instruction count. */
struct paths_view {
	const char *file;
	const struct rpt_profile *prof;
	struct paths_table t;
};

static void print_text(FILE *out, const struct paths_view *v)
{
	const struct rpt_profile *p = v->prof;
	const struct wpp_decode_stats *st = &p->stats;

	fprintf(out, "Acyclic path profile of %s\n", v->file);
	fprintf(out,
		"%" PRIu64 " path executions, %zu distinct paths in %zu functions, %" PRIu64
		" dynamic IR instructions\n\n",
		p->total_count, v->t.npaths, v->t.nfns, p->total_cost);
	paths_table_text(out, &v->t);
	fprintf(out,
		"\ntotal: %" PRIu64 " executions, %zu distinct paths, %" PRIu64
		" dynamic IR instructions\n",
		p->total_count, v->t.npaths, p->total_cost);
	if (st->unattributed || st->corrupt || p->corrupt_paths || st->gaps)
		fprintf(out,
			"not counted: %" PRIu64 " unattributed, %" PRIu64
			" corrupt records; %" PRIu64 " gaps (%" PRIu64 " words lost)\n",
			st->unattributed, st->corrupt + p->corrupt_paths, st->gaps, st->lost_words);
}

static void json_totals(struct json_out *j, const void *ctx)
{
	const struct paths_view *v = ctx;
	const struct rpt_profile *p = v->prof;
	const struct wpp_decode_stats *st = &p->stats;

	json_u64(j, "executions", p->total_count);
	json_u64(j, "distinct", v->t.npaths);
	json_u64(j, "dyn_insns", p->total_cost);
	json_u64(j, "unattributed", st->unattributed);
	json_u64(j, "corrupt", st->corrupt + p->corrupt_paths);
	json_u64(j, "gaps", st->gaps);
	json_u64(j, "lost_words", st->lost_words);
}

static const struct opt_command paths_cmd = {
    .name = "paths",
    OPT_OPERANDS("one .wpp file", 1, 1),
    .usage = "paths run.wpp [options]",
    .about = "Per function and path id: executions, blocks, static instructions of the\n"
	     "path and executions x instructions, source line span, start/end kinds;\n"
	     "sorted by executions, with per-function summaries and totals.\n"
	     "A recording of -fwpp-mode=count code (path counts, no order) reads the same:\n"
	     "the same paths and counts as a trace of a paths build.\n"};

int cmd_paths(int argc, char **argv)
{
	struct thread_filter filter = THREAD_FILTER_ANY;
	struct rpt_profile prof;
	struct paths_view v;
	long top = -1;
	int json = 0, rc, first;
	struct session s;
	struct opt table[] = {
	    OPT_FORMAT(&json, opt_text_json),
	    OPTS_THREADS(filter),
	    OPT_COUNT_('n', "top", "N", "only the N most executed paths", &top, 0, LONG_MAX, 0),
	    OPT_END_,
	};

	if ((rc = opts_parse(&paths_cmd, table, argc, argv, &first)) != 0)
		return rc > 0 ? WPP_EXIT_OK : WPP_EXIT_USAGE;
	rc = session_open(&s, argv[first]);
	if (rc)
		return rc;
	if (rpt_profile_build(&prof, argv[first], s.trace, s.mods, filter.pid, filter.tid,
			      filter.gen) < 0) {
		session_close(&s);
		return WPP_EXIT_ERROR;
	}
	if ((filter.pid >= 0 || filter.tid >= 0 || filter.gen >= 0) &&
	    prof.nimages == 0) { /* a typo, not an empty profile */
		rc = no_thread_selected("paths", argv[first], &filter, WPP_EXIT_OK);
		rpt_profile_free(&prof);
		session_close(&s);
		return rc;
	}

	struct rpt_row *rows, *fns;
	v = (struct paths_view){.file = argv[first], .prof = &prof};
	v.t.npaths = rpt_rows(&prof, RPT_BY_PATH, RPT_SORT_COUNT, &rows);
	v.t.nfns = rpt_rows(&prof, RPT_BY_FUNCTION, RPT_SORT_COUNT, &fns);
	v.t.paths = rows;
	v.t.fns = fns;
	v.t.shown = top >= 0 && (size_t)top < v.t.npaths ? (size_t)top : v.t.npaths;
	v.t.share_of = prof.total_count;
	if (json)
		paths_table_json(stdout, v.file, &v.t, json_totals, &v);
	else
		print_text(stdout, &v);
	if (filter.pid >= 0 && prof.total_count == 0)
		wpp_warn("%s: no paths for pid %ld", argv[first], filter.pid);
	else if ((filter.tid >= 0 || filter.gen >= 0) && prof.total_count == 0)
		wpp_warn("%s: no paths for the selected threads", argv[first]);
	rc = s.exit_status;
	free(rows);
	free(fns);
	rpt_profile_free(&prof);
	session_close(&s);
	return rc;
}
