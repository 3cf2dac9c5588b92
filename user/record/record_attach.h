/* SPDX-License-Identifier: MIT */
/*
 * record_attach.h — where a BPF collector's probes go for programs that
 * are already running or not started by wpptrace: `record -p`/`-a` and
 * `top` on tracing builds attach the same way (docs/bpf-transport.md,
 * "Where the probes go").
 */
#ifndef WPP_RECORD_ATTACH_H
#define WPP_RECORD_ATTACH_H

#include <sys/types.h>

#include "bpfcollect/bpfcollect.h"

/* The libwpprt next to this wpptrace (bin/../lib/wpptrace), which wppcc
 * links programs against, if it is there: attached up front so processes
 * started later (-a) or exec'd by a traced program are covered from their
 * first batch. */
void record_attach_own_runtime(struct bc_collector *c);

/* -a (all): our libwpprt, every instrumented object any process maps and
 * every image that starts later; else the npids processes pids (their
 * threads' positions and TU registries read).  Then the drain threads
 * start.  0, or -1 after one line per failure. */
int record_attach_running(struct bc_collector *c, int all, const pid_t *pids, int npids);

/* Dual builds (wppcc -fwpp-dual): sets (after attaching, done by
 * record_attach_running) or clears (after detaching) the flags that make
 * the processes run their instrumented copies.  A failure is one warning
 * line per process; the recording goes on as without dual builds. */
void record_dual_switch(const pid_t *pids, int npids, int on);

#endif
