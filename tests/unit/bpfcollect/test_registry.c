/* SPDX-License-Identifier: MIT */
/*
 * test_registry.c — registry_read (user/bpfcollect/registry.c) on a
 * `__wpp_registry` this test defines in its own executable and reads
 * through its own /proc/PID/mem (no root, no BPF).
 *
 * The case it exists for: a process caught in its loader, libwpprt mapped
 * but not relocated, holds the file's link-time values in the registry's
 * pointers (GNU ld writes a R_X86_64_RELATIVE's value into the section):
 * `counts` is a number, no address.  Until a TU has registered (its
 * constructor ran, so the loader had relocated the runtime) the reader
 * must report no counts address, and say that nothing registered yet; a
 * collector that took the number for an address read garbage from then on
 * (count-kill.sh, loader cases).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "bpfcollect/registry.h"
#include "runtime/wpp_registry.h"

/* What a link-time value looks like before relocation: an offset. */
#define UNRELOCATED 0x17110u

__attribute__((visibility("default"))) struct wpp_registry __wpp_registry = {
    .magic = WPP_REGISTRY_MAGIC,
    .version = WPP_REGISTRY_VERSION,
    .entry_size = sizeof(struct wpp_registry_entry),
    .next_fid = 1,
};

static uint64_t count_list; /* the list head `counts` points at */
static struct wpp_registry_entry entry = {.tu_hash = 0x1234, .fid_base = 1, .nfuncs = 3};
static unsigned tus;

static void one_tu(const struct wpp_brec_register *r, void *arg)
{
	(void)arg;
	assert_int_equal(r->tu_hash, 0x1234);
	assert_int_equal(r->nfuncs, 3);
	tus++;
}

/* The registry as the loader leaves it before relocating the runtime. */
static void test_unrelocated_registry_has_no_counts(void **state)
{
	struct registry_info info;
	(void)state;
	__wpp_registry.count = 0;
	__wpp_registry.counts = UNRELOCATED;
	tus = 0;
	assert_int_equal(registry_read(getpid(), one_tu, NULL, &info), 0);
	assert_int_equal(info.registered, 0);
	assert_int_equal(info.counts, 0);
	assert_int_equal(tus, 0);
}

/* Once a TU registered, `counts` is the address it holds. */
static void test_registered_registry_gives_counts(void **state)
{
	struct registry_info info;
	(void)state;
	__wpp_registry.entries = (uint64_t)(uintptr_t)&entry;
	__wpp_registry.capacity = 1;
	__wpp_registry.count = 1;
	__wpp_registry.counts = (uint64_t)(uintptr_t)&count_list;
	tus = 0;
	assert_int_equal(registry_read(getpid(), one_tu, NULL, &info), 0);
	assert_int_equal(info.registered, 1);
	assert_int_equal(info.counts, (uint64_t)(uintptr_t)&count_list);
	assert_int_equal(tus, 1);
}

/* A process with no registry at all. */
static void test_no_registry(void **state)
{
	struct registry_info info;
	(void)state;
	/* pid 1 (init) is not instrumented; as root its maps are readable */
	int err = registry_read(1, one_tu, NULL, &info);
	assert_true(err == -ENOENT || err == -EACCES || err == -EPERM);
	assert_int_equal(info.counts, 0);
	assert_int_equal(info.registered, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_unrelocated_registry_has_no_counts),
	    cmocka_unit_test(test_registered_registry_gives_counts),
	    cmocka_unit_test(test_no_registry),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
