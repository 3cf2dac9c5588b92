/* SPDX-License-Identifier: MIT */
/*
 * registry.h — reading a running process's TU registry (`__wpp_registry`,
 * user/runtime/wpp_registry.h) through /proc/PID/mem.  A process the
 * collector meets mid-run (-p, -a, a static executable attached after its
 * exec) registered its TUs before the register probe was attached; the
 * registry is the only place that still says which fids belong to which
 * object.  The process memory is hostile input: every size is bounded and
 * a torn read (the seqlock moved) is retried.
 */
#ifndef WPP_BC_REGISTRY_H
#define WPP_BC_REGISTRY_H

#include <stdint.h>
#include <sys/types.h>

#include "bpf/wpp_bpf_records.h"

struct registry_info {
	uint32_t transport; /* enum wpp_registry_transport */
	uint32_t count;	    /* entries delivered */
	uint64_t counts;    /* address of the count blocks' list head, 0: none
			     * (wpp_registry.h, version 2; count_snapshot.h),
			     * or none yet: see registered */
	/* The runtime registered a TU: its constructors ran, so the loader
	 * had relocated it.  Before that (a process caught in its loader,
	 * libwpprt mapped but not relocated) the registry's pointers are
	 * still the file's link-time values, not addresses: counts is 0. */
	int registered;
	uint64_t addr;	     /* of the registry in the process */
	uint32_t version;    /* of the registry */
	uint32_t dual_count; /* version 3: dual builds' flags (activate.h) */
	uint64_t dual_flags; /* their addresses' array, 0: none */
	char object[4096];   /* object holding the registry */
};

/* Calls fn once per registered TU, as the register record the probe would
 * have produced (entry_ok set, path filled when it fits).  0, or
 * -ENOENT (no registry symbol in any object the process maps: not
 * instrumented), -ESRCH (gone), -EACCES/-EPERM (memory not readable),
 * -EPROTO (registry unreadable or of another version). */
int registry_read(pid_t pid, void (*fn)(const struct wpp_brec_register *r, void *arg), void *arg,
		  struct registry_info *info);

#endif
