/* SPDX-License-Identifier: MIT */
/*
 * kslab_online.c — the online k-path consumer (see kslab_online.h).
 */
#include "kslab_online.h"

#include <errno.h>
#include <stdlib.h>

#include "kipf.h"
#include "kipf_serial.h"
#include "kslab_words.h"
#include "log.h"
#include "wppfile.h"

#define DEFAULT_MAX_PAYLOAD (16u << 20)

struct thread_state {
	const struct kslab_online_cfg *cfg;
	struct kslab *slab;
	uint32_t tid;
	int reported; /* out-of-memory already said */
};

static void *k_open(void *cfg, const struct wpp_thread_key *key)
{
	const struct kslab_online_cfg *c = cfg;
	struct thread_state *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	t->cfg = c;
	t->tid = key->tid;
	t->slab = kslab_new(c->k, c->max_nodes);
	if (!t->slab) {
		wpp_warn("k-paths: cannot build a k-slab forest for thread %u (k %u)", key->tid,
			 c->k);
		free(t);
		return NULL;
	}
	return t;
}

static void k_words(void *state, const uint64_t *words, size_t n)
{
	struct thread_state *t = state;

	if (kslab_feed_words(t->slab, words, n) < 0 && !t->reported) {
		wpp_warn("k-paths: out of memory for thread %u; its k-path forest is dropped",
			 t->tid);
		t->reported = 1;
	}
}

static void k_gap(void *state, uint64_t lost_words)
{
	struct thread_state *t = state;

	(void)lost_words;
	kslab_mark(t->slab);
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
	kslab_free(t->slab);
	free(t);
	return rc;
}

struct wpp_online_consumer kslab_online_consumer(struct kslab_online_cfg *cfg)
{
	return (struct wpp_online_consumer){.name = "kpaths",
					    .thread_open = k_open,
					    .thread_words = k_words,
					    .thread_gap = k_gap,
					    .thread_close = k_close,
					    .cfg = cfg};
}
