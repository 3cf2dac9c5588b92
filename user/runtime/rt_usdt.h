/* SPDX-License-Identifier: MIT */
/*
 * rt_usdt.h — the USDT probes libwpprt fires, on the note layout of
 * wpp/usdt.h.  Every argument is described as "8@<operand>" (an 8-byte value
 * in the register the compiler chose: "r" constraints, so the BPF side reads
 * registers only, never memory that may be gone by the time it looks).
 *
 * The probes libwpprt fires (argument lists documented in wpp/trace_abi.h):
 *   WPP_USDT_BATCH     wpptrace:batch     7 arguments
 *   WPP_USDT_REGISTER  wpptrace:register  3 arguments
 */
#ifndef WPP_RT_USDT_H
#define WPP_RT_USDT_H

#include <stdint.h>

#include "wpp/usdt.h" /* WPP_USDT_NOTE: the note layout */

#define WPP_USDT_U64(x) ((uint64_t)(uintptr_t)(x))

/* wpptrace:batch words, nwords, seq, flags, parent_seq, parent_off, generation */
#define WPP_USDT_BATCH(words, nwords, seq, flags, pseq, poff, gen)                                 \
	__asm__ __volatile__(WPP_USDT_NOTE("wpptrace", "batch",                                    \
					   "8@%[a1] 8@%[a2] 8@%[a3] 8@%[a4] 8@%[a5] 8@%[a6] "      \
					   "8@%[a7]")                                              \
			     :                                                                     \
			     : [a1] "r"(WPP_USDT_U64(words)), [a2] "r"(WPP_USDT_U64(nwords)),      \
			       [a3] "r"(WPP_USDT_U64(seq)), [a4] "r"(WPP_USDT_U64(flags)),         \
			       [a5] "r"(WPP_USDT_U64(pseq)), [a6] "r"(WPP_USDT_U64(poff)),         \
			       [a7] "r"(WPP_USDT_U64(gen))                                         \
			     : "memory")

/* wpptrace:register desc, fid_base, entry (struct wpp_registry_entry *) */
#define WPP_USDT_REGISTER(desc, fid_base, entry)                                                   \
	__asm__ __volatile__(WPP_USDT_NOTE("wpptrace", "register", "8@%[a1] 8@%[a2] 8@%[a3]")      \
			     :                                                                     \
			     : [a1] "r"(WPP_USDT_U64(desc)), [a2] "r"(WPP_USDT_U64(fid_base)),     \
			       [a3] "r"(WPP_USDT_U64(entry))                                       \
			     : "memory")

#endif
