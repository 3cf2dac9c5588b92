/* SPDX-License-Identifier: MIT */
#include "report/fn_flow.h"

#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "report/path_text.h"

static void add_edge(struct fn_flow *f, uint32_t u, uint32_t v, uint64_t n)
{
	uint32_t *s = &f->succ[(size_t)u * FN_FLOW_MAX_SUCC];

	for (uint32_t k = 0; k < f->nsucc[u]; k++)
		if (s[k] == v) {
			f->edge_count[(size_t)u * FN_FLOW_MAX_SUCC + k] += n;
			return;
		}
}

int fn_flow_build(struct fn_flow *f, const struct rpt_profile *p, const struct wpp_fn *fn,
		  enum rpt_sort sort)
{
	struct rpt_row *rows;
	size_t n = rpt_rows(p, RPT_BY_PATH, sort, &rows), k = 0;
	uint32_t nb = fn->nblocks;

	*f = (struct fn_flow){.fn = fn};
	for (size_t i = 0; i < n; i++)
		if (rows[i].fn == fn)
			rows[k++] = rows[i];
	if (k == 0) {
		free(rows);
		return -1;
	}
	f->paths = rows;
	f->npaths = k;
	f->block_count = calloc(nb + 1, sizeof(*f->block_count));
	f->nsucc = calloc(nb + 1, sizeof(*f->nsucc));
	f->succ = calloc((size_t)nb * FN_FLOW_MAX_SUCC + 1, sizeof(*f->succ));
	f->edge_count = calloc((size_t)nb * FN_FLOW_MAX_SUCC + 1, sizeof(*f->edge_count));
	if (!f->block_count || !f->nsucc || !f->succ || !f->edge_count)
		wpp_die("out of memory");
	for (uint32_t u = 0; u < nb; u++)
		f->nsucc[u] =
		    rpt_cfg_succ(fn, u, &f->succ[(size_t)u * FN_FLOW_MAX_SUCC], FN_FLOW_MAX_SUCC);
	for (size_t i = 0; i < k; i++) {
		const struct rpt_path *r = rows[i].path;
		uint64_t c = rows[i].count;
		uint32_t target = rpt_path_exit_target(r);
		f->total += c;
		for (uint32_t b = 0; b < r->nblocks; b++) {
			f->block_count[r->blocks[b]] += c;
			if (b + 1 < r->nblocks)
				add_edge(f, r->blocks[b], r->blocks[b + 1], c);
		}
		if (target != UINT32_MAX && r->nblocks)
			add_edge(f, r->blocks[r->nblocks - 1], target, c);
	}
	return 0;
}

void fn_flow_free(struct fn_flow *f)
{
	free(f->block_count);
	free(f->nsucc);
	free(f->succ);
	free(f->edge_count);
	free(f->paths);
	*f = (struct fn_flow){0};
}

size_t fn_flow_find(const struct rpt_profile *p, const char *name, const struct wpp_fn ***out)
{
	const struct wpp_fn **fns = NULL;
	size_t n = 0;

	for (size_t i = 0; i < p->npaths; i++) {
		const struct wpp_fn *fn = p->paths[i].fn;
		size_t k;
		if (strcmp(fn->name, name) != 0)
			continue;
		for (k = 0; k < n && fns[k] != fn; k++)
			;
		if (k < n)
			continue;
		if (!(fns = realloc(fns, (n + 1) * sizeof(*fns))))
			wpp_die("out of memory");
		fns[n++] = fn;
	}
	*out = fns;
	return n;
}

int fn_flow_path_has_edge(const struct rpt_path *r, uint32_t u, uint32_t v)
{
	for (uint32_t b = 0; b + 1 < r->nblocks; b++)
		if (r->blocks[b] == u && r->blocks[b + 1] == v)
			return 1;
	return r->nblocks && r->blocks[r->nblocks - 1] == u && rpt_path_exit_target(r) == v;
}
