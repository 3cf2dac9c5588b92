// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * wpp_transport.bpf.c — the kernel side of the BPF transport.
 *
 *  usdt wpptrace:batch     copy a published batch into this CPU's batch ring
 *                          as records sized to fit, or count it as lost;
 *                          stop the publishing process while that ring is
 *                          too full (back-pressure, pause_fill)
 *  usdt wpptrace:register  report a TU registration (fid range, metadata)
 *  usdt wpptrace:thread    remember where a thread keeps its record position
 *  wpp_usdt_multi          the three above through one uprobe_multi link
 *  tp_btf sched_process_fork/exec/exit
 *                          open and close processes, threads and streams
 *  tp_btf sched_prepare_exec, sched_process_exit
 *                          salvage the words a thread that ends there had
 *                          not published (see salvage_thread)
 *
 * Policy (which processes, which objects, ring sizes) lives in user space;
 * these programs only filter by the traced-process set when asked to.
 * Record layouts: wpp_bpf_records.h.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include <bpf/usdt.bpf.h>

#include "bpf/wpp_bpf_records.h"
#include "bpf/wpp_multi.bpf.h"
#include "bpf/wpp_position.bpf.h"

char LICENSE[] SEC("license") = "Dual MIT/GPL";

/* Set by the loader before load; read-only afterwards. */
const volatile __u32 record_words = 512;
/* 1: only processes in traced_pids (and their descendants) are traced. */
const volatile __u32 filter_pids = 0;
/* 1: a traced process exec'ing an executable not in exec_seen is stopped
 * until the collector has attached to it (see wpp_exec). */
const volatile __u32 hold_unseen_exec = 0;
/* Back-pressure.  0: a full ring drops batches (counted, gapped).  Else the
 * number of unconsumed bytes in this CPU's batch ring at which the process
 * that just published is stopped (SIGSTOP); the collector continues it once
 * it has drained the rings.  The batch that crossed the mark is delivered:
 * the rest of the ring absorbs what other threads publish before the stop
 * reaches them (at most about a batch each). */
const volatile __u64 pause_fill = 0;
/* 1: sched_process_exit passes group_dead (Linux 6.16+), the kernel's own
 * answer to "is this the last thread"; else wpp_exit guesses (see there). */
const volatile __u32 exit_passes_group_dead = 0;

/* The inner map's template: the collector makes the rings themselves (the
 * kernel matches an inner map by type, sizes of key and value and flags,
 * not by size), and a generated loader creates this one only to make the
 * outer map: a page, not a ring's worth. */
struct batch_ring {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4096);
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY_OF_MAPS);
	__uint(max_entries, 1); /* set to the number of possible CPUs */
	__type(key, __u32);
	__array(values, struct batch_ring);
} batch_rings SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 1 << 20);
} lifecycle_ring SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 1 << 16);
	__type(key, __u32);
	__type(value, struct wpp_bpf_thread);
} threads SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 1 << 14);
	__type(key, __u32);
	__type(value, __u8);
} traced_pids SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct wpp_bpf_counters);
} counters SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 1 << 14);
	__type(key, struct wpp_exe_key);
	__type(value, __u8);
} exec_seen SEC(".maps");

/* Processes the batch probe has stopped (struct wpp_bpf_pause). */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 1 << 14);
	__type(key, __u32);
	__type(value, struct wpp_bpf_pause);
} paused SEC(".maps");

/* Stream ids are handed out once per thread image; contention only at
 * thread start, never per batch. */
__u64 next_stream_id = 1;
__u64 next_pause_incarnation = 1;
/* Bumped after every stop, read by the collector from the mmap'ed .bss
 * with no syscall: unchanged means nothing to continue. */
__u64 pause_epoch = 0;

static __always_inline struct wpp_bpf_counters *my_counters(void)
{
	__u32 zero = 0;
	return bpf_map_lookup_elem(&counters, &zero);
}

static __always_inline int is_traced(__u32 pid)
{
	if (!filter_pids)
		return 1;
	return bpf_map_lookup_elem(&traced_pids, &pid) != 0;
}

static __always_inline void head_init(struct wpp_brec_head *h, __u32 kind, __u32 pid, __u32 tid)
{
	h->kind = kind;
	h->pid = pid;
	h->tid = tid;
	h->cpu = bpf_get_smp_processor_id();
	h->time_ns = bpf_ktime_get_ns();
}

static __always_inline void loss_add(struct wpp_brec_loss *l, __u64 words, __u64 seq)
{
	if (l->batches == 0 || seq < l->min_seq)
		l->min_seq = seq;
	l->words += words;
	l->batches += 1;
}

/* ---- batch probe ---- */

struct chunk_ctx {
	struct wpp_brec_batch tmpl; /* header every chunk record starts with */
	__u64 words_addr;
	__u32 cpu;
	int failed;
	int read_failed;
	__u64 records;
};

/* Reading user memory straight into a ring record of a size known only at
 * run time (kernel 6.16+). */
extern int bpf_probe_read_user_dynptr(struct bpf_dynptr *dptr, __u32 off, __u32 size,
				      const void *unsafe_ptr__ign) __ksym;

/* When a record wakes the collector.  The ring's own rule wakes it for a
 * record that finds it caught up: with 64 Ki-word batches and a collector
 * that keeps up, that is nearly every batch, and each wake-up costs the
 * publishing thread an irq_work self-interrupt (an APIC write: a VM exit
 * on a virtual machine) and, when the collector shares its CPU, a
 * preemption.  Instead a record wakes the collector only when it takes
 * the ring's unconsumed bytes across an eighth of the ring (a few batches
 * to drain per wake-up, well below the back-pressure mark at half), or
 * across pause_fill, or when it ends a thread's last or salvaged batch
 * (the stream's end waits for it).  Nothing waits longer than the drain
 * threads' poll timeout: a drain that wakes takes everything its rings
 * hold and looks again before it sleeps (the ring's poll is
 * level-triggered), and what comes unannounced while it sleeps is taken
 * at the next wake-up or timeout.  A crossing two producers race past is
 * seen by one of them: each compares the fill before and after its own
 * reservation.
 *
 * Of a ring of `size` bytes holding `avail` with this record, of
 * `rec_bytes`, reserved: `rest`, the batch's words after this record, and
 * its flags say whether it is the batch's last that must wake.  A global
 * function: the verifier checks it once, apart, instead of walking each
 * of its branches through the rest of copy_chunk and of every program
 * that publishes (a fifth of their verified instructions, about 2 ms of
 * each record's start-up). */
__noinline __u64 wake_flags(__u64 size, __u64 avail, __u64 rec_bytes, __u32 flags, __u32 rest)
{
	/* the record as the ring holds it: an 8-byte header, 8-aligned */
	__u64 held = (rec_bytes + 8 + 7) & ~7ull;
	__u64 before = avail > held ? avail - held : 0;
	__u64 mark = size / 8;

	if (flags & WPP_BREC_WAKE_FLAGS && !rest)
		return BPF_RB_FORCE_WAKEUP;
	if (avail >= mark && before < mark)
		return BPF_RB_FORCE_WAKEUP;
	if (pause_fill && avail >= pause_fill && before < pause_fill)
		return BPF_RB_FORCE_WAKEUP;
	return BPF_RB_NO_WAKEUP;
}

/* One record: the header and `n` words from word `off` of the batch, sized
 * to fit (a record holds at most record_words words; most batches are one
 * record).  Variable-size reservation needs the dynptr interface. */
static long copy_chunk(__u32 index, void *data)
{
	struct chunk_ctx *c = data;
	__u32 per = record_words;
	__u32 off = index * per;
	__u32 n;
	void *ring;
	struct wpp_brec_batch *rec;
	struct bpf_dynptr ptr;

	ring = bpf_map_lookup_elem(&batch_rings, &c->cpu);
	if (!ring) {
		c->failed = 1;
		return 1;
	}
	n = c->tmpl.nwords - off;
	if (n > per)
		n = per;
	if (bpf_ringbuf_reserve_dynptr(ring, sizeof(*rec) + n * 8, 0, &ptr)) {
		/* a failed reservation still has to be released */
		bpf_ringbuf_discard_dynptr(&ptr, BPF_RB_NO_WAKEUP);
		c->failed = 1;
		return 1;
	}
	rec = bpf_dynptr_data(&ptr, 0, sizeof(*rec));
	if (!rec) { /* cannot happen: the record is at least a header */
		bpf_ringbuf_discard_dynptr(&ptr, BPF_RB_NO_WAKEUP);
		c->failed = 1;
		return 1;
	}
	*rec = c->tmpl;
	rec->chunk_off = off;
	rec->chunk_words = n;
	if (n && bpf_probe_read_user_dynptr(&ptr, sizeof(*rec), n * 8,
					    (const void *)(c->words_addr + (__u64)off * 8))) {
		bpf_ringbuf_discard_dynptr(&ptr, BPF_RB_NO_WAKEUP);
		c->failed = 1;
		c->read_failed = 1;
		return 1;
	}
	bpf_ringbuf_submit_dynptr(&ptr, wake_flags(bpf_ringbuf_query(ring, BPF_RB_RING_SIZE),
						   bpf_ringbuf_query(ring, BPF_RB_AVAIL_DATA),
						   sizeof(*rec) + n * 8, c->tmpl.flags,
						   c->tmpl.nwords - (off + n)));
	c->records++;
	return 0;
}

/* A thread's state, created at its first batch.  NULL when the table is
 * full; the batch is then counted as lost without a stream to report it in. */
static __always_inline struct wpp_bpf_thread *thread_state(__u32 pid, __u32 tid)
{
	struct wpp_bpf_thread *t = bpf_map_lookup_elem(&threads, &tid);
	if (t)
		return t;
	struct wpp_bpf_thread fresh = {};
	fresh.stream_id = __sync_fetch_and_add(&next_stream_id, 1);
	fresh.pid = pid;
	bpf_map_update_elem(&threads, &tid, &fresh, BPF_NOEXIST);
	return bpf_map_lookup_elem(&threads, &tid);
}

/* Back-pressure (pause_fill): stop the current process when this CPU's ring
 * holds pause_fill unconsumed bytes.  The stop is sent first and the entry's
 * counters bumped after it, so a collector that sees the new epoch sees the
 * new count too and its SIGCONT comes after the SIGSTOP (a SIGCONT cancels a
 * pending stop, so neither order of delivery can leave the process stopped). */
static __always_inline void pause_if_full(__u32 pid, __u32 cpu, struct wpp_bpf_counters *cnt)
{
	struct wpp_bpf_pause *p;
	void *ring;

	if (!pause_fill)
		return;
	ring = bpf_map_lookup_elem(&batch_rings, &cpu);
	if (!ring || bpf_ringbuf_query(ring, BPF_RB_AVAIL_DATA) < pause_fill)
		return;
	p = bpf_map_lookup_elem(&paused, &pid);
	if (!p) {
		struct wpp_bpf_pause fresh = {};
		fresh.incarnation = __sync_fetch_and_add(&next_pause_incarnation, 1);
		bpf_map_update_elem(&paused, &pid, &fresh, BPF_NOEXIST);
		p = bpf_map_lookup_elem(&paused, &pid);
	}
	/* No entry, no stop: the collector could not know to continue it.
	 * The stop goes to this thread, not the process: a process-wide
	 * SIGSTOP is handled by one thread the kernel picks, and while that
	 * thread waits for a CPU a sibling on another CPU went on publishing
	 * into a full ring (each further stop found one pending and was
	 * dropped).  A thread-directed stop is acted on as this thread leaves
	 * the probe, and still stops the whole group. */
	if (!p || bpf_send_signal_thread(19 /* SIGSTOP */)) {
		cnt->pause_failures++;
		return;
	}
	p->stop_ns = bpf_ktime_get_ns();
	__sync_fetch_and_add(&p->stops, 1);
	__sync_fetch_and_add(&pause_epoch, 1);
	cnt->pauses++;
}

/* What a publication carries: the runtime's batch header fields. */
struct batch_args {
	__u64 words_addr;
	__u32 nwords;
	__u32 flags;
	__u64 seq;
	__u64 parent_seq;
	__u32 parent_off;
	__u32 generation;
};

/* Copy one batch of thread tid into this CPU's ring under the stream's
 * next pubno, or count it lost (and remember the loss for the stream's next
 * record).  0 if delivered. */
static __always_inline int publish(__u32 pid, __u32 tid, struct wpp_bpf_thread *t,
				   struct wpp_bpf_counters *cnt, const struct batch_args *a)
{
	struct chunk_ctx c = {};
	__u32 nchunks;

	head_init(&c.tmpl.h, WPP_BREC_BATCH, pid, tid);
	c.cpu = c.tmpl.h.cpu;
	c.tmpl.stream_id = t->stream_id;
	c.tmpl.pubno = t->next_pubno++;
	c.tmpl.seq = a->seq;
	c.tmpl.parent_seq = a->parent_seq;
	c.tmpl.parent_off = a->parent_off;
	c.tmpl.flags = a->flags;
	c.tmpl.generation = a->generation;
	c.tmpl.nwords = a->nwords;
	c.tmpl.lost_before = t->pending;
	c.words_addr = a->words_addr;
	t->recent_seq[c.tmpl.pubno % WPP_RECENT_SEQS] = a->seq;

	/* An empty batch still takes one record: it carries the seq and any
	 * loss to report. */
	nchunks = a->nwords ? (a->nwords + record_words - 1) / record_words : 1;
	bpf_loop(nchunks, copy_chunk, &c, 0);

	cnt->records += c.records;
	if (c.failed) {
		/* Chunks already submitted stay in the ring; the collector drops
		 * them when a later record (or the stream end) reports this
		 * pubno as lost. */
		loss_add(&t->pending, a->nwords, a->seq);
		cnt->lost_batches++;
		cnt->lost_words += a->nwords;
		if (c.read_failed)
			cnt->read_failures++;
		else
			cnt->reserve_failures++;
		return -1;
	}
	__builtin_memset(&t->pending, 0, sizeof(t->pending));
	cnt->batches_delivered++;
	cnt->words_delivered += a->nwords;
	return 0;
}

/* The probes' bodies take their arguments from either way in: a USDT
 * program attached by libbpf (one uprobe link per probe and object) or the
 * one uprobe_multi program (wpp_usdt_multi) below. */
static __always_inline int on_batch(void *words, __u32 nwords, __u64 seq, __u32 flags,
				    __u64 parent_seq, __u32 parent_off, __u32 generation)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	__u32 pid = pid_tgid >> 32, tid = (__u32)pid_tgid;
	struct wpp_bpf_counters *cnt = my_counters();
	struct wpp_bpf_thread *t;
	struct batch_args a = {
	    .words_addr = (__u64)words,
	    .nwords = nwords,
	    .flags = flags,
	    .seq = seq,
	    .parent_seq = parent_seq,
	    .parent_off = parent_off,
	    .generation = generation,
	};

	if (!cnt || !is_traced(pid))
		return 0;
	cnt->probe_hits++;

	t = thread_state(pid, tid);
	if (!t) {
		cnt->no_thread_slot++;
		cnt->no_thread_slot_words += nwords;
		cnt->lost_batches++;
		cnt->lost_words += nwords;
		return 0;
	}
	publish(pid, tid, t, cnt, &a);
	pause_if_full(pid, bpf_get_smp_processor_id(), cnt);
	return 0;
}

static __always_inline int on_thread_pos(void *desc)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	__u32 pid = pid_tgid >> 32, tid = (__u32)pid_tgid;
	struct wpp_bpf_position p = {};

	if (!is_traced(pid) || position_read(desc, pid, &p))
		return 0;
	if (bpf_map_update_elem(&positions, &tid, &p, BPF_ANY)) {
		struct wpp_bpf_counters *cnt = my_counters();
		if (cnt)
			cnt->position_full++;
	}
	return 0;
}

/* ---- salvage ---- */

/*
 * A thread that ends without the runtime's help (killed by a sibling's
 * exit or exec, a fatal signal, _exit or exec called from inside a signal
 * handler, exit handlers recording after the last flush) leaves words in
 * its buffers that were never published: the shm collector salvages them
 * from shared memory, and so does this, from the thread's own memory while
 * it is still mapped (sched_process_exit runs before exit_mm;
 * sched_prepare_exec before the old image is dropped, once the exec can no
 * longer fail).  Every level 0..depth is copied up to its cursor: the
 * current one's is the thread's cursor, an interrupted one's the cursor
 * saved when the handler above it was entered.  A level without a number
 * yet gets the next ones after the thread's last (the thread will number
 * nothing more).  The batch goes out flagged WPP_BATCH_SALVAGED through the
 * stream's ordinary numbering, before the record that ends the stream.
 */
struct salvage_ctx {
	struct wpp_bpf_position p;
	__u32 pid, tid;
	int depth;
	__u64 cursor;
	__u64 next_seq;	 /* the last seq handed out (ours included) */
	__u64 below_seq; /* the batch of the level below, 0 if none */
};

static __always_inline __u64 level_addr(const struct salvage_ctx *s, __u32 l)
{
	return s->p.thread_addr + s->p.off_levels + (__u64)l * s->p.level_size;
}

static __always_inline int recently_published(const struct wpp_bpf_thread *t, __u64 seq)
{
	for (int i = 0; i < WPP_RECENT_SEQS; i++)
		if (t->recent_seq[i] == seq && seq)
			return 1;
	return 0;
}

/* Salvage level l of the thread s describes.  A global function: the
 * verifier checks it once, on its own, for any s and l, rather than once
 * per level and per path into it (inlined into an unrolled loop over 16
 * levels it took 1.3 s of every attach to verify, 110 000 instructions;
 * now about 3 ms for each program that calls it: docs/bpf-transport.md). */
__noinline int salvage_level(struct salvage_ctx *s, __u32 l)
{
	struct wpp_bpf_counters *cnt = my_counters();
	__u64 lv, up, words = 0, seq = 0, end, base, poff = 0, below;
	__u32 cap = 0, scratch_words;
	struct wpp_bpf_thread *t;
	struct batch_args a = {};

	if (!s || !cnt)
		return 0;
	lv = level_addr(s, l);
	up = level_addr(s, l + 1);
	end = s->cursor;
	below = s->below_seq;
	scratch_words = s->p.scratch_words;

	if (bpf_probe_read_user(&words, 8, (void *)(lv + s->p.off_lv_words)) ||
	    bpf_probe_read_user(&seq, 8, (void *)(lv + s->p.off_lv_seq)) ||
	    bpf_probe_read_user(&cap, 4, (void *)(lv + s->p.off_lv_cap))) {
		cnt->salvage_unreadable++;
		s->below_seq = 0;
		return 0;
	}
	/* An open buffer always has its number (it is numbered first): one
	 * without is being published, its words already went out. */
	if (words && !seq) {
		cnt->salvage_skipped++;
		s->below_seq = 0;
		return 0;
	}
	/* The level's own cursor: saved by the handler above it; for the
	 * current level the thread's, unless the thread was entering a handler
	 * (cursor already in the next level's scratch, depth not yet raised). */
	if (l + 1 < s->p.nlevels && s->p.off_lv_saved_cursor &&
	    ((int)l < s->depth || in_words(end, up + s->p.off_lv_scratch, scratch_words)) &&
	    bpf_probe_read_user(&end, 8, (void *)(up + s->p.off_lv_saved_cursor))) {
		cnt->salvage_unreadable++;
		s->below_seq = 0;
		return 0;
	}
	if (words && in_words(end, words, (__u64)cap + s->p.slack_words))
		base = words;
	else if (in_words(end, lv + s->p.off_lv_scratch, scratch_words))
		base = lv + s->p.off_lv_scratch;
	else if (l == 0 && in_words(end, s->p.global_scratch, scratch_words))
		base = s->p.global_scratch;
	else {
		/* Discard area (not recording), or mid-switch with its words
		 * just published. */
		if (!in_words(end, s->p.thread_addr + s->p.off_discard, s->p.discard_words))
			cnt->salvage_skipped++;
		s->below_seq = seq;
		return 0;
	}
	a.nwords = (end - base) / 8;
	if (!seq) {
		if (!a.nwords) {
			s->below_seq = 0;
			return 0;
		}
		seq = ++s->next_seq;
	}
	s->below_seq = seq;
	t = thread_state(s->pid, s->tid);
	if (!t) {
		cnt->no_thread_slot++;
		cnt->no_thread_slot_words += a.nwords;
		cnt->lost_batches++;
		cnt->lost_words += a.nwords;
		return 0;
	}
	if (recently_published(t, seq))
		return 0;
	a.words_addr = base;
	a.seq = seq;
	a.flags = WPP_BREC_SALVAGED;
	if (l > 0) {
		a.flags |= WPP_BREC_SIGNAL;
		a.parent_seq = below;
		if (s->p.off_lv_parent_off)
			bpf_probe_read_user(&poff, 8, (void *)(lv + s->p.off_lv_parent_off));
		a.parent_off = (__u32)poff;
	}
	if (publish(s->pid, s->tid, t, cnt, &a) == 0) {
		cnt->salvaged_batches++;
		cnt->salvaged_words += a.nwords;
	}
	return 0;
}

/* Levels 0..depth, one call each (bpf_loop: no unrolled copies). */
static long salvage_level_cb(__u32 l, void *data)
{
	salvage_level(data, l);
	return 0;
}

/* Salvage what the current thread (pid, tid) has not published. */
static __always_inline void salvage_thread(__u32 pid, __u32 tid, struct wpp_bpf_counters *cnt)
{
	struct wpp_bpf_position *pos = bpf_map_lookup_elem(&positions, &tid);
	struct salvage_ctx s = {.pid = pid, .tid = tid};

	if (!pos || pos->pid != pid)
		return;
	s.p = *pos;
	if (bpf_probe_read_user(&s.cursor, 8, (void *)s.p.cursor_addr) ||
	    bpf_probe_read_user(&s.depth, 4, (void *)(s.p.thread_addr + s.p.off_depth)) ||
	    bpf_probe_read_user(&s.next_seq, 8, (void *)(s.p.thread_addr + s.p.off_next_seq))) {
		cnt->salvage_unreadable++;
		return;
	}
	if (s.depth < 0 || (__u32)s.depth >= s.p.nlevels) {
		cnt->salvage_unreadable++; /* not the runtime's state */
		return;
	}
	/* An older runtime does not say where interrupted levels end. */
	if (!s.p.off_lv_saved_cursor && s.depth > 0)
		return;
	bpf_loop(s.depth + 1, salvage_level_cb, &s, 0);
}

/* struct wpp_registry_entry (user/runtime/wpp_registry.h), fixed ABI. */
struct registry_entry {
	__u64 tu_hash;
	__u32 fid_base;
	__u32 nfuncs;
	__u64 meta_addr;
	__u64 meta_size;
	__u64 load_bias;
	__u64 path;
	__u32 path_len;
	__u32 build_id_len;
	__u8 build_id[20];
	__u32 reserved0;
};

/* struct wpp_tu_desc (wpp/trace_abi.h), fixed ABI. */
struct tu_desc {
	__u32 abi_version;
	__u32 nfuncs;
	__u64 tu_hash;
	__u64 fid_base_slot;
	__u64 meta;
	__u64 meta_size;
};

static __always_inline int on_register(void *desc, __u32 fid_base, void *entry)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	__u32 pid = pid_tgid >> 32, tid = (__u32)pid_tgid;
	struct wpp_bpf_counters *cnt = my_counters();
	struct wpp_brec_register *r;
	struct tu_desc d;
	struct registry_entry e;

	if (!cnt || !is_traced(pid))
		return 0;
	r = bpf_ringbuf_reserve(&lifecycle_ring, sizeof(*r), 0);
	if (!r) {
		cnt->lifecycle_lost++;
		return 0;
	}
	head_init(&r->h, WPP_BREC_REGISTER, pid, tid);
	r->desc_addr = (__u64)desc;
	r->fid_base = fid_base;
	if (bpf_probe_read_user(&d, sizeof(d), desc)) {
		cnt->register_read_failures++;
		__builtin_memset(&d, 0, sizeof(d));
		r->read_ok = 0;
	} else {
		r->read_ok = 1;
	}
	r->abi_version = d.abi_version;
	r->nfuncs = d.nfuncs;
	r->tu_hash = d.tu_hash;
	r->meta_addr = d.meta;
	r->meta_size = d.meta_size;

	r->entry_ok = 0;
	r->load_bias = 0;
	r->build_id_len = 0;
	r->path_len = 0;
	__builtin_memset(r->build_id, 0, sizeof(r->build_id));
	if (entry && bpf_probe_read_user(&e, sizeof(e), entry) == 0 && e.fid_base == fid_base) {
		long n;
		r->entry_ok = 1;
		r->load_bias = e.load_bias;
		r->build_id_len = e.build_id_len > 20 ? 20 : e.build_id_len;
		__builtin_memcpy(r->build_id, e.build_id, sizeof(r->build_id));
		n = bpf_probe_read_user_str(r->path, sizeof(r->path), (const void *)e.path);
		r->path_len = n > 0 ? n : 0;
	}
	bpf_ringbuf_submit(r, 0);
	return 0;
}

SEC("usdt")
int BPF_USDT(wpp_batch, void *words, __u32 nwords, __u64 seq, __u32 flags, __u64 parent_seq,
	     __u32 parent_off, __u32 generation)
{
	return on_batch(words, nwords, seq, flags, parent_seq, parent_off, generation);
}

SEC("usdt")
int BPF_USDT(wpp_thread_pos, void *desc)
{
	return on_thread_pos(desc);
}

SEC("usdt")
int BPF_USDT(wpp_register, void *desc, __u32 fid_base, void *entry)
{
	return on_register(desc, fid_base, entry);
}

/* Every wpptrace probe site of an object, through one uprobe_multi link
 * (user/bpfcollect/multi_attach.c): one link to destroy at the end instead
 * of three, each of which waits for its own grace period.  The cookie says
 * which probe fired and where its arguments are. */
SEC("usdt")
int wpp_usdt_multi(struct pt_regs *ctx)
{
	__u64 k = bpf_get_attach_cookie(ctx);

	switch (multi_kind(k)) {
	case WPP_MULTI_BATCH:
		return on_batch((void *)multi_arg(ctx, k, 0), multi_arg(ctx, k, 1),
				multi_arg(ctx, k, 2), multi_arg(ctx, k, 3), multi_arg(ctx, k, 4),
				multi_arg(ctx, k, 5), multi_arg(ctx, k, 6));
	case WPP_MULTI_REGISTER:
		return on_register((void *)multi_arg(ctx, k, 0), multi_arg(ctx, k, 1),
				   (void *)multi_arg(ctx, k, 2));
	case WPP_MULTI_THREAD:
		return on_thread_pos((void *)multi_arg(ctx, k, 0));
	}
	return 0;
}

/* ---- lifecycle ---- */

/* Fills *end from the thread's state and forgets the thread (its state and
 * its position): its stream ends here. */
static __always_inline void stream_end(__u32 tid, struct wpp_brec_stream_end *end)
{
	struct wpp_bpf_thread *t = bpf_map_lookup_elem(&threads, &tid);

	bpf_map_delete_elem(&positions, &tid);
	if (!t) {
		__builtin_memset(end, 0, sizeof(*end));
		return;
	}
	end->stream_id = t->stream_id;
	end->end_pubno = t->next_pubno;
	end->lost_tail = t->pending;
	bpf_map_delete_elem(&threads, &tid);
}

SEC("tp_btf/sched_process_fork")
int BPF_PROG(wpp_fork, struct task_struct *parent, struct task_struct *child)
{
	__u32 ppid = parent->tgid, cpid = child->tgid;
	struct wpp_bpf_counters *cnt = my_counters();
	struct wpp_brec_fork *r;

	if (!cnt || !is_traced(ppid))
		return 0;
	if (filter_pids && cpid != ppid) {
		__u8 one = 1;
		bpf_map_update_elem(&traced_pids, &cpid, &one, BPF_ANY);
	}
	r = bpf_ringbuf_reserve(&lifecycle_ring, sizeof(*r), 0);
	if (!r) {
		cnt->lifecycle_lost++;
		return 0;
	}
	head_init(&r->h, WPP_BREC_FORK, ppid, parent->pid);
	r->child_pid = cpid;
	r->child_tid = child->pid;
	r->is_thread = cpid == ppid;
	r->reserved0 = 0;
	bpf_ringbuf_submit(r, 0);
	return 0;
}

SEC("tp_btf/sched_process_exec")
int BPF_PROG(wpp_exec, struct task_struct *p, pid_t old_pid, struct linux_binprm *bprm)
{
	__u32 pid = p->tgid;
	struct wpp_bpf_counters *cnt = my_counters();
	struct wpp_brec_exec *r;
	long n;

	if (!cnt || !is_traced(pid))
		return 0;
	r = bpf_ringbuf_reserve(&lifecycle_ring, sizeof(*r), 0);
	if (!r) {
		/* The old stream cannot be closed by a record; keep its state
		 * from being reused by the new image at least. */
		struct wpp_brec_stream_end lost;
		stream_end(old_pid, &lost);
		cnt->lifecycle_lost++;
		return 0;
	}
	head_init(&r->h, WPP_BREC_EXEC, pid, p->pid);
	r->old_tid = old_pid;
	r->held = 0;
	if (hold_unseen_exec) {
		/* The collector attaches its uprobes to a new executable only
		 * once it reads this record: a static-runtime program would
		 * publish its first batches before that.  A stop sent now takes
		 * effect on the way back to user space, before the new image's
		 * first instruction; the collector continues it after attaching.
		 * Executables it has already seen run on. */
		struct wpp_exe_key k = {};
		__u32 kdev = BPF_CORE_READ(bprm, file, f_inode, i_sb, s_dev);
		__u64 major = kdev >> 20, minor = kdev & 0xfffff;
		/* the kernel's dev_t as stat(2) reports it (glibc makedev) */
		k.dev = ((major & 0xfff) << 8) | (minor & 0xff) | ((minor & ~0xffull) << 12) |
			((major & ~0xfffull) << 32);
		k.ino = BPF_CORE_READ(bprm, file, f_inode, i_ino);
		if (!bpf_map_lookup_elem(&exec_seen, &k) && bpf_send_signal(19 /* SIGSTOP */) == 0)
			r->held = 1;
	}
	stream_end(old_pid, &r->old_stream);
	n = bpf_probe_read_kernel_str(r->filename, sizeof(r->filename),
				      BPF_CORE_READ(bprm, filename));
	r->filename_len = n > 0 ? n : 0;
	if (bpf_probe_read_kernel_str(r->exe_name, sizeof(r->exe_name),
				      BPF_CORE_READ(bprm, file, f_path.dentry, d_name.name)) < 0)
		r->exe_name[0] = 0;
	{
		__u64 start = BPF_CORE_READ(p, mm, arg_start);
		__u64 end = BPF_CORE_READ(p, mm, arg_end);
		__u64 len = end > start ? end - start : 0;
		if (len > sizeof(r->args))
			len = sizeof(r->args);
		if (bpf_probe_read_user(r->args, len, (const void *)start))
			len = 0;
		r->args_len = len;
	}
	bpf_ringbuf_submit(r, 0);
	return 0;
}

/* The exec can no longer fail and the old image is still mapped: what the
 * exec'ing thread had not published (an exec from a signal handler leaves
 * the interrupted levels; an exec the runtime did not see, all of it). */
SEC("tp_btf/sched_prepare_exec")
int BPF_PROG(wpp_prepare_exec, struct task_struct *task, struct linux_binprm *bprm)
{
	__u32 pid = task->tgid, tid = task->pid;
	struct wpp_bpf_counters *cnt = my_counters();

	if (cnt && is_traced(pid))
		salvage_thread(pid, tid, cnt);
	return 0;
}

SEC("tp_btf/sched_process_exit")
int BPF_PROG(wpp_exit, struct task_struct *p)
{
	__u32 pid = p->tgid, tid = p->pid;
	struct wpp_bpf_counters *cnt = my_counters();
	struct wpp_brec_exit *r;
	int group_dead;

	if (!cnt || !is_traced(pid))
		return 0;
	/* Without the kernel's group_dead: signal->live, which drops to zero
	 * before this tracepoint for the last thread, but also for any other
	 * thread still on its way here then (a process killed while several
	 * of its threads run: they exit together).  So more than one thread
	 * can say "group dead"; the collector copes.  (ctx[1] is read only
	 * where the tracepoint has it: the verifier never sees the branch
	 * otherwise.) */
	if (exit_passes_group_dead)
		group_dead = (__u8)ctx[1];
	else
		group_dead = BPF_CORE_READ(p, signal, live.counter) == 0;
	/* Still in the thread's context with its memory mapped (the
	 * tracepoint precedes exit_mm); the salvaged batches take pubnos
	 * before the stream's end. */
	salvage_thread(pid, tid, cnt);
	r = bpf_ringbuf_reserve(&lifecycle_ring, sizeof(*r), 0);
	if (!r) {
		struct wpp_brec_stream_end lost;
		stream_end(tid, &lost);
		cnt->lifecycle_lost++;
	} else {
		head_init(&r->h, WPP_BREC_EXIT, pid, tid);
		r->group_dead = group_dead;
		r->exit_code = p->exit_code;
		stream_end(tid, &r->stream);
		bpf_ringbuf_submit(r, 0);
	}
	if (group_dead)
		bpf_map_delete_elem(&paused, &pid);
	/* The pid stops being traced with its last thread: a guessed last
	 * thread may not be the last, and deleting it here would silence
	 * the exits (the salvage, the stream end) of the threads still on
	 * their way, leaving their streams open for good.  Then the
	 * collector deletes it once it delivers the process's exit. */
	if (filter_pids && group_dead && exit_passes_group_dead)
		bpf_map_delete_elem(&traced_pids, &pid);
	return 0;
}
