/* SPDX-License-Identifier: MIT */
/*
 * cmd_wet_query.c — the WET commands of `wpptrace wet` but dump
 * (docs/wet.md, "Queries"): build, info, flow, values, addrs, deps and
 * slice.  Each gets the selected thread's WET (wet_obtain.h: stored in
 * the recording, else built and stored) and answers from its compressed
 * streams (wet_query.h); this file picks the thread, parses instance names
 * (FILE:LINE[:COL][@K][#N]) and renders.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "common/json_out.h"
#include "common/log.h"
#include "common/options.h"
#include "symbolizer/meta_wet_model.h"
#include "decode/module_map.h"
#include "decode/session.h"
#include "cli/src_lines.h"
#include "analysis/wet/wet_build.h"
#include "cli/wet_obtain.h"
#include "analysis/wet/wet_query.h"
#include "decode/wet_values.h"

enum sub { SUB_BUILD, SUB_INFO, SUB_FLOW, SUB_VALUES, SUB_ADDRS, SUB_DEPS, SUB_SLICE };

struct q {
	enum sub sub;
	const char *name; /* "wet flow" ... */
	int json;
	int backward, forward, verify, timing;
	long shadow_mb;	       /* --wet-shadow-mb, -1: the builder's default */
	double read_secs;      /* building or reading the WET */
	struct src_lines *src; /* slices show their source lines */
	uint32_t src_line;     /* the last line shown */
	char src_file[1024];
	long count; /* -n */
	const char *where;
	struct thread_filter filter;
	struct wet_thread *t;
	struct session *s; /* the recording: other threads' functions */
	int from_file;	   /* the WET was read from the recording, not built */
	struct wet_obtain how;
	FILE *out;
	struct json_out j; /* on out, compact: --format json */
};

/* The end of a query's JSON answer: its list, the object, a newline. */
static void json_end(struct q *q)
{
	json_close(&q->j);
	json_close(&q->j);
	json_raw(&q->j, "\n");
}

/* `wet build`: the WET of every thread the filter selects, stored. */
static int build_all(struct q *q, struct session *s, const char *path)
{
	size_t n = 0;

	for (size_t i = 0; i < s->trace->nthreads; i++) {
		const struct wpp_thread_trace *th = &s->trace->threads[i];
		double secs;
		enum wet_origin stored;
		if (!thread_selected(&q->filter, th))
			continue;
		n++;
		struct wet_thread *t = wet_obtain(&q->how, s, path, th, &secs, &stored);
		if (!t) {
			if (q->json && n > 1)
				json_end(q);
			return WPP_EXIT_ERROR;
		}
		const char *how = stored == WET_READ	 ? "already stored"
				  : stored == WET_STORED ? "built and stored"
				  : stored == WET_BUILT_DAMAGED
				      ? "built, not stored (the recording is damaged)"
				      : "built, not stored";
		if (q->json) {
			if (n == 1) {
				json_object(&q->j, NULL);
				json_array(&q->j, "threads");
			}
			json_object(&q->j, NULL);
			json_u64(&q->j, "pid", t->pid);
			json_u64(&q->j, "tid", t->tid);
			json_u64(&q->j, "gen", t->gen);
			json_u64(&q->j, "timestamps", t->nts);
			json_u64(&q->j, "nodes", t->nnodes);
			json_string(&q->j, "stored",
				    stored == WET_READ	   ? "read"
				    : stored == WET_STORED ? "stored"
							   : "not_stored");
			json_double(&q->j, "seconds", "%.3f", secs);
			json_close(&q->j);
			wet_thread_free(t);
			continue;
		}
		fprintf(q->out,
			"WET of pid %" PRIu32 " tid %" PRIu32 "%s: %" PRIu64
			" path executions, %" PRIu32 " nodes; %s\n",
			t->pid, t->tid, t->gen ? " (after exec)" : "", t->nts, t->nnodes, how);
		wet_thread_free(t);
	}
	if (q->json && n)
		json_end(q);
	if (n == 0) {
		int rc = no_thread_selected(q->name, path, &q->filter, s->exit_status);
		return rc ? rc : WPP_EXIT_ERROR;
	}
	if (fflush(stdout) != 0 || ferror(stdout)) {
		wpp_err("%s: writing the output failed", q->name);
		return WPP_EXIT_ERROR;
	}
	return s->exit_status;
}

/* The thread the filter names; without --tid, the process's main thread. */
static const struct wpp_thread_trace *pick_thread(struct q *q, struct session *s)
{
	const struct wpp_thread_trace *first = NULL;

	for (size_t i = 0; i < s->trace->nthreads; i++) {
		const struct wpp_thread_trace *th = &s->trace->threads[i];
		if (!thread_selected(&q->filter, th))
			continue;
		if (q->filter.tid >= 0 || th->tid == th->pid)
			return th;
		if (!first)
			first = th;
	}
	return first;
}

/* A stream that failed to read: damage a query meets only when it reads
 * that stream (streams are parsed lazily); `wet info` parses every one and
 * builds the WET again when one is damaged. */
static void read_failed(const struct q *q)
{
	if (q->from_file)
		wpp_err("%s: reading the WET failed: a stored stream is damaged (`wpptrace wet "
			"info` checks every stream and builds the WET again)",
			q->name);
	else
		wpp_err("%s: reading the WET failed (out of memory)", q->name);
}

/* --- instance names ----------------------------------------------------------- */

struct where {
	char file[4096];
	uint32_t line, col, k;
	uint64_t n; /* 0: none given */
};

static int parse_u(const char *s, const char *end, uint64_t *v)
{
	if (s == end)
		return -1;
	*v = 0;
	for (; s < end; s++) {
		if (*s < '0' || *s > '9' || *v > UINT64_MAX / 10 - 10)
			return -1;
		*v = *v * 10 + (uint64_t)(*s - '0');
	}
	return 0;
}

static int parse_where(const char *arg, struct where *w)
{
	const char *end = arg + strlen(arg), *hash = strrchr(arg, '#'), *at = strrchr(arg, '@');
	const char *colon = strrchr(arg, ':');
	uint64_t v;

	/* '#' and '@' count after the line only: a file's path may hold them */
	if (hash && (!colon || hash < colon))
		hash = NULL;
	if (at && (!colon || at < colon))
		at = NULL;
	*w = (struct where){0};
	if (hash) {
		if (parse_u(hash + 1, end, &w->n) < 0 || w->n == 0)
			return -1;
		end = hash;
	}
	if (at && at < end) {
		if (parse_u(at + 1, end, &v) < 0 || v == 0 || v > UINT32_MAX)
			return -1;
		w->k = (uint32_t)v;
		end = at;
	}
	const char *c1 = end;
	while (c1 > arg && c1[-1] != ':')
		c1--;
	if (c1 == arg || parse_u(c1, end, &v) < 0 || v > UINT32_MAX)
		return -1;
	w->line = (uint32_t)v;
	end = c1 - 1;
	const char *c2 = end;
	while (c2 > arg && c2[-1] != ':')
		c2--;
	if (c2 > arg && parse_u(c2, end, &v) == 0 && v <= UINT32_MAX) {
		w->col = w->line;
		w->line = (uint32_t)v;
		end = c2 - 1;
	}
	if (end == arg || (size_t)(end - arg) >= sizeof(w->file))
		return -1;
	memcpy(w->file, arg, (size_t)(end - arg));
	w->file[end - arg] = 0;
	return 0;
}

/* The instruction FILE:LINE[:COL][@K] names, or an exit status after one
 * error line (several without COL or @K: listed, exit 2). */
static int resolve_insn(struct q *q, const struct where *w, struct wet_insn *out)
{
	struct wet_insn *v;
	int n = wet_find_insns(q->t, w->file, w->line, w->col, &v);

	if (n < 0) {
		wpp_err("%s: out of memory", q->name);
		return WPP_EXIT_ERROR;
	}
	if (n == 0) {
		wpp_err("%s: no executed instruction at %s:%" PRIu32 "%s in thread %" PRIu32,
			q->name, w->file, w->line, w->col ? " (at that column)" : "", q->t->tid);
		free(v);
		return WPP_EXIT_ERROR;
	}
	if (w->k > (uint32_t)n || (n > 1 && !w->k)) {
		char col[16] = "";
		if (w->col)
			snprintf(col, sizeof(col), ":%" PRIu32, w->col);
		wpp_err("%s: %s:%" PRIu32 "%s holds %d executed instructions: name one with %s@K",
			q->name, w->file, w->line, col, n, w->col ? "" : ":COL or ");
		for (int i = 0; i < n; i++)
			fprintf(stderr, "  @%d  %s:%" PRIu32 ":%" PRIu32 "  %s %%%" PRIu32 " %s\n",
				i + 1, wpp_wet_stmt_file(v[i].fn, v[i].stmt), v[i].stmt->line,
				v[i].stmt->column, v[i].fn->name, v[i].insn,
				wpp_wet_kind_name(v[i].stmt->kind));
		free(v);
		return WPP_EXIT_USAGE;
	}
	*out = v[w->k ? w->k - 1 : 0];
	free(v);
	return 0;
}

/* The instance FILE:LINE...#N names, or an exit status after one line. */
static int resolve_inst(struct q *q, const char *arg, struct wet_inst *out)
{
	struct where w;
	struct wet_insn in;
	int rc;

	if (parse_where(arg, &w) < 0 || !w.n) {
		wpp_err("%s: '%s' is not FILE:LINE[:COL][@K]#N", q->name, arg);
		return WPP_EXIT_USAGE;
	}
	if ((rc = resolve_insn(q, &w, &in)))
		return rc;
	rc = wet_insn_nth(q->t, &in, w.n, out);
	if (rc < 0) {
		read_failed(q);
		return WPP_EXIT_ERROR;
	}
	if (rc == 0) {
		wpp_err("%s: %s ran fewer than %" PRIu64 " times in thread %" PRIu32, q->name, arg,
			w.n, q->t->tid);
		return WPP_EXIT_ERROR;
	}
	return 0;
}

/* --- rendering ------------------------------------------------------------ */

static void fmt_value(struct q *q, const struct wet_inst *i, uint8_t what, char *buf, size_t len,
		      int64_t *raw, int *ok)
{
	const struct wet_node *n = q->t->nodes[i->node];
	uint64_t v = 0;
	int st = wet_inst_value(q->t, i, what, &v);

	*ok = st == WET_V_OK;
	*raw = (int64_t)v;
	if (st == WET_V_OK) {
		struct wpp_wet_item it = {n->blocks[n->stmt_block[i->pos]], n->stmts[i->pos], what};
		wpp_wet_format(&it, (int64_t)v, buf, len);
	} else
		snprintf(buf, len, "%s", st == WET_V_LOST ? "lost" : st < 0 ? "unreadable" : "-");
}

/* One instance as the JSON object key (NULL: an array's element) of q->j:
 * ts, function, then block, or file, [source,] line, col, insn, kind,
 * [addr,] [value, text]. */
static void put_inst_json(struct q *q, const char *key, const struct wet_inst *i)
{
	const struct wet_node *n = q->t->nodes[i->node];
	struct json_out *j = &q->j;

	json_object(j, key);
	json_u64(j, "ts", i->ts);
	json_string(j, "function", n->fn->name);
	if (i->pos & WET_POS_BLOCK) {
		json_u64(j, "block", n->blocks[i->pos & ~WET_POS_BLOCK]);
		json_close(j);
		return;
	}
	const struct wpp_meta_wet_stmt *st = n->stmts[i->pos];
	const char *file = wpp_wet_stmt_file(n->fn, st);
	char addr[64], val[64];
	int64_t ra, rv;
	int oka, okv;
	size_t srclen = 0;
	const char *src = q->src ? src_lines_get(q->src, file, st->line, &srclen) : NULL;

	fmt_value(q, i, WPP_WET_REC_ADDR, addr, sizeof(addr), &ra, &oka);
	fmt_value(q, i, WPP_WET_REC_VALUE, val, sizeof(val), &rv, &okv);
	json_string(j, "file", file);
	if (src) {
		char *line = strndup(src, srclen);
		if (!line)
			wpp_die("out of memory");
		json_string(j, "source", line);
		free(line);
	}
	json_u64(j, "line", st->line);
	json_u64(j, "col", st->column);
	json_u64(j, "insn", st->insn);
	json_string(j, "kind", wpp_wet_kind_name(st->kind));
	if (oka)
		json_i64(j, "addr", ra);
	if (okv) {
		json_i64(j, "value", rv);
		json_string(j, "text", val);
	}
	json_close(j);
}

/* One instance as text: "@TS  fn  file:line:col  %insn kind  [addr=..]
 * [value=..]" after prefix, and the source line under the first instance
 * of a run on one line. */
static void put_inst(struct q *q, const struct wet_inst *i, const char *prefix)
{
	const struct wet_node *n = q->t->nodes[i->node];
	char addr[64], val[64];
	int64_t ra, rv;
	int oka, okv;

	if (i->pos & WET_POS_BLOCK) {
		fprintf(q->out, "%s@%" PRIu64 "  %s  block %" PRIu32 "\n", prefix, i->ts,
			n->fn->name, n->blocks[i->pos & ~WET_POS_BLOCK]);
		return;
	}
	const struct wpp_meta_wet_stmt *st = n->stmts[i->pos];
	fmt_value(q, i, WPP_WET_REC_ADDR, addr, sizeof(addr), &ra, &oka);
	fmt_value(q, i, WPP_WET_REC_VALUE, val, sizeof(val), &rv, &okv);
	size_t srclen = 0;
	const char *src =
	    q->src ? src_lines_get(q->src, wpp_wet_stmt_file(n->fn, st), st->line, &srclen) : NULL;
	fprintf(q->out, "%s@%" PRIu64 "  %s  %s:%" PRIu32 ":%" PRIu32 "  %%%" PRIu32 " %s", prefix,
		i->ts, n->fn->name, wpp_wet_stmt_file(n->fn, st), st->line, st->column, st->insn,
		wpp_wet_kind_name(st->kind));
	if (st->records & WPP_WET_REC_ADDR)
		fprintf(q->out, "  addr=%s", addr);
	if (st->records & WPP_WET_REC_VALUE)
		fprintf(q->out, "  value=%s", val);
	fputc('\n', q->out);
	/* the line's text under its first instance of a run */
	if (src && (st->line != q->src_line || strcmp(wpp_wet_stmt_file(n->fn, st), q->src_file))) {
		while (srclen && (src[0] == ' ' || src[0] == '\t'))
			src++, srclen--;
		fprintf(q->out, "%*s    | %.*s\n", (int)strlen(prefix), "", (int)srclen, src);
	}
	if (src) {
		q->src_line = st->line;
		snprintf(q->src_file, sizeof(q->src_file), "%s", wpp_wet_stmt_file(n->fn, st));
	}
}

static const char *const label_names[WET_NLBL] = {"timestamps", "flow", "values", "edges"};

/* Per function: its nodes, path executions, original and tier-1 figures
 * (every label kind but the thread's flow) and stored bytes. */
struct fn_size {
	const struct wpp_fn *fn;
	uint64_t nodes, execs, bytes;
	uint64_t orig[WET_NLBL], tier1[WET_NLBL];
};

static uint64_t sum_lbl(const uint64_t v[WET_NLBL])
{
	uint64_t s = 0;

	for (int k = 0; k < WET_NLBL; k++)
		s += v[k];
	return s;
}

static int by_bytes(const void *a, const void *b)
{
	const struct fn_size *x = a, *y = b;

	if (x->bytes != y->bytes)
		return x->bytes > y->bytes ? -1 : 1;
	return strcmp(x->fn->name, y->fn->name);
}

/* The functions of the WET by stored bytes, malloc'd; their count. */
static size_t fn_sizes(const struct wet_thread *t, struct fn_size **out)
{
	struct fn_size *v = calloc((size_t)t->nnodes + 1, sizeof(*v));
	size_t n = 0;

	if (!v)
		wpp_die("out of memory");
	for (uint32_t i = 0; i < t->nnodes; i++) {
		const struct wet_node *nd = t->nodes[i];
		size_t j = 0;
		while (j < n && v[j].fn != nd->fn)
			j++;
		if (j == n)
			v[n++].fn = nd->fn;
		v[j].nodes++;
		v[j].execs += nd->ninst;
		v[j].bytes += nd->bytes;
		wet_node_figures(nd, v[j].orig, v[j].tier1);
	}
	qsort(v, n, sizeof(*v), by_bytes);
	*out = v;
	return n;
}

/* The member key: {orig, tier1, tier2} bytes. */
static void json_sizes(struct json_out *j, const char *key, uint64_t orig, uint64_t tier1,
		       uint64_t tier2)
{
	json_object(j, key);
	json_u64(j, "orig", orig);
	json_u64(j, "tier1", tier1);
	json_u64(j, "tier2", tier2);
	json_close(j);
}

static int do_info(struct q *q, double secs)
{
	const struct wet_thread *t = q->t;
	const struct wet_sizes *z = &t->sizes;
	uint64_t o = 0, t1 = 0, t2 = 0, vs = 0, vv = 0;
	char err[256];

	if (q->verify && wet_verify(q->t, &vs, &vv, err, sizeof(err)) < 0) {
		wpp_err("%s: the WET does not verify: %s", q->name, err);
		return WPP_EXIT_ERROR;
	}

	for (int k = 0; k < WET_NLBL; k++)
		o += z->orig[k], t1 += z->tier1[k], t2 += z->tier2[k];
	struct fn_size *fs;
	size_t nf = fn_sizes(t, &fs);
	if (q->json) {
		struct json_out *j = &q->j;
		json_object(j, NULL);
		json_u64(j, "pid", t->pid);
		json_u64(j, "tid", t->tid);
		json_u64(j, "gen", t->gen);
		json_u64(j, "timestamps", t->nts);
		json_u64(j, "nodes", t->nnodes);
		json_u64(j, "gaps", t->ngaps);
		json_u64(j, "mem_unknown", t->mem_unknown);
		json_u64(j, "mem_other_thread", t->mem_xthread);
		json_u64(j, "shadow_peak", t->shadow_peak);
		json_bool(j, "built", secs > 0);
		json_double(j, "seconds", "%.3f", q->read_secs);
		if (q->verify) {
			json_u64(j, "verified_streams", vs);
			json_u64(j, "verified_values", vv);
		}
		json_object(j, "labels");
		for (int k = 0; k < WET_NLBL; k++)
			json_sizes(j, label_names[k], z->orig[k], z->tier1[k], z->tier2[k]);
		json_close(j);
		json_sizes(j, "total", o, t1, t2);
		json_array(j, "functions");
		for (size_t i = 0; i < nf; i++) {
			json_object(j, NULL);
			json_string(j, "name", fs[i].fn->name);
			json_u64(j, "nodes", fs[i].nodes);
			json_u64(j, "executions", fs[i].execs);
			json_u64(j, "orig", sum_lbl(fs[i].orig));
			json_u64(j, "tier1", sum_lbl(fs[i].tier1));
			json_u64(j, "bytes", fs[i].bytes);
			json_close(j);
		}
		json_close(j);
		json_close(j);
		json_raw(j, "\n");
		free(fs);
		return 0;
	}
	fprintf(q->out,
		"WET of pid %" PRIu32 " tid %" PRIu32 "%s: %" PRIu64 " path executions, %" PRIu32
		" nodes, %zu gaps; %s %.2f s\n",
		t->pid, t->tid, t->gen ? " (after exec)" : "", t->nts, t->nnodes, t->ngaps,
		secs > 0 ? "built in" : "read from the file in", q->read_secs);
	fprintf(q->out, "%-11s %14s %14s %14s %9s %9s\n", "label", "original", "tier 1", "tier 2",
		"orig/t1", "orig/t2");
	for (int k = 0; k <= WET_NLBL; k++) {
		uint64_t a = k < WET_NLBL ? z->orig[k] : o, b = k < WET_NLBL ? z->tier1[k] : t1,
			 c = k < WET_NLBL ? z->tier2[k] : t2;
		fprintf(q->out, "%-11s %14" PRIu64 " %14" PRIu64 " %14" PRIu64 " %8.1fx %8.1fx\n",
			k < WET_NLBL ? label_names[k] : "total", a, b, c, b ? (double)a / b : 0.0,
			c ? (double)a / c : 0.0);
	}
	fprintf(q->out,
		"(bytes; original counts 8 per per-block timestamp, value and address, 16 per "
		"dependence instance)\n%" PRIu64 " load instances with an unknown writer, %" PRIu64
		" writers in other threads; shadow memory peak %" PRIu64 " bytes\n",
		t->mem_unknown, t->mem_xthread, t->shadow_peak);
	fprintf(q->out, "%-24s %8s %12s %14s %14s %14s %9s\n", "function (top 10)", "nodes",
		"executions", "original", "tier 1", "tier 2", "orig/t2");
	for (size_t i = 0; i < nf && i < 10; i++)
		fprintf(q->out,
			"%-24s %8" PRIu64 " %12" PRIu64 " %14" PRIu64 " %14" PRIu64 " %14" PRIu64
			" %8.1fx\n",
			fs[i].fn->name, fs[i].nodes, fs[i].execs, sum_lbl(fs[i].orig),
			sum_lbl(fs[i].tier1), fs[i].bytes,
			fs[i].bytes ? (double)sum_lbl(fs[i].orig) / fs[i].bytes : 0.0);
	fprintf(q->out, "(per function: every label kind but the thread's flow stream)\n");
	free(fs);
	if (q->verify)
		fprintf(q->out,
			"verified: %" PRIu64 " streams, %" PRIu64
			" values read whole forward and backward\n",
			vs, vv);
	return 0;
}

static int do_values(struct q *q, uint8_t what)
{
	struct where w;
	struct wet_insn in;
	struct wet_insn_iter it;
	struct wet_inst i;
	uint64_t n = 0;
	int rc;

	if (parse_where(q->where, &w) < 0 || w.n) {
		wpp_err("%s: '%s' is not FILE:LINE[:COL][@K]", q->name, q->where);
		return WPP_EXIT_USAGE;
	}
	if ((rc = resolve_insn(q, &w, &in)))
		return rc;
	if (!(in.stmt->records & what)) {
		wpp_err("%s: %s:%" PRIu32 " (%s) records no %s%s", q->name, w.file, w.line,
			wpp_wet_kind_name(in.stmt->kind),
			what == WPP_WET_REC_ADDR ? "address" : "value",
			what == WPP_WET_REC_VALUE ? " (build with -fwpp-wet-values=all)" : "");
		return WPP_EXIT_ERROR;
	}
	if (wet_insn_iter_init(&it, q->t, &in) < 0) {
		read_failed(q);
		return WPP_EXIT_ERROR;
	}
	if (q->json) {
		json_object(&q->j, NULL);
		json_u64(&q->j, "tid", q->t->tid);
		json_u64(&q->j, "insn", in.insn);
		json_array(&q->j, "instances");
	}
	while ((q->count < 0 || n < (uint64_t)q->count) && (rc = wet_insn_iter_next(&it, &i)) > 0) {
		char buf[64];
		int64_t raw;
		int ok;
		n++;
		fmt_value(q, &i, what, buf, sizeof(buf), &raw, &ok);
		if (q->json) {
			json_object(&q->j, NULL);
			json_u64(&q->j, "n", n);
			json_u64(&q->j, "ts", i.ts);
			if (ok) {
				json_i64(&q->j, "raw", raw);
				json_string(&q->j, "text", buf);
			}
			json_close(&q->j);
		} else
			fprintf(q->out, "#%" PRIu64 "  @%" PRIu64 "  %s\n", n, i.ts, buf);
	}
	wet_insn_iter_free(&it);
	if (q->json)
		json_end(q);
	if (rc < 0) {
		read_failed(q);
		return WPP_EXIT_ERROR;
	}
	return 0;
}

static int do_flow(struct q *q)
{
	struct wet_inst i = {0};
	long n = q->count < 0 ? 20 : q->count;
	int rc = 0;

	/* --from @TS: a timestamp, as the listing shows them */
	if (q->where[0] == '@') {
		long ts = parse_count(q->where + 1);
		if (ts < 1 || (uint64_t)ts > q->t->nts) {
			wpp_err("%s: --from %s: the thread's timestamps are @1 .. @%" PRIu64,
				q->name, q->where, q->t->nts);
			return WPP_EXIT_USAGE;
		}
		i.ts = (uint64_t)ts;
	} else
		rc = resolve_inst(q, q->where, &i);
	if (rc)
		return rc;
	if (q->json) {
		json_object(&q->j, NULL);
		json_u64(&q->j, "tid", q->t->tid);
		json_u64(&q->j, "from", i.ts);
		json_array(&q->j, "paths");
	}
	uint64_t ts = i.ts;
	for (long c = 0; c < n && ts >= 1 && ts <= q->t->nts; c++) {
		uint32_t node;
		if (wet_flow_at(q->t, ts, &node) < 0) {
			read_failed(q);
			return WPP_EXIT_ERROR;
		}
		const struct wet_node *nd = q->t->nodes[node];
		int gap = wet_gap_after(q->t, q->backward ? ts - 1 : ts);
		if (q->json) {
			json_object(&q->j, NULL);
			json_u64(&q->j, "ts", ts);
			json_string(&q->j, "function", nd->fn->name);
			json_u64(&q->j, "path", nd->path_id);
			json_bool(&q->j, "gap", gap);
			json_close(&q->j);
		} else
			fprintf(q->out, "@%" PRIu64 "  %s  path %" PRIu64 "%s\n", ts, nd->fn->name,
				nd->path_id,
				gap ? (q->backward ? "\n   -- gap: words lost before --"
						   : "\n   -- gap: words lost after --")
				    : "");
		ts = q->backward ? ts - 1 : ts + 1;
	}
	if (q->json)
		json_end(q);
	return 0;
}

static const char *const dep_names[] = {"reg", "phi", "arg", "ret", "mem", "ctrl"};

/* Another thread's store a load read (WET_DEP_OTHER_THREAD): its function
 * and statement, or NULLs when the recording does not name them. */
static const struct wpp_meta_wet_stmt *other_stmt(struct q *q, const struct wet_dep_ans *a,
						  const struct wpp_fn **fn)
{
	const struct wpp_fid_range *range;

	*fn = NULL;
	if (wpp_image_resolve(wpp_modules_image(q->s->mods, q->t->pid, q->t->gen), a->x_fid, fn,
			      &range) != WPP_RESOLVED ||
	    !(*fn)->tu->wet || a->x_stmt >= (*fn)->tu->wet->nstmts) {
		*fn = NULL;
		return NULL;
	}
	return &(*fn)->tu->wet->stmts[a->x_stmt];
}

/* A dependence on another thread's store, as text or as a JSON member. */
static void put_other(struct q *q, const struct wet_dep_ans *a)
{
	const struct wpp_fn *fn;
	const struct wpp_meta_wet_stmt *st = other_stmt(q, a, &fn);

	if (q->json) {
		json_u64(&q->j, "tid", a->x_tid);
		json_object(&q->j, "def");
		json_u64(&q->j, "ts", a->def.ts);
		if (st) {
			json_string(&q->j, "function", fn->name);
			json_string(&q->j, "file", wpp_wet_stmt_file(fn, st));
			json_u64(&q->j, "line", st->line);
			json_u64(&q->j, "col", st->column);
			json_u64(&q->j, "insn", st->insn);
			json_string(&q->j, "kind", wpp_wet_kind_name(st->kind));
		}
		json_close(&q->j);
		return;
	}
	if (st)
		fprintf(q->out,
			"  mem  thread %" PRIu32 " @%" PRIu64 "  %s  %s:%" PRIu32 ":%" PRIu32
			"  %%%" PRIu32 " %s\n",
			a->x_tid, a->def.ts, fn->name, wpp_wet_stmt_file(fn, st), st->line,
			st->column, st->insn, wpp_wet_kind_name(st->kind));
	else
		fprintf(q->out, "  mem  thread %" PRIu32 " @%" PRIu64 "  (function %" PRIu32 ")\n",
			a->x_tid, a->def.ts, a->x_fid);
}

static int do_deps(struct q *q)
{
	struct wet_inst i;
	struct wet_dep_ans *a;
	int rc = resolve_inst(q, q->where, &i), n;

	if (rc)
		return rc;
	if ((n = wet_deps(q->t, &i, &a)) < 0) {
		read_failed(q);
		return WPP_EXIT_ERROR;
	}
	if (q->json) {
		json_object(&q->j, NULL);
		put_inst_json(q, "instance", &i);
		json_array(&q->j, "deps");
	} else
		put_inst(q, &i, "");
	for (int j = 0; j < n; j++) {
		const char *st = a[j].status == WET_DEP_IS_NONE	       ? "none"
				 : a[j].status == WET_DEP_IS_UNKNOWN   ? "unknown"
				 : a[j].status == WET_DEP_OTHER_THREAD ? "other_thread"
								       : "found";
		if (q->json) {
			json_object(&q->j, NULL);
			json_string(&q->j, "kind", dep_names[a[j].kind]);
			json_u64(&q->j, "op", a[j].op);
			json_string(&q->j, "status", st);
			if (a[j].status == WET_DEP_FOUND)
				put_inst_json(q, "def", &a[j].def);
			else if (a[j].status == WET_DEP_OTHER_THREAD)
				put_other(q, &a[j]);
			json_close(&q->j);
		} else if (a[j].status == WET_DEP_OTHER_THREAD) {
			put_other(q, &a[j]);
		} else if (a[j].status == WET_DEP_FOUND) {
			char pre[32];
			snprintf(pre, sizeof(pre), "  %-4s ", dep_names[a[j].kind]);
			put_inst(q, &a[j].def, pre);
		} else
			fprintf(q->out, "  %-4s %s\n", dep_names[a[j].kind],
				a[j].status == WET_DEP_IS_NONE ? "(none: a constant or a root)"
							       : "(unknown)");
	}
	if (q->json)
		json_end(q);
	free(a);
	return 0;
}

static int do_slice(struct q *q)
{
	struct wet_inst i, *v;
	int truncated, rc = resolve_inst(q, q->where, &i), n;
	uint64_t unknown;

	if (rc)
		return rc;
	n = wet_slice(q->t, &i, q->forward, q->count < 0 ? 1000000 : (size_t)q->count, &v,
		      &truncated, &unknown);
	q->src = src_lines_new();
	if (n < 0) {
		read_failed(q);
		return WPP_EXIT_ERROR;
	}
	if (q->json) {
		json_object(&q->j, NULL);
		json_string(&q->j, "direction", q->forward ? "forward" : "backward");
		json_bool(&q->j, "truncated", truncated);
		json_u64(&q->j, "unknown", unknown);
		json_array(&q->j, "instances");
	}
	for (int j = 0; j < n; j++)
		if (q->json)
			put_inst_json(q, NULL, &v[j]);
		else
			put_inst(q, &v[j], "");
	if (q->json)
		json_end(q);
	else
		fprintf(q->out, "%d instances in the %s slice%s; %" PRIu64 " unknown dependences\n",
			n, q->forward ? "forward" : "backward", truncated ? " (truncated: -n)" : "",
			unknown);
	free(v);
	src_lines_free(q->src);
	q->src = NULL;
	return 0;
}

/* --- the command ------------------------------------------------------------ */

/* One table of options per subcommand, each with only what it takes, so
 * that each subcommand's --help lists what it accepts. */
#define WET_QUERY_COMMON(q, fmt)                                                                   \
	OPT_FORMAT(&(fmt), opt_text_json), OPTS_THREADS((q).filter),                               \
	    OPT_COUNT_(0, "wet-shadow-mb", "MB",                                                   \
		       "memory for matching loads to stores when the query builds\n"               \
		       "the WET (default 1024; twice as much again for other\n"                    \
		       "threads' stores when the process has several)",                            \
		       &(q).shadow_mb, 1, 1L << 20, 0),                                            \
	    OPT_FLAG_(0, "timing", "say on stderr how long reading and answering took",            \
		      &(q).timing)

static const struct {
	const char *name;
	enum sub sub;
	int args; /* positional arguments after the file */
	const char *usage, *about;
} subs[] = {
    {"build", SUB_BUILD, 0, "wet build run.wpp [options]",
     "Build the WET of every selected thread and store it in the file (the first\n"
     "query does the same for its thread)."},
    {"info", SUB_INFO, 0, "wet info run.wpp [options]",
     "Sizes of a thread's WET: the original trace, after tier 1, after tier 2, per\n"
     "label kind and per function."},
    {"flow", SUB_FLOW, 0, "wet flow run.wpp --from FILE:LINE#N|@TS [options]",
     "The control-flow trace from one execution point, forward or backward."},
    {"values", SUB_VALUES, 1, "wet values run.wpp FILE:LINE[:COL][@K] [options]",
     "The value trace of one instruction (loads and recorded values)."},
    {"addrs", SUB_ADDRS, 1, "wet addrs run.wpp FILE:LINE[:COL][@K] [options]",
     "The address trace of one load or store."},
    {"deps", SUB_DEPS, 1, "wet deps run.wpp FILE:LINE#N [options]",
     "The instances one instance depends on, data and control."},
    {"slice", SUB_SLICE, 1, "wet slice run.wpp FILE:LINE#N [options]",
     "The backward (or forward) WET slice of one instance, with source lines."},
};

/* The options of subcommand sub, in table (which holds room for all). */
static void query_table(enum sub sub, struct q *q, int *fmt, struct opt *table)
{
	struct opt common[] = {WET_QUERY_COMMON(*q, *fmt)};
	size_t n = 0;

	for (size_t i = 0; i < sizeof(common) / sizeof(common[0]); i++)
		table[n++] = common[i];
	if (sub == SUB_FLOW) {
		table[n++] =
		    (struct opt)OPT_STRING_(0, "from", "FILE:LINE#N|@TS",
					    "where the trace starts: the N-th execution of\n"
					    "a line's instruction, or timestamp TS",
					    &q->where);
		table[n++] =
		    (struct opt)OPT_FLAG_(0, "backward", "walk towards the start", &q->backward);
	}
	if (sub == SUB_SLICE)
		table[n++] = (struct opt)OPT_FLAG_(0, "forward",
						   "what the instance affects, not what it\n"
						   "depends on",
						   &q->forward);
	if (sub == SUB_INFO)
		table[n++] = (struct opt)OPT_FLAG_(0, "verify",
						   "walk every stream end to end (catches damage\n"
						   "a checksum cannot)",
						   &q->verify);
	if (sub == SUB_FLOW || sub == SUB_VALUES || sub == SUB_ADDRS || sub == SUB_SLICE)
		table[n++] = (struct opt)OPT_COUNT_(
		    'n', NULL, "N", sub == SUB_SLICE ? "at most N instances" : "at most N entries",
		    &q->count, 0, LONG_MAX, 0);
	table[n] = (struct opt)OPT_END_;
}

int cmd_wet_query(int argc, char **argv)
{
	char name[32];
	struct q q = {.out = stdout, .count = -1, .shadow_mb = -1, .filter = THREAD_FILTER_ANY};
	struct opt table[16];
	size_t si = 0;
	int rc, first, fmt = 0;

	while (si < sizeof(subs) / sizeof(subs[0]) && strcmp(subs[si].name, argv[0]))
		si++;
	if (si == sizeof(subs) / sizeof(subs[0])) {
		wpp_err("wet: unknown subcommand '%s' (try wpptrace help wet)", argv[0]);
		return WPP_EXIT_USAGE;
	}
	q.sub = subs[si].sub;
	snprintf(name, sizeof(name), "wet %s", subs[si].name);
	q.name = name;
	struct opt_command cmd = {
	    .name = name,
	    .usage = subs[si].usage,
	    .about = subs[si].about,
	    .operands = subs[si].args ? "run.wpp and one instruction" : "one .wpp file",
	    .min_operands = 1 + subs[si].args,
	    .max_operands = 1 + subs[si].args,
	};
	query_table(q.sub, &q, &fmt, table);
	if ((rc = opts_parse(&cmd, table, argc, argv, &first)) != 0)
		return rc > 0 ? WPP_EXIT_OK : WPP_EXIT_USAGE;
	q.json = fmt == 1;
	json_init(&q.j, q.out, 0);
	if (q.sub == SUB_FLOW && !q.where) {
		wpp_err("%s: --from names where the trace starts (try wpptrace wet flow --help)",
			name);
		return WPP_EXIT_USAGE;
	}
	if (subs[si].args)
		q.where = argv[first + 1];
	struct session s;
	const char *path = argv[first];
	if ((rc = session_open(&s, path)))
		return rc;
	q.s = &s;
	if (session_refuse_counts(&s, name, path, &q.filter)) {
		session_close(&s);
		return WPP_EXIT_ERROR;
	}
	if (q.sub == SUB_BUILD) {
		q.how = (struct wet_obtain){name, 1, q.shadow_mb, 0};
		rc = build_all(&q, &s, path);
		session_close(&s);
		return rc;
	}
	const struct wpp_thread_trace *th = pick_thread(&q, &s);
	if (!th) {
		rc = no_thread_selected(name, path, &q.filter, s.exit_status);
		session_close(&s);
		return rc ? rc : WPP_EXIT_ERROR;
	}
	double secs, t0 = wet_now();
	enum wet_origin stored;
	/* info checks every stream's structure; a query parses what it reads */
	q.how = (struct wet_obtain){name, q.sub == SUB_BUILD, q.shadow_mb,
				    q.sub != SUB_INFO && q.sub != SUB_BUILD};
	q.t = wet_obtain(&q.how, &s, path, th, &secs, &stored);
	if (!q.t) {
		session_close(&s);
		return WPP_EXIT_ERROR;
	}
	q.read_secs = secs > 0 ? secs : wet_now() - t0;
	q.from_file = stored == WET_READ;
	double t_answer = wet_now();
	switch (q.sub) {
	case SUB_BUILD:
		break;
	case SUB_INFO:
		rc = do_info(&q, secs);
		break;
	case SUB_FLOW:
		rc = do_flow(&q);
		break;
	case SUB_VALUES:
	case SUB_ADDRS:
		rc = do_values(&q, q.sub == SUB_ADDRS ? WPP_WET_REC_ADDR : WPP_WET_REC_VALUE);
		break;
	case SUB_DEPS:
		rc = do_deps(&q);
		break;
	case SUB_SLICE:
		rc = do_slice(&q);
		break;
	}
	if (q.timing)
		fprintf(stderr, "%s: WET %s in %.3f s, answered in %.3f s\n", name,
			secs > 0 ? "built" : "read", q.read_secs, wet_now() - t_answer);
	if (!rc)
		rc = s.exit_status;
	wet_thread_free(q.t);
	session_close(&s);
	return rc;
}
