/* SPDX-License-Identifier: MIT */
/*
 * cmd_hot.c — `wpptrace hot`: minimal hot subpaths of each thread's whole
 * program path (definitions and algorithm: user/analysis/grammar/hotsub.h,
 * docs/sequitur.md), found on the grammar's DAG without expanding it, and
 * printed as the functions and source lines they run through.
 *
 * Cost of a path: its static instruction count (sum of its blocks'
 * ninsns, from the metadata; --cost insns, the default) or 1 (--cost
 * count).  Paths whose id does not expand cost 0 in insns mode.  --cost
 * COUNTER (a counter recorded with the trace, docs/counters.md): the
 * counter events the thread's executions of the path incurred, per
 * execution (an estimate from samples, user/costs/costs.h).
 *
 * A file written by `wpptrace wpp --from-raw` has no threads, only raw
 * GRAMMAR chunks (WPP_GRAMMAR_RAW): each is reported like a thread, with
 * count costs (a raw symbol has no instructions nor counters; --cost count
 * is taken when no --cost is given and said in the header line).  Its
 * terminals are named as `wpp` names them: pV for value V when the chunk
 * has no table (then the values themselves are the terminals, up to
 * 2^31-2, and are renumbered densely for hotsub_find), else pN for table
 * entry N with its raw value beside it.  JSON: a raw grammar is an entry
 * of "threads" with pid, tid and gen 0 and "grammar": "raw" (a recorded
 * thread's entry has no "grammar" field), its sequence entries
 * {"fid": 0, "path": V, "function": null} with V the raw value.
 */
#include <limits.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "costs/cost_select.h"
#include "costs/costs.h"
#include "analysis/grammar/hotsub.h"
#include "common/json_out.h"
#include "common/log.h"
#include "common/options.h"
#include "decode/session.h"
#include "collect/thread_grammar.h"

struct hot_opts {
	struct thread_filter filter;
	long min_len, max_len, top;
	uint64_t min_cost;
	int count_cost, json;
	const char *cost_arg;		     /* --cost as given, or NULL */
	const char *counter;		     /* --cost COUNTER, or NULL */
	const struct cost_attribution *attr; /* its samples, attributed */
	struct json_out *json_out;	     /* --format json: the document */
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

/* How one grammar's terminals are named and described. */
struct hot_names {
	const struct wpp_thread_grammar *tg;
	const struct terminal_info *info; /* a recorded thread's; NULL for a raw grammar */
	const uint32_t *raw_vals;	  /* raw, no table: terminal t stands for raw_vals[t] */
	uint32_t raw_index;		  /* raw: its number in the file, from 1 */
};

/* The N of "pN", as `wpp` prints terminal t. */
static uint64_t terminal_name(const struct hot_names *nm, uint32_t t)
{
	return nm->raw_vals ? nm->raw_vals[t] : t;
}

/* A raw terminal's value: itself without a table, else its table entry. */
static uint64_t raw_value(const struct hot_names *nm, uint32_t t)
{
	return nm->raw_vals ? nm->raw_vals[t] : nm->tg->terms[t].path_id;
}

/* One path of a subpath, as a line of the text listing. */
static void path_text(FILE *out, const struct hot_names *nm, uint32_t t)
{
	char where[PATH_MAX + 32];

	if (!nm->info) {
		fprintf(out, "      p%-23" PRIu64 " raw symbol %" PRIu64 "\n", terminal_name(nm, t),
			raw_value(nm, t));
		return;
	}
	const struct terminal_info *ti = &nm->info[t];
	const struct wpp_grammar_terminal *term = &nm->tg->terms[t];

	/* pN first: the name `wpp --freq/--context/--order` take */
	fprintf(out, "      p%-6" PRIu32 " ", t);
	if (ti->fn)
		fprintf(out, "%-24s %s %-6" PRIu64 " %s  (%" PRIu64 " insns)\n", ti->fn->name,
			ti->is_block ? "block" : "path ", term->path_id,
			terminal_where(ti, where, sizeof(where)), ti->insns);
	else
		fprintf(out, "fid %" PRIu32 " path %" PRIu64 " (unknown function)\n", term->fid,
			term->path_id);
}

/* One path of a subpath, as an entry of its "sequence". */
static void path_json(struct json_out *j, const struct hot_names *nm, uint32_t t)
{
	json_object(j, NULL);
	if (!nm->info) {
		json_u64(j, "fid", 0);
		json_u64(j, "path", raw_value(nm, t));
		json_null(j, "function");
		json_close(j);
		return;
	}
	const struct terminal_info *ti = &nm->info[t];
	const struct wpp_grammar_terminal *term = &nm->tg->terms[t];

	json_u64(j, "fid", term->fid);
	json_u64(j, "path", term->path_id);
	if (ti->fn) {
		json_string(j, "function", ti->fn->name);
		json_string(j, "file", ti->file ? ti->file : "");
		json_u64(j, "line_min", ti->line_min);
		json_u64(j, "line_max", ti->line_max);
		json_u64(j, "insns", ti->insns);
	} else {
		json_null(j, "function");
	}
	json_close(j);
}

/* What hot found in one grammar: the model both renderings print. */
struct hot_found {
	const struct hot_names *nm;
	struct hotsub_result r; /* costliest first */
	size_t shown;		/* how many of them are printed (--top) */
};

/* The minimal hot subpaths of one grammar (d, over terminals < nterm with
 * cost[]), costliest first, at most --top of them shown (0: all). */
static void hot_find(const struct hot_opts *o, const struct hot_names *nm, const struct wppdag *d,
		     const uint64_t *cost, uint32_t nterm, struct hot_found *h)
{
	struct hotsub_params p = {(uint32_t)o->min_len, (uint32_t)o->max_len, o->min_cost, cost,
				  nterm};

	h->nm = nm;
	if (hotsub_find(d, &p, &h->r) < 0)
		wpp_die("out of memory finding hot subpaths");
	hotsub_sort_by_cost(&h->r);
	h->shown = o->top > 0 && (size_t)o->top < h->r.n ? (size_t)o->top : h->r.n;
}

static void hot_text(FILE *out, const struct hot_opts *o, const struct hot_found *h)
{
	const struct hot_names *nm = h->nm;
	const struct wpp_chunk_grammar *hdr = &nm->tg->hdr;
	char shown_note[64] = "";

	if (h->shown < h->r.n)
		snprintf(shown_note, sizeof(shown_note), ", the %zu costliest shown", h->shown);
	if (nm->info)
		fprintf(out, "thread %" PRIu32 " (pid %" PRIu32 ", generation %" PRIu32 ")",
			hdr->tid, hdr->pid, hdr->generation);
	else
		fprintf(out, "raw grammar %" PRIu32 " (wpp --from-raw; %s)", nm->raw_index,
			nm->raw_vals ? "pV is raw value V" : "pN is table entry N");
	fprintf(out,
		": %" PRIu64 " paths, %zu minimal hot subpath%s (length %ld..%ld, cost >= %" PRIu64
		" %s%s)%s\n",
		hdr->nsymbols, h->r.n, h->r.n == 1 ? "" : "s", o->min_len, o->max_len, o->min_cost,
		o->counter	? o->counter
		: o->count_cost ? "path executions"
				: "instructions",
		!nm->info && !o->cost_arg
		    ? "; --cost count: a raw grammar has no instruction counts"
		    : "",
		shown_note);
	for (size_t i = 0; i < h->shown; i++) {
		const struct hotsub_path *hp = &h->r.paths[i];
		fprintf(out,
			"  #%zu  cost %" PRIu64 "  frequency %" PRIu64 "  length %" PRIu32 "\n",
			i + 1, hp->cost, hp->occurrences, hp->len);
		for (uint32_t k = 0; k < hp->len; k++)
			path_text(out, nm, hp->syms[k]);
	}
	fputc('\n', out);
}

/* An entry of "threads" (docs/cli.md, hot). */
static void hot_json(struct json_out *j, const struct hot_found *h)
{
	const struct hot_names *nm = h->nm;
	const struct wpp_chunk_grammar *hdr = &nm->tg->hdr;
	char name[24];

	json_object(j, NULL);
	json_u64(j, "pid", nm->info ? hdr->pid : 0);
	json_u64(j, "tid", nm->info ? hdr->tid : 0);
	json_u64(j, "gen", nm->info ? hdr->generation : 0);
	if (!nm->info)
		json_string(j, "grammar", "raw");
	json_u64(j, "paths", hdr->nsymbols);
	json_u64(j, "hot_subpaths", h->r.n);
	json_array_lines(j, "subpaths", ",", "\n   ");
	for (size_t i = 0; i < h->shown; i++) {
		const struct hotsub_path *hp = &h->r.paths[i];
		json_object(j, NULL);
		json_u64(j, "cost", hp->cost);
		json_u64(j, "frequency", hp->occurrences);
		json_u64(j, "length", hp->len);
		json_array(j, "terminals");
		for (uint32_t k = 0; k < hp->len; k++) {
			snprintf(name, sizeof(name), "p%" PRIu64, terminal_name(nm, hp->syms[k]));
			json_string(j, NULL, name);
		}
		json_close(j);
		json_array(j, "sequence");
		for (uint32_t k = 0; k < hp->len; k++)
			path_json(j, nm, hp->syms[k]);
		json_close(j);
		json_close(j);
	}
	json_close(j);
	json_close(j);
}

/* One grammar found and printed the way --format asks. */
static void hot_report(const struct hot_opts *o, const struct hot_names *nm, const struct wppdag *d,
		       const uint64_t *cost, uint32_t nterm)
{
	struct hot_found h;

	hot_find(o, nm, d, cost, nterm, &h);
	if (o->json)
		hot_json(o->json_out, &h);
	else
		hot_text(stdout, o, &h);
	hotsub_result_free(&h.r);
}

static void hot_thread(const struct hot_opts *o, const struct wpp_thread_grammar *tg,
		       const struct terminal_info *info)
{
	uint32_t nterm = tg->hdr.nterminals;
	uint64_t *cost = malloc((nterm ? nterm : 1) * sizeof(*cost));
	struct hot_names nm = {tg, info, NULL, 0};
	struct wppdag d;

	if (!cost || wppdag_init(&d, &tg->g) < 0)
		wpp_die("out of memory");
	if (o->attr)
		counter_costs(o, tg, info, &d, cost);
	else
		for (uint32_t t = 0; t < nterm; t++)
			cost[t] = o->count_cost ? 1 : info[t].insns;
	hot_report(o, &nm, &d, cost, nterm);
	wppdag_free(&d);
	free(cost);
}

/* ---- raw grammars (wpp --from-raw) ---- */

/* A raw grammar without a table has its values as terminals, up to
 * 2^31-2, and hotsub_find's cost table is indexed by terminal: *dense is
 * a copy of g with them numbered 0..*n-1 in increasing value (so ties
 * between equally costly subpaths still sort by value), *vals (malloc'd)
 * maps them back.  0, or -1 when out of memory. */
static int dense_copy(const struct seq_grammar *g, struct seq_grammar *dense, uint32_t **vals,
		      uint32_t *n)
{
	uint32_t nodes = seq_grammar_nodes(g), total = g->start[nodes], u;
	uint32_t *v;
	char why[160];

	if (seq_grammar_terminals(g, &v, &u) < 0)
		return -1;
	if (seq_grammar_alloc(dense, g->nrules, g->nroots, total) < 0) {
		free(v);
		return -1;
	}
	dense->flags = g->flags;
	memcpy(dense->start, g->start, (nodes + 1) * sizeof(*g->start));
	for (uint32_t j = 0; j < total; j++) {
		uint32_t s = g->sym[j];
		dense->sym[j] = seq_is_rule(s) ? s : seq_grammar_terminal_rank(v, u, s);
	}
	/* the same shape as g, which was checked when it was read */
	if (seq_grammar_finish(dense, why, sizeof(why)) < 0)
		wpp_die("renumbering a raw grammar: %s", why);
	*vals = v;
	*n = u;
	return 0;
}

static int hot_raw_grammar(void *ctx, const struct wpp_thread_grammar *tg, uint32_t index)
{
	const struct hot_opts *o = ctx;
	struct hot_names nm = {tg, NULL, NULL, index};
	const struct seq_grammar *g = &tg->g;
	struct seq_grammar dense = {0};
	uint32_t nterm = tg->hdr.nterminals, *vals = NULL;
	struct wppdag d;

	if (!nterm) {
		if (dense_copy(g, &dense, &vals, &nterm) < 0)
			wpp_die("out of memory");
		g = &dense;
		nm.raw_vals = vals;
	}
	uint64_t *cost = malloc((nterm ? nterm : 1) * sizeof(*cost));
	if (!cost || wppdag_init(&d, g) < 0)
		wpp_die("out of memory");
	for (uint32_t t = 0; t < nterm; t++)
		cost[t] = 1;
	hot_report(o, &nm, &d, cost, nterm);
	wppdag_free(&d);
	free(cost);
	free(vals);
	if (vals)
		seq_grammar_free(&dense);
	return 0;
}

/* The document's members before "threads", and "threads" opened (each
 * thread on a line of its own); tally: a counter's samples, or NULL. */
static void json_header(const struct hot_opts *o, const char *path, const struct cost_tally *tally)
{
	struct json_out *j = o->json_out;

	json_object(j, NULL);
	json_string(j, "file", path);
	json_string(j, "cost", o->counter ? o->counter : o->count_cost ? "count" : "insns");
	json_i64(j, "min_len", o->min_len);
	json_i64(j, "max_len", o->max_len);
	json_u64(j, "min_cost", o->min_cost);
	if (tally) {
		cost_tally_json(j, "cost_samples", tally);
	}
	json_array_lines(j, "threads", ",\n  ", "");
	json_raw(j, "\n  ");
}

static void json_footer(const struct hot_opts *o)
{
	json_close(o->json_out); /* threads */
	json_close(o->json_out);
	json_raw(o->json_out, "\n");
}

/* A file written by `wpp --from-raw`: no threads, raw GRAMMAR chunks, each
 * reported with count costs.  integrity: the session's exit status so far. */
static int hot_raw_file(struct hot_opts *o, struct session *s, const char *path, int integrity)
{
	const struct thread_filter *f = &o->filter;
	uint32_t n;
	int rc = WPP_EXIT_OK;

	if (f->pid >= 0 || f->tid >= 0 || f->gen >= 0) {
		wpp_err("hot: %s holds raw grammars (wpp --from-raw) and no threads: --pid, --tid "
			"and --gen do not apply",
			path);
		return WPP_EXIT_USAGE;
	}
	if (o->counter) {
		wpp_err("hot: --cost %s: a raw grammar has no counters; use --cost count",
			o->counter);
		return WPP_EXIT_USAGE;
	}
	if (o->cost_arg && !o->count_cost) {
		wpp_err("hot: a raw grammar has no instruction counts; use --cost count");
		return WPP_EXIT_USAGE;
	}
	o->count_cost = 1;
	if (o->json)
		json_header(o, path, NULL);
	if (thread_grammar_for_each_raw(s->trace, hot_raw_grammar, o, &n) < 0)
		rc = WPP_EXIT_ERROR;
	if (o->json)
		json_footer(o);
	return rc != WPP_EXIT_OK ? rc : integrity;
}

#define STR_(x)		 #x
#define STR(x)		 STR_(x)
#define DEFAULT_MIN_COST 100000

static const struct opt_command hot_cmd = {
    .name = "hot",
    OPT_OPERANDS("one .wpp file", 1, 1),
    .usage = "hot run.wpp [options]",
    .about =
	"Minimal hot subpaths of each thread's path stream: sequences of min-len to\n"
	"max-len consecutive paths whose frequency x cost reaches min-cost and whose\n"
	"shorter prefixes do not.  Cost of a path: its static instructions (insns,\n"
	"default), 1 (count) or a recorded counter's events per execution (estimated;\n"
	"docs/counters.md).  On a grammar written by wpp --from-raw: count costs.\n"
	"A recording of -fwpp-mode=count code holds counts, not order: refused in one line.\n"};

/* --min-cost: 100000 or 1e6 */
static int set_min_cost(const struct opt *self, const char *arg)
{
	char *end;
	double d = strtod(arg, &end);

	if (end == arg || *end || !(d >= 0 && d < 1.8e19)) {
		wpp_err("hot: --min-cost needs a number, not '%s'", arg);
		return -1;
	}
	*(uint64_t *)self->ctx = (uint64_t)d;
	return 0;
}

/* --grammar-builder: grammars built from the batches; the result is the same */
static int set_builder(const struct opt *self, const char *arg)
{
	return grammar_builder_parse("hot", arg, self->ctx);
}

int cmd_hot(int argc, char **argv)
{
	struct hot_opts o = {.filter = THREAD_FILTER_ANY,
			     .min_len = 2,
			     .max_len = 20,
			     .top = 20,
			     .min_cost = DEFAULT_MIN_COST};
	struct json_out json_out;
	struct session s;
	int rc, opnd, algo = SEQ_CHUNKED;
	struct opt table[] = {
	    OPT_FORMAT(&o.json, opt_text_json),
	    OPT_COUNT_(0, "min-len", "N", "shortest subpath, in paths", &o.min_len, 0, LONG_MAX,
		       OPT_SHOW_DEFAULT),
	    OPT_COUNT_(0, "max-len", "N", "longest subpath (at most 4096)", &o.max_len, 0, LONG_MAX,
		       OPT_SHOW_DEFAULT),
	    OPT_CALL_(0, "min-cost", "C",
		      "least frequency x cost of a hot subpath (default " STR(DEFAULT_MIN_COST) ")",
		      set_min_cost, &o.min_cost, 0),
	    OPT_COST(&o.cost_arg, "insns|count|COUNTER",
		     "a path's cost: its static instructions, 1, or a\n"
		     "counter recorded with record -e (default insns)"),
	    OPT_COUNT_('n', "top", "N", "the N costliest per thread; 0: all", &o.top, 0, LONG_MAX,
		       OPT_SHOW_DEFAULT),
	    OPTS_THREADS(o.filter),
	    OPT_CALL_(0, "grammar-builder", "chunked|sequitur",
		      "how grammars missing from the file are built from\n"
		      "the batches, as for wpp (the result does not depend on it)",
		      set_builder, &algo, 0),
	    OPT_END_,
	};

	if ((rc = opts_parse(&hot_cmd, table, argc, argv, &opnd)) != 0)
		return rc > 0 ? WPP_EXIT_OK : WPP_EXIT_USAGE;
	if (o.cost_arg) { /* insns, count, or the name of a recorded counter */
		o.count_cost = !strcmp(o.cost_arg, "count");
		o.counter = strcmp(o.cost_arg, "insns") && !o.count_cost ? o.cost_arg : NULL;
	}
	json_init(&json_out, stdout, 1);
	o.json_out = &json_out;
	thread_grammar_set_builder(algo);
	if (o.min_len < 1 || o.max_len < o.min_len || o.max_len > 4096) {
		wpp_err("hot: need 1 <= --min-len <= --max-len <= 4096");
		return WPP_EXIT_USAGE;
	}
	if ((rc = session_open(&s, argv[opnd])))
		return rc;
	rc = s.exit_status;
	/* A --from-raw file has raw grammars but no threads (nor modules). */
	uint32_t nraw = 0;
	if (s.trace->nthreads == 0 &&
	    thread_grammar_for_each_raw(s.trace, NULL, NULL, &nraw) == 0 && nraw > 0) {
		rc = hot_raw_file(&o, &s, argv[opnd], rc);
		session_close(&s);
		return rc;
	}
	if (session_refuse_counts(&s, "hot", argv[opnd], &o.filter)) {
		session_close(&s);
		return WPP_EXIT_ERROR;
	}
	struct cost_selection sel;
	rc = cost_select(&sel, s.trace, s.mods, o.cost_arg, COST_TAKES_INSNS_OR_COUNT, o.filter.pid,
			 o.filter.tid, "hot", argv[opnd]);
	if (rc) {
		cost_selection_free(&sel);
		session_close(&s);
		return rc;
	}
	rc = s.exit_status;
	if (sel.active) {
		o.attr = &sel.attr;
		/* Estimates say so, with their sample counts and what was not attributed. */
		if (!o.json)
			printf("%s\n", sel.summary);
	}
	if (o.json && o.counter) {
		struct cost_tally tally;
		cost_tally_of(&sel.data, &sel.attr, &tally);
		json_header(&o, argv[opnd], &tally);
	} else if (o.json) {
		json_header(&o, argv[opnd], NULL);
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
		hot_thread(&o, &tg, info);
		first = 0;
		free(info);
		wpp_thread_grammar_free(&tg);
	}
	if (o.json)
		json_footer(&o);
	if (first && rc != WPP_EXIT_ERROR)
		rc = no_thread_selected("hot", argv[opnd], &o.filter, rc);
	thread_grammar_suggest_store("hot", argv[opnd], &builds);
	cost_selection_free(&sel);
	session_close(&s);
	return rc;
}
