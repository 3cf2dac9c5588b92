/* SPDX-License-Identifier: MIT */
/*
 * rt_registry.c — __wpp_register_tu(): hands each instrumented translation
 * unit a contiguous fid range, remembers where it came from (ELF object,
 * load bias, build-id) in the global registry, and tells the transport.
 * Called from constructors, including those of libraries dlopen'ed by other
 * threads, so it is serialized by a mutex (never called from signal context).
 */
#include <elf.h>
#include <link.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "runtime/rt_count.h"
#include "runtime/rt_internal.h"
#include "runtime/rt_usdt.h"
#include "wpp/trace_abi.h"
#include "runtime/wpp_registry.h"

__attribute__((visibility("default"))) struct wpp_registry __wpp_registry = {
    .magic = WPP_REGISTRY_MAGIC,
    .version = WPP_REGISTRY_VERSION,
    .entry_size = sizeof(struct wpp_registry_entry),
    .next_fid = 1, /* fid 0 is the control fid */
    .counts = (uint64_t)(uintptr_t)&rt_count_blocks,
};

static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;

struct object_info {
	uintptr_t addr;
	int found;
	uint64_t bias;
	char path[512];
	uint8_t build_id[20];
	uint32_t build_id_len;
};

static void read_build_id(struct dl_phdr_info *info, struct object_info *oi)
{
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		const char *p, *end;
		if (ph->p_type != PT_NOTE)
			continue;
		p = (const char *)(info->dlpi_addr + ph->p_vaddr);
		end = p + ph->p_memsz;
		while (p + sizeof(ElfW(Nhdr)) <= end) {
			const ElfW(Nhdr) *n = (const ElfW(Nhdr) *)p;
			const char *name = p + sizeof(*n);
			const char *desc = name + ((n->n_namesz + 3) & ~3u);
			if (desc + n->n_descsz > end)
				break;
			if (n->n_type == NT_GNU_BUILD_ID && n->n_namesz == 4 &&
			    memcmp(name, "GNU", 4) == 0) {
				oi->build_id_len = n->n_descsz > 20 ? 20 : n->n_descsz;
				memcpy(oi->build_id, desc, oi->build_id_len);
				return;
			}
			p = desc + ((n->n_descsz + 3) & ~3u);
		}
	}
}

static int find_object(struct dl_phdr_info *info, size_t size, void *data)
{
	struct object_info *oi = data;
	(void)size;

	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uintptr_t lo = info->dlpi_addr + ph->p_vaddr;
		if (ph->p_type != PT_LOAD || oi->addr < lo || oi->addr >= lo + ph->p_memsz)
			continue;
		oi->found = 1;
		oi->bias = info->dlpi_addr;
		if (info->dlpi_name && info->dlpi_name[0]) {
			strncpy(oi->path, info->dlpi_name, sizeof(oi->path) - 1);
		} else {
			/* The main program has no name here. */
			ssize_t n = readlink("/proc/self/exe", oi->path, sizeof(oi->path) - 1);
			oi->path[n > 0 ? n : 0] = 0;
		}
		read_build_id(info, oi);
		return 1;
	}
	return 0;
}

static int grow(void)
{
	uint32_t cap = __wpp_registry.capacity ? __wpp_registry.capacity * 2 : 64;
	struct wpp_registry_entry *n = calloc(cap, sizeof(*n));

	if (!n)
		return -1;
	if (__wpp_registry.count)
		memcpy(n, (void *)(uintptr_t)__wpp_registry.entries,
		       __wpp_registry.count * sizeof(*n));
	/* The old array stays allocated: a concurrent reader may hold it. */
	__atomic_store_n(&__wpp_registry.entries, (uint64_t)(uintptr_t)n, __ATOMIC_RELEASE);
	__wpp_registry.capacity = cap;
	return 0;
}

static uint32_t transport_code(void)
{
	if (rt_transport == &rt_transport_shm)
		return WPP_REG_TRANSPORT_SHM;
	if (rt_transport == &rt_transport_probe)
		return WPP_REG_TRANSPORT_PROBE;
	return WPP_REG_TRANSPORT_DISCARD;
}

__attribute__((visibility("default"))) void __wpp_register_tu(struct wpp_tu_desc *d)
{
	struct object_info oi = {.addr = (uintptr_t)d->meta};
	struct wpp_registry_entry *e;
	uint32_t base;
	char *path;

	rt_init();
	dl_iterate_phdr(find_object, &oi);
	path = strdup(oi.path);
	pthread_mutex_lock(&registry_lock);
	__atomic_add_fetch(&__wpp_registry.update_seq, 1, __ATOMIC_ACQ_REL);
	__wpp_registry.pid = rt_proc.pid;
	__wpp_registry.transport = transport_code();
	__wpp_registry.buffer_words = rt_buffer_words;
	base = __wpp_registry.next_fid;
	if (d->abi_version != WPP_ABI_VERSION || (uint64_t)base + d->nfuncs > WPP_FID_MAX + 1ull ||
	    (__wpp_registry.count == __wpp_registry.capacity && grow() < 0) || !path) {
		/* Unusable: its words stay attributed to "unregistered". */
		*d->fid_base_slot = (uint64_t)WPP_FID_UNREGISTERED << WPP_FID_SHIFT;
		__atomic_add_fetch(&__wpp_registry.update_seq, 1, __ATOMIC_ACQ_REL);
		pthread_mutex_unlock(&registry_lock);
		free(path);
		return;
	}
	__wpp_registry.next_fid = base + d->nfuncs;
	e = (struct wpp_registry_entry *)(uintptr_t)__wpp_registry.entries + __wpp_registry.count;
	e->tu_hash = d->tu_hash;
	e->fid_base = base;
	e->nfuncs = d->nfuncs;
	e->meta_addr = (uint64_t)(uintptr_t)d->meta;
	e->meta_size = d->meta_size;
	e->load_bias = oi.bias;
	e->path = (uint64_t)(uintptr_t)path;
	e->path_len = (uint32_t)strlen(path) + 1;
	e->build_id_len = oi.build_id_len;
	memcpy(e->build_id, oi.build_id, sizeof(e->build_id));
	__atomic_store_n(&__wpp_registry.count, __wpp_registry.count + 1, __ATOMIC_RELEASE);
	*d->fid_base_slot = (uint64_t)base << WPP_FID_SHIFT;
	rt_transport->module(base, d->nfuncs, d->tu_hash, e->meta_addr, e->load_bias, e->build_id,
			     e->build_id_len, path);
	__atomic_add_fetch(&__wpp_registry.update_seq, 1, __ATOMIC_ACQ_REL);
	/* For the BPF collector: the entry holds what /proc would no longer
	 * know once the process is gone (object path, bias, build-id). */
	WPP_USDT_REGISTER(d, base, e);
	pthread_mutex_unlock(&registry_lock);
}

void rt_registry_replay(void)
{
	/* Fork child: single-threaded, the lock state is inherited; do not take
	 * it.  vfork child: the parent's threads may be registering; count is
	 * published after its entry is complete. */
	struct wpp_registry_entry *e = (void *)(uintptr_t)__wpp_registry.entries;

	uint32_t n = __atomic_load_n(&__wpp_registry.count, __ATOMIC_ACQUIRE);

	for (uint32_t i = 0; i < n; i++)
		rt_transport->module(e[i].fid_base, e[i].nfuncs, e[i].tu_hash, e[i].meta_addr,
				     e[i].load_bias, e[i].build_id, e[i].build_id_len,
				     (const char *)(uintptr_t)e[i].path);
}

/* fork() while another thread registers: hold the lock across the fork so
 * the child never inherits it locked. */
void rt_registry_fork_prepare(void)
{
	pthread_mutex_lock(&registry_lock);
}
void rt_registry_fork_parent(void)
{
	pthread_mutex_unlock(&registry_lock);
}
void rt_registry_fork_child(void)
{
	pthread_mutex_init(&registry_lock, NULL);
}

void rt_registry_set_pid(uint32_t pid)
{
	__wpp_registry.pid = pid;
}
