/* SPDX-License-Identifier: MIT */
/*
 * multi_attach.c — one uprobe_multi link for all of an object's wpptrace
 * probe sites (contract in multi_attach.h): the argument strings of the
 * stapsdt notes turned into cookies, and the raw BPF_LINK_CREATE command
 * libbpf 1.1 does not offer.
 */
#include "bpfcollect/multi_attach.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "bpf/wpp_multi_records.h"

/* The kernel's struct pt_regs on x86-64, as 8-byte slots: where each
 * general register is saved when a uprobe fires.  Every name a USDT
 * operand may use for it (64, 32, 16 and 8 bits). */
static const struct {
	const char *names[4];
	uint8_t slot;
} x86_regs[] = {
    {{"rax", "eax", "ax", "al"}, 10},	  {{"rbx", "ebx", "bx", "bl"}, 5},
    {{"rcx", "ecx", "cx", "cl"}, 11},	  {{"rdx", "edx", "dx", "dl"}, 12},
    {{"rsi", "esi", "si", "sil"}, 13},	  {{"rdi", "edi", "di", "dil"}, 14},
    {{"rbp", "ebp", "bp", "bpl"}, 4},	  {{"rsp", "esp", "sp", "spl"}, 19},
    {{"r8", "r8d", "r8w", "r8b"}, 9},	  {{"r9", "r9d", "r9w", "r9b"}, 8},
    {{"r10", "r10d", "r10w", "r10b"}, 7}, {{"r11", "r11d", "r11w", "r11b"}, 6},
    {{"r12", "r12d", "r12w", "r12b"}, 3}, {{"r13", "r13d", "r13w", "r13b"}, 2},
    {{"r14", "r14d", "r14w", "r14b"}, 1}, {{"r15", "r15d", "r15w", "r15b"}, 0},
};

static int reg_slot(const char *name, size_t len)
{
	for (size_t r = 0; r < sizeof(x86_regs) / sizeof(x86_regs[0]); r++)
		for (int w = 0; w < 4; w++)
			if (strlen(x86_regs[r].names[w]) == len &&
			    memcmp(x86_regs[r].names[w], name, len) == 0)
				return x86_regs[r].slot;
	return -1;
}

/* One operand "[-]SIZE@%REG" at *p, as its cookie byte; advances *p. */
static int arg_byte(const char **p, uint8_t *out)
{
	const char *s = *p;
	int is_signed = *s == '-';
	s += is_signed;
	int log2size;
	switch (*s) {
	case '1':
		log2size = 0;
		break;
	case '2':
		log2size = 1;
		break;
	case '4':
		log2size = 2;
		break;
	case '8':
		log2size = 3;
		break;
	default:
		return -EOPNOTSUPP;
	}
	if (s[1] != '@' || s[2] != '%')
		return -EOPNOTSUPP;
	s += 3;
	size_t len = strcspn(s, " ");
	int slot = reg_slot(s, len);
	if (slot < 0)
		return -EOPNOTSUPP;
	*out = (uint8_t)(slot | log2size << WPP_MULTI_ARG_SIZE_SHIFT |
			 (is_signed ? WPP_MULTI_ARG_SIGNED : 0));
	*p = s + len;
	return 0;
}

int multi_site_cookie(const struct elf_probe_site *site, uint64_t *cookie)
{
	static const uint8_t kinds[] = {[ELF_PROBE_BATCH] = WPP_MULTI_BATCH,
					[ELF_PROBE_REGISTER] = WPP_MULTI_REGISTER,
					[ELF_PROBE_THREAD] = WPP_MULTI_THREAD};
	if (site->kind < ELF_PROBE_BATCH || site->kind > ELF_PROBE_THREAD || site->semaphore)
		return -EOPNOTSUPP;
	uint64_t k = kinds[site->kind];
	const char *p = site->args;
	for (int i = 0;; i++) {
		while (*p == ' ')
			p++;
		if (!*p)
			break;
		uint8_t b;
		if (i == WPP_MULTI_MAX_ARGS || arg_byte(&p, &b))
			return -EOPNOTSUPP;
		k |= (uint64_t)b << (WPP_MULTI_KIND_BITS + 8 * i);
	}
	*cookie = k;
	return 0;
}

/* union bpf_attr's link_create for BPF_TRACE_UPROBE_MULTI (Linux 6.6+),
 * laid out here because this system's linux/bpf.h predates it. */
struct link_create_uprobe_multi {
	uint32_t prog_fd;
	uint32_t target_fd;
	uint32_t attach_type;
	uint32_t flags;
	uint64_t path;
	uint64_t offsets;
	uint64_t ref_ctr_offsets;
	uint64_t cookies;
	uint32_t cnt;
	uint32_t multi_flags;
	uint32_t pid;
	uint32_t pad;
} __attribute__((aligned(8)));

static int link_create(int prog_fd, const char *path, const uint64_t *offsets,
		       const uint64_t *cookies, uint32_t cnt)
{
	struct link_create_uprobe_multi attr;
	memset(&attr, 0, sizeof(attr));
	attr.prog_fd = (uint32_t)prog_fd;
	attr.attach_type = WPP_BPF_TRACE_UPROBE_MULTI;
	attr.path = (uint64_t)(uintptr_t)path;
	attr.offsets = (uint64_t)(uintptr_t)offsets;
	attr.cookies = (uint64_t)(uintptr_t)cookies;
	attr.cnt = cnt;
	long fd = syscall(__NR_bpf, BPF_LINK_CREATE, &attr, sizeof(attr));
	return fd < 0 ? -errno : (int)fd;
}

int multi_kernel_support(void)
{
	/* r0 = 0; exit */
	const struct bpf_insn insns[] = {
	    {.code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0},
	    {.code = BPF_JMP | BPF_EXIT},
	};
	LIBBPF_OPTS(bpf_prog_load_opts, opts,
		    .expected_attach_type = (enum bpf_attach_type)WPP_BPF_TRACE_UPROBE_MULTI);
	int prog = bpf_prog_load(BPF_PROG_TYPE_KPROBE, NULL, "GPL", insns, 2, &opts);
	if (prog < 0)
		return -errno;
	/* A kernel that knows the link checks the path first: "/" is not a
	 * regular file. */
	uint64_t offset = 0, cookie = 0;
	int fd = link_create(prog, "/", &offset, &cookie, 1);
	close(prog);
	if (fd >= 0) {
		close(fd);
		return -EINVAL;
	}
	return fd == -EBADF ? 0 : fd;
}

int multi_link_create(int prog_fd, const char *path, const struct elf_facts *f)
{
	uint64_t offsets[ELF_MAX_PROBE_SITES], cookies[ELF_MAX_PROBE_SITES];
	if (!f->sites_complete || !f->nsites)
		return -EOPNOTSUPP;
	for (uint32_t i = 0; i < f->nsites; i++) {
		if (multi_site_cookie(&f->sites[i], &cookies[i]))
			return -EOPNOTSUPP;
		offsets[i] = f->sites[i].file_offset;
	}
	return link_create(prog_fd, path, offsets, cookies, f->nsites);
}

int multi_program_prepare(struct bpf_program *prog, int use)
{
	if (!use)
		return bpf_program__set_autoload(prog, false);
	return bpf_program__set_expected_attach_type(
	    prog, (enum bpf_attach_type)WPP_BPF_TRACE_UPROBE_MULTI);
}

int multi_links_attach(struct multi_links *ml, int prog_fd, const char *path,
		       const struct elf_facts *f)
{
	int fd = multi_link_create(prog_fd, path, f);
	return fd < 0 ? fd : multi_links_keep(ml, fd);
}

int multi_links_keep(struct multi_links *ml, int fd)
{
	if (ml->n == ml->cap) {
		size_t ncap = ml->cap ? ml->cap * 2 : 8;
		int *grown = realloc(ml->fds, ncap * sizeof(*grown));
		if (!grown) {
			close(fd);
			return -ENOMEM;
		}
		ml->fds = grown;
		ml->cap = ncap;
	}
	ml->fds[ml->n++] = fd;
	return 0;
}

static void *close_one(void *arg)
{
	close((int)(intptr_t)arg);
	return NULL;
}

/* Each close waits for the kernel's unregister to be safe (a grace period
 * per link, 10-20 ms here): the links close side by side, so that the
 * waits overlap, each on a thread of its own (the last on ours). */
void multi_links_close(struct multi_links *ml)
{
	pthread_t tids[16];
	size_t started = 0;
	for (size_t i = 0; i < ml->n; i++) {
		if (i + 1 < ml->n && started < sizeof(tids) / sizeof(tids[0]) &&
		    pthread_create(&tids[started], NULL, close_one, (void *)(intptr_t)ml->fds[i]) ==
			0)
			started++;
		else
			close(ml->fds[i]);
	}
	for (size_t i = 0; i < started; i++)
		pthread_join(tids[i], NULL);
	ml->n = 0;
}

void multi_links_free(struct multi_links *ml)
{
	multi_links_close(ml);
	free(ml->fds);
	ml->fds = NULL;
	ml->cap = 0;
}
