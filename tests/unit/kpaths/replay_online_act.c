/* SPDX-License-Identifier: MIT */
/*
 * replay_online_act.c — the per-activation online k-path consumer on a real
 * recorded trace, without a collector (tests/e2e/kpaths-online-act.sh):
 *
 *   replay_online_act FILE.wpp K
 *
 * Tells a kinds_live (kipf_kinds_live.h) every PROCESS and MODULE record of
 * the file, as the collector would while writing them, then hands every
 * thread's assembled words and gaps to kslab_online_consumer() in execution
 * order, as the online assembler does; the chunks it writes (to a temporary
 * .wpp) are read back and each thread's forest must equal the offline
 * per-activation forest kipf_build_thread() builds from the decoder's
 * events: every k-path, every count.  Prints one line per thread; exit 0
 * when all are identical, 1 otherwise, 2 on bad use.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "decode/batch_words.h"
#include "analysis/kpaths/kipf.h"
#include "analysis/kpaths/kipf_build.h"
#include "collect/kipf_kinds_live.h"
#include "analysis/kpaths/kipf_serial.h"
#include "collect/kslab_online.h"
#include "decode/module_map.h"
#include "decode/stream.h"
#include "symbolizer/symbolizer.h"
#include "decode/trace_file.h"
#include "wpp/trace_abi.h"
#include "common/wppfile.h"

static void tell_registrations(struct kinds_live *kl, const struct wpp_trace *t)
{
	for (size_t i = 0; i < t->nprocs; i++) {
		const struct wpp_process_rec *p = &t->procs[i];
		struct wpp_chunk_process c = {
		    .pid = p->pid, .ppid = p->ppid, .flags = p->flags, .generation = p->generation};
		if (kinds_live_process(kl, &c) < 0)
			exit(1);
	}
	for (size_t i = 0; i < t->nmodules; i++) {
		const struct wpp_module_rec *m = &t->modules[i];
		struct wpp_chunk_module c = {.pid = m->pid,
					     .generation = m->generation,
					     .fid_base = m->fid_base,
					     .nfuncs = m->nfuncs,
					     .tu_hash = m->tu_hash,
					     .build_id_len = m->build_id_len};
		memcpy(c.build_id, m->build_id, sizeof(c.build_id));
		if (kinds_live_module(kl, &c, m->path) < 0)
			exit(1);
	}
}

/* The thread's words through the consumer, closed into w. */
static void replay_thread(const struct wpp_online_consumer *c, const struct wpp_thread_trace *th,
			  struct wpp_writer *w)
{
	struct wpp_thread_key key = {.pid = th->pid, .tid = th->tid, .generation = th->generation};
	struct wpp_stream s;
	uint64_t *buf = NULL;
	size_t cap = 0;
	void *state = c->thread_open(c->cfg, &key);

	if (!state || wpp_stream_assemble(th, &s) < 0)
		exit(1);
	for (size_t g = 0; g < s.nsegs; g++) {
		const struct wpp_segment *seg = &s.segs[g];
		size_t n = 0;
		if (seg->kind == WPP_SEG_GAP) {
			c->thread_gap(state, seg->lost_words);
			continue;
		}
		if (cap < seg->to - seg->from) {
			cap = seg->to - seg->from;
			buf = realloc(buf, cap * sizeof(*buf));
			if (!buf)
				exit(1);
		}
		const unsigned char *words = wpp_batch_words_get(seg->batch);
		memcpy(buf, words + (size_t)seg->from * 8, (size_t)(seg->to - seg->from) * 8);
		n = seg->to - seg->from;
		wpp_batch_words_put(seg->batch);
		if (n)
			c->thread_words(state, buf, n);
	}
	if (c->thread_close(state, w, &key) < 0)
		exit(1);
	free(buf);
	wpp_stream_free(&s);
}

int main(int argc, char **argv)
{
	char tmp[] = "/tmp/replay_online_act_XXXXXX";
	struct kslab_online_cfg cfg = {0};
	struct wpp_online_consumer c;
	struct kslab_kinds_source src;
	struct kinds_live *kl;
	struct wpp_trace *t, *back;
	struct wpp_writer *w;
	struct wpp_symbolizer *sym;
	struct wpp_modules *mods;
	struct kipf_store st = {0};
	int fd, bad = 0;

	if (argc != 3 || atoi(argv[2]) < 1 || atoi(argv[2]) > (int)KSLAB_MAX_K) {
		fprintf(stderr, "usage: replay_online_act FILE.wpp K\n");
		return 2;
	}
	cfg.k = (unsigned)atoi(argv[2]);
	t = wpp_trace_load(argv[1]);
	kl = kinds_live_new();
	if (!t || !kl)
		return 1;
	src = kinds_live_source(kl);
	cfg.kinds = &src;
	c = kslab_online_consumer(&cfg);
	tell_registrations(kl, t);

	fd = mkstemp(tmp);
	if (fd < 0)
		return 1;
	close(fd);
	w = wppw_open(tmp);
	if (!w)
		return 1;
	for (size_t i = 0; i < t->nthreads; i++)
		replay_thread(&c, &t->threads[i], w);
	if (wppw_close(w, &(struct wpp_chunk_end){0}) < 0)
		return 1;
	back = wpp_trace_load(tmp);
	if (!back || kipf_store_load(&st, back) != 0)
		return 1;

	sym = wpp_sym_new();
	mods = wpp_modules_new(t, sym);
	for (size_t i = 0; i < t->nthreads; i++) {
		const struct wpp_thread_trace *th = &t->threads[i];
		struct kipf_stored *s = kipf_store_find(&st, th->pid, th->generation, th->tid);
		struct kipf *off = kipf_new(cfg.k);
		int ok;

		if (!off || kipf_build_thread(off, th, mods, 0, KIPF_VIEW_ACTIVATION) < 0 ||
		    kipf_sort(off) < 0)
			return 1;
		ok = s && s->complete && s->ipf->activation && kipf_equal(s->ipf, off);
		printf("%s pid %" PRIu32 " tid %" PRIu32 ": %" PRIu64 " records, %" PRIu32
		       " k-IPF nodes offline, %" PRIu32 " online\n",
		       ok ? "same" : "DIFFERENT", th->pid, th->tid, off->items, off->nnodes,
		       s ? s->ipf->nnodes : 0);
		bad |= !ok;
		kipf_free(off);
	}
	kipf_store_free(&st);
	wpp_modules_free(mods);
	wpp_sym_free(sym);
	wpp_trace_free(back);
	wpp_trace_free(t);
	kinds_live_free(kl);
	unlink(tmp);
	return bad;
}
