/* SPDX-License-Identifier: MIT */
#include "kmod-free/shm_layout.h"

#include <errno.h>
#include <string.h>

static uint64_t align64(uint64_t x)
{
	return (x + 63) & ~(uint64_t)63;
}

int wpp_shm_options_check(struct wpp_shm_options *o, const char **msg)
{
	if (!o->buffer_words)
		o->buffer_words = WPP_SHM_DEF_BUFFER_WORDS;
	if (!o->ring_slots)
		o->ring_slots = WPP_SHM_DEF_RING_SLOTS;
	if (!o->sig_ring_slots)
		o->sig_ring_slots = WPP_SHM_DEF_SIG_RING_SLOTS;
	if (!o->max_threads)
		o->max_threads = WPP_SHM_DEF_THREADS;
	if (!o->max_procs)
		o->max_procs = WPP_SHM_DEF_PROCS;
	if (!o->max_tus)
		o->max_tus = WPP_SHM_DEF_TUS;
	*msg = NULL;
	if (o->buffer_words < WPP_SHM_MIN_BUFFER_WORDS ||
	    o->buffer_words > WPP_SHM_MAX_BUFFER_WORDS)
		*msg = "buffer words must be between 16 and 4194304";
	else if (o->ring_slots < 2 || o->ring_slots > WPP_SHM_MAX_RING_SLOTS ||
		 o->sig_ring_slots < 2 || o->sig_ring_slots > WPP_SHM_MAX_RING_SLOTS)
		*msg = "ring slots must be between 2 and 1024";
	else if (o->max_threads > 65536 || o->max_procs > 65536 || o->max_tus > 1u << 20)
		*msg = "table sizes too large";
	return *msg ? -EINVAL : 0;
}

void wpp_shm_geometry_of(const struct wpp_shm_options *o, struct wpp_shm_geometry *g)
{
	uint64_t off;

	memset(g, 0, sizeof(*g));
	g->buffer_words = o->buffer_words;
	g->ring_slots = o->ring_slots;
	g->sig_ring_slots = o->sig_ring_slots;
	g->slots_per_thread = o->ring_slots + (WPP_SHM_LEVELS - 1) * o->sig_ring_slots;
	g->max_procs = o->max_procs;
	g->max_tus = o->max_tus;
	g->max_threads = o->max_threads;
	g->slot_bytes = wpp_shm_slot_bytes(o->buffer_words);
	off = align64(sizeof(struct wpp_shm_header));
	g->procs_off = off;
	off = align64(off + (uint64_t)o->max_procs * sizeof(struct wpp_shm_proc));
	g->tus_off = off;
	off = align64(off + (uint64_t)o->max_tus * sizeof(struct wpp_shm_tu));
	g->threads_off = off;
	off = align64(off + (uint64_t)o->max_threads * sizeof(struct wpp_shm_thread));
	off = (off + 4095) & ~(uint64_t)4095;
	g->slots_off = off;
	off += (uint64_t)o->max_threads * g->slots_per_thread * g->slot_bytes;
	g->region_size = (off + 4095) & ~(uint64_t)4095;
}

void wpp_shm_layout(const struct wpp_shm_options *o, struct wpp_shm_header *h)
{
	struct wpp_shm_geometry g;

	wpp_shm_geometry_of(o, &g);
	memset(h, 0, sizeof(*h));
	memcpy(h->magic, WPP_SHM_MAGIC, 8);
	h->version = WPP_SHM_VERSION;
	h->header_size = sizeof(*h);
	h->buffer_words = g.buffer_words;
	h->ring_slots = g.ring_slots;
	h->sig_ring_slots = g.sig_ring_slots;
	h->slots_per_thread = g.slots_per_thread;
	h->max_procs = g.max_procs;
	h->max_tus = g.max_tus;
	h->max_threads = g.max_threads;
	h->slot_bytes = g.slot_bytes;
	h->procs_off = g.procs_off;
	h->tus_off = g.tus_off;
	h->threads_off = g.threads_off;
	h->slots_off = g.slots_off;
	h->region_size = g.region_size;
}

int wpp_shm_header_check(const volatile struct wpp_shm_header *vh, uint64_t mapped,
			 struct wpp_shm_geometry *g)
{
	struct wpp_shm_header h;
	struct wpp_shm_options o;
	const char *msg;

	if (mapped < sizeof(h))
		return -EPROTO;
	for (size_t i = 0; i < sizeof(h); i++) /* one snapshot, byte by byte */
		((char *)&h)[i] = ((const volatile char *)vh)[i];
	if (memcmp(h.magic, WPP_SHM_MAGIC, 8) != 0 || h.version != WPP_SHM_VERSION ||
	    h.header_size != sizeof(h))
		return -EPROTO;
	o = (struct wpp_shm_options){h.buffer_words, h.ring_slots, h.sig_ring_slots,
				     h.max_threads,  h.max_procs,  h.max_tus};
	/* Zero fields would be given defaults: a region never has them. */
	if (!o.buffer_words || !o.ring_slots || !o.sig_ring_slots || !o.max_threads ||
	    !o.max_procs || !o.max_tus || wpp_shm_options_check(&o, &msg))
		return -EPROTO;
	/* Recompute the geometry rather than trusting the offsets. */
	wpp_shm_geometry_of(&o, g);
	if (g->region_size != h.region_size || g->slots_off != h.slots_off ||
	    g->threads_off != h.threads_off || g->tus_off != h.tus_off ||
	    g->procs_off != h.procs_off || g->slot_bytes != h.slot_bytes ||
	    g->slots_per_thread != h.slots_per_thread || g->region_size > mapped)
		return -EPROTO;
	return 0;
}
