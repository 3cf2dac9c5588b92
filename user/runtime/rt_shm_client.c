/* SPDX-License-Identifier: MIT */
/*
 * rt_shm_client.c — the shm transport as libwpprt sees it: an adapter from
 * the runtime's transport operations to kmod-free/shm_producer.  Buffers are
 * ring slots in the shared region, so records are written in place and a
 * publish is one release store (zero copy).
 */
#include <errno.h>

#include "runtime/rt_internal.h"

static struct wpp_shm_client client;
static __thread struct wpp_shm_client *client_override RT_TLS;

/* The calling thread's client: the process's, or a vfork child's own. */
static struct wpp_shm_client *cl(void)
{
	return client_override ? client_override : &client;
}

static int register_process(void)
{
	struct rt_process *rp = rt_process_self();
	struct wpp_shm_proc_info pi = {
	    .pid = rp->pid,
	    .ppid = rp->ppid,
	    .parent_tid = rp->parent_tid,
	    .flags = rp->flags,
	    .start_ticks = rp->start_ticks,
	    .exe = rp->exe,
	    .cmdline = rp->cmdline,
	    .cmdline_len = rp->cmdline_len,
	};
	int err = wpp_shm_register_process(cl(), &pi);

	rp->generation = cl()->generation;
	return err;
}

int rt_shm_attach(const char *path)
{
	int err = wpp_shm_attach(&client, path);

	if (err)
		return err;
	rt_buffer_words = client.g.buffer_words;
	return register_process();
}

static int shm_thread_open(struct rt_thread *t)
{
	if (wpp_shm_thread_open(cl(), &t->shm_lane, rt_process_self()->pid, t->tid) < 0) {
		t->transport = NULL;
		return -1;
	}
	t->transport = &t->shm_lane;
	return 0;
}

static int shm_begin(struct rt_thread *t, int level, struct rt_buf *b)
{
	struct wpp_batch_hdr *slot = wpp_shm_ring_begin(cl(), t->transport, level);

	if (!slot)
		return -1;
	b->hdr = slot;
	b->words = (uint64_t *)(slot + 1);
	b->cap = cl()->g.buffer_words;
	return 0;
}

static void shm_publish(struct rt_thread *t, int level, struct rt_buf *b)
{
	(void)b;
	wpp_shm_ring_publish(cl(), t->transport, level);
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
	wpp_shm_register_tu(cl(), &ti);
}

static void shm_fork_child(void)
{
	/* The mapping is shared with the parent; we only need our own
	 * process entry (the thread slot is claimed when the thread
	 * restarts) and our own copy of the module list. */
	register_process();
	rt_registry_replay();
}

void rt_shm_client_copy(struct wpp_shm_client *own)
{
	*own = *cl();
}

struct wpp_shm_client *rt_shm_client_use(struct wpp_shm_client *own)
{
	struct wpp_shm_client *prev = client_override;
	client_override = own;
	return prev;
}

const struct rt_transport_ops rt_transport_shm = {
    "shm", shm_thread_open, shm_begin, shm_publish, shm_close, shm_lost, shm_module, shm_fork_child,
};
