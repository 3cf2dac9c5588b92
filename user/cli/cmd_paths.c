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

#include "commands.h"
#include "json_out.h"
#include "log.h"
#include "profile.h"
#include "session.h"
#include "table_fmt.h"

/* The two views `paths` prints, with the totals under them.  Cost is the
 * profile's exact one (count x static IR instructions), printed as the
 * dynamic instruction count. */
struct paths_view {
	const char *file;
	const struct rpt_profile *prof;
	struct rpt_row *paths, *fns;
	size_t npaths, nfns, shown;
};

/* Short kind names so the text table fits 100 columns (docs/cli.md lists them). */
static const char *short_start(const struct rpt_path *r)
{
	static const char *const names[] = {"entry", "loop", "call", "cut"};
	return names[r->start];
}

static const char *short_end(const struct rpt_path *r)
{
	static const char *const names[] = {"ret", "loop", "call", "cut", "noret"};
	return names[r->end];
}

static void print_text(FILE *out, const struct paths_view *v)
{
	const struct rpt_profile *p = v->prof;
	const struct wpp_decode_stats *st = &p->stats;
	char name[64], lines[32], kinds[16];

	fprintf(out, "Acyclic path profile of %s\n", v->file);
	fprintf(out,
		"%" PRIu64 " path executions, %zu distinct paths in %zu functions, %" PRIu64
		" dynamic IR instructions\n\n",
		p->total_count, v->npaths, v->nfns, p->total_cost);
	/* 9+1+5+1+22+1+11+1+4+1+6+1+12+1+11+1+11 = 99 columns at most */
	fprintf(out, "%9s %5s %-22s %11s %4s %6s %12s %-11s %s\n", "count", "%", "function", "path",
		"blks", "insns", "count*insns", "lines", "start>end");
	for (size_t i = 0; i < v->shown; i++) {
		const struct rpt_row *row = &v->paths[i];
		const struct rpt_path *r = row->path;
		fmt_fit_mid(name, 22, r->fn->name);
		if (r->line_min)
			snprintf(lines, sizeof(lines), "%" PRIu32 "-%" PRIu32, r->line_min,
				 r->line_max);
		else
			snprintf(lines, sizeof(lines), "?");
		if (r->is_block)
			snprintf(kinds, sizeof(kinds), "(block)");
		else
			snprintf(kinds, sizeof(kinds), "%s>%s", short_start(r), short_end(r));
		fprintf(out,
			"%9" PRIu64 " %5.1f %-22s %s%10" PRIu64 " %4" PRIu32 " %6" PRIu64
			" %12" PRIu64 " %-11s %s\n",
			row->count,
			p->total_count ? 100.0 * (double)row->count / (double)p->total_count : 0.0,
			name, r->is_block ? "b" : " ", r->id, r->nblocks, r->insns, row->cost,
			lines, kinds);
	}
	if (v->shown < v->npaths)
		fprintf(out, "... %zu more paths (use --top)\n", v->npaths - v->shown);

	fprintf(out, "\n%10s %8s %13s  %s\n", "count", "distinct", "dyn insns",
		"function (definition)");
	for (size_t i = 0; i < v->nfns; i++) {
		const struct wpp_fn *fn = v->fns[i].fn;
		char fname[41], file[31];
		/* Cut names in the middle and files from the left: a file's end
		 * (its base name) is what identifies it. */
		fmt_fit_mid(fname, 40, fn->name);
		fmt_fit_left(file, 30, fn->file[0] ? fn->file : "?");
		fprintf(out, "%10" PRIu64 " %8" PRIu64 " %13" PRIu64 "  %s (%s:%" PRIu32 ")\n",
			v->fns[i].count, v->fns[i].distinct, v->fns[i].cost, fname, file, fn->line);
	}
	fprintf(out,
		"\ntotal: %" PRIu64 " executions, %zu distinct paths, %" PRIu64
		" dynamic IR instructions\n",
		p->total_count, v->npaths, p->total_cost);
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
	fputs(",\"paths\":[", out);
	for (size_t i = 0; i < v->shown; i++) {
		const struct rpt_row *row = &v->paths[i];
		const struct rpt_path *r = row->path;
		fputs(i ? ",\n{\"function\":" : "\n{\"function\":", out);
		json_str(out, r->fn->name);
		fprintf(out,
			",\"stable_id\":\"%016" PRIx64 "\",\"%s\":%" PRIu64 ",\"count\":%" PRIu64
			",\"blocks\":%" PRIu32 ",\"insns\":%" PRIu64 ",\"count_insns\":%" PRIu64
			",\"line_min\":%" PRIu32 ",\"line_max\":%" PRIu32,
			r->fn->stable_id, r->is_block ? "block" : "path", r->id, row->count,
			r->nblocks, r->insns, row->cost, r->line_min, r->line_max);
		if (!r->is_block)
			fprintf(out, ",\"start\":\"%s\",\"end\":\"%s\"",
				wpp_path_start_name(r->start), wpp_path_end_name(r->end));
		fputc('}', out);
	}
	fputs("\n],\"functions\":[", out);
	for (size_t i = 0; i < v->nfns; i++) {
		fputs(i ? ",\n{\"function\":" : "\n{\"function\":", out);
		json_str(out, v->fns[i].fn->name);
		fputs(",\"file\":", out);
		json_str(out, v->fns[i].fn->file);
		fprintf(out,
			",\"line\":%" PRIu32 ",\"count\":%" PRIu64 ",\"distinct\":%" PRIu64
			",\"dyn_insns\":%" PRIu64 "}",
			v->fns[i].fn->line, v->fns[i].count, v->fns[i].distinct, v->fns[i].cost);
	}
	fprintf(out,
		"\n],\"totals\":{\"executions\":%" PRIu64 ",\"distinct\":%zu,\"dyn_insns\":%" PRIu64
		",\"unattributed\":%" PRIu64 ",\"corrupt\":%" PRIu64 ",\"gaps\":%" PRIu64
		",\"lost_words\":%" PRIu64 "}}\n",
		p->total_count, v->npaths, p->total_cost, st->unattributed,
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

	v = (struct paths_view){.file = argv[optind], .prof = &prof};
	v.npaths = rpt_rows(&prof, RPT_BY_PATH, RPT_SORT_COUNT, &v.paths);
	v.nfns = rpt_rows(&prof, RPT_BY_FUNCTION, RPT_SORT_COUNT, &v.fns);
	v.shown = top >= 0 && (size_t)top < v.npaths ? (size_t)top : v.npaths;
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
	free(v.paths);
	free(v.fns);
	rpt_profile_free(&prof);
	session_close(&s);
	return rc;
}
