/* SPDX-License-Identifier: MIT */
/*
 * kslab_online.c — the online k-path consumer (see kslab_online.h).
 */
#include "collect/kslab_online.h"

#include <errno.h>
#include <stdlib.h>

#include "analysis/kpaths/kipf.h"
#include "analysis/kpaths/kipf_serial.h"
#include "analysis/kpaths/kslab_act.h"
#include "analysis/kpaths/kslab_words.h"
#include "common/log.h"
#include "common/wppfile.h"

#define DEFAULT_MAX_PAYLOAD (16u << 20)

struct thread_state {
	const struct kslab_online_cfg *cfg;
	struct kslab *slab;
	struct kact act;	   /* per-activation view only */
	struct kslab_words reader; /* keeps the last record across batches */
	struct wpp_thread_key key;
	int reported; /* out-of-memory already said */
};

/* The per-activation view: each record's kinds route it to its
 * activation's stream, as kipf_build.c does offline. */
static int act_items(void *ctx, uint32_t fid, uint64_t value, uint64_t times)
{
	struct thread_state *t = ctx;
	int flags = t->cfg->kinds->kinds(t->cfg->kinds->ctx, &t->key, fid, value);

	if (flags < 0)
		return -1;
	return kact_item_run(&t->act, fid, value, (unsigned)flags, times);
}

static void act_mark(void *ctx)
{
	kact_mark(&((struct thread_state *)ctx)->act);
}

static void *k_open(void *cfg, const struct wpp_thread_key *key)
{
	const struct kslab_online_cfg *c = cfg;
	struct thread_state *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	t->cfg = c;
	t->key = *key;
	t->slab = kslab_new(c->k, c->max_nodes);
	if (!t->slab) {
		wpp_warn("k-paths: cannot build a k-slab forest for thread %u (k %u)", key->tid,
			 c->k);
		free(t);
		return NULL;
	}
	if (c->kinds) {
		kact_init(&t->act, t->slab);
		kslab_words_init(&t->reader, (struct kslab_words_sink){
						 .items = act_items, .mark = act_mark, .ctx = t});
	} else {
		kslab_words_init(&t->reader, kslab_flat_sink(t->slab));
	}
	return t;
}

static void k_words_at(void *state, const uint64_t *words, size_t n, uint32_t depth)
{
	struct thread_state *t = state;

	if (kslab_words_feed(&t->reader, words, n, depth) < 0 && !t->reported) {
		wpp_warn("k-paths: out of memory for thread %u; its k-path forest is dropped",
			 t->key.tid);
		t->reported = 1;
	}
}

/* For callers without depths (tools replaying one level's words). */
static void k_words(void *state, const uint64_t *words, size_t n)
{
	k_words_at(state, words, n, 0);
}

static void k_gap(void *state, uint64_t lost_words)
{
	struct thread_state *t = state;

	(void)lost_words;
	kslab_words_gap(&t->reader);
}

static int emit_chunk(void *ctx, const void *payload, uint32_t len)
{
	return wppw_chunk(ctx, WPP_CHUNK_KIPF, payload, len);
}

static int k_close(void *state, struct wpp_writer *w, const struct wpp_thread_key *key)
{
	struct thread_state *t = state;
	struct kipf *f = NULL;
	int rc = 0;

	if (!kslab_failed(t->slab)) {
		f = kipf_new(t->cfg->k);
		if (f)
			f->activation = t->cfg->kinds != NULL;
		if (!f || kipf_add_kslab(f, t->slab) < 0 || kipf_sort(f) < 0) {
			wpp_warn("k-paths: out of memory converting thread %u's forest", key->tid);
			rc = -ENOMEM;
		} else if (w) {
			rc = kipf_write_chunks(f, key->pid, key->tid, key->generation,
					       t->cfg->max_payload ? t->cfg->max_payload
								   : DEFAULT_MAX_PAYLOAD,
					       emit_chunk, w);
		}
	}
	kipf_free(f);
	kact_fini(&t->act);
	kslab_free(t->slab);
	free(t);
	return rc;
}

struct wpp_online_consumer kslab_online_consumer(struct kslab_online_cfg *cfg)
{
	return (struct wpp_online_consumer){.name = "kpaths",
					    .thread_open = k_open,
					    .thread_words = k_words,
					    .thread_words_at = k_words_at,
					    .thread_gap = k_gap,
					    .thread_close = k_close,
					    .cfg = cfg};
}
