/* SPDX-License-Identifier: MIT */
/*
 * fuzz_shm_region.c — libFuzzer target: the shm collector's view of a
 * region that hostile producers write.
 *
 * Each input builds a fresh small region (a real collector, a real
 * producer in this process registered with one thread), then runs a
 * script of operations taken from the input: raw byte patches anywhere in
 * the region, 64-bit writes to ring heads and tails, 32-bit writes into
 * process, module and thread entries, honest batches published through the
 * producer API, and collector passes.  It ends with the collector's finish
 * and destroy.  ASan/UBSan catch any access outside the mapping or the
 * collector's own memory; the sink checks what the collector promises it
 * (shm_collector.h): copies, not region memory, for processes, modules and
 * headers; strings ending inside their arrays; batch words inside the
 * batch's slot.  Any broken promise aborts.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "kmod-free/shm_collector.h"
#include "kmod-free/shm_producer.h"

struct region {
	const char *lo, *hi;
	uint64_t slots_off, slot_bytes;
	uint32_t cap;
	uint64_t sum; /* every word the sink was given, read once */
};
static struct region R;

static void expect(int ok, const char *what)
{
	if (!ok) {
		fprintf(stderr, "fuzz_shm_region: broken promise: %s\n", what);
		abort();
	}
}

static int outside(const void *p, size_t n)
{
	const char *c = p;
	return c + n <= R.lo || c >= R.hi;
}

static void check_proc(const struct wpp_shm_proc *p)
{
	expect(outside(p, sizeof(*p)), "process given from the region");
	expect(memchr(p->exe, 0, sizeof(p->exe)) != NULL, "exe without NUL");
	expect(p->cmdline_len <= sizeof(p->cmdline), "cmdline_len beyond the array");
}

static int on_process(void *ctx, const struct wpp_shm_proc *p)
{
	(void)ctx;
	check_proc(p);
	return 0;
}
static int on_module(void *ctx, const struct wpp_shm_proc *p, const struct wpp_shm_tu *t)
{
	(void)ctx;
	check_proc(p);
	expect(outside(t, sizeof(*t)), "module given from the region");
	expect(memchr(t->path, 0, sizeof(t->path)) != NULL, "path without NUL");
	expect(t->build_id_len <= sizeof(t->build_id), "build id length");
	return 0;
}
static int on_thread(void *ctx, const struct wpp_shm_proc *p, uint32_t tid, int ev, uint64_t ns)
{
	(void)ctx, (void)tid, (void)ev, (void)ns;
	check_proc(p);
	return 0;
}
static int on_batch(void *ctx, const struct wpp_shm_proc *p, uint32_t tid,
		    const struct wpp_batch_hdr *h, const uint64_t *w, uint32_t n)
{
	(void)ctx, (void)tid;
	check_proc(p);
	expect(outside(h, sizeof(*h)), "batch header given from the region");
	expect(h->nwords == n && n <= R.cap, "batch longer than a slot");
	expect((const char *)w >= R.lo && (const char *)(w + n) <= R.hi, "words outside");
	/* Inside one slot: the words start right after a slot's header. */
	uint64_t off = (uint64_t)((const char *)w - R.lo) - sizeof(struct wpp_batch_hdr);
	expect(off >= R.slots_off && (off - R.slots_off) % R.slot_bytes == 0,
	       "words not right after a slot header");
	for (uint32_t i = 0; i < n; i++)
		R.sum += w[i];
	return 0;
}
static int on_gap(void *ctx, const struct wpp_shm_proc *p, uint32_t tid, uint64_t s, uint64_t l)
{
	(void)ctx, (void)tid, (void)s, (void)l;
	check_proc(p);
	return 0;
}
static const struct wpp_shm_sink sink = {NULL, on_process, on_module, on_thread, on_batch, on_gap, NULL};

/* The input, read front to back; reads past its end give zeros. */
struct script {
	const uint8_t *p;
	size_t n;
};
static uint64_t take(struct script *s, unsigned bytes)
{
	uint64_t v = 0;
	for (unsigned i = 0; i < bytes; i++) {
		v |= (uint64_t)(s->n ? *s->p : 0) << (8 * i);
		if (s->n)
			s->p++, s->n--;
	}
	return v;
}

static void put32(char *base, uint64_t size, uint64_t off, uint32_t v)
{
	if (off + 4 <= size)
		memcpy(base + off, &v, 4);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct wpp_shm_options o = {16, 2, 2, 3, 2, 3};
	struct wpp_shm_collector *col = wpp_shm_collector_create(&o);
	struct wpp_shm_client cl;
	struct wpp_shm_lane lane;
	struct script s = {data, size};
	uint32_t pid = (uint32_t)getpid(), tid = (uint32_t)syscall(SYS_gettid);
	struct wpp_shm_proc_info pi = {pid, (uint32_t)getppid(), 0, 0, 0, "/fuzz", "fuzz", 5};
	struct wpp_shm_tu_info ti = {0, 4,	   0x1234, 0, 0, (const uint8_t *)"build-id",
				     8, "/fuzz.so"};
	int have_lane;

	if (!col || wpp_shm_attach(&cl, wpp_shm_collector_env(col)) != 0)
		abort();
	char *base = (char *)wpp_shm_collector_header(col);
	uint64_t rsize = cl.g.region_size;
	R = (struct region){base,
			    base + rsize,
			    cl.g.slots_off,
			    cl.g.slot_bytes,
			    cl.g.buffer_words + WPP_SLACK_WORDS,
			    0};
	if (wpp_shm_register_process(&cl, &pi) != 0 || wpp_shm_register_tu(&cl, &ti) != 0)
		abort();
	have_lane = wpp_shm_thread_open(&cl, &lane, pid, tid) == 0;

	for (int ops = 0; s.n && ops < 256; ops++) {
		switch (take(&s, 1) % 7) {
		case 0: { /* raw bytes anywhere */
			uint64_t off = take(&s, 4) % rsize, len = take(&s, 1) % 33;
			for (uint64_t i = 0; i < len && off + i < rsize; i++)
				base[off + i] = (char)take(&s, 1);
			break;
		}
		case 1: { /* a ring's head or tail */
			uint32_t t = (uint32_t)(take(&s, 1) % o.max_threads);
			int l = (int)(take(&s, 1) % WPP_SHM_LEVELS), tail = (int)(take(&s, 1) & 1);
			struct wpp_shm_ring *r = &wpp_shm_thread_at(base, &cl.g, t)->rings[l];
			uint64_t v = take(&s, 1) & 1 ? take(&s, 8) : take(&s, 1);
			__atomic_store_n(tail ? &r->tail : &r->head, v, __ATOMIC_RELEASE);
			break;
		}
		case 2: { /* a word of a process, module or thread entry */
			int table = (int)(take(&s, 1) % 3);
			uint32_t i = (uint32_t)take(&s, 1), at = (uint32_t)take(&s, 2);
			uint64_t off =
			    table == 0
				? cl.g.procs_off + (i % o.max_procs) * sizeof(struct wpp_shm_proc) +
				      at % sizeof(struct wpp_shm_proc)
			    : table == 1
				? cl.g.tus_off + (i % o.max_tus) * sizeof(struct wpp_shm_tu) +
				      at % sizeof(struct wpp_shm_tu)
				: cl.g.threads_off +
				      (i % o.max_threads) * sizeof(struct wpp_shm_thread) +
				      at % sizeof(struct wpp_shm_thread);
			put32(base, rsize, off & ~(uint64_t)3, (uint32_t)take(&s, 4));
			break;
		}
		case 3: { /* an honest batch, if its ring has room */
			int l = (int)(take(&s, 1) % WPP_SHM_LEVELS);
			uint32_t n = (uint32_t)(take(&s, 1) % (cl.g.buffer_words + 1));
			if (!have_lane)
				break;
			uint64_t t = __atomic_load_n(&lane.t->rings[l].tail, __ATOMIC_ACQUIRE);
			if (t > lane.head[l] || lane.head[l] - t >= wpp_shm_ring_len(&cl.g, l))
				break; /* full or broken: ring_begin would wait or refuse */
			struct wpp_batch_hdr *h = wpp_shm_ring_begin(&cl, &lane, l);
			if (!h)
				break;
			uint64_t *w = (uint64_t *)(h + 1);
			for (uint32_t k = 0; k < n; k++)
				w[k] = 0x100000000ull + k;
			h->seq = lane.head[l] + 1;
			h->level = (uint32_t)l;
			h->pid = pid;
			h->tid = tid;
			h->nwords = n;
			wpp_shm_ring_publish(&cl, &lane, l);
			break;
		}
		case 4: /* a collector pass */
			if (wpp_shm_collector_drain(col, &sink) < 0)
				abort();
			break;
		case 5: { /* a batch header field of some slot */
			uint64_t slot =
			    take(&s, 2) % ((uint64_t)o.max_threads * cl.g.slots_per_thread);
			uint64_t off =
			    cl.g.slots_off + slot * cl.g.slot_bytes + (take(&s, 1) % 16) * 4;
			put32(base, rsize, off, (uint32_t)take(&s, 4));
			break;
		}
		case 6: /* the thread says goodbye */
			if (have_lane)
				wpp_shm_thread_close(&lane);
			break;
		}
	}
	if (wpp_shm_collector_drain(col, &sink) < 0 || wpp_shm_collector_finish(col, &sink) < 0)
		abort();
	uint32_t cut_pid;
	const char *why;
	while (wpp_shm_collector_cutoff(col, &cut_pid, &why))
		expect(why && *why, "cut-off without a reason");
	munmap(cl.h, cl.mapped);
	wpp_shm_collector_destroy(col);
	return 0;
}
