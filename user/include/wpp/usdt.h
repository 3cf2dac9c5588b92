/* SPDX-License-Identifier: MIT */
/*
 * wpp/usdt.h — the assembler text of one USDT (SystemTap SDT v3) probe site,
 * written from the note format rather than taken from sys/sdt.h.  Shared by
 * libwpprt (user/runtime/rt_usdt.h) and the BPF transport tests
 * (tests/unit/bpfcollect/usdt_emit.h), so both emit exactly the notes the collector
 * parses.
 *
 * A probe site is a 1-byte nop plus, in section .note.stapsdt, a note of type
 * 3 with owner "stapsdt" whose descriptor holds: the probe address, the
 * address of _.stapsdt.base (lets tools correct for prelink-style moves), the
 * semaphore address (0: none), then "provider\0name\0args\0".  argfmt is the
 * USDT argument string, e.g. "8@%[a1] 4@%[a2]"; the caller's asm statement
 * supplies the named operands.
 *
 * The site is a single-byte nop on purpose: this kernel optimizes uprobes
 * placed on 5-byte nops into calls that clobber the red zone.
 */
#ifndef WPP_USDT_H
#define WPP_USDT_H

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
	".pushsection .stapsdt.base,\"aG\",\"progbits\",.stapsdt.base,comdat\n"                    \
	".weak _.stapsdt.base\n"                                                                   \
	".hidden _.stapsdt.base\n"                                                                 \
	"_.stapsdt.base: .space 1\n"                                                               \
	".size _.stapsdt.base, 1\n"                                                                \
	".popsection\n"                                                                            \
	".endif\n"

#endif
