/* SPDX-License-Identifier: MIT */
/*
 * rt_emit.h — the record sequence instrumented code performs (trace_abi.h),
 * written by hand so the runtime tests do not depend on the wppcc pass:
 * reserve, compiler fence, store, flush when the limit is reached.
 */
#ifndef WPP_TEST_RT_EMIT_H
#define WPP_TEST_RT_EMIT_H

#include <stdint.h>

#include "wpp/trace_abi.h"

extern __thread uint64_t *__wpp_cursor __attribute__((tls_model("initial-exec")));
extern __thread uint64_t *__wpp_limit __attribute__((tls_model("initial-exec")));
void __wpp_flush(void);
void __wpp_flush_all(void);
void __wpp_register_tu(struct wpp_tu_desc *);

static inline void emit1(uint64_t w)
{
	uint64_t *p = __wpp_cursor, *n = p + 1;
	__wpp_cursor = n;
	__asm__ volatile("" ::: "memory");
	p[0] = w;
	if (__builtin_expect(n >= __wpp_limit, 0))
		__wpp_flush();
}

static inline void emit2(uint64_t a, uint64_t b)
{
	uint64_t *p = __wpp_cursor, *n = p + 2;
	__wpp_cursor = n;
	__asm__ volatile("" ::: "memory");
	p[0] = a;
	p[1] = b;
	if (__builtin_expect(n >= __wpp_limit, 0))
		__wpp_flush();
}

#endif
