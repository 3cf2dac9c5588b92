/* SPDX-License-Identifier: MIT */
/*
 * positions.h — thread position descriptors (user/runtime/wpp_position.h)
 * of a process met mid-run, read through /proc/PID/mem into a BPF map of
 * struct wpp_bpf_position keyed by tid.  Threads announce their descriptor
 * through the wpptrace:thread probe when they start recording; a collector
 * that attaches later (-p, the -a scan) learns the running ones here.  The
 * map is the transport's (salvage); the counters reuse it (sample
 * attribution).
 */
#ifndef WPP_BC_POSITIONS_H
#define WPP_BC_POSITIONS_H

#include <stdint.h>

struct detach_taken;
typedef void positions_mark_fn(void *ctx, const struct detach_taken *mark);

/* Add every live thread of pid listed in its objects' __wpp_positions to
 * the map (BPF_NOEXIST: what the probe registered meanwhile wins), and
 * hand on_mark (if not NULL) the mark an earlier collector left on each
 * thread's open buffer when it detached (detach_take.h).  Returns the
 * number of threads added; the process vanishing is not an error. */
int positions_catch_up(uint32_t pid, int map_fd, positions_mark_fn *on_mark, void *ctx);

#endif
