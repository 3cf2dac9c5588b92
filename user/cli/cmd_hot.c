/* SPDX-License-Identifier: MIT */
/*
 * cmd_hot.c — `wpptrace hot`: minimal hot subpaths of each thread's whole
 * program path (definitions and algorithm: user/analysis/hotsub.h,
 * docs/sequitur.md), found on the grammar's DAG without expanding it, and
 * printed as the functions and source lines they run through.
 *
 * Cost of a path: its static instruction count (sum of its blocks'
 * ninsns, from the metadata; --cost insns, the default) or 1 (--cost
 * count).  Paths whose id does not expand cost 0 in insns mode.  --cost
 * COUNTER (a counter recorded with the trace, docs/counters.md): the
 * counter events the thread's executions of the path incurred, per
 * execution (an estimate from samples, user/report/costs.h).
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "costs.h"
#include "hotsub.h"
#include "json_out.h"
#include "log.h"
#include "session.h"
#include "thread_grammar.h"

struct hot_opts {
	struct thread_filter filter;
	long min_len, max_len, top;
	uint64_t min_cost;
	int count_cost, json;
	const char *counter;		     /* --cost COUNTER, or NULL */
	const struct cost_attribution *attr; /* its samples, attributed */
};

/* Each terminal's counter events per execution in this thread. */
static void counter_costs(const struct hot_opts *o, const struct wpp_thread_grammar *tg,
			  const struct terminal_info *info, const struct wppdag *d, uint64_t *cost)
{
	uint32_t nterm = tg->hdr.nterminals;
	uint64_t *freq = calloc(nterm ? nterm : 1, sizeof(uint64_t));
	int *is_block = calloc(nterm ? nterm : 1, sizeof(int));

	if (!freq || !is_block || wppdag_terminal_frequencies(d, freq, nterm) < 0)
		wpp_die("out of memory");
	for (uint32_t t = 0; t < nterm; t++)
		is_block[t] = info[t].is_block;
	if (cost_per_terminal(o->attr, tg->hdr.pid, tg->hdr.generation, tg->hdr.tid, tg->terms,
			      is_block, freq, nterm, cost) < 0)
		wpp_die("out of memory");
	free(is_block);
	free(freq);
}

static void print_path(FILE *out, const struct wpp_thread_grammar *tg,
		       const struct terminal_info *info, uint32_t t, int json, int first)
{
	const struct terminal_info *ti = &info[t];
	const struct wpp_grammar_terminal *term = &tg->terms[t];

	if (json) {
		fprintf(out, "%s{\"fid\": %" PRIu32 ", \"path\": %" PRIu64 ", \"function\": ",
			first ? "" : ", ", term->fid, term->path_id);
		if (ti->fn) {
			json_str(out, ti->fn->name);
			fputs(", \"file\": ", out);
			json_str(out, ti->file ? ti->file : "");
			fprintf(out,
				", \"line_min\": %" PRIu32 ", \"line_max\": %" PRIu32
				", \"insns\": %" PRIu64 "}",
				ti->line_min, ti->line_max, ti->insns);
		} else {
			fputs("null}", out);
		}
		return;
	}
	if (ti->fn)
		fprintf(out,
			"      %-24s %s %-6" PRIu64 " %s:%" PRIu32 "-%" PRIu32 "  (%" PRIu64
			" insns)\n",
			ti->fn->name, ti->is_block ? "block" : "path ", term->path_id,
			ti->file ? ti->file : "?", ti->line_min, ti->line_max, ti->insns);
	else
		fprintf(out, "      fid %" PRIu32 " path %" PRIu64 " (unknown function)\n",
			term->fid, term->path_id);
}

static int hot_thread(FILE *out, const struct hot_opts *o, const struct wpp_thread_grammar *tg,
		      const struct terminal_info *info, int first)
{
	uint32_t nterm = tg->hdr.nterminals;
	uint64_t *cost = malloc((nterm ? nterm : 1) * sizeof(*cost));
	struct hotsub_result r;
	struct wppdag d;

	if (!cost || wppdag_init(&d, &tg->g) < 0)
		wpp_die("out of memory");
	if (o->attr)
		counter_costs(o, tg, info, &d, cost);
	else
		for (uint32_t t = 0; t < nterm; t++)
			cost[t] = o->count_cost ? 1 : info[t].insns;
	struct hotsub_params p = {(uint32_t)o->min_len, (uint32_t)o->max_len, o->min_cost, cost,
				  nterm};
	if (hotsub_find(&d, &p, &r) < 0)
		wpp_die("out of memory finding hot subpaths");
	hotsub_sort_by_cost(&r);
	size_t shown = o->top >= 0 && (size_t)o->top < r.n ? (size_t)o->top : r.n;
	if (o->json) {
		fprintf(out,
			"%s{\"pid\": %" PRIu32 ", \"tid\": %" PRIu32 ", \"gen\": %" PRIu32
			", \"paths\": %" PRIu64 ", \"hot_subpaths\": %zu, \"subpaths\": [",
			first ? "" : ",\n  ", tg->hdr.pid, tg->hdr.tid, tg->hdr.generation,
			tg->hdr.nsymbols, r.n);
	} else {
		fprintf(out,
			"thread %" PRIu32 " (pid %" PRIu32 ", generation %" PRIu32 "): %" PRIu64
			" paths, %zu minimal hot subpath%s (length %ld..%ld, cost >= %" PRIu64
			" %s)%s\n",
			tg->hdr.tid, tg->hdr.pid, tg->hdr.generation, tg->hdr.nsymbols, r.n,
			r.n == 1 ? "" : "s", o->min_len, o->max_len, o->min_cost,
			o->counter	? o->counter
			: o->count_cost ? "path executions"
					: "instructions",
			shown < r.n ? ", the costliest shown" : "");
	}
	for (size_t i = 0; i < shown; i++) {
		const struct hotsub_path *h = &r.paths[i];
		if (o->json) {
			fprintf(out,
				"%s\n   {\"cost\": %" PRIu64 ", \"frequency\": %" PRIu64
				", \"length\": %" PRIu32 ", \"terminals\": [",
				i ? "," : "", h->cost, h->occurrences, h->len);
			for (uint32_t k = 0; k < h->len; k++)
				fprintf(out, "%s\"p%" PRIu32 "\"", k ? ", " : "", h->syms[k]);
			fputs("], \"sequence\": [", out);
			for (uint32_t k = 0; k < h->len; k++)
				print_path(out, tg, info, h->syms[k], 1, k == 0);
			fputs("]}", out);
		} else {
			fprintf(out,
				"  #%zu  cost %" PRIu64 "  frequency %" PRIu64 "  length %" PRIu32
				"\n",
				i + 1, h->cost, h->occurrences, h->len);
			for (uint32_t k = 0; k < h->len; k++)
				print_path(out, tg, info, h->syms[k], 0, 0);
		}
	}
	if (o->json)
		fputs("]}", out);
	else
		fputc('\n', out);
	hotsub_result_free(&r);
	wppdag_free(&d);
	free(cost);
	return 0;
}

int cmd_hot(int argc, char **argv)
{
	static const struct option opts[] = {
	    {"format", required_argument, NULL, 'f'},	{"pid", required_argument, NULL, 'p'},
	    {"tid", required_argument, NULL, 't'},	{"gen", required_argument, NULL, 'g'},
	    {"min-len", required_argument, NULL, 'a'},	{"max-len", required_argument, NULL, 'b'},
	    {"min-cost", required_argument, NULL, 'c'}, {"cost", required_argument, NULL, 'C'},
	    {"top", required_argument, NULL, 'n'},	{NULL, 0, NULL, 0}};
	struct hot_opts o = {.filter = THREAD_FILTER_ANY,
			     .min_len = 2,
			     .max_len = 20,
			     .top = 20,
			     .min_cost = 100000};
	struct session s;
	int c, rc;
	long v;

	optind = 1;
	while ((c = getopt_long(argc, argv, "f:p:t:n:", opts, NULL)) != -1) {
		switch (c) {
		case 'f':
			if (strcmp(optarg, "text") && strcmp(optarg, "json")) {
				wpp_err("hot: unknown format '%s' (text or json)", optarg);
				return WPP_EXIT_USAGE;
			}
			o.json = !strcmp(optarg, "json");
			break;
		case 'C':
			/* insns, count, or the name of a recorded counter */
			o.count_cost = !strcmp(optarg, "count");
			o.counter = strcmp(optarg, "insns") && !o.count_cost ? optarg : NULL;
			break;
		case 'c': {
			char *end;
			double d = strtod(optarg, &end); /* 100000 or 1e6 */
			if (end == optarg || *end || !(d >= 0 && d < 1.8e19)) {
				wpp_err("hot: --min-cost needs a number, not '%s'", optarg);
				return WPP_EXIT_USAGE;
			}
			o.min_cost = (uint64_t)d;
			break;
		}
		default:
			if (c == '?' || c == ':' || !optarg || (v = parse_count(optarg)) < 0) {
				wpp_err("hot: bad arguments (try wpptrace help hot)");
				return WPP_EXIT_USAGE;
			}
			if (c == 'p')
				o.filter.pid = v;
			else if (c == 't')
				o.filter.tid = v;
			else if (c == 'g')
				o.filter.gen = v;
			else if (c == 'a')
				o.min_len = v;
			else if (c == 'b')
				o.max_len = v;
			else
				o.top = v;
		}
	}
	if (o.min_len < 1 || o.max_len < o.min_len || o.max_len > 4096) {
		wpp_err("hot: need 1 <= --min-len <= --max-len <= 4096");
		return WPP_EXIT_USAGE;
	}
	if (optind != argc - 1) {
		wpp_err("hot: expected one .wpp file (try wpptrace help hot)");
		return WPP_EXIT_USAGE;
	}
	if ((rc = session_open(&s, argv[optind])))
		return rc;
	rc = s.exit_status;
	struct cost_data cd = {0};
	struct cost_attribution attr = {0};
	char cost_line[512] = "";
	if (o.counter) {
		int idx = cost_load(s.trace, &cd) < 0 ? -2 : cost_counter_find(&cd, o.counter);
		if (idx < 0 || cost_attribute(s.trace, s.mods, &cd, (uint32_t)idx, o.filter.pid,
					      o.filter.tid, &attr) < 0) {
			cost_data_free(&cd);
			session_close(&s);
			return idx == -1 ? WPP_EXIT_USAGE : WPP_EXIT_ERROR;
		}
		o.attr = &attr;
		/* Estimates say so, with their sample counts and what was not attributed. */
		cost_summary(cost_line, sizeof(cost_line), &cd, &attr);
		if (!o.json)
			printf("%s\n", cost_line);
	}
	if (o.json) {
		printf("{\"file\": ");
		json_str(stdout, argv[optind]);
		printf(", \"cost\": \"%s\", \"min_len\": %ld, \"max_len\": %ld, \"min_cost\": "
		       "%" PRIu64,
		       o.counter      ? o.counter
		       : o.count_cost ? "count"
				      : "insns",
		       o.min_len, o.max_len, o.min_cost);
		if (o.counter) {
			struct cost_tally tally;
			cost_tally_of(&cd, &attr, &tally);
			printf(", \"cost_samples\": ");
			cost_tally_json(stdout, &tally);
		}
		printf(", \"threads\": [\n  ");
	}
	int first = 1;
	struct grammar_builds builds = {0};
	for (size_t i = 0; i < s.trace->nthreads; i++) {
		const struct wpp_thread_trace *th = &s.trace->threads[i];
		struct wpp_thread_grammar tg;
		enum grammar_origin origin;

		if (!thread_selected(&o.filter, th))
			continue;
		if (thread_grammar_load(s.trace, th, &tg, &origin, &builds) < 0) {
			rc = WPP_EXIT_ERROR;
			break;
		}
		struct terminal_info *info =
		    calloc(tg.hdr.nterminals ? tg.hdr.nterminals : 1, sizeof(*info));
		if (!info || thread_grammar_describe(&tg, s.mods, info) < 0)
			wpp_die("out of memory");
		hot_thread(stdout, &o, &tg, info, first);
		first = 0;
		free(info);
		wpp_thread_grammar_free(&tg);
	}
	if (o.json)
		printf("]}\n");
	if (first)
		wpp_warn("%s: no thread matches the --pid/--tid/--gen filter", argv[optind]);
	thread_grammar_suggest_store("hot", argv[optind], &builds);
	if (fflush(stdout) != 0 || ferror(stdout)) {
		wpp_err("hot: writing the output failed");
		rc = WPP_EXIT_ERROR;
	}
	if (o.counter) {
		cost_attribution_free(&attr);
		cost_data_free(&cd);
	}
	session_close(&s);
	return rc;
}
