/* SPDX-License-Identifier: MIT */
/*
 * pause.c — the collector's half of back-pressure.
 *
 * With pause_fill set (bc_options.drop_when_full false), the batch probe
 * stops a process that publishes into a ring holding pause_fill unconsumed
 * bytes, and records the stop in the `paused` map (wpp_bpf_records.h).  A
 * drain thread, after each batch record and when it has emptied its rings,
 * continues every stopped process once all rings are down to resume_fill
 * (not once they are empty): the gap between the two marks
 * keeps a process from being stopped again at once, and what is left in the
 * rings keeps the drain busy while the processes wake up.
 *
 * The position of each ring is read from its first two pages, mapped
 * read-only a second time (libbpf 1.1 has no accessor for them): no syscall
 * on the drain path unless something was stopped.
 */
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "bpfcollect/bc_internal.h"
#include "bpfcollect/map_walk.h"
#include "common/cpu_clock.h"
#include "wpp_transport.skel.h"

/* What the collector last continued, per pid (struct wpp_bpf_pause). */
struct continued {
	uint64_t incarnation, stops;
};

static void free_continued(uint64_t key, void *val, void *arg)
{
	(void)key, (void)arg;
	free(val);
}

int pause_setup(struct bc_collector *c)
{
	struct bc_pause *pz = &c->pause;
	long page = sysconf(_SC_PAGESIZE);

	pz->page = (size_t)page;
	if (c->opt.drop_when_full)
		return 0;
	pz->pos = calloc(c->ncpus, sizeof(*pz->pos));
	if (!pz->pos)
		return -ENOMEM;
	for (int cpu = 0; cpu < c->ncpus; cpu++) {
		/* page 0: consumer position, page 1: producer position */
		void *m = mmap(NULL, 2 * pz->page, PROT_READ, MAP_SHARED, c->ring_fds[cpu], 0);
		if (m == MAP_FAILED)
			return -errno;
		pz->pos[cpu] = m;
	}
	pz->enabled = 1;
	return 0;
}

void pause_teardown(struct bc_collector *c)
{
	struct bc_pause *pz = &c->pause;

	for (int cpu = 0; pz->pos && cpu < c->ncpus; cpu++)
		if (pz->pos[cpu])
			munmap(pz->pos[cpu], 2 * pz->page);
	free(pz->pos);
	pz->pos = NULL;
	idmap_each(&pz->continued, free_continued, NULL);
	idmap_free(&pz->continued);
}

uint64_t pause_ring_fill(const struct bc_collector *c, int cpu)
{
	const char *m = c->pause.pos[cpu];
	uint64_t cons = __atomic_load_n((const uint64_t *)m, __ATOMIC_ACQUIRE);
	uint64_t prod = __atomic_load_n((const uint64_t *)(m + c->pause.page), __ATOMIC_ACQUIRE);
	return prod - cons;
}

/* Continue pid if it was stopped since we last continued it (value: its
 * struct wpp_bpf_pause).  Lock held. */
static void continue_one(void *ctx, uint32_t pid, const void *value)
{
	struct bc_collector *c = ctx;
	const struct wpp_bpf_pause *v = value;
	struct bc_pause *pz = &c->pause;
	struct continued *seen = idmap_get(&pz->continued, pid);

	if (seen && seen->incarnation == v->incarnation && seen->stops == v->stops)
		return;
	if (kill((pid_t)pid, SIGCONT) < 0) {
		/* gone: its exit removes the map entry */
		free(idmap_del(&pz->continued, pid));
		return;
	}
	pz->continues++;
	/* From the latest stop: stops closer together than a drain round
	 * count once. */
	uint64_t now = monotonic_ns();
	if (v->stop_ns && now > v->stop_ns)
		pz->paused_ns += now - v->stop_ns;
	if (!seen) {
		seen = malloc(sizeof(*seen));
		if (!seen || idmap_put(&pz->continued, pid, seen)) {
			/* unremembered: it is continued again next time (harmless) */
			free(seen);
			return;
		}
	}
	seen->incarnation = v->incarnation;
	seen->stops = v->stops;
}

/* Every process stopped up to `epoch`.  The probe bumps an entry's stops
 * before the epoch, so reading the epoch first and the entries after it
 * sees every stop the epoch counts.  Lock held. */
static void continue_stopped(struct bc_collector *c, uint64_t epoch)
{
	struct wpp_bpf_pause v;

	map_walk_u32(bpf_map__fd(c->skel->maps.paused), &v, continue_one, c);
	__atomic_store_n(&c->pause.epoch_seen, epoch, __ATOMIC_RELAXED);
}

void pause_resume(struct bc_collector *c, bool force)
{
	struct bc_pause *pz = &c->pause;

	if (!pz->enabled)
		return;
	uint64_t epoch = __atomic_load_n(&c->skel->bss->pause_epoch, __ATOMIC_ACQUIRE);
	if (epoch == __atomic_load_n(&pz->epoch_seen, __ATOMIC_RELAXED) && !force)
		return;
	/* A ring still above the mark has a drain thread at work on it; that
	 * thread continues them when it is done. */
	for (int cpu = 0; cpu < c->ncpus && !force; cpu++)
		if (pause_ring_fill(c, cpu) > pz->resume_fill)
			return;
	pthread_mutex_lock(&pz->lock);
	if (force || epoch != pz->epoch_seen)
		continue_stopped(c, epoch);
	pthread_mutex_unlock(&pz->lock);
}
