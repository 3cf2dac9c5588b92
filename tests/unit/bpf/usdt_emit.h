/* SPDX-License-Identifier: MIT */
/*
 * usdt_emit.h — a minimal USDT probe site (the .note.stapsdt layout that
 * <sys/sdt.h> produces: pc, .stapsdt.base address, semaphore 0, then
 * "provider\0name\0args\0"), so the BPF tests can fire wpptrace:batch and
 * wpptrace:register with known arguments without libwpprt or systemtap
 * headers.  The site is a single-byte nop (not a nop5, which this kernel
 * optimises differently).  Operands use the "nor" constraint like sdt.h:
 * the assembler prints each as a register, memory reference or $constant,
 * which is exactly the USDT argument syntax.
 */
#ifndef WPP_TEST_USDT_EMIT_H
#define WPP_TEST_USDT_EMIT_H

#define WPP_TEST_USDT_NOTE(provider, name, argfmt)                                                  \
	"990: nop\n"                                                                                \
	".pushsection .note.stapsdt,\"?\",\"note\"\n"                                              \
	".balign 4\n"                                                                               \
	".4byte 992f-991f, 994f-993f, 3\n"                                                          \
	"991: .asciz \"stapsdt\"\n"                                                                 \
	"992: .balign 4\n"                                                                          \
	"993: .8byte 990b\n"                                                                        \
	".8byte _.stapsdt.base\n"                                                                   \
	".8byte 0\n"                                                                                \
	".asciz \"" provider "\"\n"                                                                 \
	".asciz \"" name "\"\n"                                                                     \
	".asciz \"" argfmt "\"\n"                                                                   \
	"994: .balign 4\n"                                                                          \
	".popsection\n"                                                                             \
	".ifndef _.stapsdt.base\n"                                                                  \
	".pushsection .stapsdt.base,\"aG\",\"progbits\",.stapsdt.base,comdat\n"                    \
	".weak _.stapsdt.base\n"                                                                    \
	".hidden _.stapsdt.base\n"                                                                  \
	"_.stapsdt.base: .space 1\n"                                                                \
	".size _.stapsdt.base, 1\n"                                                                 \
	".popsection\n"                                                                             \
	".endif\n"

/* wpptrace:batch words, nwords, seq, flags, parent_seq, parent_off, generation */
#define WPP_TEST_USDT_BATCH(words, nwords, seq, flags, pseq, poff, gen)                            \
	__asm__ __volatile__(WPP_TEST_USDT_NOTE("wpptrace", "batch",                                \
						"8@%[a1] 4@%[a2] 8@%[a3] 4@%[a4] 8@%[a5] 4@%[a6] 4@%[a7]") \
			     :                                                                      \
			     : [a1] "nor"((unsigned long)(words)), [a2] "nor"((unsigned)(nwords)),  \
			       [a3] "nor"((unsigned long)(seq)), [a4] "nor"((unsigned)(flags)),     \
			       [a5] "nor"((unsigned long)(pseq)), [a6] "nor"((unsigned)(poff)),     \
			       [a7] "nor"((unsigned)(gen))                                          \
			     : "memory")

/* wpptrace:register desc, fid_base */
#define WPP_TEST_USDT_REGISTER(desc, fid_base)                                                     \
	__asm__ __volatile__(WPP_TEST_USDT_NOTE("wpptrace", "register", "8@%[a1] 4@%[a2]")          \
			     :                                                                      \
			     : [a1] "nor"((unsigned long)(desc)), [a2] "nor"((unsigned)(fid_base))  \
			     : "memory")

#endif
