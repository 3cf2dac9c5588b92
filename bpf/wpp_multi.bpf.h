/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * wpp_multi.bpf.h — for a program behind a uprobe_multi link (one link
 * for all of an object's wpptrace probe sites, user/bpfcollect/
 * multi_attach.h): which probe fired and its arguments, from the site's
 * cookie (layout: wpp_multi_records.h).  Included by the BPF objects after
 * vmlinux.h and bpf_helpers.h.
 */
#ifndef WPP_MULTI_BPF_H
#define WPP_MULTI_BPF_H

#include "bpf/wpp_multi_records.h"

/* enum wpp_multi_kind of the probe that fired. */
static __always_inline __u32 multi_kind(__u64 cookie)
{
	return cookie & ((1u << WPP_MULTI_KIND_BITS) - 1);
}

/* Argument i: its byte of the cookie says which pt_regs slot holds it and
 * how wide it is.  Read as libbpf's bpf_usdt_arg() reads a register
 * argument. */
static __always_inline __u64 multi_arg(struct pt_regs *ctx, __u64 cookie, int i)
{
	__u8 spec = cookie >> (WPP_MULTI_KIND_BITS + 8 * i);
	__u32 slot = spec & WPP_MULTI_ARG_SLOT_MASK;
	__u32 shift = 64 - (8u << ((spec >> WPP_MULTI_ARG_SIZE_SHIFT) & 3));
	__u64 v = 0;

	if (slot >= sizeof(struct pt_regs) / 8)
		return 0;
	bpf_probe_read_kernel(&v, sizeof(v), (char *)ctx + slot * 8);
	v <<= shift;
	return spec & WPP_MULTI_ARG_SIGNED ? (__u64)((__s64)v >> shift) : v >> shift;
}

#endif
