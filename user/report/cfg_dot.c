/* SPDX-License-Identifier: MIT */
#include "report/cfg_dot.h"

#include <errno.h>
#include <inttypes.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "report/fn_flow.h"
#include "common/log.h"
#include "report/path_text.h"
#include "report/table_fmt.h"

extern char **environ;

static const char *const hot_colors[CFG_HOT_PATHS] = {"#d62728", "#ff7f0e", "#e6b800"};

/* A dot string literal: quotes and backslashes escaped, newlines as \n. */
static void dot_str(FILE *out, const char *s)
{
	fputc('"', out);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fputc('\\', out);
		if (*s == '\n')
			fputs("\\n", out);
		else if ((unsigned char)*s >= 0x20)
			fputc(*s, out);
	}
	fputc('"', out);
}

/* Hottest of the top paths that takes u->v, or -1. */
static int hot_rank(const struct fn_flow *f, uint32_t u, uint32_t v)
{
	for (size_t h = 0; h < f->npaths && h < CFG_HOT_PATHS; h++)
		if (fn_flow_path_has_edge(f->paths[h].path, u, v))
			return (int)h;
	return -1;
}

static void block_node(FILE *out, const struct fn_flow *f, uint32_t b, uint64_t max)
{
	const struct wpp_fn *fn = f->fn;
	const struct wpp_meta_block *bl = &fn->blocks[b];
	char c[FMT_NUM_LEN], pc[FMT_NUM_LEN];
	struct strbuf s = {0};
	int heat = max ? (int)(200 * f->block_count[b] / max) : 0;

	sb_printf(&s, "b%" PRIu32 ": ", b);
	if (bl->nlines) {
		uint32_t lo = UINT32_MAX, hi = 0;
		for (uint32_t k = 0; k < bl->nlines; k++) {
			uint32_t l = fn->tu->lines[bl->first_line + k].line;
			if (l && l < lo)
				lo = l;
			if (l > hi)
				hi = l;
		}
		if (lo == UINT32_MAX)
			sb_printf(&s, "no line");
		else if (lo == hi)
			sb_printf(&s, "line %" PRIu32, lo);
		else
			sb_printf(&s, "lines %" PRIu32 "-%" PRIu32, lo, hi);
	} else {
		sb_printf(&s, "no line");
	}
	sb_printf(&s, "\n%s (%s)", fmt_count(c, f->block_count[b]),
		  fmt_pct(pc, f->block_count[b], f->total));
	fprintf(out, "  b%" PRIu32 " [label=", b);
	dot_str(out, s.s);
	/* white -> red by count */
	fprintf(out, ", fillcolor=\"#ff%02x%02x\"%s];\n", 255 - heat, 255 - heat,
		f->block_count[b] ? "" : ", fontcolor=\"#999999\", color=\"#999999\"");
	sb_free(&s);
}

static void write_dot(FILE *out, const struct fn_flow *f)
{
	const struct wpp_fn *fn = f->fn;
	char c[FMT_NUM_LEN];
	uint64_t max = 0, *entries, *returns;

	for (uint32_t b = 0; b < fn->nblocks; b++)
		if (f->block_count[b] > max)
			max = f->block_count[b];
	fputs("digraph ", out);
	dot_str(out, fn->name);
	fputs(" {\n  graph [fontname=\"monospace\", label=", out);
	{
		struct strbuf t = {0};
		char pc[FMT_NUM_LEN];
		sb_printf(&t, "%s (%s:%" PRIu32 "): %s path executions", fn->name,
			  fn->file[0] ? fmt_basename(fn->file) : "?", fn->line,
			  fmt_count(c, f->total));
		for (size_t h = 0; h < f->npaths && h < CFG_HOT_PATHS; h++)
			sb_printf(&t, "\n%s: path #%" PRIu64 " (%s)",
				  h == 0   ? "red"
				  : h == 1 ? "orange"
					   : "gold",
				  f->paths[h].path->id, fmt_pct(pc, f->paths[h].count, f->total));
		dot_str(out, t.s);
		sb_free(&t);
	}
	fputs(", labelloc=t];\n  node [shape=box, style=filled, fontname=\"monospace\"];\n", out);
	fputs("  entry [shape=oval, fillcolor=\"#eeeeee\"];\n  exit [shape=oval, "
	      "fillcolor=\"#eeeeee\", "
	      "label=\"return\"];\n",
	      out);
	for (uint32_t b = 0; b < fn->nblocks; b++)
		block_node(out, f, b, max);
	entries = calloc(fn->nblocks + 1, sizeof(*entries));
	returns = calloc(fn->nblocks + 1, sizeof(*returns));
	if (!entries || !returns)
		wpp_die("out of memory");
	for (size_t i = 0; i < f->npaths; i++) {
		const struct rpt_path *r = f->paths[i].path;
		if (!r->nblocks || r->is_block)
			continue;
		if (r->start == WPP_START_ENTRY)
			entries[r->blocks[0]] += f->paths[i].count;
		if (r->end == WPP_END_RETURN)
			returns[r->blocks[r->nblocks - 1]] += f->paths[i].count;
	}
	for (uint32_t e = fn->out_first[WPP_DAG_ENTRY(fn)];
	     e < fn->out_first[WPP_DAG_ENTRY(fn) + 1]; e++)
		if (fn->edges[e].kind == WPP_EDGE_FUNC_ENTRY)
			fprintf(out, "  entry -> b%" PRIu32 " [label=\"%s\"];\n", fn->edges[e].dst,
				fmt_count(c, entries[fn->edges[e].dst]));
	for (uint32_t b = 0; b < fn->nblocks; b++) {
		for (uint32_t k = 0; k < f->nsucc[b]; k++) {
			uint32_t v = f->succ[(size_t)b * FN_FLOW_MAX_SUCC + k];
			uint64_t n = f->edge_count[(size_t)b * FN_FLOW_MAX_SUCC + k];
			int rank = hot_rank(f, b, v);
			double w = max ? 1.0 + 5.0 * (double)n / (double)max : 1.0;
			fprintf(out,
				"  b%" PRIu32 " -> b%" PRIu32
				" [label=\"%s\", penwidth=%.2f%s%s%s%s];\n",
				b, v, fmt_count(c, n), w, rank >= 0 ? ", color=\"" : "",
				rank >= 0 ? hot_colors[rank] : "", rank >= 0 ? "\"" : "",
				n ? "" : ", style=dashed, color=\"#999999\"");
		}
		if (fn->blocks[b].flags & WPP_BLOCK_RETURN)
			fprintf(out, "  b%" PRIu32 " -> exit [label=\"%s\"];\n", b,
				fmt_count(c, returns[b]));
	}
	fputs("}\n", out);
	free(entries);
	free(returns);
}

int rpt_cfg_dot(FILE *out, const struct rpt_profile *p, const char *name, enum rpt_sort sort)
{
	const struct wpp_fn **fns;
	size_t n = fn_flow_find(p, name, &fns);

	if (n == 0) {
		wpp_err("cfg: function '%s' has no recorded paths in %s", name, p->file);
		free(fns);
		return -1;
	}
	if (n > 1)
		wpp_warn("cfg: %zu binaries have a function '%s'; drawing the first", n, name);
	for (size_t i = 0; i < 1; i++) {
		struct fn_flow f;
		fn_flow_build(&f, p, fns[i], sort);
		write_dot(out, &f);
		fn_flow_free(&f);
	}
	free(fns);
	return 0;
}

int rpt_cfg_svg(int svg_fd, const char *svg_path, const struct rpt_profile *p, const char *name,
		enum rpt_sort sort)
{
	char *argv[] = {"dot", "-Tsvg", NULL};
	posix_spawn_file_actions_t fa;
	int fds[2], status, rc;
	pid_t pid;
	FILE *to;

	if (pipe(fds) < 0) {
		wpp_err("cfg: pipe: %s", strerror(errno));
		return -1;
	}
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, fds[0], 0);
	posix_spawn_file_actions_addclose(&fa, fds[1]);
	posix_spawn_file_actions_adddup2(&fa, svg_fd, 1);
	rc = posix_spawnp(&pid, "dot", &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	close(fds[0]);
	if (rc != 0) {
		close(fds[1]);
		wpp_err("cfg: cannot run Graphviz 'dot' (%s); install graphviz or use -o FILE.dot",
			strerror(rc));
		return -1;
	}
	to = fdopen(fds[1], "w");
	rc = to ? rpt_cfg_dot(to, p, name, sort) : -1;
	if (to)
		fclose(to);
	else
		close(fds[1]);
	if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		if (rc == 0)
			wpp_err("cfg: Graphviz 'dot' failed writing %s", svg_path);
		return -1;
	}
	return rc;
}
