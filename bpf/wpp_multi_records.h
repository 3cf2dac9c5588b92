/* SPDX-License-Identifier: MIT */
/*
 * wpp_multi_records.h — the cookie of a wpptrace probe site behind a
 * uprobe_multi link: written by the collector (user/bpfcollect/
 * multi_attach.c), read by the BPF programs that dispatch on it
 * (wpp_multi.bpf.h, for wpp_transport.bpf.c and wpp_counters.bpf.c).
 */
#ifndef WPP_MULTI_RECORDS_H
#define WPP_MULTI_RECORDS_H

/* The cookie of each probe site in a uprobe_multi link (the program
 * wpp_usdt_multi): the low WPP_MULTI_KIND_BITS say which probe, then one
 * byte per argument, argument i at bit WPP_MULTI_KIND_BITS + 8 i: the
 * struct pt_regs slot (8-byte index) of the register that holds it, log2
 * of its size in bytes, and whether it is signed.  Register arguments only,
 * at most WPP_MULTI_MAX_ARGS (the batch probe has 7); an object whose notes
 * say anything else is attached the other way. */
enum wpp_multi_kind {
	WPP_MULTI_BATCH = 1,
	WPP_MULTI_REGISTER = 2,
	WPP_MULTI_THREAD = 3,
};
#define WPP_MULTI_KIND_BITS	 8
#define WPP_MULTI_MAX_ARGS	 7
#define WPP_MULTI_ARG_SLOT_MASK	 0x1f
#define WPP_MULTI_ARG_SIZE_SHIFT 5
#define WPP_MULTI_ARG_SIGNED	 0x80

#endif
