/* SPDX-License-Identifier: MIT */
/*
 * activate.h — switching a running process's dual build (wppcc -fwpp-dual,
 * docs/runtime.md "Dual builds") between its plain and its instrumented
 * copies: `record -p` sets the flags once its probes are attached and
 * clears them after it detached.  The flags are bytes in the process's
 * memory whose addresses its registry (version 3) lists; they are written
 * with process_vm_writev, which needs what attaching already needed
 * (ptrace access to the process).  The process memory is hostile input:
 * the count is bounded and every address is only ever written one byte,
 * the value 0 or 1, by the kernel's checked copy.
 */
#ifndef WPP_BC_ACTIVATE_H
#define WPP_BC_ACTIVATE_H

#include <stdint.h>
#include <sys/types.h>

/* Sets (on = 1) or clears the flags of process pid.  Returns the number of
 * flags written (0: not a dual build, or a runtime older than version 3),
 * or -errno: -ESRCH gone, -EPERM/-EACCES not allowed, -EPROTO a registry
 * that makes no sense.  *was_on (if not NULL) says whether the process's
 * dual_on was already set before this call: someone else (its own runtime
 * under a collector, WPP_TRACE_ON, another `record -p`) had switched it
 * on, and a collector that did not switch it on must not switch it off. */
int bc_dual_set(pid_t pid, int on, int *was_on);

#endif
