/* SPDX-License-Identifier: MIT */
#include "bpfcollect/registry.h"

#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bpfcollect/elfinfo.h"
#include "bpfcollect/procinfo.h"
#include "wpp/trace_abi.h"
#include "runtime/wpp_registry.h"

#define MAX_ENTRIES (1u << 20)
#define MAX_TRIES   200

struct find_ctx {
	uint64_t addr;
	char *object;
	size_t object_size;
};

static void find_registry(const char *path, uint64_t map_base, void *arg)
{
	struct find_ctx *f = arg;
	struct elf_facts e;
	if (f->addr || elf_facts_read(path, &e) != 0 || !e.registry_vaddr)
		return;
	f->addr = (e.is_dyn ? map_base - e.first_load_vaddr : 0) + e.registry_vaddr;
	snprintf(f->object, f->object_size, "%s", path);
}

static int read_exact(int fd, void *buf, size_t n, uint64_t addr)
{
	ssize_t got = pread(fd, buf, n, (off_t)addr);
	if (got == (ssize_t)n)
		return 0;
	return got < 0 ? -errno : -EIO;
}

static void pause_briefly(void)
{
	struct timespec ts = {0, 200000};
	nanosleep(&ts, NULL);
}

/* A consistent copy of the header and its entries (seqlock). */
static int snapshot(int fd, uint64_t addr, struct wpp_registry *h,
		    struct wpp_registry_entry **entries)
{
	for (int tries = 0; tries < MAX_TRIES; tries++) {
		/* a version 1 registry ends before `counts` */
		int err = read_exact(fd, h, WPP_REGISTRY_V1_SIZE, addr);
		h->counts = 0;
		h->dual_flags = 0;
		h->dual_count = h->dual_on = 0;
		if (!err && h->version >= 2)
			err = read_exact(fd, &h->counts, sizeof(h->counts),
					 addr + offsetof(struct wpp_registry, counts));
		if (!err && h->version >= 3)
			err = read_exact(fd, &h->dual_flags, sizeof(*h) - WPP_REGISTRY_V2_SIZE,
					 addr + WPP_REGISTRY_V2_SIZE);
		if (err)
			return err;
		if (memcmp(h->magic, WPP_REGISTRY_MAGIC, sizeof(h->magic)) != 0 || h->version < 1 ||
		    h->version > WPP_REGISTRY_VERSION || h->entry_size != sizeof(**entries) ||
		    h->count > h->capacity || h->count > MAX_ENTRIES)
			return -EPROTO;
		if (h->update_seq & 1) {
			pause_briefly();
			continue;
		}
		free(*entries);
		*entries = calloc(h->count ? h->count : 1, sizeof(**entries));
		if (!*entries)
			return -ENOMEM;
		if (h->count &&
		    (err = read_exact(fd, *entries, h->count * sizeof(**entries), h->entries)))
			return err;
		uint64_t seq_after;
		if ((err = read_exact(fd, &seq_after, sizeof(seq_after),
				      addr + offsetof(struct wpp_registry, update_seq))))
			return err;
		if (seq_after == h->update_seq)
			return 0;
	}
	return -EAGAIN;
}

static void to_record(pid_t pid, int fd, const struct wpp_registry_entry *e,
		      struct wpp_brec_register *r)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	memset(r, 0, sizeof(*r));
	r->h.kind = WPP_BREC_REGISTER;
	r->h.pid = (uint32_t)pid;
	r->h.tid = (uint32_t)pid;
	r->h.time_ns = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
	r->tu_hash = e->tu_hash;
	r->fid_base = e->fid_base;
	r->nfuncs = e->nfuncs;
	r->meta_addr = e->meta_addr;
	r->meta_size = e->meta_size;
	r->abi_version = WPP_ABI_VERSION;
	r->read_ok = 1;
	r->load_bias = e->load_bias;
	r->build_id_len = e->build_id_len > 20 ? 20 : e->build_id_len;
	memcpy(r->build_id, e->build_id, sizeof(r->build_id));
	/* A path that does not fit leaves entry_ok 0: the collector then asks
	 * /proc/PID/maps, which is still valid for a live process. */
	if (e->path_len > 1 && e->path_len <= sizeof(r->path) &&
	    read_exact(fd, r->path, e->path_len, e->path) == 0 && r->path[e->path_len - 1] == 0) {
		r->path_len = e->path_len;
		r->entry_ok = 1;
	}
}

int registry_read(pid_t pid, void (*fn)(const struct wpp_brec_register *r, void *arg), void *arg,
		  struct registry_info *info)
{
	struct find_ctx f = {0, info->object, sizeof(info->object)};
	info->object[0] = 0;
	info->count = 0;
	info->transport = 0;
	info->counts = 0;
	info->registered = 0;
	info->addr = 0;
	info->version = 0;
	info->dual_count = 0;
	info->dual_flags = 0;
	int err = proc_each_object_base(pid, find_registry, &f);
	if (err)
		return err == -ENOENT ? -ESRCH : err;
	if (!f.addr)
		return -ENOENT;
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/mem", (int)pid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? -ESRCH : -errno;
	struct wpp_registry h;
	struct wpp_registry_entry *entries = NULL;
	err = snapshot(fd, f.addr, &h, &entries);
	if (!err) {
		info->transport = h.transport;
		info->registered = h.count != 0;
		info->counts = info->registered ? h.counts : 0;
		info->addr = f.addr;
		info->version = h.version;
		info->dual_count = h.dual_count;
		info->dual_flags = h.dual_flags;
		for (uint32_t i = 0; i < h.count; i++) {
			struct wpp_brec_register r;
			if (!entries[i].nfuncs)
				continue;
			to_record(pid, fd, &entries[i], &r);
			fn(&r, arg);
			info->count++;
		}
	}
	free(entries);
	close(fd);
	return err == -EIO ? -EPROTO : err;
}
