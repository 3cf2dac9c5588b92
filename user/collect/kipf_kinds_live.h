/* SPDX-License-Identifier: MIT */
/*
 * kipf_kinds_live.h — path start/end kinds while recording, for the
 * per-activation forests of `record -k` (kslab_online.h): the collector
 * tells it every MODULE and PROCESS record as it writes them, and it
 * answers, for a thread's record (fid, path id), whether the path starts at
 * its function's entry and whether it ends at a return — the same answer
 * `kpaths` gets offline (kipf_kinds.h over module_map.h), from the same
 * metadata, loaded once per module by the symbolizer.
 *
 * Images: a fid names a function of one process image (pid, generation)
 * through that image's MODULE records; a forked image also sees the ranges
 * of the image it was forked from (the latest image of its parent pid seen
 * before its PROCESS record), its own ranges winning, as in module_map.c.
 *
 * A record whose module was not told yet, or whose object has no usable
 * metadata, is KACT_UNKNOWN (kslab_act.h says how such records are split);
 * offline the same record is resolved from the whole file, so a forest can
 * differ from the offline one only if a batch reached the collector before
 * its module's registration did.
 */
#ifndef WPP_KIPF_KINDS_LIVE_H
#define WPP_KIPF_KINDS_LIVE_H

#include <stdint.h>

#include "collect/kslab_online.h"
#include "wpp/wpp_file.h"

struct kinds_live;

/* NULL on no memory.  Symbolizer complaints are not printed (the offline
 * readers say them); such modules just give unknown kinds. */
struct kinds_live *kinds_live_new(void);
void kinds_live_free(struct kinds_live *kl);
/* A MODULE chunk as written (path: the object path that follows it).
 * 0, or -1 on no memory. */
int kinds_live_module(struct kinds_live *kl, const struct wpp_chunk_module *m, const char *path);
/* A PROCESS chunk as written.  0, or -1 on no memory. */
int kinds_live_process(struct kinds_live *kl, const struct wpp_chunk_process *p);
/* KACT_* flags of path id of fid in the image of key (kslab_online.h). */
int kinds_live_kinds(struct kinds_live *kl, uint32_t pid, uint32_t generation, uint32_t fid,
		     uint64_t id);
/* The main source file of the first unit told so far that was built with
 * -fwpp-mode=count (its paths were counted: no order, so no k-paths), or
 * NULL when none was (or its metadata was unreadable). */
const char *kinds_live_first_counted(const struct kinds_live *kl);
/* The source for kslab_online_cfg.kinds (kl outlives its users). */
struct kslab_kinds_source kinds_live_source(struct kinds_live *kl);

#endif
