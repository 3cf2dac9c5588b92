// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * wpp_counters.bpf.c — hardware/software counters for traced threads
 * (docs/counters.md).
 *
 *  usdt wpptrace:thread    a thread's position descriptor (wpp_position.h)
 *  perf_event              a sampling event overflowed: where the
 *                          interrupted thread stands in its record stream
 *  usdt wpptrace:batch     counting mode: the counters' change since the
 *                          thread's previous batch
 *  wpp_counters_multi      the two above through one uprobe_multi link
 *  tp_btf sched_switch     counting mode: per-thread totals from per-CPU
 *                          counters (read at every context switch)
 *  tp_btf sched_process_exit  forget the thread's counting state
 *
 * The transport (wpp_transport.bpf.c) stays untouched: this object shares
 * its traced-pid set and its positions (the loader reuses the maps; the
 * transport forgets a thread's position once it has salvaged the thread)
 * and attaches a second program at the same batch probe.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include <bpf/usdt.bpf.h>

#include "bpf/wpp_counter_records.h"
#include "bpf/wpp_multi.bpf.h"
#include "bpf/wpp_position.bpf.h"

char LICENSE[] SEC("license") = "Dual MIT/GPL";

/* enum wpp_sample_pos / wpp_sample_flags (wpp/wpp_file.h) */
#define POS_BUFFER	 1
#define POS_NEXT	 2
#define POS_NUMBERED	 3
#define POS_UNKNOWN	 4
#define POS_DISCARD	 5
#define POS_UNREGISTERED 6
#define SAMPLE_KERNEL	 1
#define SAMPLE_REGS	 2

const volatile __u32 filter_pids = 0;
const volatile __u32 ncounted = 0; /* counting events 0..ncounted-1 */
const volatile __u32 max_cpus = 1;

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 1 << 23); /* resized by the loader */
} counter_ring SEC(".maps");

/* Same definition as the transport's; the loader makes them one map. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1 << 14);
	__type(key, __u32);
	__type(value, __u8);
} traced_pids SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1 << 16);
	__type(key, __u32);
	__type(value, struct wpp_bpf_thread_counts);
} thread_counts SEC(".maps");

/* Counting events, index cpu * WPP_MAX_COUNTERS + counter. */
struct {
	__uint(type, BPF_MAP_TYPE_PERF_EVENT_ARRAY);
	__uint(max_entries, 1); /* set by the loader */
	__type(key, __u32);
	__type(value, __u32);
} count_events SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct wpp_bpf_counter_stats);
} counter_stats SEC(".maps");

/* Who the last context switch on this CPU put on it, and (for a traced
 * thread) the readings then.  The owner is kept for every task, so a
 * traced thread found running while the CPU's stretch is another task's
 * was put there by a switch no program run saw: that is detected. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct wpp_bpf_cpu_stretch);
} cpu_stretch SEC(".maps");

/* Never written: the initial value of a thread's counting state (too big
 * for the BPF stack). */
struct wpp_bpf_thread_counts zero_counts;

static __always_inline struct wpp_bpf_counter_stats *stats(void)
{
	__u32 zero = 0;
	return bpf_map_lookup_elem(&counter_stats, &zero);
}

static __always_inline int is_traced(__u32 pid)
{
	if (!filter_pids)
		return 1;
	return bpf_map_lookup_elem(&traced_pids, &pid) != 0;
}

/* This CPU's reading of counted event e; 0 on success. */
static __always_inline int read_now(__u32 e, struct wpp_bpf_reading *r)
{
	struct bpf_perf_event_value v;
	__u64 index = (__u64)bpf_get_smp_processor_id() * WPP_MAX_COUNTERS + e;
	if (bpf_perf_event_read_value(&count_events, index, &v, sizeof(v)))
		return -1;
	r->counter = v.counter;
	r->enabled = v.enabled;
	r->running = v.running;
	return 0;
}

static __always_inline void reading_add_since(struct wpp_bpf_reading *acc,
					      const struct wpp_bpf_reading *start,
					      const struct wpp_bpf_reading *now)
{
	acc->counter += now->counter - start->counter;
	acc->enabled += now->enabled - start->enabled;
	acc->running += now->running - start->running;
}

static __always_inline struct wpp_bpf_cpu_stretch *this_cpu_stretch(void)
{
	__u32 zero = 0;
	return bpf_map_lookup_elem(&cpu_stretch, &zero);
}

/* A stretch of tid begins on this CPU now.  A failed read makes the
 * stretch invalid; it counts as a failure only if a traced thread's total
 * needs it (stretch_total), not for the other tasks of the machine. */
static __always_inline void stretch_begin(struct wpp_bpf_cpu_stretch *cs, __u32 tid)
{
	cs->tid = tid;
	cs->valid = 1;
	for (__u32 e = 0; e < WPP_MAX_COUNTERS; e++) {
		if (e >= ncounted)
			break;
		if (read_now(e, &cs->start[e]))
			cs->valid = 0;
	}
}

/* tid's total so far: its finished stretches, plus the one running on
 * this CPU (it is running: the caller is tid, or switching it out).  A
 * stretch whose start this CPU did not see (no sched_switch program run
 * put tid on it), or whose reading failed, leaves its events out: that is
 * counted, and the recorder says the per-batch counts are low. */
static __always_inline void stretch_total(const struct wpp_bpf_thread_counts *tc,
					  const struct wpp_bpf_cpu_stretch *cs, __u32 tid, __u32 e,
					  struct wpp_bpf_reading *out,
					  struct wpp_bpf_counter_stats *st)
{
	struct wpp_bpf_reading now;
	*out = tc->acc[e];
	if (!cs || cs->tid != tid) {
		if (st && e == 0)
			st->unseen_stretches++;
		return;
	}
	if (!cs->valid || read_now(e, &now)) {
		if (st)
			st->read_failures++;
		return;
	}
	reading_add_since(out, &cs->start[e], &now);
}

/* The probes' bodies, for the libbpf USDT programs and for the
 * uprobe_multi program (wpp_counters_multi) alike. */
static __always_inline int on_thread(void *desc)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	__u32 pid = pid_tgid >> 32, tid = (__u32)pid_tgid;
	struct wpp_bpf_counter_stats *st = stats();
	struct wpp_bpf_position p = {};

	if (!st || !is_traced(pid))
		return 0;
	if (position_read(desc, pid, &p)) {
		st->bad_descriptors++;
		return 0;
	}
	bpf_map_update_elem(&positions, &tid, &p, BPF_ANY);
	st->threads++;

	if (ncounted) {
		/* A fork child or a reused tid starts from zero. */
		bpf_map_update_elem(&thread_counts, &tid, &zero_counts, BPF_ANY);
		/* Counting starts here: the stretch on this CPU restarts now. */
		struct wpp_bpf_cpu_stretch *cs = this_cpu_stretch();
		if (cs)
			stretch_begin(cs, tid);
	}
	return 0;
}

/* Where thread tid stands; fills pos/depth/seq/word of r. */
static __always_inline void read_position(const struct wpp_bpf_position *p,
					  struct wpp_crec_sample *r)
{
	__u64 cursor = 0, words = 0, seq = 0, next = 0, lv, scratch;
	__u32 cap = 0;
	int depth = 0;

	r->pos = POS_UNKNOWN;
	if (bpf_probe_read_user(&cursor, 8, (void *)p->cursor_addr) ||
	    bpf_probe_read_user(&depth, 4, (void *)(p->thread_addr + p->off_depth)))
		return;
	if (depth < 0 || (__u32)depth >= p->nlevels || depth > 15)
		return;
	r->depth = depth;
	lv = p->thread_addr + p->off_levels + (__u64)depth * p->level_size;
	if (bpf_probe_read_user(&words, 8, (void *)(lv + p->off_lv_words)) ||
	    bpf_probe_read_user(&seq, 8, (void *)(lv + p->off_lv_seq)) ||
	    bpf_probe_read_user(&cap, 4, (void *)(lv + p->off_lv_cap)) ||
	    bpf_probe_read_user(&next, 8, (void *)(p->thread_addr + p->off_next_seq)))
		return;
	/* An open buffer's level always has its number (batch numbers start
	 * at 1).  Publishing clears the number before the buffer pointer
	 * (the compiler may order the runtime's stores either way): a level
	 * with words but no number is in the buffer switch, not in a batch 0
	 * the trace would lack. */
	if (words && !seq)
		return;
	if (words && in_words(cursor, words, (__u64)cap + p->slack_words)) {
		r->pos = POS_BUFFER;
		r->seq = seq;
		r->word = (cursor - words) / 8;
		return;
	}
	scratch = lv + p->off_lv_scratch;
	if (!words && in_words(cursor, scratch, p->scratch_words)) {
		r->word = (cursor - scratch) / 8;
	} else if (!words && depth == 0 && in_words(cursor, p->global_scratch, p->scratch_words)) {
		r->word = (cursor - p->global_scratch) / 8;
	} else if (in_words(cursor, p->thread_addr + p->off_discard, p->discard_words)) {
		r->pos = POS_DISCARD;
		return;
	} else {
		return; /* inside the buffer switch */
	}
	if (seq) {
		r->pos = POS_NUMBERED;
		r->seq = seq;
	} else {
		r->pos = POS_NEXT;
		r->seq = next;
	}
}

/* pt_regs (x86-64) in DWARF register numbering (struct wpp_sample_regs):
 * what a variable's DWARF location names at the sampled ip. */
#define COPY_DWARF_REGS(dst, s)                                                                    \
	do {                                                                                       \
		(dst)[0] = (s).ax;                                                                 \
		(dst)[1] = (s).dx;                                                                 \
		(dst)[2] = (s).cx;                                                                 \
		(dst)[3] = (s).bx;                                                                 \
		(dst)[4] = (s).si;                                                                 \
		(dst)[5] = (s).di;                                                                 \
		(dst)[6] = (s).bp;                                                                 \
		(dst)[7] = (s).sp;                                                                 \
		(dst)[8] = (s).r8;                                                                 \
		(dst)[9] = (s).r9;                                                                 \
		(dst)[10] = (s).r10;                                                               \
		(dst)[11] = (s).r11;                                                               \
		(dst)[12] = (s).r12;                                                               \
		(dst)[13] = (s).r13;                                                               \
		(dst)[14] = (s).r14;                                                               \
		(dst)[15] = (s).r15;                                                               \
	} while (0)

SEC("perf_event")
int wpp_sample(struct bpf_perf_event_data *ctx)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	__u32 pid = pid_tgid >> 32, tid = (__u32)pid_tgid;
	struct wpp_bpf_counter_stats *st = stats();
	struct wpp_bpf_position *p;
	struct wpp_crec_sample *r;

	if (!st)
		return 0;
	p = bpf_map_lookup_elem(&positions, &tid);
	if (!p) {
		/* Only the traced processes' unregistered threads count as
		 * unattributed; everything else is someone else's. */
		if (!filter_pids || !pid || !is_traced(pid)) {
			st->samples_foreign++;
			return 0;
		}
		st->samples_unregistered++;
	}
	r = bpf_ringbuf_reserve(&counter_ring, sizeof(*r), 0);
	if (!r) {
		st->ring_lost++;
		return 0;
	}
	r->kind = WPP_CREC_SAMPLE;
	r->pid = pid;
	r->tid = tid;
	r->counter = (__u16)bpf_get_attach_cookie(ctx);
	r->depth = 0;
	r->seq = 0;
	r->word = 0;
	r->flags = 0;
	r->value = ctx->sample_period;
	r->time_ns = bpf_ktime_get_ns();
	/* A whole-word read: the context allows no narrower access. */
	if (*(volatile __u64 *)&ctx->regs.cs & 3) {
		r->ip = ctx->regs.ip;
		/* The registers only where a record position can use them (a
		 * run's count, docs/counters.md "The run's end"). */
		if (p) {
			COPY_DWARF_REGS(r->regs, ctx->regs);
			r->flags = SAMPLE_REGS;
		}
	} else {
		/* In the kernel (a fault, a syscall, a timer tick): the user ip
		 * the thread returns to, and its registers there (saved at the
		 * kernel entry). */
		struct pt_regs *u = (struct pt_regs *)bpf_task_pt_regs(bpf_get_current_task_btf());
		struct pt_regs saved;
		r->ip = u ? BPF_CORE_READ(u, ip) : 0;
		r->flags = SAMPLE_KERNEL;
		if (p && u && !bpf_probe_read_kernel(&saved, sizeof(saved), u)) {
			COPY_DWARF_REGS(r->regs, saved);
			r->flags |= SAMPLE_REGS;
		}
	}
	if (p)
		read_position(p, r);
	else
		r->pos = POS_UNREGISTERED;
	bpf_ringbuf_submit(r, 0);
	st->samples++;
	return 0;
}

static __always_inline int on_batch_count(__u64 seq)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	__u32 pid = pid_tgid >> 32, tid = (__u32)pid_tgid;
	struct wpp_bpf_counter_stats *st = stats();
	struct wpp_bpf_cpu_stretch *cs = this_cpu_stretch();
	struct wpp_bpf_thread_counts *tc;

	if (!ncounted || !st)
		return 0;
	tc = bpf_map_lookup_elem(&thread_counts, &tid);
	if (!tc)
		return 0;
	/* Running here with the CPU's stretch not ours: the switch that put
	 * us on this CPU was not seen.  What ran before now is lost (counted
	 * once); from now on the stretch is ours again. */
	if (cs && cs->tid != tid) {
		st->unseen_stretches++;
		stretch_begin(cs, tid);
	}
	for (__u32 e = 0; e < WPP_MAX_COUNTERS; e++) {
		struct wpp_bpf_reading cur;
		struct wpp_crec_count *r;
		if (e >= ncounted)
			break;
		stretch_total(tc, cs, tid, e, &cur, st);
		r = bpf_ringbuf_reserve(&counter_ring, sizeof(*r), 0);
		if (!r) {
			st->ring_lost++;
			continue; /* the change moves into the next batch */
		}
		r->kind = WPP_CREC_COUNT;
		r->pid = pid;
		r->tid = tid;
		r->counter = e;
		r->seq = seq;
		r->count = cur.counter - tc->emitted[e].counter;
		r->enabled = cur.enabled - tc->emitted[e].enabled;
		r->running = cur.running - tc->emitted[e].running;
		bpf_ringbuf_submit(r, 0);
		tc->emitted[e] = cur;
		st->counts++;
	}
	return 0;
}

SEC("usdt")
int BPF_USDT(wpp_thread, void *desc)
{
	return on_thread(desc);
}

SEC("usdt")
int BPF_USDT(wpp_batch_count, void *words, __u32 nwords, __u64 seq)
{
	return on_batch_count(seq);
}

/* Both probes behind one uprobe_multi link per object (the one the
 * transport makes, user/bpfcollect/multi_attach.h): the cookie says which
 * fired; the register probe is not this object's. */
SEC("usdt")
int wpp_counters_multi(struct pt_regs *ctx)
{
	__u64 k = bpf_get_attach_cookie(ctx);

	switch (multi_kind(k)) {
	case WPP_MULTI_THREAD:
		return on_thread((void *)multi_arg(ctx, k, 0));
	case WPP_MULTI_BATCH:
		return ncounted ? on_batch_count(multi_arg(ctx, k, 2)) : 0;
	}
	return 0;
}

SEC("tp_btf/sched_switch")
int BPF_PROG(wpp_counts_switch, bool preempt, struct task_struct *prev, struct task_struct *next)
{
	__u32 prev_tid = prev->pid, next_tid = next->pid;
	struct wpp_bpf_counter_stats *st = stats();
	struct wpp_bpf_cpu_stretch *cs = this_cpu_stretch();
	struct wpp_bpf_thread_counts *tc;

	if (!ncounted || !cs)
		return 0;
	tc = bpf_map_lookup_elem(&thread_counts, &prev_tid);
	if (tc)
		for (__u32 e = 0; e < WPP_MAX_COUNTERS; e++) {
			struct wpp_bpf_reading total;
			if (e >= ncounted)
				break;
			stretch_total(tc, cs, prev_tid, e, &total, st);
			tc->acc[e] = total;
		}
	/* Every switch, traced or not, says whose the CPU's stretch is now;
	 * the counters are read only when it is a traced thread's. */
	if (bpf_map_lookup_elem(&thread_counts, &next_tid)) {
		stretch_begin(cs, next_tid);
	} else {
		cs->tid = next_tid;
		cs->valid = 0;
	}
	return 0;
}

SEC("tp_btf/sched_process_exit")
int BPF_PROG(wpp_counters_exit, struct task_struct *p)
{
	__u32 tid = p->pid;
	bpf_map_delete_elem(&thread_counts, &tid);
	return 0;
}
