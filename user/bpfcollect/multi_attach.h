/* SPDX-License-Identifier: MIT */
/*
 * multi_attach.h — every wpptrace probe site of an object behind one
 * uprobe_multi BPF link (Linux 6.6+), for the program wpp_usdt_multi.
 *
 * Why: libbpf attaches a USDT probe as one uprobe perf link per probe, and
 * the kernel waits a grace period as each link is destroyed, one after the
 * other: three probes cost ~0.3 s at the end of every BPF recording.  One
 * link per object waits once.  libbpf 1.1 (Debian 12) has no API for these
 * links, so the link is created with the raw BPF_LINK_CREATE command, and
 * each site's cookie carries what libbpf's USDT argument specs would
 * (which probe, which registers: bpf/wpp_multi_records.h).
 *
 * Only register arguments can be described that way; libwpprt's probes
 * pass registers only ("r" constraints).  Anything else (a memory or
 * constant operand, a semaphore, too many sites) makes the caller attach
 * the object the libbpf way, as does a kernel that refuses the link.
 */
#ifndef WPP_BC_MULTI_ATTACH_H
#define WPP_BC_MULTI_ATTACH_H

#include <stdint.h>

#include "bpfcollect/elfinfo.h"

/* The expected attach type a program must be loaded with to go behind a
 * uprobe_multi link (enum bpf_attach_type, BPF_TRACE_UPROBE_MULTI; not in
 * this system's headers). */
#define WPP_BPF_TRACE_UPROBE_MULTI 48

/* The cookie of one site: its probe and where each argument is (x86-64
 * register names of any width, sizes 1, 2, 4 or 8, "-" for signed).  0, or
 * -EOPNOTSUPP when the argument string says anything else. */
int multi_site_cookie(const struct elf_probe_site *site, uint64_t *cookie);

/* Does this kernel create uprobe_multi links?  0, or -errno (-EINVAL: too
 * old; -EOPNOTSUPP: no uprobes) from a probe link that cannot attach. */
int multi_kernel_support(void);

/* A link attaching prog_fd (loaded with WPP_BPF_TRACE_UPROBE_MULTI) to
 * every site f lists in the object at path, for all processes.  Its fd, or
 * -EOPNOTSUPP when the sites cannot be described (see above), or the
 * kernel's -errno. */
int multi_link_create(int prog_fd, const char *path, const struct elf_facts *f);

struct bpf_program;
/* Before the object is loaded: prog goes behind uprobe_multi links (its
 * expected attach type set) when use, else it is not loaded at all.  0 or
 * libbpf's -errno. */
int multi_program_prepare(struct bpf_program *prog, int use);

/* The links one collector made, closed together at its end. */
struct multi_links {
	int *fds;
	size_t n, cap;
};
/* multi_link_create for the program prog_fd (loaded as
 * multi_program_prepare says), the link kept in ml: 0, or its -errno
 * (-ENOMEM: made but not kept, closed). */
int multi_links_attach(struct multi_links *ml, int prog_fd, const char *path,
		       const struct elf_facts *f);
/* Keep the link fd in ml, to be closed with the others: 0, or -ENOMEM
 * (fd closed). */
int multi_links_keep(struct multi_links *ml, int fd);
/* Close every link (each waits for its grace period); ml can be reused. */
void multi_links_close(struct multi_links *ml);
/* multi_links_close, and its memory. */
void multi_links_free(struct multi_links *ml);

#endif
