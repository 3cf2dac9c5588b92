/* SPDX-License-Identifier: MIT */
/*
 * rt_dual.c — the flags of dual builds (wppcc -fwpp-dual; docs/runtime.md
 * "Dual builds").  Each dual TU has one private byte, `__wpp_on`, that its
 * functions test at entry and on their loops' path starts: 0 runs the
 * plain copies (nothing recorded, about PGO's cost), non-zero the
 * instrumented ones.  Its constructor hands the byte's address to
 * __wpp_register_dual; the addresses are kept in an array published in
 * `__wpp_registry` (version 3) so that `record -p` can set them from
 * outside (process_vm_writev, user/bpfcollect/activate.c).
 *
 * Who sets them here: rt_init, once the transport is chosen — shm (a
 * collector made the region), or probe mode when a collector records the
 * process from its start (WPP_TRACE_ON=1 in the environment, set by
 * `record -- PROG`; ignored under AT_SECURE like every variable) or a
 * system-wide collector answered the hello.  Discard (WPP_DISABLE=1) and
 * plain probe mode leave them 0.  A setuid program's flags are writable
 * only by someone who may ptrace it, who could change its code anyway.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/rt_internal.h"
#include "runtime/wpp_registry.h"

extern struct wpp_registry __wpp_registry; /* rt_registry.c */

static pthread_mutex_t dual_lock = PTHREAD_MUTEX_INITIALIZER;

/* Grows the published array (the old one stays: a reader may hold it). */
static int grow(void)
{
	uint32_t cap = __wpp_registry.dual_count ? 2 * __wpp_registry.dual_count : 16;
	uint64_t *n = calloc(cap, sizeof(*n));
	if (!n)
		return -1;
	if (__wpp_registry.dual_count)
		memcpy(n, (void *)(uintptr_t)__wpp_registry.dual_flags,
		       __wpp_registry.dual_count * sizeof(*n));
	__atomic_store_n(&__wpp_registry.dual_flags, (uint64_t)(uintptr_t)n, __ATOMIC_RELEASE);
	return 0;
}

__attribute__((visibility("default"))) void __wpp_register_dual(uint8_t *flag)
{
	pthread_mutex_lock(&dual_lock);
	/* the capacity is 16, 32, 64...: full when the count is one of them */
	uint32_t n = __wpp_registry.dual_count;
	if ((n == 0 || (n >= 16 && (n & (n - 1)) == 0)) && grow() < 0) {
		pthread_mutex_unlock(&dual_lock);
		return; /* out of memory: this TU runs plain, unrecorded */
	}
	((uint64_t *)(uintptr_t)__wpp_registry.dual_flags)[n] = (uint64_t)(uintptr_t)flag;
	__atomic_store_n(&__wpp_registry.dual_count, n + 1, __ATOMIC_RELEASE);
	/* Dekker against an attaching collector (wpp_registry.h): publish,
	 * fence, read its word. */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	__atomic_store_n(flag, __atomic_load_n(&__wpp_registry.dual_on, __ATOMIC_SEQ_CST) ? 1 : 0,
			 __ATOMIC_RELAXED);
	pthread_mutex_unlock(&dual_lock);
}

void rt_dual_set(int on)
{
	pthread_mutex_lock(&dual_lock);
	__atomic_store_n(&__wpp_registry.dual_on, on ? 1u : 0u, __ATOMIC_SEQ_CST);
	const uint64_t *f = (const uint64_t *)(uintptr_t)__wpp_registry.dual_flags;
	for (uint32_t i = 0; i < __wpp_registry.dual_count; i++)
		__atomic_store_n((uint8_t *)(uintptr_t)f[i], on ? 1 : 0, __ATOMIC_RELAXED);
	pthread_mutex_unlock(&dual_lock);
}
