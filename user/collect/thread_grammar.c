/* SPDX-License-Identifier: MIT */
/* A recorded thread's grammar and its terminals; see thread_grammar.h. */
#include "collect/thread_grammar.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decode/batch_words.h"
#include "common/cpu_clock.h"
#include "common/log.h"
#include "collect/online.h"
#include "decode/path_regen.h"
#include "common/wppfile.h"

/* The builder for grammars built from batches (thread_grammar.h). */
static enum seq_algorithm rebuild_algo = SEQ_CHUNKED;

void thread_grammar_set_builder(enum seq_algorithm algo)
{
	rebuild_algo = algo;
}

struct one_capture {
	struct wpp_thread_grammar tg;
	int got;
};

static void capture(void *ctx, struct wpp_thread_grammar *tg)
{
	struct one_capture *c = ctx;
	if (c->got)
		wpp_thread_grammar_free(&c->tg);
	c->tg = *tg;
	c->got = 1;
}

/* The grammar of th's batches, or with tap set its terminals (see
 * thread_stream_export). */
static int build_from_batches(const struct wpp_thread_trace *th,
			      const struct path_terminal_tap *tap, struct wpp_thread_grammar *out)
{
	struct one_capture cap = {0};
	struct wpp_grammar_cfg cfg = {
	    .algo = rebuild_algo, .tap = tap, .capture = capture, .ctx = &cap};
	struct wpp_online_consumer cons = wpp_grammar_consumer(&cfg);
	struct wpp_thread_key key = {th->pid, th->tid, th->generation};
	struct wpp_online *o = wpp_online_new(&cons, 1);
	uint64_t *words = NULL;
	size_t cap_words = 0;
	size_t gi = 0;

	if (!o)
		goto nomem;
	if (!th->nbatches) {
		/* Nothing recorded (maybe only losses): an empty grammar. */
		struct path_grammar *pg =
		    tap ? path_grammar_new_tap(tap) : path_grammar_new(rebuild_algo);
		int rc = pg ? 0 : -1;
		for (size_t g = 0; g < th->ngaps && rc == 0; g++)
			rc = path_grammar_gap(pg);
		if (rc == 0)
			rc = path_grammar_export(pg, &key, out);
		path_grammar_free(pg);
		if (rc < 0)
			goto nomem;
		wpp_online_free(o);
		return 0;
	}
	/* File order is arrival order.  The loader keeps batches and gaps in
	 * separate lists, so the gaps go in right after the first batch (which
	 * names the thread's generation and cannot be delivered alone): each
	 * is held until the stream passes its after_seq, which is where the
	 * offline rule puts it as well. */
	for (size_t i = 0; i < th->nbatches; i++) {
		const struct wpp_batch_ref *r = &th->batches[i];
		struct wpp_chunk_batch b = {.pid = th->pid,
					    .tid = th->tid,
					    .seq = r->seq,
					    .parent_seq = r->parent_seq,
					    .parent_off = r->parent_off,
					    .flags = r->flags,
					    .time_ns = r->time_ns,
					    .generation = th->generation,
					    .nwords = r->nwords};
		if (r->nwords > cap_words || !words) {
			free(words);
			cap_words = r->nwords ? r->nwords : 1;
			if (!(words = malloc(cap_words * 8)))
				goto nomem;
		}
		/* compressed chunks are decoded on demand (batch_words.h); the
		 * words may be unaligned in the file's copy */
		memcpy(words, wpp_batch_words_get(r), (size_t)r->nwords * 8);
		wpp_batch_words_put(r);
		wpp_online_batch(o, &b, words);
		for (; i == 0 && gi < th->ngaps; gi++) {
			const struct wpp_gap_ref *g = &th->gaps[gi];
			struct wpp_chunk_gap c = {th->pid, th->tid, g->after_seq, g->lost_words,
						  g->lost_batches};
			wpp_online_gap(o, &c);
		}
	}
	free(words);
	words = NULL;
	if (wpp_online_thread_exit(o, &key, NULL) < 0 || !cap.got || cfg.failed)
		goto nomem;
	wpp_online_free(o);
	*out = cap.tg;
	return 0;
nomem:
	free(words);
	wpp_online_free(o);
	if (cap.got)
		wpp_thread_grammar_free(&cap.tg);
	wpp_err("out of memory %s thread %u",
		tap ? "reading the path stream of" : "building the grammar of", th->tid);
	return -1;
}

int thread_grammar_rebuild(const struct wpp_thread_trace *th, struct wpp_thread_grammar *out)
{
	return build_from_batches(th, NULL, out);
}

int thread_stream_export(const struct wpp_thread_trace *th, const struct path_terminal_tap *tap,
			 struct wpp_thread_grammar *out)
{
	return build_from_batches(th, tap, out);
}

int thread_grammar_for_each_raw(struct wpp_trace *t, raw_grammar_fn fn, void *ctx, uint32_t *n)
{
	struct wpp_chunk c;
	struct wpp_chunk_grammar h;
	int rc = 0;

	*n = 0;
	wppr_rewind(t->reader);
	while (rc == 0 && wppr_next(t->reader, &c)) {
		struct wpp_thread_grammar tg;
		char why[192];

		if (c.type != WPP_CHUNK_GRAMMAR || c.length < sizeof(h))
			continue;
		memcpy(&h, c.payload, sizeof(h));
		if (!(h.flags & WPP_GRAMMAR_RAW))
			continue;
		++*n;
		if (!fn)
			continue;
		if (wpp_grammar_chunk_decode(c.payload, c.length, &tg, why, sizeof(why)) < 0) {
			wpp_err("%s: grammar chunk at offset %llu: %s", t->path,
				(unsigned long long)c.file_offset, why);
			return -1;
		}
		rc = fn(ctx, &tg, *n);
		wpp_thread_grammar_free(&tg);
	}
	return rc;
}

int thread_grammar_load(struct wpp_trace *t, const struct wpp_thread_trace *th,
			struct wpp_thread_grammar *out, enum grammar_origin *origin,
			struct grammar_builds *builds)
{
	struct wpp_chunk c, found = {0};
	struct wpp_chunk_grammar h;
	char why[192];
	int after_end = 0, found_after_end = 0;

	/* The last GRAMMAR chunk of this thread wins (a recorder may write
	 * snapshots before the final one). */
	wppr_rewind(t->reader);
	while (wppr_next(t->reader, &c)) {
		after_end |= c.type == WPP_CHUNK_END;
		if (c.type != WPP_CHUNK_GRAMMAR || c.length < sizeof(h))
			continue;
		memcpy(&h, c.payload, sizeof(h));
		if (h.pid == th->pid && h.tid == th->tid && h.generation == th->generation &&
		    !(h.flags & WPP_GRAMMAR_RAW)) {
			found = c;
			found_after_end = after_end;
		}
	}
	if (found.payload) {
		if (wpp_grammar_chunk_decode(found.payload, found.length, out, why, sizeof(why)) ==
		    0) {
			*origin = found_after_end ? GRAMMAR_STORED : GRAMMAR_RECORDED;
			return 0;
		}
		wpp_warn(
		    "%s: grammar chunk of thread %u at offset %llu is unusable (%s); rebuilding "
		    "it from the batches",
		    t->path, th->tid, (unsigned long long)found.file_offset, why);
	}
	*origin = GRAMMAR_REBUILT;
	double t0 = process_cpu_seconds();
	int rc = thread_grammar_rebuild(th, out);
	if (builds && rc == 0) {
		builds->n++;
		builds->cpu_seconds += process_cpu_seconds() - t0;
	}
	return rc;
}

/* Below this, building again each time costs less than a thought. */
#define SUGGEST_STORE_SECONDS 1.0

void thread_grammar_suggest_store(const char *cmd, const char *path,
				  const struct grammar_builds *builds)
{
	uint32_t n = builds->n;
	if (n && builds->cpu_seconds >= SUGGEST_STORE_SECONDS)
		wpp_info("%s: built %u grammar%s from the batches in %.1f s; `wpptrace wpp --store "
			 "%s` keeps %s in the file for later runs",
			 cmd, n, n == 1 ? "" : "s", builds->cpu_seconds, path,
			 n == 1 ? "it" : "them");
}

static void add_lines(const struct wpp_fn *fn, uint32_t block, struct terminal_info *ti)
{
	const struct wpp_meta_block *b = &fn->blocks[block];

	ti->insns += b->ninsns;
	for (uint32_t k = 0; k < b->nlines; k++) {
		const struct wpp_meta_line *l = &fn->tu->lines[b->first_line + k];
		if (!ti->file) {
			const char *f = wpp_tu_str(fn->tu, l->file_str);
			ti->file = f[0] ? f : fn->file;
		}
		if (l->line == 0)
			continue;
		if (l->line < ti->line_min)
			ti->line_min = l->line;
		if (l->line > ti->line_max)
			ti->line_max = l->line;
	}
}

int thread_grammar_describe(const struct wpp_thread_grammar *tg, struct wpp_modules *mods,
			    struct terminal_info *info)
{
	const struct wpp_image_map *im = wpp_modules_image(mods, tg->hdr.pid, tg->hdr.generation);
	uint32_t *blocks = NULL, cap = 0;

	for (uint32_t i = 0; i < tg->hdr.nterminals; i++) {
		const struct wpp_grammar_terminal *term = &tg->terms[i];
		struct terminal_info *ti = &info[i];
		const struct wpp_fid_range *range;
		const struct wpp_fn *fn;
		struct wpp_path p;

		memset(ti, 0, sizeof(*ti));
		ti->line_min = UINT32_MAX;
		if (wpp_image_resolve(im, term->fid, &fn, &range) != WPP_RESOLVED)
			continue;
		ti->fn = fn;
		if (fn->tu->mode == WPP_MODE_BLOCKS) {
			ti->is_block = 1;
			if (term->path_id < fn->nblocks) {
				ti->valid = 1;
				ti->nblocks = 1;
				add_lines(fn, (uint32_t)term->path_id, ti);
			}
		} else {
			if (fn->nblocks + 1 > cap) {
				free(blocks);
				cap = fn->nblocks + 1;
				if (!(blocks = malloc((size_t)cap * sizeof(*blocks))))
					return -1;
			}
			if (wpp_path_expand(fn, term->path_id, blocks, cap, &p) == 0) {
				ti->valid = 1;
				ti->nblocks = p.nblocks;
				for (uint32_t k = 0; k < p.nblocks; k++)
					add_lines(fn, p.blocks[k], ti);
			}
		}
		if (!ti->file)
			ti->file = fn->file;
		if (ti->line_min == UINT32_MAX)
			ti->line_min = ti->line_max = 0;
	}
	free(blocks);
	return 0;
}

const char *terminal_where(const struct terminal_info *ti, char *buf, size_t size)
{
	const char *file = ti->file ? ti->file : "?";

	if (ti->line_min)
		snprintf(buf, size, "%s:%" PRIu32 "-%" PRIu32, file, ti->line_min, ti->line_max);
	else
		snprintf(buf, size, "%s:?", file);
	return buf;
}
