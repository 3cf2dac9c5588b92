/* SPDX-License-Identifier: MIT */
/*
 * cost_run_end.c — a sample at a run's REPEAT slot: the run's, or the
 * run-ending iteration's (cost_run_end.h).  The sampled ip is symbolized
 * (innermost source position) and compared with the source positions the
 * metadata gives each block of the two records.
 */
#include "costs/cost_run_end.h"

#include <stdlib.h>
#include <string.h>

#include "symbolizer/dwarf_lookup.h"
#include "decode/path_regen.h"

/* Decisions repeat (a loop's few ips, run after run): a direct-mapped
 * memo keyed by everything the decision depends on. */
#define MEMO_SIZE 4096
struct memo {
	const struct wpp_fn *fn; /* NULL = empty */
	const struct wpp_image_map *image;
	uint64_t ip, run_value, next_value;
	uint8_t run_is_block, next_is_block, is_next;
};

/* Where the run count is at an ip of a function (run_count_at). */
#define LOC_MEMO_SIZE 1024
struct loc_memo {
	const struct wpp_fn *fn; /* NULL = empty */
	const struct wpp_image_map *image;
	uint64_t ip;
	struct wpp_varloc loc;
};

struct run_end_judge {
	struct wpp_modules *mods;
	struct wpp_dwarf *dwarf;
	uint32_t *blocks; /* wpp_path_expand buffer */
	uint32_t cap;
	struct memo memo[MEMO_SIZE];
	struct loc_memo loc_memo[LOC_MEMO_SIZE];
};

struct run_end_judge *run_end_judge_new(struct wpp_modules *mods)
{
	struct run_end_judge *j = calloc(1, sizeof(*j));
	if (!j || !(j->dwarf = wpp_dwarf_new())) {
		free(j);
		return NULL;
	}
	j->mods = mods;
	return j;
}

void run_end_judge_free(struct run_end_judge *j)
{
	if (!j)
		return;
	wpp_dwarf_free(j->dwarf);
	free(j->blocks);
	free(j);
}

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');
	return s ? s + 1 : path;
}

/* Does block b of fn cover the source position of frame f? */
static int block_has(const struct wpp_fn *fn, uint32_t b, const struct wpp_src_frame *f)
{
	const struct wpp_meta_block *bl = &fn->blocks[b];
	for (uint32_t i = 0; i < bl->nlines; i++) {
		const struct wpp_meta_line *l = &fn->tu->lines[bl->first_line + i];
		if (l->line == f->line && l->column == f->column &&
		    !strcmp(base_name(wpp_tu_str(fn->tu, l->file_str)), base_name(f->file)))
			return 1;
	}
	return 0;
}

/* 1 if some block of record r covers f, 0 if none, -1 if r's blocks are
 * unknown (not a path of the DAG, or out of memory). */
static int rec_has(struct run_end_judge *j, const struct run_end_rec *r,
		   const struct wpp_src_frame *f)
{
	struct wpp_path p;
	if (r->is_block)
		return r->value < r->fn->nblocks ? block_has(r->fn, (uint32_t)r->value, f) : -1;
	if (j->cap < r->fn->nblocks + 1) {
		uint32_t *g = realloc(j->blocks, (r->fn->nblocks + 1) * sizeof(*g));
		if (!g)
			return -1;
		j->blocks = g;
		j->cap = r->fn->nblocks + 1;
	}
	if (wpp_path_expand(r->fn, r->value, j->blocks, j->cap, &p) < 0)
		return -1;
	for (uint32_t i = 0; i < p.nblocks; i++)
		if (block_has(r->fn, p.blocks[i], f))
			return 1;
	return 0;
}

/* The DWARF frames at ip (innermost first) when ip lies in the run's own
 * function (its outermost frame is run->fn), with the module in *mod: the
 * number of frames, or 0 when ip is elsewhere or unknown. */
#define MAX_FRAMES 16
static int frames_in_run_fn(struct run_end_judge *j, const struct wpp_image_map *im, uint64_t ip,
			    const struct run_end_rec *run, struct wpp_src_frame fr[MAX_FRAMES],
			    const struct wpp_module_rec **mod)
{
	const struct wpp_fid_range *range = NULL;
	const struct wpp_fn *fn = NULL;
	const struct wpp_module_rec *m;
	char err[256];
	int n;

	if (wpp_image_resolve(im, run->fid, &fn, &range) != WPP_RESOLVED || fn != run->fn)
		return 0;
	m = range->module;
	n = wpp_dwarf_frames(j->dwarf, m->path, m->build_id, m->build_id_len, m->load_bias, ip, fr,
			     MAX_FRAMES, err, sizeof(err));
	if (n <= 0 || !fr[n - 1].function || strcmp(fr[n - 1].function, fn->name))
		return 0;
	*mod = m;
	return n;
}

static int decide(struct run_end_judge *j, const struct wpp_image_map *im, uint64_t ip,
		  const struct run_end_rec *run, const struct run_end_rec *next)
{
	const struct wpp_module_rec *m;
	struct wpp_src_frame fr[MAX_FRAMES];

	if (!frames_in_run_fn(j, im, ip, run, fr, &m) || !fr[0].file || !fr[0].line)
		return 0;
	return rec_has(j, run, &fr[0]) == 0 && rec_has(j, next, &fr[0]) == 1;
}

int run_end_is_next(struct run_end_judge *j, uint32_t pid, uint32_t gen, uint64_t ip,
		    const struct run_end_rec *run, const struct run_end_rec *next)
{
	const struct wpp_image_map *im;
	struct memo *e;
	uint64_t h;

	/* Only the run's own function can tell: a run region is call-free,
	 * and so is the iteration that ends it, up to its record. */
	if (!run->fn || next->fn != run->fn)
		return 0;
	im = wpp_modules_image(j->mods, pid, gen);
	h = (ip ^ run->value * 0x9e3779b97f4a7c15u ^ next->value * 0xbf58476d1ce4e5b9u ^
	     (uint64_t)(uintptr_t)run->fn) *
	    0x94d049bb133111ebu;
	e = &j->memo[(h >> 40) % MEMO_SIZE];
	if (e->fn == run->fn && e->image == im && e->ip == ip && e->run_value == run->value &&
	    e->next_value == next->value && e->run_is_block == run->is_block &&
	    e->next_is_block == next->is_block)
		return e->is_next;
	*e = (struct memo){run->fn,
			   im,
			   ip,
			   run->value,
			   next->value,
			   (uint8_t)run->is_block,
			   (uint8_t)next->is_block,
			   (uint8_t)decide(j, im, ip, run, next)};
	return e->is_next;
}

/* The count's location at ip, when ip is in the run's function: NONE
 * otherwise. */
static struct wpp_varloc count_location(struct run_end_judge *j, const struct wpp_image_map *im,
					uint64_t ip, const struct run_end_rec *run)
{
	const struct wpp_module_rec *m;
	struct wpp_varloc loc = {WPP_VARLOC_NONE, 0, 0};
	struct wpp_src_frame fr[MAX_FRAMES];
	char err[256];

	if (!frames_in_run_fn(j, im, ip, run, fr, &m))
		return loc;
	if (wpp_dwarf_var_location(j->dwarf, m->path, m->build_id, m->build_id_len, m->load_bias,
				   ip, WPP_RUN_COUNT_VAR, &loc, err, sizeof(err)) < 0)
		loc.kind = WPP_VARLOC_NONE;
	return loc;
}

int run_count_at(struct run_end_judge *j, uint32_t pid, uint32_t gen, uint64_t ip,
		 const struct run_end_rec *run, const struct wpp_sample_regs *regs, uint64_t *count)
{
	if (!regs || !run->fn)
		return 0;
	const struct wpp_image_map *im = wpp_modules_image(j->mods, pid, gen);
	uint64_t h =
	    (ip ^ (uint64_t)(uintptr_t)run->fn * 0x9e3779b97f4a7c15u) * 0x94d049bb133111ebu;
	struct loc_memo *e = &j->loc_memo[(h >> 40) % LOC_MEMO_SIZE];
	if (!(e->fn == run->fn && e->image == im && e->ip == ip))
		*e = (struct loc_memo){run->fn, im, ip, count_location(j, im, ip, run)};
	return wpp_varloc_eval(&e->loc, regs->r, WPP_SAMPLE_NREGS, count);
}

enum run_count_where run_count_place(uint64_t c, uint64_t k, int has_next, uint64_t *index)
{
	if (c < k) {
		*index = c;
		return RUN_COUNT_REPEAT;
	}
	return c == k && has_next ? RUN_COUNT_NEXT : RUN_COUNT_UNSURE;
}
