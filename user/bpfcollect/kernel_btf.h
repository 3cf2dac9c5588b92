/* SPDX-License-Identifier: MIT */
/*
 * kernel_btf.h — what the running kernel's tracepoints take, read from its
 * BTF (/sys/kernel/btf/vmlinux) without building libbpf's model of it.
 *
 * Why: bc_open must know before loading the programs whether a raw
 * tracepoint exists (sched_prepare_exec, Linux 6.10+) and how many
 * arguments one passes (sched_process_exit's group_dead, 6.16+).  Asking
 * libbpf (btf__load_vmlinux_btf) reads the 5 MB file in 4 KB reads into a
 * growing buffer and indexes its ~126 000 types: 60–150 ms a question on
 * the project's VM, and libbpf then does it once more to load the
 * programs.  Here the file is mapped (Linux 6.16+ allows it; else read
 * once) and its type section walked once: a few milliseconds.
 *
 * The walk trusts nothing it reads: every offset and length is checked
 * against the data, and a kind it does not know (a newer kernel's) makes
 * the answer -ENOTSUP, so that the caller asks libbpf instead.
 */
#ifndef WPP_BC_KERNEL_BTF_H
#define WPP_BC_KERNEL_BTF_H

#include <stddef.h>
#include <stdint.h>

struct kernel_btf {
	const unsigned char *data; /* the raw BTF (header, types, strings) */
	size_t size;
	int own;	/* data is kernel_btf_open's: 1 mapped, 2 malloc'd; 0 borrowed */
	uint32_t *offs; /* offs[id - 1]: byte offset of type id in the type section */
	uint32_t ntypes;
	const char *strs; /* string section */
	uint32_t strs_len;
	const unsigned char *types; /* type section */
	uint32_t types_len;
};

/* Index raw BTF of `size` bytes at `data` (not copied: it must outlive kb).
 * 0, -EINVAL (malformed: bad magic, sections outside the data, a type
 * running past its section) or -ENOTSUP (another byte order, an unknown
 * kind), -ENOMEM. */
int kernel_btf_index(struct kernel_btf *kb, const void *data, size_t size);

/* kernel_btf_index of /sys/kernel/btf/vmlinux (or `path` if not NULL):
 * 0 or -errno. */
int kernel_btf_open(struct kernel_btf *kb, const char *path);

/* Release what kernel_btf_open or kernel_btf_index took. */
void kernel_btf_close(struct kernel_btf *kb);

/* Raw tracepoint `tp`'s arguments, its context first, as its typedef
 * btf_trace_<tp> (a pointer to a function prototype) says: >= 1 if the
 * kernel has it, 0 if it has no such typedef, -EINVAL if the typedef is
 * there but not that shape. */
int kernel_btf_tp_args(const struct kernel_btf *kb, const char *tp);

#endif
