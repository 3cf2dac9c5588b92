/* SPDX-License-Identifier: MIT */
/*
 * rt_position.h — per-thread position descriptors (wpp_position.h) for
 * samplers: registered when a thread starts recording.
 */
#ifndef WPP_RT_POSITION_INTERNAL_H
#define WPP_RT_POSITION_INTERNAL_H

#include "runtime/rt_internal.h"
#include "runtime/wpp_position.h"

/* Fill this thread's descriptor, list it in __wpp_positions and fire
 * wpptrace:thread.  Called from rt_thread_start (also in fork children,
 * where the tid changed).  Async-signal-safe, no allocation. */
void rt_position_register(struct rt_thread *t) RT_HIDDEN;
/* The calling thread's descriptor, copied out and back (a vfork child
 * registers itself in its parent's TLS; rt_vfork.c). */
void rt_position_save(struct wpp_thread_position *out) RT_HIDDEN;
void rt_position_restore(const struct wpp_thread_position *in) RT_HIDDEN;

#endif
