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

/* The dual-build processes (wppcc -fwpp-dual) a collector switched to
 * their instrumented copies, to be switched back when it is done. */
struct record_dual;

/* -a (all): our libwpprt, every instrumented object any process maps and
 * every image that starts later; else the npids processes pids (their
 * threads' positions and TU registries read).  Then the drain threads
 * start, and the dual builds among the processes (with -a: every one
 * running now) are switched to their instrumented copies; *dual lists
 * those this call switched on (for record_dual_restore).  0, or -1 (and
 * *dual NULL) after one line per failure. */
int record_attach_running(struct bc_collector *c, int all, const pid_t *pids, int npids,
			  struct record_dual **dual);

/* After detaching: switches back to their plain copies the processes d
 * switched on that still run, and frees d (NULL: nothing).  A process
 * whose flags were on before the collector came (its own runtime set them
 * under another collector, or WPP_TRACE_ON) is left on; one that exited
 * is told from a later process given its pid by a pidfd taken when it
 * was switched on.  A failure is one warning line per process. */
void record_dual_restore(struct record_dual *d);

#endif
