/* SPDX-License-Identifier: MIT */
/*
 * cmd_script.c — `wpptrace script`: every event of every selected thread,
 * in execution order, paths expanded to blocks with file:line.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "cli/commands.h"
#include "common/json_out.h"
#include "common/log.h"
#include "common/options.h"
#include "decode/session.h"

enum format { FMT_TEXT, FMT_JSONL, FMT_JSON };

struct script {
	enum format fmt;
	FILE *out;
	struct json_out j;		/* json, jsonl: one document, or one per line */
	int processes;			/* jsonl: process records first (--processes) */
	struct wpp_decode_stats totals; /* over the threads listed */
};

static void json_blocks(struct json_out *j, const struct wpp_fn *fn, const uint32_t *blocks,
			uint32_t n)
{
	json_array(j, "blocks");
	for (uint32_t i = 0; i < n; i++) {
		const char *file;
		uint32_t line;
		block_position(fn, blocks[i], &file, &line);
		json_object(j, NULL);
		json_u64(j, "block", blocks[i]);
		json_string(j, "file", file);
		if (line)
			json_u64(j, "line", line);
		else
			json_null(j, "line");
		json_close(j);
	}
	json_close(j);
}

/* "function" and its "stable_id": the metadata's identity of the function
 * (same source built the same way), which joins runs and binaries. */
static void json_function(struct json_out *j, const struct wpp_fn *fn)
{
	char id[24];

	json_string(j, "function", fn->name);
	snprintf(id, sizeof(id), "%016" PRIx64, fn->stable_id);
	json_string(j, "stable_id", id);
}

static void json_flags(struct json_out *j, uint32_t flags)
{
	static const struct {
		uint32_t bit;
		const char *name;
	} names[] = {{WPP_PROC_FORKED, "forked"},
		     {WPP_PROC_EXECED, "execed"},
		     {WPP_PROC_ATTACHED, "attached"}};

	json_array(j, "flags");
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (flags & names[i].bit)
			json_string(j, NULL, names[i].name);
	json_close(j);
}

/* A line of its own in jsonl, an element in json's lists. */
static void end_record(struct script *sc)
{
	json_close(&sc->j);
	if (sc->fmt == FMT_JSONL)
		json_raw(&sc->j, "\n");
}

/* Processes that own a selected thread: pid, exec generation, parent, the
 * executable and how tracing found it. */
static void json_processes(struct script *sc, const struct wpp_trace *t,
			   const struct thread_filter *f)
{
	struct json_out *j = &sc->j;

	if (sc->fmt == FMT_JSON)
		json_array_lines(j, "processes", ",", "\n");
	for (size_t i = 0; i < t->nprocs; i++) {
		const struct wpp_process_rec *pr = &t->procs[i];
		int selected = 0;
		for (size_t k = 0; k < t->nthreads && !selected; k++)
			selected = t->threads[k].pid == pr->pid &&
				   t->threads[k].generation == pr->generation &&
				   thread_selected(f, &t->threads[k]);
		if (!selected)
			continue;
		json_object(j, NULL);
		json_string(j, "type", "process");
		json_u64(j, "pid", pr->pid);
		json_u64(j, "gen", pr->generation);
		json_u64(j, "ppid", pr->ppid);
		json_u64(j, "parent_tid", pr->parent_tid);
		json_u64(j, "parent_gen", pr->parent_generation);
		json_string(j, "exe", pr->exe ? pr->exe : "");
		json_flags(j, pr->flags);
		json_u64(j, "time_ns", pr->time_ns);
		end_record(sc);
	}
	if (sc->fmt == FMT_JSON) {
		json_raw(j, "\n");
		json_close(j);
	}
}

static const char *const event_types[] = {[WPP_EV_PATH] = "path",
					  [WPP_EV_BLOCK] = "block",
					  [WPP_EV_GAP] = "gap",
					  [WPP_EV_UNATTRIBUTED] = "unattributed",
					  [WPP_EV_CORRUPT] = "corrupt"};

static void json_event(struct script *sc, const struct wpp_thread_trace *th, uint64_t seq,
		       const struct wpp_event *ev)
{
	struct json_out *j = &sc->j;

	json_object(j, NULL);
	json_string(j, "type", event_types[ev->kind]);
	json_u64(j, "pid", th->pid);
	json_u64(j, "gen", th->generation);
	json_u64(j, "tid", th->tid);
	json_u64(j, "seq", seq);
	if (ev->signal_depth)
		json_u64(j, "signal_depth", ev->signal_depth);
	if (ev->repeat)
		json_u64(j, "repeat", ev->repeat);
	switch (ev->kind) {
	case WPP_EV_PATH:
		json_function(j, ev->fn);
		json_u64(j, "fid", ev->fid);
		json_u64(j, "path", ev->value);
		json_string(j, "start", wpp_path_start_name(ev->path->start));
		json_string(j, "end", wpp_path_end_name(ev->path->end));
		json_blocks(j, ev->fn, ev->path->entered, ev->path->nentered);
		break;
	case WPP_EV_BLOCK: {
		uint32_t b = (uint32_t)ev->value;
		json_function(j, ev->fn);
		json_u64(j, "fid", ev->fid);
		json_blocks(j, ev->fn, &b, 1);
		break;
	}
	case WPP_EV_GAP:
		if (ev->lost_words == WPP_LOST_UNKNOWN)
			json_null(j, "lost_words");
		else
			json_u64(j, "lost_words", ev->lost_words);
		json_u64(j, "lost_batches", ev->lost_batches);
		break;
	case WPP_EV_UNATTRIBUTED:
	case WPP_EV_CORRUPT:
		json_u64(j, "fid", ev->fid);
		json_u64(j, "payload", ev->value);
		json_string(j, "reason", ev->reason);
		if (ev->kind == WPP_EV_UNATTRIBUTED && ev->lost_words)
			json_u64(j, "records", ev->lost_words);
		if (ev->fn)
			json_function(j, ev->fn);
		break;
	}
	end_record(sc);
}

static void text_event(struct script *sc, uint64_t seq, const struct wpp_event *ev)
{
	FILE *out = sc->out;
	const char *file;
	uint32_t line;
	int indent = 2 * (int)ev->signal_depth;

	switch (ev->kind) {
	case WPP_EV_PATH:
		fprintf(out, "%*s%6" PRIu64 "  %s  path %" PRIu64 "  %s -> %s%s%s\n", indent, "",
			seq, ev->fn->name, ev->value, wpp_path_start_name(ev->path->start),
			wpp_path_end_name(ev->path->end), ev->signal_depth ? "  [signal]" : "",
			ev->repeat ? "  [again]" : "");
		for (uint32_t i = 0; i < ev->path->nentered; i++) {
			block_position(ev->fn, ev->path->entered[i], &file, &line);
			fprintf(out, "%*s          b%-4" PRIu32 " %s:%" PRIu32 "\n", indent, "",
				ev->path->entered[i], file[0] ? file : "?", line);
		}
		break;
	case WPP_EV_BLOCK:
		block_position(ev->fn, (uint32_t)ev->value, &file, &line);
		fprintf(out, "%*s%6" PRIu64 "  %s  b%" PRIu64 "  %s:%" PRIu32 "%s\n", indent, "",
			seq, ev->fn->name, ev->value, file[0] ? file : "?", line,
			ev->signal_depth ? "  [signal]" : "");
		break;
	case WPP_EV_GAP:
		if (ev->lost_words == WPP_LOST_UNKNOWN)
			fprintf(out,
				"%*s%6" PRIu64 "  -- gap: %" PRIu64
				" batches lost (size unknown) --\n",
				indent, "", seq, ev->lost_batches);
		else
			fprintf(out, "%*s%6" PRIu64 "  -- gap: %" PRIu64 " words lost --\n", indent,
				"", seq, ev->lost_words);
		break;
	case WPP_EV_UNATTRIBUTED:
	case WPP_EV_CORRUPT:
		fprintf(out, "%*s%6" PRIu64 "  ?? %s fid %" PRIu32 " payload 0x%" PRIx64 ": %s\n",
			indent, "", seq, ev->kind == WPP_EV_CORRUPT ? "corrupt" : "unattributed",
			ev->fid, ev->value, ev->reason);
		break;
	}
}

/* One thread's events (session_each_thread's callback: ctx is the script). */
static int script_thread(void *ctx, struct session *s, const struct wpp_thread_trace *th)
{
	struct script *sc = ctx;
	struct wpp_decoder *d =
	    session_listing_decoder(s, th, sc->fmt == FMT_TEXT ? sc->out : NULL);
	struct wpp_event ev;
	uint64_t seq = 0;

	if (!d)
		return -1;
	if (sc->fmt == FMT_JSON) {
		json_object(&sc->j, NULL);
		json_u64(&sc->j, "pid", th->pid);
		json_u64(&sc->j, "gen", th->generation);
		json_u64(&sc->j, "tid", th->tid);
		json_array_lines(&sc->j, "events", ",", "\n");
	}
	while (wpp_decoder_next(d, &ev)) {
		if (sc->fmt == FMT_TEXT)
			text_event(sc, seq, &ev);
		else
			json_event(sc, th, seq, &ev);
		seq++;
	}
	if (sc->fmt == FMT_JSON) {
		json_raw(&sc->j, "\n");
		json_close(&sc->j);
		json_close(&sc->j);
	}
	wpp_decode_stats_add(&sc->totals, wpp_decoder_stats(d));
	wpp_decoder_close(d);
	return 0;
}

static void summary(struct script *sc, const struct wpp_trace *t, const struct wpp_decode_stats *st,
		    size_t nthreads)
{
	if (sc->fmt == FMT_JSON) {
		struct json_out *j = &sc->j;
		json_close(j); /* threads */
		json_object(j, "summary");
		json_u64(j, "threads", nthreads);
		json_u64(j, "words", st->words);
		json_u64(j, "paths", st->paths);
		json_u64(j, "blocks", st->blocks);
		json_u64(j, "gaps", st->gaps);
		json_u64(j, "lost_words", st->lost_words);
		json_u64(j, "unattributed", st->unattributed);
		json_u64(j, "corrupt", st->corrupt);
		json_bool(j, "complete", !t->stop_reason[0]);
		json_close(j);
		json_close(j);
		json_raw(j, "\n");
	} else if (sc->fmt == FMT_TEXT) {
		fprintf(sc->out,
			"\n%zu threads, %" PRIu64 " words: %" PRIu64 " paths, %" PRIu64
			" blocks, %" PRIu64 " gaps (%" PRIu64 " words lost), %" PRIu64
			" unattributed, %" PRIu64 " corrupt\n",
			nthreads, st->words, st->paths, st->blocks, st->gaps, st->lost_words,
			st->unattributed, st->corrupt);
	}
}

static const char *const formats[] = {"text", "jsonl", "json", NULL}; /* enum format */

static const struct opt_command script_cmd = {
    .name = "script",
    OPT_OPERANDS("one .wpp file", 1, 1),
    .usage = "script run.wpp [options]",
    .about =
	"For each thread, every executed path instance expanded to its basic blocks\n"
	"with function and file:line, plus gaps (lost data) and unattributed words.\n"
	"A recording of -fwpp-mode=count code holds counts, not order: refused in one line.\n"};

int cmd_script(int argc, char **argv)
{
	struct thread_filter filter = THREAD_FILTER_ANY;
	struct script sc = {.fmt = FMT_TEXT, .out = stdout};
	struct session s;
	long nthreads;
	int rc, first, fmt = FMT_TEXT;
	struct opt table[] = {
	    OPT_WORD_('f', "format",
		      "text: a readable listing; jsonl: one JSON object per event;\n"
		      "json: one JSON document (docs/cli.md)",
		      &fmt, formats, OPT_SHOW_DEFAULT),
	    OPTS_THREADS(filter),
	    OPT_FLAG_(0, "processes",
		      "jsonl: first one \"process\" object per process (pid, ppid,\n"
		      "exe, flags)",
		      &sc.processes),
	    OPT_END_,
	};

	if ((rc = opts_parse(&script_cmd, table, argc, argv, &first)) != 0)
		return rc > 0 ? WPP_EXIT_OK : WPP_EXIT_USAGE;
	sc.fmt = (enum format)fmt;
	if ((rc = session_open_ordered(&s, "script", argv[first], &filter)) != 0)
		return rc;
	json_init(&sc.j, sc.out, 0);
	if (sc.fmt == FMT_JSON) {
		json_object(&sc.j, NULL);
		json_string(&sc.j, "file", argv[first]);
	}
	/* jsonl readers take every line for a thread's event: process lines
	 * only when asked for; the json document always has them. */
	if (sc.fmt == FMT_JSON || (sc.fmt == FMT_JSONL && sc.processes))
		json_processes(&sc, s.trace, &filter);
	if (sc.fmt == FMT_JSON)
		json_array(&sc.j, "threads");
	nthreads = session_each_thread(&s, &filter, sc.fmt == FMT_TEXT ? sc.out : NULL,
				       script_thread, &sc);
	if (nthreads < 0) {
		session_close(&s);
		return WPP_EXIT_ERROR;
	}
	summary(&sc, s.trace, &sc.totals, (size_t)nthreads);
	rc = s.exit_status;
	if (nthreads == 0)
		rc = no_thread_selected("script", argv[first], &filter, rc);
	session_close(&s);
	return rc;
}
