/* SPDX-License-Identifier: MIT */
/* activate.c — dual builds' flags from outside (see activate.h). */
#include "bpfcollect/activate.h"

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <sys/uio.h>

#include "bpfcollect/registry.h"
#include "runtime/wpp_registry.h"

/* More flags than TUs a process could plausibly load: a larger count is
 * a corrupt (or forged) registry. */
#define MAX_FLAGS (1u << 20)

static int write_byte(pid_t pid, uint64_t addr, uint8_t v)
{
	struct iovec local = {&v, 1}, remote = {(void *)(uintptr_t)addr, 1};
	return process_vm_writev(pid, &local, 1, &remote, 1, 0) == 1 ? 0 : -errno;
}

static void no_tu(const struct wpp_brec_register *r, void *arg)
{
	(void)r, (void)arg;
}

int bc_dual_set(pid_t pid, int on, int *was_on)
{
	struct registry_info info;
	int err = registry_read(pid, no_tu, NULL, &info);
	if (err)
		return err;
	if (info.version < 3 || !info.dual_flags)
		return 0;
	/* The word new flags start from first (wpp_registry.h): a TU that
	 * registers while we write either reads it or is in the array. */
	uint32_t v32 = on ? 1 : 0, before = 0;
	struct iovec local = {&v32, sizeof(v32)}, old = {&before, sizeof(before)};
	struct iovec remote = {
	    (void *)(uintptr_t)(info.addr + offsetof(struct wpp_registry, dual_on)), sizeof(v32)};
	if (was_on) {
		if (process_vm_readv(pid, &old, 1, &remote, 1, 0) != (ssize_t)sizeof(before))
			return -errno;
		*was_on = before != 0;
	}
	if (process_vm_writev(pid, &local, 1, &remote, 1, 0) != (ssize_t)sizeof(v32))
		return -errno;
	/* the count again, after the write: flags registered meanwhile */
	if ((err = registry_read(pid, no_tu, NULL, &info)))
		return err;
	if (info.dual_count > MAX_FLAGS)
		return -EPROTO;
	uint64_t *addrs = calloc(info.dual_count ? info.dual_count : 1, sizeof(*addrs));
	if (!addrs)
		return -ENOMEM;
	size_t bytes = info.dual_count * sizeof(*addrs);
	struct iovec to = {addrs, bytes}, from = {(void *)(uintptr_t)info.dual_flags, bytes};
	if (bytes && process_vm_readv(pid, &to, 1, &from, 1, 0) != (ssize_t)bytes) {
		err = -errno;
		free(addrs);
		return err ? err : -EPROTO;
	}
	int n = 0;
	for (uint32_t i = 0; i < info.dual_count && !err; i++)
		if (!(err = write_byte(pid, addrs[i], on ? 1 : 0)))
			n++;
	free(addrs);
	return err ? err : n;
}
