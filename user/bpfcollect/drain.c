/* SPDX-License-Identifier: MIT */
/*
 * drain.c — the drain threads and the end of collection.
 *
 * Each drain thread polls its share of the per-CPU batch rings; thread 0
 * also takes the lifecycle ring between polls.  Record processing and the
 * callbacks are serialised by c->lock; the rings' consumer positions are
 * each touched by one thread only (libbpf's ring_buffer is single-consumer).
 */
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bpfcollect/bc_internal.h"
#include "bpfcollect/detach_take.h"
#include "bpfcollect/map_walk.h"
#include "bpfcollect/procinfo.h"
#include "common/cpu_clock.h"
#include "common/log.h"
#include "wpp_transport.skel.h"

#define POLL_MS 50
/* bc_all_exited: how often /proc is looked at while an exit is awaited,
 * and how long the records of processes gone from it may take to arrive
 * (rings drain in well under a second; a stopped collector thread longer). */
#define BC_GONE_CHECK_NS 200000000ull
#define BC_GONE_GRACE_NS 3000000000ull

struct drain_arg {
	struct bc_collector *c;
	int index;
};

static void *drain_main(void *p)
{
	struct drain_arg *a = p;
	struct bc_collector *c = a->c;
	int index = a->index;
	free(a);
	/* Thread 0 also wakes for the lifecycle ring: a held exec waits for
	 * it (wpp_brec_exec.held), and so does everything the process does. */
	/* Every thread also wakes when collection stops (stop_fd), so that
	 * the end is not a poll timeout later. */
	struct pollfd pf[3] = {
	    {.fd = ring_buffer__epoll_fd(c->rbs[index]), .events = POLLIN},
	    {.fd = c->stop_fd, .events = POLLIN},
	    {.fd = bpf_map__fd(c->skel->maps.lifecycle_ring), .events = POLLIN},
	};
	while (!atomic_load(&c->stop)) {
		int n = poll(pf, index == 0 ? 3 : 2, POLL_MS) < 0 && errno != EINTR ? -errno : 0;
		if (n == 0)
			n = ring_buffer__consume(c->rbs[index]);
		if (n < 0 && n != -EINTR) {
			wpp_err("bpf: polling the ring buffers failed: %s", strerror(-n));
			break;
		}
		/* This thread's rings are drained: maybe continue what the
		 * probe stopped. */
		pause_resume(c, false);
		if (index == 0) {
			pthread_mutex_lock(&c->lock);
			lifecycle_drain(c);
			if (c->ext.drain)
				c->ext.drain(c->ext.ctx);
			pthread_mutex_unlock(&c->lock);
		}
		/* Runs held too long go on; all of them when these rings were
		 * empty (nothing more may come for a while). */
		if (atomic_load(&c->held_words)) {
			pthread_mutex_lock(&c->lock);
			hold_release_due(c, n == 0);
			pthread_mutex_unlock(&c->lock);
		}
		if (c->opt.drain_delay_us)
			usleep(c->opt.drain_delay_us);
	}
	return NULL;
}

int bc_start(struct bc_collector *c)
{
	c->threads = calloc(c->opt.drain_threads, sizeof(*c->threads));
	if (!c->threads)
		return -ENOMEM;
	for (uint32_t i = 0; i < c->opt.drain_threads; i++) {
		struct drain_arg *a = malloc(sizeof(*a));
		int err = a ? 0 : ENOMEM;
		if (a) {
			*a = (struct drain_arg){c, (int)i};
			err = pthread_create(&c->threads[i], NULL, drain_main, a);
		}
		if (err) {
			free(a);
			wpp_err("cannot start a drain thread: %s", strerror(err));
			atomic_store(&c->stop, 1);
			for (uint32_t j = 0; j < i; j++)
				pthread_join(c->threads[j], NULL);
			return -err;
		}
		c->nthreads++;
	}
	c->started = 1;
	return 0;
}

/* Is traced process p still running (not gone, not a zombie, not another
 * process under its pid)?  Lock held. */
static void note_alive(uint64_t pid, void *val, void *arg)
{
	const struct bc_proc *p = val;
	int *alive = arg;
	if (*alive || !p->traced)
		return;
	char state = proc_state((pid_t)pid);
	if (state && state != 'Z' && state != 'X' &&
	    (!p->start_ticks || proc_start_time((pid_t)pid) == p->start_ticks))
		*alive = 1;
}

bool bc_all_exited(struct bc_collector *c)
{
	pthread_mutex_lock(&c->lock);
	bool done = c->ever_traced && c->live_traced == 0;
	uint64_t now = monotonic_ns();
	/* Some exit not seen yet: normally its record is on its way.  But a
	 * record can be lost (a full lifecycle ring), or never written (the
	 * process ended before it was traced, or between its threads'
	 * exits), and then nothing would end the wait.  /proc says when the
	 * processes are gone; their records had BC_GONE_GRACE_NS to arrive. */
	if (!done && c->ever_traced && now - c->gone_checked_ns >= BC_GONE_CHECK_NS) {
		int alive = 0;
		c->gone_checked_ns = now;
		idmap_each(&c->procs, note_alive, &alive);
		if (alive)
			c->gone_since_ns = 0;
		else if (!c->gone_since_ns)
			c->gone_since_ns = now;
		else if (now - c->gone_since_ns >= BC_GONE_GRACE_NS) {
			wpp_warn("bpf: every traced process is gone, but the end of %d of them was "
				 "not seen (its exit record was lost or never written): "
				 "recording ends",
				 c->live_traced);
			done = true;
		}
	}
	pthread_mutex_unlock(&c->lock);
	return done;
}

/* A live thread's words since its last batch (detach_take.h), as the last
 * batch of its stream, which then ends (and leaves the thread table, so
 * end_live_streams does not end it again).  t: its BPF state, NULL if it
 * published nothing while attached. */
static void take_thread(void *ctx, uint32_t tid, const void *value)
{
	struct bc_collector *c = ctx;
	const struct wpp_bpf_position *pos = value;
	int threads_fd = bpf_map__fd(c->skel->maps.threads);
	struct bc_proc *p = idmap_get(&c->procs, pos->pid);
	struct wpp_bpf_thread t = {0};
	int known = bpf_map_lookup_elem(threads_fd, &tid, &t) == 0 && t.pid == pos->pid;
	struct detach_taken got;
	uint64_t *words = NULL;

	if (!p || !p->interesting)
		return;
	int r = detach_take_read(pos, tid, &got, &words);
	if (r <= 0) {
		if (r < 0) {
			c->take_skipped++;
			wpp_warn(
			    "bpf: thread %u of pid %u: its unpublished words could not be read "
			    "at detach: %s",
			    tid, pos->pid, strerror(-r));
		}
		return;
	}
	uint64_t id = known
			  ? t.stream_id
			  : __atomic_fetch_add(&c->skel->data->next_stream_id, 1, __ATOMIC_RELAXED);
	struct bc_stream *s = idmap_get(&c->streams, id);
	if (!s && !(s = demux_stream_get(c, id, pos->pid, tid))) {
		free(words);
		return;
	}
	if (s->end == BC_END_OPEN) {
		struct wpp_chunk_batch b = {
		    .pid = pos->pid,
		    .tid = tid,
		    .seq = got.seq,
		    .flags = WPP_BATCH_SALVAGED,
		    .time_ns = monotonic_ns(),
		    .nwords = got.nwords,
		};
		uint64_t dropped = c->taken_dropped;
		demux_end_with_taken(c, s, &b, words, known ? t.next_pubno : 0, &t.pending);
		c->taken_batches++;
		c->taken_words += got.nwords - (c->taken_dropped - dropped);
		if (known)
			bpf_map_delete_elem(threads_fd, &tid);
	}
	free(words);
}

/* A thread still alive when collection stops: its stream ends where the
 * BPF thread table says (value: its struct wpp_bpf_thread), with the loss
 * it still holds. */
static void end_live_stream(void *ctx, uint32_t tid, const void *value)
{
	struct bc_collector *c = ctx;
	const struct wpp_bpf_thread *t = value;
	struct bc_stream *s = idmap_get(&c->streams, t->stream_id);

	if (!s && t->pending.batches == 0)
		return; /* published nothing, lost nothing */
	/* A thread whose every batch was lost still gets its gap. */
	if (!s && !(s = demux_stream_get(c, t->stream_id, t->pid, tid)))
		return;
	if (s->end != BC_END_OPEN)
		return;
	struct wpp_brec_stream_end e = {t->stream_id, t->next_pubno, t->pending};
	demux_stream_end(c, s, BC_END_DETACH, &e, monotonic_ns());
}

/* Threads still alive when collection stops: with take_at_detach, each
 * thread with a position gives its unpublished words first. */
static void end_live_streams(struct bc_collector *c)
{
	struct wpp_bpf_position pos;
	struct wpp_bpf_thread t;

	if (c->opt.take_at_detach)
		map_walk_u32(bpf_map__fd(c->skel->maps.positions), &pos, take_thread, c);
	map_walk_u32(bpf_map__fd(c->skel->maps.threads), &t, end_live_stream, c);
}

static int drain_everything(struct bc_collector *c)
{
	int total = 0;
	pthread_mutex_lock(&c->lock);
	lifecycle_drain(c);
	pthread_mutex_unlock(&c->lock);
	for (uint32_t i = 0; i < c->opt.drain_threads; i++) {
		int n = ring_buffer__consume(c->rbs[i]);
		if (n > 0)
			total += n;
	}
	return total;
}

int bc_finish(struct bc_collector *c, struct bc_counters *final)
{
	if (c->finished) {
		if (final)
			bc_counters(c, final);
		return 0;
	}
	hello_stop(c);
	c->finished = 1;
	/* The drain threads stop while the probes are detached (a grace
	 * period): what is published meanwhile is drained below. */
	atomic_store(&c->stop, 1);
	if (c->stop_fd >= 0)
		(void)!write(c->stop_fd, &(uint64_t){1}, sizeof(uint64_t));
	/* No new batches from here on, so the thread table is final. */
	detach_all(c);
	for (int i = 0; i < c->nthreads; i++)
		pthread_join(c->threads[i], NULL);
	while (drain_everything(c) > 0)
		;
	/* Nothing publishes through the probes any more: whatever they
	 * stopped runs on. */
	pause_resume(c, true);
	pthread_mutex_lock(&c->lock);
	lifecycle_drain(c);
	if (c->ext.drain)
		c->ext.drain(c->ext.ctx);
	end_live_streams(c);
	demux_finish(c);
	pthread_mutex_unlock(&c->lock);
	if (final)
		bc_counters(c, final);
	return 0;
}

void bc_counters(struct bc_collector *c, struct bc_counters *out)
{
	memset(out, 0, sizeof(*out));
	int n = c->ncpus;
	struct wpp_bpf_counters *per = calloc(n, sizeof(*per));
	uint32_t zero = 0;
	if (per && bpf_map_lookup_elem(bpf_map__fd(c->skel->maps.counters), &zero, per) == 0) {
		for (int i = 0; i < n; i++) {
			out->probe_hits += per[i].probe_hits;
			out->lost_batches += per[i].lost_batches;
			out->lost_words += per[i].lost_words;
			out->lost_reserve += per[i].reserve_failures;
			out->lost_read += per[i].read_failures;
			out->lost_untracked += per[i].no_thread_slot;
			out->lost_untracked_words += per[i].no_thread_slot_words;
			out->lifecycle_lost += per[i].lifecycle_lost;
			out->pauses += per[i].pauses;
			out->pause_failures += per[i].pause_failures;
			out->salvaged_batches += per[i].salvaged_batches;
			out->salvaged_words += per[i].salvaged_words;
			out->salvage_skipped += per[i].salvage_skipped;
			out->salvage_unreadable += per[i].salvage_unreadable;
			out->position_full += per[i].position_full;
		}
	}
	free(per);
	out->batches = atomic_load(&c->batches);
	out->words = atomic_load(&c->words);
	out->gaps = atomic_load(&c->gaps);
	out->unseen_batches = atomic_load(&c->unseen_batches);
	out->records = atomic_load(&c->records);
	pthread_mutex_lock(&c->lock);
	out->taken_batches = c->taken_batches;
	out->taken_words = c->taken_words;
	out->taken_dropped = c->taken_dropped;
	out->take_skipped = c->take_skipped;
	pthread_mutex_unlock(&c->lock);
	pthread_mutex_lock(&c->pause.lock);
	out->continues = c->pause.continues;
	out->paused_ns = c->pause.paused_ns;
	pthread_mutex_unlock(&c->pause.lock);
}

void bc_report_loss(const struct bc_counters *k)
{
	/* Not loss by design (a level caught in the runtime's buffer switch
	 * had its words published just before): -v says how many. */
	if (k->salvage_skipped)
		wpp_info("bpf: %" PRIu64 " buffer levels passed over by the salvage at thread "
			 "exit or exec (caught mid-switch, their words already published)",
			 k->salvage_skipped);
	/* Loss of an unknown size: never silent.  The read cannot fault a
	 * page in, so a state paged out reads as not there: it may have held
	 * nothing. */
	if (k->salvage_unreadable)
		wpp_warn("bpf: the salvage could not read %" PRIu64
			 " states (of threads that ended "
			 "unflushed, or of their buffer levels: not mapped, or paged out): the "
			 "events they held unpublished are lost, how many is unknown (maybe none)",
			 k->salvage_unreadable);
	if (k->position_full)
		wpp_warn("bpf: %" PRIu64 " threads started while the thread table was full: "
			 "what they held unpublished when they ended could not be salvaged "
			 "(raise --max-threads)",
			 k->position_full);
	/* A thread that started while the table was full had its first
	 * batches dropped without a slot, so its stream starts late too. */
	if (k->unseen_batches)
		wpp_warn("%" PRIu64 " batches at the start of threads never arrived (published "
			 "before the probe was attached to their program%s; marked as gaps at the "
			 "start of their threads)",
			 k->unseen_batches,
			 k->lost_untracked ? ", or while the thread table was full" : "");
	if (!k->lost_batches && !k->lifecycle_lost)
		return;
	wpp_warn("lost %" PRIu64 " events in %" PRIu64 " batches (ring full: %" PRIu64
		 ", unreadable: %" PRIu64 ", no thread slot: %" PRIu64
		 "; lifecycle records lost: %" PRIu64 ")",
		 k->lost_words, k->lost_batches, k->lost_reserve, k->lost_read, k->lost_untracked,
		 k->lifecycle_lost);
	if (k->lost_untracked)
		wpp_warn("bpf: batches without a thread slot: more threads at once than the "
			 "thread table holds (raise --max-threads)");
}
