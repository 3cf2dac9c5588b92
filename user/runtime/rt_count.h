/* SPDX-License-Identifier: MIT */
/*
 * rt_count.h — counting mode's hooks into the runtime's lifecycle
 * (rt_count.c): where per-thread path counts are drained into trace
 * streams, and where inherited ones are dropped.
 */
#ifndef WPP_RT_COUNT_H
#define WPP_RT_COUNT_H

#include "runtime/rt_internal.h"

/* The list of per-thread count blocks (the registry publishes its address). */
struct rt_count_thread;
extern struct rt_count_thread *rt_count_blocks RT_HIDDEN;

/* Does the calling thread count (has it a state block)? */
int rt_count_thread_active(void) RT_HIDDEN;
/* Thread exit, each destructor round: drain the thread's counts into its
 * stream; last: the thread is gone after this round. */
void rt_count_thread_exit(int last) RT_HIDDEN;
/* The process is about to end (exit, exec, _exit, abort): drain every
 * thread's counts into the calling thread's stream. */
void rt_count_process_end(void) RT_HIDDEN;
/* Fork child: every count in memory is the parent's; zero them all. */
void rt_count_fork_child(void) RT_HIDDEN;

#endif
