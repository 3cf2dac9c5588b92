/* SPDX-License-Identifier: MIT */
/*
 * shm_entries.h — when a table entry (process, module, thread) can be freed.
 * The collector frees entries by these tests; a producer that finds a table
 * full asks the same tests whether waiting for the collector will free one
 * (shm_producer.c).  One place, so the two sides cannot drift apart.
 */
#ifndef WPP_SHM_ENTRIES_H
#define WPP_SHM_ENTRIES_H

#include <stdint.h>

/* The process / the thread no longer exists (signal 0 says ESRCH).  May
 * change errno. */
int wpp_shm_pid_gone(uint32_t pid);
int wpp_shm_tid_gone(uint32_t pid, uint32_t tid);

/* A state word held by a claimer that died before publishing the entry
 * (CLAIMED | pid << 4, the pid gone): the collector frees it. */
int wpp_shm_claim_abandoned(uint32_t state);

#endif
