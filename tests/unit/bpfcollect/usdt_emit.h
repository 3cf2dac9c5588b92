/* SPDX-License-Identifier: MIT */
/*
 * usdt_emit.h — wpptrace:batch and wpptrace:register probe sites on the
 * shared note layout (wpp/usdt.h), so the BPF tests can fire them with known
 * arguments without libwpprt or systemtap headers.  Unlike libwpprt's sites
 * these use mixed argument widths (4@ and 8@), and operands use the "nor"
 * constraint like sdt.h: the assembler prints each as a register, memory
 * reference or $constant, which is exactly the USDT argument syntax.
 */
#ifndef WPP_TEST_USDT_EMIT_H
#define WPP_TEST_USDT_EMIT_H

#include "wpp/usdt.h" /* WPP_USDT_NOTE: the same note layout libwpprt emits */

/* wpptrace:batch words, nwords, seq, flags, parent_seq, parent_off, generation */
#define WPP_TEST_USDT_BATCH(words, nwords, seq, flags, pseq, poff, gen)                            \
	__asm__ __volatile__(WPP_USDT_NOTE("wpptrace", "batch",                                     \
					   "8@%[a1] 4@%[a2] 8@%[a3] 4@%[a4] 8@%[a5] 4@%[a6] 4@%[a7]")      \
			     :                                                                      \
			     : [a1] "nor"((unsigned long)(words)), [a2] "nor"((unsigned)(nwords)),  \
			       [a3] "nor"((unsigned long)(seq)), [a4] "nor"((unsigned)(flags)),     \
			       [a5] "nor"((unsigned long)(pseq)), [a6] "nor"((unsigned)(poff)),     \
			       [a7] "nor"((unsigned)(gen))                                          \
			     : "memory")

/* wpptrace:register desc, fid_base */
#define WPP_TEST_USDT_REGISTER(desc, fid_base)                                                     \
	__asm__ __volatile__(WPP_USDT_NOTE("wpptrace", "register", "8@%[a1] 4@%[a2]")               \
			     :                                                                      \
			     : [a1] "nor"((unsigned long)(desc)), [a2] "nor"((unsigned)(fid_base))  \
			     : "memory")

#endif
