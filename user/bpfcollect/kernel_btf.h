/* SPDX-License-Identifier: MIT */
/*
 * kernel_btf.h — does the running kernel's BTF name something?  Answered
 * from the string section of /sys/kernel/btf/vmlinux alone, in a few
 * milliseconds, where libbpf_find_vmlinux_btf_id parses and checks every
 * type first (about 55 ms here, a third of an attach: libbpf parses the
 * same file again when it loads the programs).
 */
#ifndef WPP_KERNEL_BTF_H
#define WPP_KERNEL_BTF_H

#include <stdbool.h>

/* True when the kernel's BTF holds the string name (a type's or a
 * member's).  A tp_btf program for tracepoint TP needs the typedef
 * "btf_trace_TP": the string can only be there for that typedef.  False
 * when the BTF cannot be read (then nothing BTF-based loads anyway). */
bool kernel_btf_has_name(const char *name);

#endif
