/* SPDX-License-Identifier: MIT */
/*
 * rt_shm_client.c — the shm transport as libwpprt sees it: an adapter from
 * the runtime's transport operations to kmod-free/shm_producer.  Buffers are
 * ring slots in the shared region, so records are written in place and a
 * publish is one release store (zero copy).
 */
#include <errno.h>

#include "../../kmod-free/shm_producer.h"
#include "rt_internal.h"

static struct wpp_shm_client client;

static int register_process(void)
{
	struct wpp_shm_proc_info pi = {
	    .pid = rt_proc.pid,
	    .ppid = rt_proc.ppid,
	    .parent_tid = rt_proc.parent_tid,
	    .flags = rt_proc.flags,
	    .start_ticks = rt_proc.start_ticks,
	    .exe = rt_proc.exe,
	    .cmdline = rt_proc.cmdline,
	    .cmdline_len = rt_proc.cmdline_len,
	};
	int err = wpp_shm_register_process(&client, &pi);

	rt_proc.generation = client.generation;
	return err;
}

int rt_shm_attach(const char *path)
{
	int err = wpp_shm_attach(&client, path);

	if (err)
		return err;
	rt_buffer_words = client.h->buffer_words;
	return register_process();
}

static int shm_thread_open(struct rt_thread *t)
{
	t->transport = wpp_shm_thread_open(&client, rt_proc.pid, t->tid);
	return t->transport ? 0 : -1;
}

static int shm_begin(struct rt_thread *t, int level, struct rt_buf *b)
{
	struct wpp_batch_hdr *slot = wpp_shm_ring_begin(&client, t->transport, level);

	if (!slot)
		return -1;
	b->hdr = slot;
	b->words = (uint64_t *)(slot + 1);
	b->cap = client.h->buffer_words;
	return 0;
}

static void shm_publish(struct rt_thread *t, int level, struct rt_buf *b)
{
	(void)b;
	wpp_shm_ring_publish(&client, t->transport, level);
}

static void shm_close(struct rt_thread *t, int last)
{
	(void)last;
	if (t->transport)
		wpp_shm_thread_close(t->transport);
}

static void shm_lost(struct rt_thread *t, uint64_t words)
{
	if (t->transport)
		wpp_shm_thread_lost(t->transport, words);
}

static void shm_module(uint32_t fid_base, uint32_t nfuncs, uint64_t tu_hash, uint64_t meta_addr,
		       uint64_t load_bias, const uint8_t *build_id, uint32_t build_id_len,
		       const char *path)
{
	struct wpp_shm_tu_info ti = {fid_base,	nfuncs,	  tu_hash,	meta_addr,
				     load_bias, build_id, build_id_len, path};
	wpp_shm_register_tu(&client, &ti);
}

static void shm_fork_child(void)
{
	/* The mapping is shared with the parent; we only need our own
	 * process entry (the thread slot is claimed when the thread
	 * restarts) and our own copy of the module list. */
	register_process();
	rt_registry_replay();
}

/* A vfork child registers its own process through the parent's memory;
 * the parent puts its client state back afterwards (rt_vfork.c). */
void rt_shm_client_save(struct wpp_shm_client *out)
{
	*out = client;
}

void rt_shm_client_restore(const struct wpp_shm_client *in)
{
	client = *in;
}

const struct rt_transport_ops rt_transport_shm = {
    "shm", shm_thread_open, shm_begin, shm_publish, shm_close, shm_lost, shm_module, shm_fork_child,
};
