/* SPDX-License-Identifier: MIT */
/*
 * perf_counters.c — the counter session (perf_counters.h): perf events per
 * CPU, the BPF object bpf/wpp_counters.bpf.c, its ring, and the catch-up
 * of threads that registered before we attached.
 */
#include "bpfcollect/perf_counters.h"
#include "bpfcollect/perf_throttle.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <pthread.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "bpfcollect/bc_internal.h"
#include "bpfcollect/elfinfo.h"
#include "common/log.h"
#include "wpp_counters.skel.h"

#define COUNTER_RING_BYTES (16u << 20)

struct pc_session {
	struct bc_collector *c;
	struct pc_options opt;
	struct pc_callbacks cb;
	struct wpp_counters *skel;
	struct ring_buffer *rb;
	int ncpus;
	int *sample_fds; /* [cpu * nevents + e], -1 = none */
	int *count_fds;
	struct perf_throttle_watch *watches; /* per sample fd */
	struct bpf_link **links;
	size_t nlinks, links_cap;
	/* As the transport's (bc_collector.multi): one uprobe_multi link per
	 * object for both probes, when multi_ok. */
	struct multi_links multi;
	int multi_ok;
	uint64_t delivered_samples, delivered_counts;
	int finished;
};

static int keep_link(struct pc_session *s, struct bpf_link *l)
{
	if (s->nlinks == s->links_cap) {
		size_t ncap = s->links_cap ? s->links_cap * 2 : 16;
		struct bpf_link **g = realloc(s->links, ncap * sizeof(*g));
		if (!g) {
			bpf_link__destroy(l);
			return -ENOMEM;
		}
		s->links = g;
		s->links_cap = ncap;
	}
	s->links[s->nlinks++] = l;
	return 0;
}

static int perf_open(struct perf_event_attr *a, int cpu)
{
	return (int)syscall(SYS_perf_event_open, a, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC);
}

static void attr_for(const struct pc_event *ev, struct perf_event_attr *a)
{
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->type = ev->type;
	a->config = ev->config;
	a->exclude_user = ev->exclude_user;
	a->exclude_kernel = ev->exclude_kernel;
	a->exclude_hv = 1;
	a->read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
}

/* One line for an event the kernel refused. */
static void explain_open_failure(const struct pc_event *ev, int err)
{
	if (pc_event_needs_pmu(ev) && (err == ENOENT || err == EOPNOTSUPP || err == ENODEV))
		wpp_err(
		    "record: cannot count '%s': this machine has no hardware performance counters "
		    "(no PMU; hardware, cache and raw events are not supported); software events "
		    "work: %s",
		    ev->name, pc_software_names());
	else if (err == EACCES || err == EPERM)
		wpp_err(
		    "record: cannot open event '%s': permission denied (needs root or CAP_PERFMON)",
		    ev->name);
	else
		wpp_err("record: cannot open event '%s': %s", ev->name, strerror(err));
}

/* Is cpu online?  Offline CPUs refuse events with ENODEV; they are skipped. */
static int cpu_online(int cpu)
{
	char path[64], c = '1';
	snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/online", cpu);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 1; /* cpu0 has no such file */
	if (read(fd, &c, 1) != 1)
		c = '1';
	close(fd);
	return c == '1';
}

static int open_events(struct pc_session *s)
{
	uint32_t n = s->opt.nevents;
	size_t slots = (size_t)s->ncpus * n;
	s->sample_fds = malloc(slots * sizeof(int));
	s->count_fds = malloc(slots * sizeof(int));
	s->watches = calloc(slots, sizeof(*s->watches));
	if (!s->sample_fds || !s->count_fds || !s->watches)
		return -ENOMEM;
	for (size_t i = 0; i < slots; i++)
		s->sample_fds[i] = s->count_fds[i] = -1;
	for (int cpu = 0; cpu < s->ncpus; cpu++) {
		if (!cpu_online(cpu))
			continue;
		for (uint32_t e = 0; e < n; e++) {
			const struct pc_event *ev = &s->opt.events[e];
			struct perf_event_attr a;
			if (!s->opt.no_count) {
				attr_for(ev, &a);
				int fd = perf_open(&a, cpu);
				if (fd < 0) {
					explain_open_failure(ev, errno);
					return -errno;
				}
				s->count_fds[cpu * n + e] = fd;
				uint32_t key = cpu * WPP_MAX_COUNTERS + e;
				if (bpf_map_update_elem(bpf_map__fd(s->skel->maps.count_events),
							&key, &fd, BPF_ANY)) {
					wpp_err("record: cannot install counter '%s': %s", ev->name,
						strerror(errno));
					return -errno;
				}
			}
			if (!s->opt.no_sample) {
				attr_for(ev, &a);
				a.disabled = 1; /* enabled once the program is attached */
				/* An idle CPU's samples are nobody's, and a software
				 * clock sampling an idle CPU whose tick is stopped
				 * piles up overflows until the kernel throttles it
				 * (perf_throttle.h): whatever runs there next would go
				 * unsampled for a tick. */
				if (ev->type == PERF_TYPE_SOFTWARE)
					a.exclude_idle = 1;
				if (s->opt.period) {
					a.sample_period = s->opt.period;
				} else {
					a.freq = 1;
					a.sample_freq = s->opt.freq;
				}
				int fd = perf_open(&a, cpu);
				if (fd < 0) {
					int err = errno;
					if (err == EINVAL && !s->opt.period)
						wpp_err(
						    "record: event '%s': the kernel refused -F %u "
						    "(see "
						    "/proc/sys/kernel/perf_event_max_sample_rate)",
						    ev->name, s->opt.freq);
					else
						explain_open_failure(ev, err);
					return -err;
				}
				s->sample_fds[cpu * n + e] = fd;
				/* Best effort: without it throttling goes uncounted. */
				perf_throttle_watch_open(&s->watches[cpu * n + e], fd);
				LIBBPF_OPTS(bpf_perf_event_opts, po, .bpf_cookie = e);
				struct bpf_link *l = bpf_program__attach_perf_event_opts(
				    s->skel->progs.wpp_sample, fd, &po);
				if (!l) {
					wpp_err("record: cannot attach the sampler to '%s': %s",
						ev->name, strerror(errno));
					return -errno;
				}
				if (keep_link(s, l))
					return -ENOMEM;
			}
		}
	}
	return 0;
}

static int on_record(void *ctx, void *data, size_t size)
{
	struct pc_session *s = ctx;
	const uint32_t *kind = data;
	if (size < sizeof(*kind))
		return 0;
	if (*kind == WPP_CREC_SAMPLE && size >= sizeof(struct wpp_crec_sample)) {
		const struct wpp_crec_sample *r = data;
		struct wpp_sample out = {
		    .pid = r->pid,
		    .tid = r->tid,
		    .generation = bc_generation_locked(s->c, r->pid),
		    .counter = r->counter,
		    .pos = r->pos,
		    .depth = r->depth,
		    .seq = r->seq,
		    .word = r->word,
		    .flags = r->flags,
		    .ip = r->ip,
		    .value = r->value,
		    .time_ns = r->time_ns,
		};
		struct wpp_sample_regs regs;
		_Static_assert(sizeof(regs.r) == sizeof(r->regs), "register sets differ");
		memcpy(regs.r, r->regs, sizeof(regs.r));
		s->delivered_samples++;
		if (s->cb.sample)
			s->cb.sample(s->cb.ctx, &out, (r->flags & WPP_SAMPLE_REGS) ? &regs : NULL);
	} else if (*kind == WPP_CREC_COUNT && size >= sizeof(struct wpp_crec_count)) {
		const struct wpp_crec_count *r = data;
		struct wpp_count out = {
		    .pid = r->pid,
		    .tid = r->tid,
		    .generation = bc_generation_locked(s->c, r->pid),
		    .counter = r->counter,
		    .seq = r->seq,
		    .count = r->count,
		    .enabled_ns = r->enabled,
		    .running_ns = r->running,
		};
		s->delivered_counts++;
		if (s->cb.count)
			s->cb.count(s->cb.ctx, &out);
	}
	return 0;
}

static void read_throttles(struct pc_session *s)
{
	size_t slots = (size_t)s->ncpus * s->opt.nevents;
	for (size_t i = 0; s->watches && i < slots; i++)
		perf_throttle_watch_read(&s->watches[i]);
}

static void ext_drain(void *ctx)
{
	struct pc_session *s = ctx;
	if (s->rb)
		ring_buffer__consume(s->rb);
	read_throttles(s);
}

static void ext_object_attached(void *ctx, const char *path)
{
	struct pc_session *s = ctx;
	struct elf_facts f;
	if (elf_facts_read(path, &f) != 0)
		return;
	if (s->multi_ok && f.has_thread_probe) {
		int err = multi_links_attach(
		    &s->multi, bpf_program__fd(s->skel->progs.wpp_counters_multi), path, &f);
		if (!err)
			return;
		/* Refused by the kernel: not asked again (as the transport). */
		if (err != -EOPNOTSUPP && err != -ENOMEM)
			s->multi_ok = 0;
	}
	if (f.has_thread_probe) {
		struct bpf_link *l = bpf_program__attach_usdt(s->skel->progs.wpp_thread, -1, path,
							      "wpptrace", "thread", NULL);
		if (l)
			keep_link(s, l);
		else
			wpp_warn("record: cannot attach to wpptrace:thread in %s: %s", path,
				 strerror(errno));
	} else {
		wpp_warn(
		    "record: %s predates counter support (no wpptrace:thread probe): its samples "
		    "cannot be attributed",
		    path);
	}
	if (!s->opt.no_count) {
		struct bpf_link *l = bpf_program__attach_usdt(s->skel->progs.wpp_batch_count, -1,
							      path, "wpptrace", "batch", NULL);
		if (l)
			keep_link(s, l);
	}
}

struct pc_session *pc_open(struct bc_collector *c, const struct pc_options *o,
			   const struct pc_callbacks *cb)
{
	struct pc_session *s = calloc(1, sizeof(*s));
	int err;
	if (!s) {
		wpp_err("out of memory");
		return NULL;
	}
	s->c = c;
	s->opt = *o;
	s->cb = *cb;
	if (!s->opt.freq)
		s->opt.freq = PC_DEFAULT_FREQ;
	s->ncpus = libbpf_num_possible_cpus();
	s->skel = wpp_counters__open();
	if (!s->skel || s->ncpus <= 0) {
		wpp_err("record: cannot open the counter BPF programs: %s", strerror(errno));
		goto fail;
	}
	s->skel->rodata->filter_pids = c->opt.filter_pids;
	s->skel->rodata->ncounted = o->no_count ? 0 : o->nevents;
	s->skel->rodata->max_cpus = s->ncpus;
	/* Only what the options use is loaded and verified (attach latency,
	 * docs/bpf-transport.md "What an attach costs"): sampling needs the
	 * sampler, counting the batch, switch and exit programs and the
	 * per-thread totals (24 MiB preallocated); wpp_thread serves both. */
	err = bpf_program__set_autoload(s->skel->progs.wpp_sample, !o->no_sample);
	if (!err)
		err = bpf_program__set_autoload(s->skel->progs.wpp_batch_count, !o->no_count);
	if (!err)
		err = bpf_program__set_autoload(s->skel->progs.wpp_counts_switch, !o->no_count);
	if (!err)
		err = bpf_program__set_autoload(s->skel->progs.wpp_counters_exit, !o->no_count);
	/* The probes through the uprobe_multi program when the transport's
	 * go that way (one grace period at the end instead of two). */
	s->multi_ok = c->multi_ok;
	if (!err && s->multi_ok && multi_program_prepare(s->skel->progs.wpp_counters_multi, 1))
		s->multi_ok = 0;
	if (!err && !s->multi_ok)
		err = multi_program_prepare(s->skel->progs.wpp_counters_multi, 0);
	if (!err && o->no_count)
		err = bpf_map__set_max_entries(s->skel->maps.thread_counts, 1);
	if (!err)
		err = bpf_map__set_max_entries(s->skel->maps.count_events,
					       s->ncpus * WPP_MAX_COUNTERS);
	if (!err)
		err = bpf_map__set_max_entries(s->skel->maps.counter_ring, COUNTER_RING_BYTES);
	if (!err)
		err = bpf_map__reuse_fd(s->skel->maps.traced_pids, bc_traced_pids_fd(c));
	if (!err)
		err = bpf_map__reuse_fd(s->skel->maps.positions, bc_positions_fd(c));
	if (!err)
		err = wpp_counters__load(s->skel);
	if (err) {
		wpp_err("record: cannot load the counter BPF programs: %s%s", strerror(-err),
			err == -EPERM	 ? " (needs root or CAP_BPF and CAP_PERFMON)"
			: err == -EACCES ? " (rejected by the verifier; -vv shows its log)"
					 : "");
		goto fail;
	}
	s->rb = ring_buffer__new(bpf_map__fd(s->skel->maps.counter_ring), on_record, s, NULL);
	if (!s->rb) {
		wpp_err("record: cannot poll the counter ring: %s", strerror(errno));
		goto fail;
	}
	if (!o->no_count) {
		/* The exit program only drops a thread's counting totals. */
		struct bpf_link *l = bpf_program__attach(s->skel->progs.wpp_counters_exit);
		if (!l || keep_link(s, l)) {
			wpp_err("record: cannot attach the counters' exit tracepoint: %s",
				strerror(errno));
			goto fail;
		}
		l = bpf_program__attach(s->skel->progs.wpp_counts_switch);
		if (!l || keep_link(s, l)) {
			wpp_err("record: cannot attach to sched_switch: %s", strerror(errno));
			goto fail;
		}
	}
	if (open_events(s))
		goto fail;
	struct bc_extension ext = {s, ext_object_attached, ext_drain};
	bc_set_extension(c, &ext);
	return s;
fail:
	pc_close(s);
	return NULL;
}

uint32_t pc_describe(const struct pc_session *s, struct wpp_counter_desc *out)
{
	for (uint32_t e = 0; e < s->opt.nevents; e++) {
		const struct pc_event *ev = &s->opt.events[e];
		memset(&out[e], 0, sizeof(out[e]));
		snprintf(out[e].name, sizeof(out[e].name), "%s", ev->name);
		out[e].type = ev->type;
		out[e].config = ev->config;
		if (!s->opt.no_sample) {
			out[e].flags |= WPP_COUNTER_SAMPLED;
			if (s->opt.period) {
				out[e].period = s->opt.period;
			} else {
				out[e].flags |= WPP_COUNTER_FREQ;
				out[e].period = s->opt.freq;
			}
		}
		if (!s->opt.no_count)
			out[e].flags |= WPP_COUNTER_COUNTED;
	}
	return s->opt.nevents;
}

static void read_stats(struct pc_session *s, struct pc_stats *st)
{
	struct wpp_bpf_counter_stats *per = calloc(s->ncpus, sizeof(*per));
	uint32_t zero = 0;
	memset(st, 0, sizeof(*st));
	if (per && bpf_map_lookup_elem(bpf_map__fd(s->skel->maps.counter_stats), &zero, per) == 0)
		for (int i = 0; i < s->ncpus; i++) {
			st->unregistered += per[i].samples_unregistered;
			st->foreign += per[i].samples_foreign;
			st->ring_lost += per[i].ring_lost;
			st->read_failures += per[i].read_failures;
			st->threads += per[i].threads;
			st->bad_descriptors += per[i].bad_descriptors;
			st->unseen_stretches += per[i].unseen_stretches;
		}
	free(per);
	st->samples = s->delivered_samples;
	st->counts = s->delivered_counts;
	size_t slots = (size_t)s->ncpus * s->opt.nevents;
	for (size_t i = 0; s->watches && i < slots; i++) {
		uint32_t e = (uint32_t)(i % s->opt.nevents);
		st->throttled[e] += s->watches[i].throttled;
		st->throttle_records_lost += s->watches[i].lost;
	}
}

/* What PERF_EVENT_IOC_PERIOD takes to set an event's sampling back as it
 * was opened: the period, or the frequency, except for the software
 * clocks.  The kernel runs those on an hrtimer and turns their frequency
 * into the fixed period 1 s / frequency when the event is opened, so the
 * ioctl then takes a period: given the frequency (4000) it sampled every
 * 10 us, as fast as the kernel's rate limit let it, while each sample
 * still weighed 250 us (the estimates came out 10-40 times too high and
 * the program ran many times slower). */
static uint64_t rearm_value(const struct pc_session *s, const struct pc_event *ev)
{
	if (s->opt.period)
		return s->opt.period;
	if (ev->type == PERF_TYPE_SOFTWARE &&
	    (ev->config == PERF_COUNT_SW_CPU_CLOCK || ev->config == PERF_COUNT_SW_TASK_CLOCK))
		return 1000000000ull / s->opt.freq;
	return s->opt.freq;
}

void pc_rearm(struct pc_session *s)
{
	size_t slots = (size_t)s->ncpus * s->opt.nevents;
	for (size_t i = 0; s->sample_fds && i < slots; i++)
		if (s->sample_fds[i] >= 0)
			perf_throttle_rearm(s->sample_fds[i],
					    rearm_value(s, &s->opt.events[i % s->opt.nevents]));
}

static void close_events(struct pc_session *s)
{
	multi_links_close(&s->multi);
	for (size_t i = 0; i < s->nlinks; i++)
		bpf_link__destroy(s->links[i]);
	s->nlinks = 0;
	size_t slots = (size_t)s->ncpus * s->opt.nevents;
	read_throttles(s);
	for (size_t i = 0; s->watches && i < slots; i++)
		perf_throttle_watch_close(&s->watches[i]);
	for (size_t i = 0; s->sample_fds && i < slots; i++)
		if (s->sample_fds[i] >= 0) {
			close(s->sample_fds[i]);
			s->sample_fds[i] = -1;
		}
	for (size_t i = 0; s->count_fds && i < slots; i++)
		if (s->count_fds[i] >= 0) {
			close(s->count_fds[i]);
			s->count_fds[i] = -1;
		}
}

void pc_finish(struct pc_session *s, struct pc_stats *st)
{
	if (!s->finished) {
		s->finished = 1;
		close_events(s);
		/* The drain threads are gone (bc_finish): no lock needed. */
		while (s->rb && ring_buffer__consume(s->rb) > 0)
			;
	}
	if (st)
		read_stats(s, st);
}

void pc_close(struct pc_session *s)
{
	if (!s)
		return;
	/* The drain threads may still run (a program that could not be
	 * started): they call ext.drain under the lock, so unhook first. */
	struct bc_extension none = {0};
	pthread_mutex_lock(&s->c->lock);
	bc_set_extension(s->c, &none);
	pthread_mutex_unlock(&s->c->lock);
	close_events(s);
	ring_buffer__free(s->rb);
	wpp_counters__destroy(s->skel);
	free(s->sample_fds);
	free(s->count_fds);
	free(s->watches);
	free(s->links);
	multi_links_free(&s->multi);
	free(s);
}
