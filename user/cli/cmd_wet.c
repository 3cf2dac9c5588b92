/* SPDX-License-Identifier: MIT */
/*
 * cmd_wet.c — `wpptrace wet dump`: every path execution of a wet
 * recording with its statements and the values and addresses the trace
 * holds for them, uncompressed — the reference the WET builder and its
 * queries are checked against (docs/wet.md).  Timestamps are the thread's
 * path executions counted from 1, REPEAT runs expanded, as the WET counts
 * them.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "common/json_out.h"
#include "common/log.h"
#include "common/options.h"
#include "decode/session.h"
#include "decode/wet_values.h"

enum format { FMT_TEXT, FMT_JSONL };

struct dump {
	enum format fmt;
	FILE *out;
	long max_paths; /* per thread, -1: all */
	struct wpp_wet_item *items;
	uint64_t items_cap;
	struct wpp_decode_stats totals; /* over the threads dumped */
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
	const struct wpp_fn *fn = ev->fn;
	struct json_out j;

	json_init(&j, dp->out, 0);
	json_object(&j, NULL);
	json_string(&j, "type", "path");
	json_u64(&j, "pid", th->pid);
	json_u64(&j, "gen", th->generation);
	json_u64(&j, "tid", th->tid);
	json_u64(&j, "ts", ts);
	json_string(&j, "function", fn->name);
	json_u64(&j, "path", ev->value);
	json_u64(&j, "signal_depth", ev->signal_depth);
	json_u64(&j, "batch", ev->batch_seq);
	json_string(&j, "values",
		    ev->wet == WPP_WET_OK     ? "ok"
		    : ev->wet == WPP_WET_LOST ? "lost"
					      : "none");
	json_array(&j, "items");
	for (uint64_t i = 0; ev->wet == WPP_WET_OK && i < nslots; i++) {
		const struct wpp_wet_item *it = &dp->items[i];
		char buf[64];
		wpp_wet_format(it, ev->values[i], buf, sizeof(buf));
		json_object(&j, NULL);
		json_u64(&j, "block", it->block);
		json_u64(&j, "insn", it->stmt->insn);
		json_string(&j, "kind", wpp_wet_kind_name(it->stmt->kind));
		json_string(&j, "file", wpp_wet_stmt_file(fn, it->stmt));
		json_u64(&j, "line", it->stmt->line);
		json_u64(&j, "col", it->stmt->column);
		json_u64(&j, "access", it->stmt->access);
		json_string(&j, "what", it->what == WPP_WET_REC_ADDR ? "addr" : "value");
		json_i64(&j, "raw", (int64_t)ev->values[i]);
		json_string(&j, "text", buf);
		json_close(&j);
	}
	json_close(&j);
	json_close(&j);
	json_raw(&j, "\n");
}

/* One thread's path executions (session_each_thread's callback: ctx is the dump). */
static int dump_thread(void *ctx, struct session *s, const struct wpp_thread_trace *th)
{
	struct dump *dp = ctx;
	struct wpp_decoder *d =
	    session_listing_decoder(s, th, dp->fmt == FMT_TEXT ? dp->out : NULL);
	struct wpp_event ev;
	uint64_t ts = 0;

	if (!d)
		return -1;
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
	wpp_decode_stats_add(&dp->totals, wpp_decoder_stats(d));
	wpp_decoder_close(d);
	return 0;
}

static const char *const formats[] = {"text", "jsonl", NULL}; /* enum format */

static const struct opt_command dump_cmd = {
    .name = "wet dump",
    OPT_OPERANDS("one .wpp file", 1, 1),
    .usage = "wet dump run.wpp [options]",
    .about = "Every path execution of the selected threads of a recording of a program built\n"
	     "with wppcc -fwpp-mode=wet, numbered from 1 per thread (its timestamp), with its\n"
	     "statements in order: source position, kind, and the address and value the\n"
	     "trace recorded for it.  Uncompressed: the reference the WET is checked against.\n"};

static int dump(int argc, char **argv)
{
	struct thread_filter filter = THREAD_FILTER_ANY;
	struct dump dp = {.fmt = FMT_TEXT, .out = stdout, .max_paths = -1};
	struct session s;
	long nthreads;
	int rc, first, fmt = FMT_TEXT;
	struct opt table[] = {
	    OPT_WORD_('f', "format",
		      "text: a readable listing; jsonl: one JSON object per path\n"
		      "execution (docs/wet.md)",
		      &fmt, formats, OPT_SHOW_DEFAULT),
	    OPTS_THREADS(filter),
	    OPT_COUNT_('n', NULL, "N", "at most N path executions per thread", &dp.max_paths, 0,
		       LONG_MAX, 0),
	    OPT_END_,
	};

	if ((rc = opts_parse(&dump_cmd, table, argc, argv, &first)) != 0)
		return rc > 0 ? WPP_EXIT_OK : WPP_EXIT_USAGE;
	dp.fmt = (enum format)fmt;
	if ((rc = session_open_ordered(&s, "wet dump", argv[first], &filter)) != 0)
		return rc;
	nthreads =
	    session_each_thread(&s, &filter, dp.fmt == FMT_TEXT ? dp.out : NULL, dump_thread, &dp);
	free(dp.items);
	if (nthreads < 0) {
		session_close(&s);
		return WPP_EXIT_ERROR;
	}
	if (dp.fmt == FMT_TEXT)
		fprintf(dp.out,
			"\n%ld threads: %" PRIu64 " wet path executions, %" PRIu64
			" values; %" PRIu64 " with values lost, %" PRIu64
			" value words unplaced; %" PRIu64 " corrupt, %" PRIu64 " gaps\n",
			nthreads, dp.totals.wet_records, dp.totals.wet_values, dp.totals.wet_lost,
			dp.totals.wet_lost_words, dp.totals.corrupt, dp.totals.gaps);
	if (dp.totals.wet_lost)
		wpp_warn("wet dump: the values of %" PRIu64
			 " path executions were lost (torn or damaged records)",
			 dp.totals.wet_lost);
	rc = s.exit_status;
	if (nthreads == 0)
		rc = no_thread_selected("wet dump", argv[first], &filter, rc);
	session_close(&s);
	return rc;
}

int cmd_wet(int argc, char **argv)
{
	if (argc >= 2 && !strcmp(argv[1], "dump"))
		return dump(argc - 1, argv + 1);
	if (argc >= 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		char *help[] = {"dump", "--help", NULL};
		int rc = dump(2, help); /* the reference's help, then the queries */
		puts("\nThe queries, each with its own --help (docs/cli.md, \"wet\"):\n"
		     "  wet build|info run.wpp, wet flow run.wpp --from FILE:LINE#N|@TS,\n"
		     "  wet values|addrs run.wpp FILE:LINE, wet deps|slice run.wpp FILE:LINE#N");
		return rc;
	}
	if (argc >= 2 && argv[1][0] != '-')
		return cmd_wet_query(argc - 1, argv + 1);
	wpp_err("wet: expected a subcommand: dump, info, flow, values, addrs, deps, slice "
		"(try wpptrace help wet)");
	return WPP_EXIT_USAGE;
}
