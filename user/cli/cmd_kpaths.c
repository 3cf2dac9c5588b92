/* SPDX-License-Identifier: MIT */
/*
 * cmd_kpaths.c — `wpptrace kpaths`: the hottest k-paths (concatenations of
 * up to k consecutive acyclic paths of a thread, docs/kpaths.md), each
 * expanded to its paths with function, source lines, start/end kinds, and at
 * every extension the fraction of its prefix's count it takes (the view of
 * Figure 4 in D'Elia et al.).
 *
 * The default view is per routine activation (the paper's; kslab_act.h);
 * --flat takes each thread's records as one stream across calls and
 * returns.  Each thread's k-IPF comes from the forest `record -k` stored
 * when one of the same view and deep enough is there (per activation when
 * the collector had the modules' metadata, else flat), else it is built
 * from the decoded trace.  Threads of one process image are merged.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "costs/cost_select.h"
#include "costs/costs.h"
#include "common/json_out.h"
#include "analysis/kpaths/kipf.h"
#include "analysis/kpaths/kipf_build.h"
#include "analysis/kpaths/kipf_cost.h"
#include "analysis/kpaths/kipf_inst_cost.h"
#include "analysis/kpaths/kipf_rank.h"
#include "common/log.h"
#include "common/options.h"
#include "decode/session.h"

#define DEFAULT_K_N 8 /* -k when no forest is stored */
#define DEFAULT_K   ((unsigned)DEFAULT_K_N)
#define STR_(x)	    #x
#define STR(x)	    STR_(x)
#define DEFAULT_TOP 10

enum source { SRC_AUTO, SRC_STORED, SRC_TRACE };

struct opts {
	unsigned k; /* 0 = not given */
	const char *function;
	uint64_t min_count;
	long top;
	int json, all, flat;
	enum source source;
	uint64_t prune_nodes;
	struct thread_filter filter;
	const char *cost;		     /* --cost: insns, count, a counter; NULL: none */
	const struct cost_attribution *attr; /* the counter's samples, attributed */
};

struct proc {
	uint32_t pid, gen;
	struct kipf *ipf;
	struct kipf_inst_cost *icost; /* --cost COUNTER: per-instance costs */
	size_t nthreads;
	unsigned from_stored, from_trace;
};

struct procs {
	struct proc *v;
	size_t n, cap;
};

static struct proc *proc_get(struct procs *ps, uint32_t pid, uint32_t gen, unsigned k)
{
	for (size_t i = 0; i < ps->n; i++)
		if (ps->v[i].pid == pid && ps->v[i].gen == gen)
			return &ps->v[i];
	if (ps->n == ps->cap) {
		ps->cap = ps->cap ? ps->cap * 2 : 4;
		ps->v = realloc(ps->v, ps->cap * sizeof(*ps->v));
		if (!ps->v)
			wpp_die("out of memory");
	}
	ps->v[ps->n] = (struct proc){.pid = pid, .gen = gen, .ipf = kipf_new(k)};
	if (!ps->v[ps->n].ipf)
		wpp_die("out of memory");
	return &ps->v[ps->n++];
}

static int proc_cmp(const void *a, const void *b)
{
	const struct proc *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return x->gen < y->gen ? -1 : x->gen > y->gen;
}

/* What a path label stands for in one process image. */
struct label_info {
	const struct wpp_fn *fn; /* NULL: unattributed */
	int is_block;
	uint32_t line_min, line_max;
	uint64_t insns;		 /* IR instructions per execution */
	const char *start, *end; /* kind names; NULL for blocks / unknown */
	const char *start_short, *end_short;
};

static void describe(const struct wpp_image_map *im, uint32_t fid, uint64_t value,
		     struct label_info *li, uint32_t **scratch, uint32_t *cap)
{
	static const char *const starts[] = {"entry", "loop", "call", "cut"};
	static const char *const ends[] = {"ret", "loop", "call", "cut", "noret"};
	const struct wpp_fid_range *range;
	const struct wpp_fn *fn;
	struct wpp_path p;
	uint32_t single;

	*li = (struct label_info){0};
	if (wpp_image_resolve(im, fid, &fn, &range) != WPP_RESOLVED)
		return;
	li->fn = fn;
	if (fn->tu->mode == WPP_MODE_BLOCKS) {
		if (value >= fn->nblocks)
			return;
		li->is_block = 1;
		single = (uint32_t)value;
		p = (struct wpp_path){.nblocks = 1, .blocks = &single};
	} else {
		if (fn->nblocks + 1 > *cap) {
			free(*scratch);
			*cap = fn->nblocks + 1;
			*scratch = malloc((size_t)*cap * sizeof(**scratch));
			if (!*scratch)
				wpp_die("out of memory");
		}
		if (wpp_path_expand(fn, value, *scratch, *cap, &p) < 0)
			return;
		li->start = wpp_path_start_name(p.start);
		li->end = wpp_path_end_name(p.end);
		li->start_short = starts[p.start];
		li->end_short = ends[p.end];
	}
	li->line_min = UINT32_MAX;
	for (uint32_t i = 0; i < p.nblocks; i++) {
		const struct wpp_meta_block *b = &fn->blocks[p.blocks[i]];
		li->insns += b->ninsns;
		for (uint32_t k = 0; k < b->nlines; k++) {
			uint32_t line = fn->tu->lines[b->first_line + k].line;
			if (line && line < li->line_min)
				li->line_min = line;
			if (line > li->line_max)
				li->line_max = line;
		}
	}
	if (li->line_min == UINT32_MAX)
		li->line_min = 0;
}

struct fn_filter {
	const struct wpp_image_map *im;
	const char *name;
};

static int keep_function(void *ctx, uint32_t fid, uint64_t value)
{
	const struct fn_filter *ff = ctx;
	const struct wpp_fid_range *range;
	const struct wpp_fn *fn;

	(void)value;
	return wpp_image_resolve(ff->im, fid, &fn, &range) == WPP_RESOLVED &&
	       !strcmp(fn->name, ff->name);
}

/* The nodes of the k-path ending at idx, root first; returns its length. */
static unsigned path_nodes(const struct kipf *f, uint32_t idx, uint32_t *out)
{
	unsigned n = kipf_depth(f, idx) + 1;

	for (unsigned i = n; i-- > 0; idx = f->nodes[idx].parent)
		out[i] = idx;
	return n;
}

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');
	return slash ? slash + 1 : path;
}

static void print_step_text(FILE *out, const struct kipf *f, const uint32_t *nodes, unsigned i,
			    const struct label_info *li)
{
	const struct kipf_node *nd = &f->nodes[nodes[i]];
	char what[80], frac[16], lines[96];

	if (li->fn)
		snprintf(what, sizeof(what), "%.56s:%s%" PRIu64, li->fn->name,
			 li->is_block ? "b" : "", nd->value);
	else
		snprintf(what, sizeof(what), "fid %" PRIu32 ":%" PRIu64, nd->fid, nd->value);
	if (i == 0)
		frac[0] = '\0';
	else
		snprintf(frac, sizeof(frac), "%.1f%%",
			 100.0 * (double)nd->count / (double)f->nodes[nodes[i - 1]].count);
	if (li->fn && li->line_min)
		snprintf(lines, sizeof(lines), "%.40s:%" PRIu32 "-%" PRIu32,
			 li->fn->file[0] ? base_name(li->fn->file) : "?", li->line_min,
			 li->line_max);
	else
		snprintf(lines, sizeof(lines), "?");
	fprintf(out, "    %10" PRIu64 " %7s  %-34s %-26s %s%s%s\n", nd->count, frac, what, lines,
		li->start_short ? li->start_short : (li->is_block ? "(block)" : "?"),
		li->start_short ? ">" : "", li->end_short ? li->end_short : "");
}

static void step_json(struct json_out *j, const struct kipf *f, const uint32_t *nodes, unsigned i,
		      const struct label_info *li)
{
	const struct kipf_node *nd = &f->nodes[nodes[i]];

	json_object(j, NULL);
	json_string(j, "function", li->fn ? li->fn->name : NULL);
	json_u64(j, "fid", nd->fid);
	json_u64(j, li->is_block ? "block" : "path", nd->value);
	json_u64(j, "count", nd->count);
	if (i)
		json_double(j, "fraction", "%.6f",
			    (double)nd->count / (double)f->nodes[nodes[i - 1]].count);
	else
		json_null(j, "fraction");
	json_string(j, "file", li->fn ? li->fn->file : NULL);
	json_u64(j, "line_min", li->line_min);
	json_u64(j, "line_max", li->line_max);
	if (li->start) {
		json_string(j, "start", li->start);
		json_string(j, "end", li->end);
	}
	json_close(j);
}

static const char *source_name(const struct proc *p)
{
	if (p->from_stored && p->from_trace)
		return "mixed";
	return p->from_stored ? "stored" : "trace";
}

/* --cost insns|count: what one execution of each root's path costs
 * (kipf_cost.h): its IR instructions, or 1 — the same on every execution,
 * so count x the sum along a k-path is exact. */
static double *root_unit_costs(const struct wpp_image_map *im, const struct proc *p,
			       const struct opts *o)
{
	const struct kipf *f = p->ipf;
	double *unit = calloc((size_t)f->nnodes + 1, sizeof(*unit));
	uint32_t *scratch = NULL, cap = 0;
	struct label_info li;

	if (!unit)
		wpp_die("out of memory");
	for (uint32_t i = 0; i < f->nroots; i++) {
		uint32_t r = f->roots[i];
		if (!strcmp(o->cost, "count")) {
			unit[r] = 1;
		} else {
			describe(im, f->nodes[r].fid, f->nodes[r].value, &li, &scratch, &cap);
			unit[r] = (double)li.insns;
		}
	}
	free(scratch);
	return unit;
}

/* One process's k-paths, ranked: what the text and the JSON print. */
struct ranked {
	const struct proc *p;
	const struct wpp_image_map *im;
	uint32_t *sel; /* the k-paths shown, by their last node, hottest first */
	long n;
	size_t total; /* k-paths that matched */
	double *cost; /* --cost: per node, else NULL */
};

static void rank_proc(struct session *s, const struct proc *p, const struct opts *o, unsigned k,
		      struct ranked *r)
{
	struct fn_filter ff;
	struct kipf_rank_opts ro = {.k = k,
				    .all = o->all,
				    .min_count = o->min_count,
				    .top = (size_t)o->top,
				    .keep = o->function ? keep_function : NULL,
				    .keep_ctx = &ff};

	*r = (struct ranked){.p = p, .im = wpp_modules_image(s->mods, p->pid, p->gen)};
	ff = (struct fn_filter){.im = r->im, .name = o->function};
	if (o->attr) {
		/* A counter: each k-path costs what its own instances did. */
		r->cost = calloc((size_t)p->ipf->nnodes + 1, sizeof(*r->cost));
		if (!r->cost)
			wpp_die("out of memory");
		kipf_inst_cost_apply(p->icost, p->ipf, r->cost);
	} else if (o->cost) {
		double *unit = root_unit_costs(r->im, p, o);
		r->cost = kipf_node_costs(p->ipf, unit);
		free(unit);
		if (!r->cost)
			wpp_die("out of memory");
	}
	ro.cost = r->cost;
	if ((r->n = kipf_rank(p->ipf, &ro, &r->sel, &r->total)) < 0)
		wpp_die("out of memory");
}

static void ranked_free(struct ranked *r)
{
	free(r->sel);
	free(r->cost);
}

static void proc_text(FILE *out, const struct ranked *r, const struct opts *o, unsigned k,
		      int first)
{
	const struct proc *p = r->p;
	uint32_t nodes[WPP_KIPF_MAX_K], *scratch = NULL, cap = 0;
	struct label_info li;

	fprintf(out,
		"%sprocess %" PRIu32 " (gen %" PRIu32 "): %zu thread%s, %" PRIu64
		" path records, k-IPF from %s, %s\n",
		first ? "" : "\n", p->pid, p->gen, p->nthreads, p->nthreads == 1 ? "" : "s",
		p->ipf->items, source_name(p), o->flat ? "flat (across calls)" : "per activation");
	if (p->ipf->lost_items)
		fprintf(out, "pruned: each count below is at most %" PRIu64 " under the truth\n",
			p->ipf->lost_items);
	fprintf(out, "%ld hottest of %zu %sk-paths (k = %u)\n", r->n, r->total,
		o->all ? "" : "maximal ", k);
	for (long i = 0; i < r->n; i++) {
		unsigned len = path_nodes(p->ipf, r->sel[i], nodes);
		char cost_text[64] = "";
		if (r->cost)
			snprintf(cost_text, sizeof(cost_text), "  cost %.0f", r->cost[r->sel[i]]);
		fprintf(out,
			"\n#%ld  count %" PRIu64 "%s  %u path%s\n    %10s %7s  %-34s %-26s %s\n",
			i + 1, p->ipf->nodes[r->sel[i]].count, cost_text, len, len == 1 ? "" : "s",
			"count", "of prev", "function:path", "lines", "start>end");
		for (unsigned j = 0; j < len; j++) {
			const struct kipf_node *nd = &p->ipf->nodes[nodes[j]];
			describe(r->im, nd->fid, nd->value, &li, &scratch, &cap);
			print_step_text(out, p->ipf, nodes, j, &li);
		}
	}
	free(scratch);
}

/* An entry of "processes" (docs/kpaths.md). */
static void proc_json(struct json_out *j, const struct ranked *r, const struct opts *o)
{
	const struct proc *p = r->p;
	uint32_t nodes[WPP_KIPF_MAX_K], *scratch = NULL, cap = 0;
	struct label_info li;

	json_object(j, NULL);
	json_u64(j, "pid", p->pid);
	json_u64(j, "gen", p->gen);
	json_u64(j, "threads", p->nthreads);
	json_string(j, "source", source_name(p));
	json_string(j, "view", o->flat ? "flat" : "activation");
	json_u64(j, "items", p->ipf->items);
	json_u64(j, "lost_items", p->ipf->lost_items);
	json_bool(j, "pruned", p->ipf->lost_items != 0);
	json_u64(j, "nodes", p->ipf->nnodes);
	json_u64(j, "matching", r->total);
	json_array_lines(j, "kpaths", ",", "\n");
	for (long i = 0; i < r->n; i++) {
		unsigned len = path_nodes(p->ipf, r->sel[i], nodes);
		json_object(j, NULL);
		json_u64(j, "count", p->ipf->nodes[r->sel[i]].count);
		if (r->cost)
			json_double(j, "cost", "%.0f", r->cost[r->sel[i]]);
		json_u64(j, "length", len);
		json_array(j, "paths");
		for (unsigned s = 0; s < len; s++) {
			const struct kipf_node *nd = &p->ipf->nodes[nodes[s]];
			describe(r->im, nd->fid, nd->value, &li, &scratch, &cap);
			step_json(j, p->ipf, nodes, s, &li);
		}
		json_close(j);
		json_close(j);
	}
	json_close(j);
	json_close(j);
	free(scratch);
}

static const char *const sources[] = {"auto", "stored", "trace", NULL}; /* enum source */

static const struct opt_command kpaths_cmd = {
    .name = "kpaths",
    OPT_OPERANDS("one .wpp file", 1, 1),
    .usage = "kpaths run.wpp [options]",
    .about =
	"Per process, the hottest concatenations of up to K consecutive acyclic paths\n"
	"of one routine activation (the caller's paths around a call join; the\n"
	"callee's form their own), each expanded to function, path, source lines and\n"
	"start/end kinds, with the share of its prefix's count each extension takes.\n"
	"--flat: consecutive paths of a thread across calls and returns.  Either view\n"
	"uses the forest `record -k` stored in that view when deep enough, else the trace.\n"
	"See docs/kpaths.md.\n"
	"A recording of -fwpp-mode=count code holds counts, not order: refused in one line.\n"};

/* 0, 1 after the help, -1 after one error line; *first: the file's index. */
static int parse_args(int argc, char **argv, struct opts *o, int *first)
{
	long k = 0, min_count = 0, prune_nodes = 0;
	int source = SRC_AUTO, rc;
	struct opt table[] = {
	    OPT_COUNT_('k', NULL, "K",
		       "longest k-path (default: the stored depth, else " STR(DEFAULT_K_N) ")", &k,
		       1, KSLAB_MAX_K, 0),
	    OPT_STRING_(0, "function", "F", "only k-paths that start in function F", &o->function),
	    OPT_COUNT_(0, "min-count", "N", "only k-paths that occurred at least N times",
		       &min_count, 0, LONG_MAX, 0),
	    OPT_COUNT_(0, "top", "N", "how many; 0: all", &o->top, 0, LONG_MAX, OPT_SHOW_DEFAULT),
	    OPT_FLAG_(0, "all", "every k-path, not only maximal ones", &o->all),
	    OPT_FLAG_(0, "flat", "the thread-wide view, across calls and returns", &o->flat),
	    OPT_COST(&o->cost, "insns|count|COUNTER",
		     "each k-path's cost (sum over its path instances) in\n"
		     "IR instructions, executions, or a recorded counter; ranks by it"),
	    OPT_WORD_(0, "source", "stored forest only, trace only, or either", &source, sources,
		      OPT_SHOW_DEFAULT),
	    OPT_COUNT_(0, "prune-nodes", "M", "build from the trace with at most M k-slab nodes",
		       &prune_nodes, 0, LONG_MAX, 0),
	    OPTS_THREADS(o->filter),
	    OPT_FORMAT(&o->json, opt_text_json),
	    OPT_END_,
	};

	*o = (struct opts){.top = DEFAULT_TOP, .filter = THREAD_FILTER_ANY};
	if ((rc = opts_parse(&kpaths_cmd, table, argc, argv, first)) != 0)
		return rc;
	o->k = (unsigned)k;
	o->min_count = (uint64_t)min_count;
	o->prune_nodes = (uint64_t)prune_nodes;
	o->source = (enum source)source;
	return 0; /* --top 0: every k-path */
}

/* A stored forest serves when it is whole, of the view asked for and deep
 * enough (a deeper one is cut: a k-IPF holds the k'-IPF for k' <= k). */
static int usable(const struct kipf_stored *st, unsigned k, const struct opts *o)
{
	return st && st->complete && !st->bad && st->ipf->k >= k && st->ipf->activation == !o->flat;
}

/* k when -k is not given: the stored forests' depth, else DEFAULT_K. */
static unsigned pick_k(const struct kipf_store *store, const struct opts *o)
{
	unsigned k = 0;

	if (o->k)
		return o->k;
	if (o->source != SRC_TRACE)
		for (size_t i = 0; i < store->n; i++)
			if (usable(&store->threads[i], 1, o) &&
			    (!k || store->threads[i].ipf->k < k))
				k = store->threads[i].ipf->k;
	return k ? k : DEFAULT_K;
}

/* --cost COUNTER: the costs of thread ti's instances (its attributed
 * samples, costs.h) into p's per-instance k-path costs. */
static int instance_costs(struct session *s, const struct opts *o, struct proc *p, unsigned k,
			  size_t ti)
{
	struct kipf_inst_weight *w = malloc((o->attr->nhits + 1) * sizeof(*w));
	size_t nw = 0;
	int rc;

	if (!w || (!p->icost && !(p->icost = kipf_inst_cost_new(k))))
		wpp_die("out of memory");
	for (size_t i = 0; i < o->attr->nhits; i++)
		if (o->attr->hits[i].thread == ti) /* in event order */
			w[nw++] = (struct kipf_inst_weight){o->attr->hits[i].event,
							    (double)o->attr->hits[i].weight};
	rc = kipf_inst_costs_thread(p->icost, k, &s->trace->threads[ti], s->mods,
				    o->flat ? KIPF_VIEW_FLAT : KIPF_VIEW_ACTIVATION, w, nw);
	free(w);
	return rc;
}

static int collect(struct session *s, struct kipf_store *store, const struct opts *o, unsigned k,
		   struct procs *ps)
{
	/* Threads of the trace. */
	for (size_t i = 0; i < s->trace->nthreads; i++) {
		const struct wpp_thread_trace *th = &s->trace->threads[i];
		struct kipf_stored *st = kipf_store_find(store, th->pid, th->generation, th->tid);
		struct proc *p;

		if (!thread_selected(&o->filter, th))
			continue;
		p = proc_get(ps, th->pid, th->generation, k);
		p->nthreads++;
		if (o->attr && instance_costs(s, o, p, k, i) < 0)
			return WPP_EXIT_ERROR;
		if (o->source != SRC_TRACE && usable(st, k, o)) {
			if (kipf_merge(p->ipf, st->ipf) < 0)
				wpp_die("out of memory");
			p->from_stored++;
			continue;
		}
		if (o->source == SRC_STORED) {
			wpp_err("%s: thread %" PRIu32 " of process %" PRIu32
				" has no usable stored %s k-IPF "
				"of depth %u or more (record with -k)",
				s->trace->path, th->tid, th->pid,
				o->flat ? "flat" : "per-activation", k);
			return WPP_EXIT_ERROR;
		}
		if (k > KSLAB_MAX_K ||
		    kipf_build_thread(p->ipf, th, s->mods, o->prune_nodes,
				      o->flat ? KIPF_VIEW_FLAT : KIPF_VIEW_ACTIVATION) < 0)
			return WPP_EXIT_ERROR;
		p->from_trace++;
	}
	/* Stored forests of threads that left no trace words (still k-paths: none). */
	for (size_t i = 0; i < store->n; i++) {
		const struct kipf_stored *st = &store->threads[i];
		struct wpp_thread_trace fake = {
		    .pid = st->pid, .generation = st->generation, .tid = st->tid};
		int in_trace = 0;
		for (size_t t = 0; t < s->trace->nthreads && !in_trace; t++)
			in_trace = s->trace->threads[t].pid == st->pid &&
				   s->trace->threads[t].generation == st->generation &&
				   s->trace->threads[t].tid == st->tid;
		if (in_trace || !thread_selected(&o->filter, &fake) || o->source == SRC_TRACE ||
		    !usable(st, k, o))
			continue;
		struct proc *p = proc_get(ps, st->pid, st->generation, k);
		p->nthreads++;
		p->from_stored++;
		if (kipf_merge(p->ipf, st->ipf) < 0)
			wpp_die("out of memory");
	}
	return 0;
}

int cmd_kpaths(int argc, char **argv)
{
	struct cost_selection sel = {0};
	struct kipf_store store = {0};
	struct procs ps = {0};
	struct json_out j;
	struct session s;
	struct opts o;
	unsigned k;
	int rc, first;

	if ((rc = parse_args(argc, argv, &o, &first)) != 0)
		return rc > 0 ? WPP_EXIT_OK : WPP_EXIT_USAGE;
	json_init(&j, stdout, 0);
	rc = session_open(&s, argv[first]);
	if (rc)
		return rc;
	if (session_refuse_counts(&s, "kpaths", argv[first], &o.filter)) {
		session_close(&s);
		return WPP_EXIT_ERROR;
	}
	if (o.source != SRC_TRACE && kipf_store_load(&store, s.trace))
		s.exit_status = WPP_EXIT_ERROR;
	k = pick_k(&store, &o);
	rc = cost_select(&sel, s.trace, s.mods, o.cost, COST_TAKES_INSNS_OR_COUNT, o.filter.pid,
			 o.filter.tid, "kpaths", argv[first]);
	if (sel.active)
		o.attr = &sel.attr;
	if (rc == 0)
		rc = collect(&s, &store, &o, k, &ps);
	/* a filter that matched nothing is a mistake, said before any output */
	if (rc == 0 && !ps.n && (o.filter.pid >= 0 || o.filter.tid >= 0 || o.filter.gen >= 0))
		rc = no_thread_selected("kpaths", argv[first], &o.filter, s.exit_status);
	if (rc == 0) {
		if (ps.n)
			qsort(ps.v, ps.n, sizeof(*ps.v), proc_cmp);
		if (o.json) {
			json_object(&j, NULL);
			json_string(&j, "file", argv[first]);
			json_u64(&j, "k", k);
			if (o.cost) {
				json_string(&j, "cost", o.cost);
				json_string(&j, "cost_summary", sel.summary);
			}
			json_array_lines(&j, "processes", ",\n", "");
		} else if (o.cost) {
			/* A counter's line names it and says it is an estimate. */
			printf("cost: %s\n", o.attr ? sel.summary
					     : !strcmp(o.cost, "count")
						 ? "path executions"
						 : "IR instructions (exact)");
		}
		for (size_t i = 0; i < ps.n; i++) {
			struct ranked r;
			if (kipf_sort(ps.v[i].ipf) < 0)
				wpp_die("out of memory");
			rank_proc(&s, &ps.v[i], &o, k, &r);
			if (o.json)
				proc_json(&j, &r, &o);
			else
				proc_text(stdout, &r, &o, k, i == 0);
			ranked_free(&r);
		}
		if (o.json) {
			json_close(&j);
			json_close(&j);
			json_raw(&j, "\n");
		}
		if (!ps.n)
			wpp_warn("%s: no threads selected", argv[first]);
		rc = s.exit_status;
	}
	for (size_t i = 0; i < ps.n; i++) {
		kipf_free(ps.v[i].ipf);
		kipf_inst_cost_free(ps.v[i].icost);
	}
	free(ps.v);
	kipf_store_free(&store);
	cost_selection_free(&sel);
	session_close(&s);
	return rc;
}
