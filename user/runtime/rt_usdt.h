/* SPDX-License-Identifier: MIT */
/*
 * rt_usdt.h — a minimal USDT (SystemTap SDT v3) probe note, written from the
 * note format rather than taken from sys/sdt.h.
 *
 * WPP_USDT4(provider, name, a1..a4) places a 1-byte nop at the probe site and
 * records, in section .note.stapsdt, a note of type 3 with owner "stapsdt"
 * whose descriptor holds: the probe address, the address of _.stapsdt.base
 * (lets tools correct for prelink-style moves), the semaphore address (0:
 * none), then "provider\0name\0args\0".  Arguments are described as
 * "8@<operand>" (8-byte signed values), the operand being whatever register
 * or memory reference the compiler chose for the "nor" constraint.
 *
 * The site is a single-byte nop on purpose: this kernel optimizes uprobes
 * placed on 5-byte nops into calls that clobber the red zone.
 */
#ifndef WPP_RT_USDT_H
#define WPP_RT_USDT_H

#include <stdint.h>

#define WPP_USDT_STR_(x) #x
#define WPP_USDT_STR(x) WPP_USDT_STR_(x)

#define WPP_USDT4(provider, name, a1, a2, a3, a4)                                                 \
	__asm__ __volatile__(                                                                      \
		"990:\n\tnop\n"                                                                    \
		".pushsection .note.stapsdt,\"?\",\"note\"\n"                                      \
		".balign 4\n"                                                                      \
		".4byte 992f-991f, 994f-993f, 3\n"                                                 \
		"991:\n\t.asciz \"stapsdt\"\n"                                                     \
		"992:\n\t.balign 4\n"                                                              \
		"993:\n\t.8byte 990b\n"                                                            \
		".8byte _.stapsdt.base\n"                                                          \
		".8byte 0\n"                                                                       \
		".asciz \"" provider "\"\n"                                                        \
		".asciz \"" name "\"\n"                                                            \
		".asciz \"8@%[usdt_arg1] 8@%[usdt_arg2] 8@%[usdt_arg3] 8@%[usdt_arg4]\"\n"                                 \
		"994:\n\t.balign 4\n"                                                              \
		".popsection\n"                                                                    \
		".ifndef _.stapsdt.base\n"                                                         \
		".pushsection .stapsdt.base,\"aG\",\"progbits\",.stapsdt.base,comdat\n"            \
		".weak _.stapsdt.base\n"                                                           \
		".hidden _.stapsdt.base\n"                                                         \
		"_.stapsdt.base: .space 1\n"                                                       \
		".size _.stapsdt.base, 1\n"                                                        \
		".popsection\n"                                                                    \
		".endif\n"                                                                         \
		:                                                                                  \
		: [usdt_arg1] "r"((uint64_t)(a1)), [usdt_arg2] "r"((uint64_t)(a2)), [usdt_arg3] "r"((uint64_t)(a3)),    \
		  [usdt_arg4] "r"((uint64_t)(a4)))

#endif
