/* SPDX-License-Identifier: MIT */
/*
 * shm_layout.h — computes the region geometry from the collector's options
 * and validates a mapped header on the producer side.  One place knows how
 * the offsets are derived, so the two sides cannot disagree.
 */
#ifndef WPP_SHM_LAYOUT_H
#define WPP_SHM_LAYOUT_H

#include <stdint.h>

#include "kmod-free/shm_proto.h"

struct wpp_shm_options {
	uint32_t buffer_words;	 /* slot capacity (records) */
	uint32_t ring_slots;	 /* level-0 ring length per thread */
	uint32_t sig_ring_slots; /* per signal level */
	uint32_t max_threads;	 /* concurrently live thread slots */
	uint32_t max_procs;	 /* concurrently live process images */
	uint32_t max_tus;	 /* concurrently registered TUs */
};

/* Fill in defaults for zero fields.  -EINVAL (with msg set) if out of range. */
int wpp_shm_options_check(struct wpp_shm_options *o, const char **msg);

/* The geometry of a region made for (checked) options o. */
void wpp_shm_geometry_of(const struct wpp_shm_options *o, struct wpp_shm_geometry *g);

/* Write a fresh header (geometry, offsets, region_size) for options o. */
void wpp_shm_layout(const struct wpp_shm_options *o, struct wpp_shm_header *h);

/* 0 if the header at h describes a region of this version that fits in
 * mapped bytes, with *g set to the geometry recomputed from its options
 * (the offsets in the header must agree with it); -EPROTO otherwise.  The
 * header is copied once before it is looked at, so a concurrent writer
 * cannot make the check and the geometry disagree. */
int wpp_shm_header_check(const volatile struct wpp_shm_header *h, uint64_t mapped,
			 struct wpp_shm_geometry *g);

#endif
