/* SPDX-License-Identifier: MIT */
/*
 * test_multi_cookie.c — the cookies of uprobe_multi probe sites
 * (user/bpfcollect/multi_attach.h), no root needed: each argument's byte
 * is the struct pt_regs slot of its register (x86-64 layout, worked out
 * here from the kernel's struct, not from the table under test), log2 of
 * its size and its sign, above the probe's kind; every operand that is not
 * a register (memory, constants), a semaphore, too many arguments and
 * malformed strings are refused, so that the object goes the libbpf way.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "bpfcollect/multi_attach.h"
#include "bpf/wpp_multi_records.h"

/* struct pt_regs (arch/x86/include/asm/ptrace.h), in order. */
enum {
	R15, R14, R13, R12, RBP, RBX, R11, R10, R9, R8,
	RAX, RCX, RDX, RSI, RDI, ORIG_RAX, RIP, CS, EFLAGS, RSP, SS
};

static int cookie_of(enum elf_probe_kind kind, const char *args, uint64_t *cookie)
{
	struct elf_probe_site s = {.kind = kind};
	strncpy(s.args, args, sizeof(s.args) - 1);
	return multi_site_cookie(&s, cookie);
}

static uint64_t arg(int i, int slot, int log2size, int is_signed)
{
	uint64_t b = (uint64_t)slot | (uint64_t)log2size << 5 | (is_signed ? 0x80u : 0);
	return b << (8 + 8 * i);
}

static void test_register_args(void **state)
{
	(void)state;
	uint64_t k;
	assert_int_equal(cookie_of(ELF_PROBE_BATCH,
				   "8@%rdi 8@%rsi 8@%rdx 8@%rcx 8@%r8 8@%r9 8@%rax", &k),
			 0);
	assert_int_equal(k, WPP_MULTI_BATCH | arg(0, RDI, 3, 0) | arg(1, RSI, 3, 0) |
				arg(2, RDX, 3, 0) | arg(3, RCX, 3, 0) | arg(4, R8, 3, 0) |
				arg(5, R9, 3, 0) | arg(6, RAX, 3, 0));
	/* Narrow names, widths and signs; spaces around are fine. */
	assert_int_equal(cookie_of(ELF_PROBE_REGISTER, " -4@%r15d  2@%bx 1@%sil ", &k), 0);
	assert_int_equal(k, WPP_MULTI_REGISTER | arg(0, R15, 2, 1) | arg(1, RBX, 1, 0) |
				arg(2, RSI, 0, 0));
	assert_int_equal(cookie_of(ELF_PROBE_THREAD, "-1@%r12b", &k), 0);
	assert_int_equal(k, WPP_MULTI_THREAD | arg(0, R12, 0, 1));
	assert_int_equal(cookie_of(ELF_PROBE_THREAD, "8@%rbp", &k), 0);
	assert_int_equal(k, WPP_MULTI_THREAD | arg(0, RBP, 3, 0));
	assert_int_equal(cookie_of(ELF_PROBE_THREAD, "8@%rsp", &k), 0);
	assert_int_equal(k, WPP_MULTI_THREAD | arg(0, RSP, 3, 0));
	/* No arguments at all is a probe too. */
	assert_int_equal(cookie_of(ELF_PROBE_THREAD, "", &k), 0);
	assert_int_equal(k, WPP_MULTI_THREAD);
}

static void test_refused(void **state)
{
	(void)state;
	static const char *const bad[] = {
	    "8@-8(%rbp)",	   /* memory */
	    "4@$1",		   /* constant */
	    "8@%rdi 4@$0",	   /* one of them */
	    "3@%rdi",		   /* no such size */
	    "16@%rdi",		   /* nor that */
	    "8@%rip",		   /* not a general register */
	    "8@%xmm0",		   /* nor that */
	    "8@%rdix",		   /* a name that only starts like one */
	    "8%rdi",		   /* no @ */
	    "8@rdi",		   /* no % */
	    "-@%rdi",		   /* no size */
	    "8@%rdi,8@%rsi",	   /* one operand with a comma in its name */
	    "8@%rax 8@%rax 8@%rax 8@%rax 8@%rax 8@%rax 8@%rax 8@%rax", /* 8 arguments */
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		uint64_t k = 0;
		if (cookie_of(ELF_PROBE_BATCH, bad[i], &k) != -EOPNOTSUPP)
			fail_msg("\"%s\" accepted (cookie %#llx)", bad[i], (unsigned long long)k);
	}
	uint64_t k;
	struct elf_probe_site s = {.kind = ELF_PROBE_BATCH, .semaphore = 0x4000};
	strcpy(s.args, "8@%rdi");
	assert_int_equal(multi_site_cookie(&s, &k), -EOPNOTSUPP);
	s.semaphore = 0;
	s.kind = (enum elf_probe_kind)7;
	assert_int_equal(multi_site_cookie(&s, &k), -EOPNOTSUPP);
}

/* An object whose sites could not all be described is refused before
 * anything reaches the kernel (the fd is never used). */
static void test_incomplete_sites(void **state)
{
	(void)state;
	struct elf_facts f = {.nsites = 1, .sites_complete = 0};
	f.sites[0].kind = ELF_PROBE_BATCH;
	strcpy(f.sites[0].args, "8@%rdi");
	assert_int_equal(multi_link_create(-1, "/nonexistent", &f), -EOPNOTSUPP);
	f.sites_complete = 1;
	strcpy(f.sites[0].args, "8@-8(%rbp)");
	assert_int_equal(multi_link_create(-1, "/nonexistent", &f), -EOPNOTSUPP);
	f.nsites = 0;
	assert_int_equal(multi_link_create(-1, "/nonexistent", &f), -EOPNOTSUPP);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_register_args),
	    cmocka_unit_test(test_refused),
	    cmocka_unit_test(test_incomplete_sites),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
