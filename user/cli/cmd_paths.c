/* SPDX-License-Identifier: MIT */
/*
 * cmd_paths.c — `wpptrace paths`: the acyclic path profile.
 *
 * The counting is the shared report profile (user/report/profile.h: one pass
 * over the decoder, each distinct path expanded once, ids that do not expand
 * counted as corrupt); this file only picks the two views it prints — paths
 * and functions, merged across processes of the same binary, by count — and
 * formats them.
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "common/json_out.h"
#include "common/log.h"
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

static void print_json(FILE *out, const struct paths_view *v)
{
	const struct rpt_profile *p = v->prof;
	const struct wpp_decode_stats *st = &p->stats;

	fputs("{\"file\":", out);
	json_str(out, v->file);
	fputc(',', out);
	paths_table_json(out, &v->t);
	fprintf(out,
		",\"totals\":{\"executions\":%" PRIu64 ",\"distinct\":%zu,\"dyn_insns\":%" PRIu64
		",\"unattributed\":%" PRIu64 ",\"corrupt\":%" PRIu64 ",\"gaps\":%" PRIu64
		",\"lost_words\":%" PRIu64 "}}\n",
		p->total_count, v->t.npaths, p->total_cost, st->unattributed,
		st->corrupt + p->corrupt_paths, st->gaps, st->lost_words);
}

int cmd_paths(int argc, char **argv)
{
	static const struct option opts[] = {{"format", required_argument, NULL, 'f'},
					     {"pid", required_argument, NULL, 'p'},
					     {"top", required_argument, NULL, 'n'},
					     {NULL, 0, NULL, 0}};
	struct thread_filter filter = THREAD_FILTER_ANY;
	struct rpt_profile prof;
	struct paths_view v;
	long top = -1;
	int json = 0, c, rc;
	struct session s;

	optind = 1;
	opterr = 0; /* bad_option says it in one line */
	while ((c = getopt_long(argc, argv, ":f:p:n:", opts, NULL)) != -1) {
		switch (c) {
		case 'f':
			if (!strcmp(optarg, "text") || !strcmp(optarg, "json")) {
				json = !strcmp(optarg, "json");
				break;
			}
			wpp_err("paths: unknown format '%s' (text or json)", optarg);
			return WPP_EXIT_USAGE;
		case 'p':
		case 'n':
			if (parse_count_opt("paths", c == 'p' ? "pid" : "top", optarg,
					    c == 'p' ? &filter.pid : &top))
				return WPP_EXIT_USAGE;
			break;
		default: /* '?' or ':' */
			return bad_option("paths", c, argv, opts);
		}
	}
	if (optind != argc - 1) {
		wpp_err("paths: expected one .wpp file (try wpptrace help paths)");
		return WPP_EXIT_USAGE;
	}
	rc = session_open(&s, argv[optind]);
	if (rc)
		return rc;
	if (rpt_profile_build(&prof, argv[optind], s.trace, s.mods, filter.pid, filter.tid) < 0) {
		session_close(&s);
		return WPP_EXIT_ERROR;
	}
	if (filter.pid >= 0 && prof.nimages == 0) { /* a typo, not an empty profile */
		rc = no_thread_selected("paths", argv[optind], &filter, WPP_EXIT_OK);
		rpt_profile_free(&prof);
		session_close(&s);
		return rc;
	}

	struct rpt_row *rows, *fns;
	v = (struct paths_view){.file = argv[optind], .prof = &prof};
	v.t.npaths = rpt_rows(&prof, RPT_BY_PATH, RPT_SORT_COUNT, &rows);
	v.t.nfns = rpt_rows(&prof, RPT_BY_FUNCTION, RPT_SORT_COUNT, &fns);
	v.t.paths = rows;
	v.t.fns = fns;
	v.t.shown = top >= 0 && (size_t)top < v.t.npaths ? (size_t)top : v.t.npaths;
	v.t.share_of = prof.total_count;
	if (json)
		print_json(stdout, &v);
	else
		print_text(stdout, &v);
	if (filter.pid >= 0 && prof.total_count == 0)
		wpp_warn("%s: no paths for pid %ld", argv[optind], filter.pid);
	rc = s.exit_status;
	if (fflush(stdout) != 0 || ferror(stdout)) {
		wpp_err("paths: writing the output failed");
		rc = WPP_EXIT_ERROR;
	}
	free(rows);
	free(fns);
	rpt_profile_free(&prof);
	session_close(&s);
	return rc;
}
