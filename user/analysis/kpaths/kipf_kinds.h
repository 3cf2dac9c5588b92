/* SPDX-License-Identifier: MIT */
/*
 * kipf_kinds.h — where a recorded path starts and ends (function entry?
 * return?), as kslab_act.h flags, from the function's metadata, computed
 * once per distinct (fid, path id) and cached: the per-activation k-path
 * view asks for every record, and regenerating a path walks its DAG.
 */
#ifndef WPP_KIPF_KINDS_H
#define WPP_KIPF_KINDS_H

#include <stddef.h>
#include <stdint.h>

#include "symbolizer/meta_model.h"

struct kipf_kinds_slot {
	uint64_t value;
	uint32_t fid; /* 0 = empty */
	uint32_t flags;
};

struct kipf_kinds {
	struct kipf_kinds_slot *slots;
	size_t cap, n;	  /* cap: power of two */
	uint32_t *blocks; /* regeneration buffer */
	uint32_t blocks_cap;
};

/* KACT_ENTRY / KACT_RETURN for path id of fn (fid != 0); KACT_UNKNOWN when
 * the id is not a path of fn's DAG.  -1 on no memory. */
int kipf_kinds_of(struct kipf_kinds *c, const struct wpp_fn *fn, uint32_t fid, uint64_t id);
/* The cached flags of (fid, id), or -1 if they were never computed. */
int kipf_kinds_find(const struct kipf_kinds *c, uint32_t fid, uint64_t id);
void kipf_kinds_free(struct kipf_kinds *c);

#endif
