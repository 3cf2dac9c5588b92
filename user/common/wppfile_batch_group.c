/* SPDX-License-Identifier: MIT */
/* wppfile_batch_group.c — writing BATCH_Z chunks (wppfile_batch.h): the
 * recorder's half, apart so that readers do not link the writer.
 *
 * Two slots, each a group's heads and its encoder: batches are added to
 * one while, with a coder thread (wpp_batch_group_pipeline), the other's
 * second stage (zstd or LZ4, wc_finish_within) runs there.  Chunks are
 * written by the caller's thread only, in the order their groups were
 * filled, so the file is the same sequence of chunks either way. */
#include "common/wppfile_batch.h"

#include <errno.h>
#include <pthread.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

struct group_slot {
	struct wc_encoder *enc;
	/* struct wpp_chunk_batch_z, then the heads: the chunk's first piece */
	unsigned char *head;
	size_t head_cap;
	uint32_t nbatches;
	uint64_t words;
	int failed;
	int64_t allowance; /* the group's, when the slot was closed */
	/* the coded words, once finished (packed NULL: out of memory) */
	const void *packed;
	size_t len;
	uint32_t codec;
};

struct wpp_batch_group {
	struct group_slot slot[2];
	int cur;	   /* the slot batches are added to */
	int64_t allowance; /* wpp_batch_group_allow */
	/* The coder thread: `pending` (-1: none) is the slot handed to it,
	 * `coded` set when its second stage is done. */
	int pipelined, thread_started, stop, pending, coded;
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	/* what the last write wrote (wpp_batch_group_last) */
	const void *last_head, *last_packed;
	uint32_t last_head_len, last_packed_len;
};

#define HEADS_OFFSET sizeof(struct wpp_chunk_batch_z)
/* A second stage expected to cost less than this is run here even when
 * pipelined: handing it over (a wake-up, a wait, the tokens crossing
 * cores) would cost about as much (lua's chunks: +25 % collector CPU,
 * docs/benchmarks.md "Spending the bytes headroom"). */
#define HAND_OVER_MIN_NS 50000.0

struct wpp_batch_group *wpp_batch_group_new(int level)
{
	struct wpp_batch_group *g = calloc(1, sizeof(*g));

	if (!g)
		return NULL;
	g->pending = -1;
	pthread_mutex_init(&g->lock, NULL);
	pthread_cond_init(&g->cond, NULL);
	for (int i = 0; i < 2; i++)
		if (!(g->slot[i].enc = wc_encoder_new(level))) {
			wpp_batch_group_free(g);
			return NULL;
		}
	return g;
}

static void stop_thread(struct wpp_batch_group *g)
{
	if (!g->thread_started)
		return;
	pthread_mutex_lock(&g->lock);
	g->stop = 1;
	pthread_cond_broadcast(&g->cond);
	pthread_mutex_unlock(&g->lock);
	pthread_join(g->thread, NULL);
	g->thread_started = 0;
}

void wpp_batch_group_free(struct wpp_batch_group *g)
{
	if (!g)
		return;
	stop_thread(g);
	for (int i = 0; i < 2; i++) {
		wc_encoder_free(g->slot[i].enc);
		free(g->slot[i].head);
	}
	pthread_cond_destroy(&g->cond);
	pthread_mutex_destroy(&g->lock);
	free(g);
}

int wpp_batch_group_fits(const struct wpp_batch_group *g, const struct wpp_chunk_batch *b)
{
	const struct group_slot *s = &g->slot[g->cur];
	struct wpp_chunk_batch first;

	if (s->words + b->nwords > WPP_BATCH_Z_MAX_WORDS / 2 ||
	    s->nbatches == WPP_BATCH_Z_MAX_BATCHES)
		return 0;
	if (!s->nbatches)
		return 1;
	memcpy(&first, s->head + HEADS_OFFSET, sizeof(first));
	return first.pid == b->pid && first.tid == b->tid && first.generation == b->generation;
}

int wpp_batch_group_add_counted(struct wpp_batch_group *g, const struct wpp_chunk_batch *b,
				const uint64_t *words, uint64_t *records)
{
	struct group_slot *s = &g->slot[g->cur];
	size_t need = HEADS_OFFSET + ((size_t)s->nbatches + 1) * sizeof(*b);

	if (s->failed)
		return -1;
	if (need > s->head_cap) {
		size_t cap = s->head_cap ? s->head_cap * 2 : HEADS_OFFSET + 16 * sizeof(*b);
		while (cap < need)
			cap *= 2;
		unsigned char *n = realloc(s->head, cap);
		if (!n) {
			s->failed = 1;
			return -1;
		}
		s->head = n;
		s->head_cap = cap;
	}
	if (!s->nbatches) {
		wc_begin(s->enc);
		g->last_head_len = g->last_packed_len = 0;
	}
	if (wc_add_counted(s->enc, words, b->nwords, records) < 0) {
		s->failed = 1;
		return -1;
	}
	memcpy(s->head + HEADS_OFFSET + (size_t)s->nbatches * sizeof(*b), b, sizeof(*b));
	s->nbatches++;
	s->words += b->nwords;
	return 0;
}

int wpp_batch_group_add(struct wpp_batch_group *g, const struct wpp_chunk_batch *b,
			const uint64_t *words)
{
	return wpp_batch_group_add_counted(g, b, words, NULL);
}

uint64_t wpp_batch_group_words(const struct wpp_batch_group *g)
{
	return g->slot[g->cur].words;
}

void wpp_batch_group_allow(struct wpp_batch_group *g, int64_t chunk_bytes, double min_gain)
{
	/* (not the other slot's encoder: the coder thread may be using it) */
	g->allowance = chunk_bytes;
	wc_encoder_min_gain(g->slot[g->cur].enc, min_gain);
}

int wpp_batch_group_match_stage(struct wpp_batch_group *g)
{
	for (int i = 0; i < 2; i++)
		if (wc_encoder_match_stage(g->slot[i].enc) < 0)
			return -1;
	return 0;
}

void wpp_batch_group_force(struct wpp_batch_group *g, uint32_t codec)
{
	for (int i = 0; i < 2; i++)
		wc_encoder_force(g->slot[i].enc, codec);
}

static size_t heads_len(const struct group_slot *s)
{
	return HEADS_OFFSET + (size_t)s->nbatches * sizeof(struct wpp_chunk_batch);
}

/* The second stage of a full slot, with the allowance as it was when the
 * slot was closed (the account is the caller's, not the thread's). */
static void finish_slot(struct group_slot *s)
{
	int64_t fixed = (int64_t)(sizeof(struct wpp_chunk_header) + heads_len(s));
	int64_t room = s->allowance > fixed ? s->allowance - fixed : 0;

	s->packed = s->failed ? NULL : wc_finish_within(s->enc, room, &s->len, &s->codec);
}

/* Write a finished slot as one chunk and empty it. */
static int write_slot(struct wpp_batch_group *g, struct group_slot *s, struct wpp_writer *w,
		      uint64_t *bytes)
{
	struct wpp_chunk_batch_z z;
	size_t head_len = heads_len(s);
	int err;

	if (!s->packed) {
		s->nbatches = 0;
		s->words = 0;
		s->failed = 0;
		return -ENOMEM;
	}
	z = (struct wpp_chunk_batch_z){
	    .nbatches = s->nbatches, .codec = s->codec, .packed_len = (uint32_t)s->len};
	memcpy(s->head, &z, sizeof(z));
	z.head_crc32c = wpp_batch_z_heads_crc(s->head, s->nbatches);
	memcpy(s->head, &z, sizeof(z));
	err = wppw_chunk2(w, WPP_CHUNK_BATCH_Z, s->head, (uint32_t)head_len, s->packed,
			  (uint32_t)s->len);
	if (!err) {
		*bytes += sizeof(struct wpp_chunk_header) + head_len + s->len;
		g->last_head = s->head;
		g->last_packed = s->packed;
		g->last_head_len = (uint32_t)head_len;
		g->last_packed_len = (uint32_t)s->len;
	}
	s->nbatches = 0;
	s->words = 0;
	return err;
}

static void *coder_thread(void *arg)
{
	struct wpp_batch_group *g = arg;

	pthread_mutex_lock(&g->lock);
	for (;;) {
		while (!g->stop && (g->pending < 0 || g->coded))
			pthread_cond_wait(&g->cond, &g->lock);
		if (g->stop)
			break;
		struct group_slot *s = &g->slot[g->pending];
		pthread_mutex_unlock(&g->lock);
		finish_slot(s);
		pthread_mutex_lock(&g->lock);
		g->coded = 1;
		pthread_cond_broadcast(&g->cond);
	}
	pthread_mutex_unlock(&g->lock);
	return NULL;
}

int wpp_batch_group_sync(struct wpp_batch_group *g, struct wpp_writer *w, uint64_t *bytes)
{
	int slot;

	if (g->pending < 0)
		return 0;
	pthread_mutex_lock(&g->lock);
	while (!g->coded)
		pthread_cond_wait(&g->cond, &g->lock);
	slot = g->pending;
	g->pending = -1;
	g->coded = 0;
	pthread_mutex_unlock(&g->lock);
	return write_slot(g, &g->slot[slot], w, bytes);
}

int wpp_batch_group_pipeline(struct wpp_batch_group *g, int on)
{
	if (on && !g->thread_started) {
		if (pthread_create(&g->thread, NULL, coder_thread, g) != 0)
			return -1;
		g->thread_started = 1;
	}
	g->pipelined = on;
	return 0;
}

int wpp_batch_group_pipelined(const struct wpp_batch_group *g)
{
	return g->pipelined;
}

int wpp_batch_group_write(struct wpp_batch_group *g, struct wpp_writer *w, uint64_t *bytes)
{
	struct group_slot *s = &g->slot[g->cur];
	int err;

	g->last_head_len = g->last_packed_len = 0; /* nothing written yet */
	/* The chunk before this one first, whatever the mode now. */
	err = wpp_batch_group_sync(g, w, bytes);
	if (!s->nbatches && !s->failed)
		return err;
	s->allowance = g->allowance;
	if (!g->pipelined ||
	    (wc_second_stage_ns(s->enc) > 0 && wc_second_stage_ns(s->enc) < HAND_OVER_MIN_NS)) {
		int err2;
		finish_slot(s);
		err2 = write_slot(g, s, w, bytes);
		return err ? err : err2;
	}
	/* Hand it over; the next write or sync writes it. */
	pthread_mutex_lock(&g->lock);
	g->pending = g->cur;
	g->coded = 0;
	pthread_cond_broadcast(&g->cond);
	pthread_mutex_unlock(&g->lock);
	g->cur ^= 1;
	return err;
}

void wpp_batch_group_last(const struct wpp_batch_group *g, const void **head, uint32_t *head_len,
			  const void **packed, uint32_t *packed_len)
{
	*head = g->last_head;
	*head_len = g->last_head_len;
	*packed = g->last_packed;
	*packed_len = g->last_packed_len;
}
