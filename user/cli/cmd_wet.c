/* SPDX-License-Identifier: MIT */
/*
 * cmd_wet.c — `wpptrace wet dump`: every path execution of a wet
 * recording with its statements and the values and addresses the trace
 * holds for them, uncompressed — the reference the WET builder and its
 * queries are checked against (docs/wet.md).  Timestamps are the thread's
 * path executions counted from 1, REPEAT runs expanded, as the WET counts
 * them.
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "json_out.h"
#include "log.h"
#include "session.h"
#include "wet_values.h"

enum format { FMT_TEXT, FMT_JSONL };

struct dump {
	enum format fmt;
	FILE *out;
	long max_paths; /* per thread, -1: all */
	struct wpp_wet_item *items;
	uint64_t items_cap;
};

/* Text: every statement of the path's blocks, the recorded ones with the
 * slots the items name (items in record order, so one cursor walks both). */
static void text_path(struct dump *dp, const struct wpp_event *ev, uint64_t ts)
{
	const struct wpp_fn *fn = ev->fn;
	const struct wpp_path *p = ev->path;
	const struct wpp_wet_tu_model *w = fn->tu->wet;
	uint32_t slot = 0;
	int indent = 2 * (int)ev->signal_depth;

	fprintf(dp->out, "%*s#%" PRIu64 "  %s  path %" PRIu64 "  %s -> %s%s%s\n", indent, "", ts,
		fn->name, ev->value, wpp_path_start_name(p->start), wpp_path_end_name(p->end),
		ev->signal_depth ? "  [signal]" : "",
		ev->wet == WPP_WET_LOST ? "  [values lost]" : "");
	for (uint32_t i = 0; i < p->nblocks; i++) {
		const struct wpp_meta_wet_block *bl = &fn->wet->blocks[p->blocks[i]];
		for (uint32_t k = 0; k < bl->nstmts; k++) {
			const struct wpp_meta_wet_stmt *s = &w->stmts[bl->first_stmt + k];
			fprintf(dp->out,
				"%*s    b%-3" PRIu32 " %s:%" PRIu32 ":%" PRIu32 "  %%%" PRIu32
				" %s",
				indent, "", p->blocks[i], wpp_wet_stmt_file(fn, s), s->line,
				s->column, s->insn, wpp_wet_kind_name(s->kind));
			if (s->callee_str)
				fprintf(dp->out, " %s", wpp_tu_str(fn->tu, s->callee_str));
			for (int what = WPP_WET_REC_ADDR; what <= WPP_WET_REC_VALUE; what <<= 1) {
				char buf[64];
				if (!(s->records & what))
					continue;
				if (ev->wet != WPP_WET_OK) {
					fprintf(dp->out, "  %s=?",
						what == WPP_WET_REC_ADDR ? "addr" : "value");
					continue;
				}
				wpp_wet_format(&dp->items[slot], ev->values[slot], buf,
					       sizeof(buf));
				fprintf(dp->out, "  %s=%s",
					what == WPP_WET_REC_ADDR ? "addr" : "value", buf);
				slot++;
			}
			fputc('\n', dp->out);
		}
	}
}

/* jsonl: one object per path execution, its recorded statements as items. */
static void json_path(struct dump *dp, const struct wpp_thread_trace *th,
		      const struct wpp_event *ev, uint64_t ts, uint64_t nslots)
{
	FILE *out = dp->out;
	const struct wpp_fn *fn = ev->fn;

	fprintf(out,
		"{\"type\":\"path\",\"pid\":%" PRIu32 ",\"gen\":%" PRIu32 ",\"tid\":%" PRIu32
		",\"ts\":%" PRIu64 ",\"function\":",
		th->pid, th->generation, th->tid, ts);
	json_str(out, fn->name);
	fprintf(out, ",\"path\":%" PRIu64 ",\"signal_depth\":%" PRIu32 ",\"values\":\"%s\"",
		ev->value, ev->signal_depth,
		ev->wet == WPP_WET_OK	  ? "ok"
		: ev->wet == WPP_WET_LOST ? "lost"
					  : "none");
	fputs(",\"items\":[", out);
	for (uint64_t i = 0; ev->wet == WPP_WET_OK && i < nslots; i++) {
		const struct wpp_wet_item *it = &dp->items[i];
		char buf[64];
		wpp_wet_format(it, ev->values[i], buf, sizeof(buf));
		fprintf(out,
			"%s{\"block\":%" PRIu32 ",\"insn\":%" PRIu32 ",\"kind\":\"%s\",\"file\":",
			i ? "," : "", it->block, it->stmt->insn, wpp_wet_kind_name(it->stmt->kind));
		json_str(out, wpp_wet_stmt_file(fn, it->stmt));
		fprintf(out,
			",\"line\":%" PRIu32 ",\"col\":%" PRIu32 ",\"access\":%" PRIu32
			",\"what\":\"%s\",\"raw\":%" PRId64 ",\"text\":",
			it->stmt->line, it->stmt->column, it->stmt->access,
			it->what == WPP_WET_REC_ADDR ? "addr" : "value", ev->values[i]);
		json_str(out, buf);
		fputc('}', out);
	}
	fputs("]}\n", out);
}

static int dump_thread(struct dump *dp, struct session *s, const struct wpp_thread_trace *th,
		       struct wpp_decode_stats *totals)
{
	struct wpp_decoder *d = wpp_decoder_open(th, s->mods, WPP_DECODE_EXPAND);
	struct wpp_event ev;
	uint64_t ts = 0;

	if (!d)
		return -1;
	if (dp->fmt == FMT_TEXT)
		fprintf(dp->out, "== pid %" PRIu32 " tid %" PRIu32 "%s ==\n", th->pid, th->tid,
			th->generation ? " (after exec)" : "");
	while ((dp->max_paths < 0 || ts < (uint64_t)dp->max_paths) && wpp_decoder_next(d, &ev)) {
		if (ev.kind != WPP_EV_PATH) {
			if (dp->fmt == FMT_TEXT && ev.kind == WPP_EV_GAP)
				fputs("   -- gap: words lost here --\n", dp->out);
			else if (dp->fmt == FMT_TEXT && ev.kind == WPP_EV_CORRUPT)
				fprintf(dp->out, "   ?? %s\n", ev.reason);
			continue;
		}
		ts++;
		if (!ev.fn->wet) {
			if (dp->fmt == FMT_TEXT)
				fprintf(dp->out,
					"#%" PRIu64 "  %s  path %" PRIu64 "  (not a wet build)\n",
					ts, ev.fn->name, ev.value);
			else
				json_path(dp, th, &ev, ts, 0);
			continue;
		}
		uint64_t nslots = ev.wet == WPP_WET_OK ? ev.nvalues : 0;
		if (nslots > dp->items_cap) {
			free(dp->items);
			dp->items_cap = nslots;
			dp->items = malloc(nslots * sizeof(*dp->items));
			if (!dp->items)
				wpp_die("out of memory");
		}
		if (nslots)
			wpp_wet_path_items(ev.fn, ev.path, dp->items);
		if (dp->fmt == FMT_TEXT)
			text_path(dp, &ev, ts);
		else
			json_path(dp, th, &ev, ts, nslots);
	}
	wpp_decode_stats_add(totals, wpp_decoder_stats(d));
	wpp_decoder_close(d);
	return 0;
}

static int dump(int argc, char **argv)
{
	static const struct option opts[] = {{"format", required_argument, NULL, 'f'},
					     {"pid", required_argument, NULL, 'p'},
					     {"tid", required_argument, NULL, 't'},
					     {"gen", required_argument, NULL, 'g'},
					     {NULL, 0, NULL, 0}};
	struct thread_filter filter = THREAD_FILTER_ANY;
	struct dump dp = {.fmt = FMT_TEXT, .out = stdout, .max_paths = -1};
	struct wpp_decode_stats totals = {0};
	struct session s;
	size_t nthreads = 0;
	int c, rc;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":f:p:t:n:", opts, NULL)) != -1) {
		switch (c) {
		case 'f':
			if (!strcmp(optarg, "text"))
				dp.fmt = FMT_TEXT;
			else if (!strcmp(optarg, "jsonl"))
				dp.fmt = FMT_JSONL;
			else {
				wpp_err("wet dump: unknown format '%s' (text or jsonl)", optarg);
				return WPP_EXIT_USAGE;
			}
			break;
		case 'n':
			if (parse_count_opt("wet dump", "n", optarg, &dp.max_paths))
				return WPP_EXIT_USAGE;
			break;
		case 'p':
		case 't':
		case 'g':
			if (parse_count_opt("wet dump",
					    c == 'p'   ? "pid"
					    : c == 't' ? "tid"
						       : "gen",
					    optarg,
					    c == 'p'   ? &filter.pid
					    : c == 't' ? &filter.tid
						       : &filter.gen))
				return WPP_EXIT_USAGE;
			break;
		default:
			return bad_option("wet dump", c, argv, opts);
		}
	}
	if (optind != argc - 1) {
		wpp_err("wet dump: expected one .wpp file (try wpptrace help wet)");
		return WPP_EXIT_USAGE;
	}
	rc = session_open(&s, argv[optind]);
	if (rc)
		return rc;
	if (session_refuse_counts(&s, "wet dump", argv[optind], &filter)) {
		session_close(&s);
		return WPP_EXIT_ERROR;
	}
	for (size_t i = 0; i < s.trace->nthreads; i++) {
		const struct wpp_thread_trace *th = &s.trace->threads[i];
		if (!thread_selected(&filter, th))
			continue;
		if (dp.fmt == FMT_TEXT && nthreads)
			fputc('\n', dp.out);
		if (dump_thread(&dp, &s, th, &totals) < 0) {
			free(dp.items);
			session_close(&s);
			return WPP_EXIT_ERROR;
		}
		nthreads++;
	}
	free(dp.items);
	if (dp.fmt == FMT_TEXT)
		fprintf(dp.out,
			"\n%zu threads: %" PRIu64 " wet path executions, %" PRIu64
			" values; %" PRIu64 " with values lost, %" PRIu64
			" value words unplaced; %" PRIu64 " corrupt, %" PRIu64 " gaps\n",
			nthreads, totals.wet_records, totals.wet_values, totals.wet_lost,
			totals.wet_lost_words, totals.corrupt, totals.gaps);
	if (totals.wet_lost)
		wpp_warn("wet dump: the values of %" PRIu64
			 " path executions were lost (torn or damaged records)",
			 totals.wet_lost);
	rc = s.exit_status;
	if (nthreads == 0)
		rc = no_thread_selected("wet dump", argv[optind], &filter, rc);
	if (fflush(stdout) != 0 || ferror(stdout)) {
		wpp_err("wet dump: writing the output failed");
		rc = WPP_EXIT_ERROR;
	}
	session_close(&s);
	return rc;
}

int cmd_wet(int argc, char **argv)
{
	if (argc >= 2 && !strcmp(argv[1], "dump"))
		return dump(argc - 1, argv + 1);
	if (argc >= 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		puts("usage: wpptrace wet dump run.wpp [--format text|jsonl] [--pid P] [--tid T] "
		     "[--gen G] [-n N]\n"
		     "       wpptrace wet info run.wpp\n"
		     "       wpptrace wet flow run.wpp --from FILE:LINE#N|@TS [--backward] [-n N]\n"
		     "       wpptrace wet values|addrs run.wpp FILE:LINE[:COL][@K] [-n N]\n"
		     "       wpptrace wet deps run.wpp FILE:LINE#N\n"
		     "       wpptrace wet slice run.wpp FILE:LINE#N [--forward] [-n MAX]\n"
		     "  queries take [--pid P] [--tid T] [--gen G] [--format text|json]\n"
		     "  [--wet-shadow-mb MB] (when they build the WET; default 1024) [--timing]");
		return WPP_EXIT_OK;
	}
	if (argc >= 2 && argv[1][0] != '-')
		return cmd_wet_query(argc - 1, argv + 1);
	wpp_err("wet: expected a subcommand: dump, info, flow, values, addrs, deps, slice "
		"(try wpptrace help wet)");
	return WPP_EXIT_USAGE;
}
