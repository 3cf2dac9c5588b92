/* SPDX-License-Identifier: MIT */
/*
 * close_later.h — closing descriptors whose close waits, after the caller
 * has gone.
 *
 * Why: closing a uprobe_multi link waits until the kernel may free its
 * uprobes (grace periods: 13-22 ms for record's two links on the project's
 * VM), and a process's exit closes what it left open before its parent
 * learns of the exit.  When `record` has started a program and that program
 * and everything it started are gone, the probes can fire for none of
 * them: the file is written and synced without waiting, and the links are
 * closed here, by a process that outlives record by those waits.
 *
 * The closer is a clone of the caller sharing its memory (CLONE_VM: no page
 * table is copied, and the caller's exit leaves the memory to it) but not
 * its descriptor table: it keeps the given descriptors, closes every other
 * one at once (so a pipe on record's stdout sees EOF when record exits),
 * blocks all signals, closes the given ones and exits.  It runs only system
 * calls, on a stack of its own.  Its parent does not wait for it: the
 * exit signal is 0 (no SIGCHLD; if it ends first it is reaped when the
 * caller exits, by whoever reaps the caller's orphans).
 */
#ifndef WPP_BC_CLOSE_LATER_H
#define WPP_BC_CLOSE_LATER_H

#include <stddef.h>

/* Leave fds[0..n) (n <= 64) to a closer and close the caller's copies,
 * which does not wait: the closer's keep the objects.  The caller must not
 * be about to reuse those numbers through dup2 (the closer's table is its
 * own, so nothing else is touched).  0, or -errno after closing them here
 * (and waiting). */
int close_later(const int *fds, size_t n);

#endif
