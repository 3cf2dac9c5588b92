/* SPDX-License-Identifier: MIT */
/*
 * rt_usdt.h — minimal USDT (SystemTap SDT v3) probe notes, written from the
 * note format rather than taken from sys/sdt.h.
 *
 * A probe site is a 1-byte nop plus, in section .note.stapsdt, a note of type
 * 3 with owner "stapsdt" whose descriptor holds: the probe address, the
 * address of _.stapsdt.base (lets tools correct for prelink-style moves), the
 * semaphore address (0: none), then "provider\0name\0args\0".  Every argument
 * is described as "8@<operand>" (an 8-byte value in the register the compiler
 * chose: "r" constraints, so the BPF side reads registers only, never memory
 * that may be gone by the time it looks).
 *
 * The site is a single-byte nop on purpose: this kernel optimizes uprobes
 * placed on 5-byte nops into calls that clobber the red zone.
 *
 * The probes libwpprt fires (argument lists documented in wpp/trace_abi.h):
 *   WPP_USDT_BATCH     wpptrace:batch     7 arguments
 *   WPP_USDT_REGISTER  wpptrace:register  3 arguments
 */
#ifndef WPP_RT_USDT_H
#define WPP_RT_USDT_H

#include <stdint.h>

/* The note for the probe site at local label 990 (the nop before it). */
#define WPP_USDT_NOTE(provider, name, argfmt)                                                      \
	"990:\n\tnop\n"                                                                            \
	".pushsection .note.stapsdt,\"?\",\"note\"\n"                                              \
	".balign 4\n"                                                                              \
	".4byte 992f-991f, 994f-993f, 3\n"                                                         \
	"991:\n\t.asciz \"stapsdt\"\n"                                                             \
	"992:\n\t.balign 4\n"                                                                      \
	"993:\n\t.8byte 990b\n"                                                                    \
	".8byte _.stapsdt.base\n"                                                                  \
	".8byte 0\n"                                                                               \
	".asciz \"" provider "\"\n"                                                                \
	".asciz \"" name "\"\n"                                                                    \
	".asciz \"" argfmt "\"\n"                                                                  \
	"994:\n\t.balign 4\n"                                                                      \
	".popsection\n"                                                                            \
	".ifndef _.stapsdt.base\n"                                                                 \
	".pushsection .stapsdt.base,\"aG\",\"progbits\",.stapsdt.base,comdat\n"                   \
	".weak _.stapsdt.base\n"                                                                   \
	".hidden _.stapsdt.base\n"                                                                 \
	"_.stapsdt.base: .space 1\n"                                                               \
	".size _.stapsdt.base, 1\n"                                                                \
	".popsection\n"                                                                            \
	".endif\n"

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
