/* SPDX-License-Identifier: MIT */
/* thread_loads.c — see thread_loads.h for the contract. */
#include "collect/thread_loads.h"

#include <stdlib.h>

#define INITIAL_SLOTS 16u

/* (pid, tid) only: every generation of a thread shares one probe run. */
static size_t home_of(const struct thread_loads *tl, uint32_t pid, uint32_t tid)
{
	uint64_t h = ((uint64_t)pid << 32 | tid) * 0x9e3779b97f4a7c15ull;
	return (size_t)(h >> 32) & tl->mask;
}

static int same_key(const struct wpp_thread_key *a, const struct wpp_thread_key *b)
{
	return a->pid == b->pid && a->tid == b->tid && a->generation == b->generation;
}

struct thread_load *thread_loads_find(const struct thread_loads *tl,
				      const struct wpp_thread_key *key)
{
	if (!tl->slots)
		return NULL;
	for (size_t i = home_of(tl, key->pid, key->tid); tl->slots[i]; i = (i + 1) & tl->mask)
		if (same_key(&tl->slots[i]->key, key))
			return tl->slots[i];
	return NULL;
}

struct thread_load *thread_loads_newest(const struct thread_loads *tl, uint32_t pid, uint32_t tid)
{
	struct thread_load *best = NULL;

	if (!tl->slots)
		return NULL;
	for (size_t i = home_of(tl, pid, tid); tl->slots[i]; i = (i + 1) & tl->mask) {
		struct thread_load *t = tl->slots[i];
		if (t->key.pid == pid && t->key.tid == tid &&
		    (!best || t->key.generation > best->key.generation))
			best = t;
	}
	return best;
}

/* Put t in the first free slot of its run (t's key is absent). */
static void place(struct thread_loads *tl, struct thread_load *t)
{
	size_t i = home_of(tl, t->key.pid, t->key.tid);

	while (tl->slots[i])
		i = (i + 1) & tl->mask;
	tl->slots[i] = t;
}

/* Keep the load factor at or below 1/2. */
static int make_room(struct thread_loads *tl)
{
	size_t cap = tl->slots ? 2 * (tl->mask + 1) : INITIAL_SLOTS;
	struct thread_loads bigger;

	if (tl->slots && (tl->count + 1) * 2 <= tl->mask + 1)
		return 0;
	bigger = (struct thread_loads){calloc(cap, sizeof(*bigger.slots)), cap - 1, tl->count};
	if (!bigger.slots)
		return -1;
	/* Old slots in index order: the new layout depends only on the old. */
	for (size_t i = 0; tl->slots && i <= tl->mask; i++)
		if (tl->slots[i])
			place(&bigger, tl->slots[i]);
	free(tl->slots);
	*tl = bigger;
	return 0;
}

struct thread_load *thread_loads_add(struct thread_loads *tl, const struct wpp_thread_key *key)
{
	struct thread_load *t;

	if (make_room(tl) < 0 || !(t = calloc(1, sizeof(*t))))
		return NULL;
	t->key = *key;
	place(tl, t);
	tl->count++;
	return t;
}

void thread_loads_remove(struct thread_loads *tl, struct thread_load *t)
{
	size_t hole = home_of(tl, t->key.pid, t->key.tid);

	while (tl->slots[hole] != t)
		hole = (hole + 1) & tl->mask;
	/* Backward shift: pull later members of the run into the hole when
	 * their home does not lie strictly after it. */
	for (size_t j = (hole + 1) & tl->mask; tl->slots[j]; j = (j + 1) & tl->mask) {
		size_t home = home_of(tl, tl->slots[j]->key.pid, tl->slots[j]->key.tid);
		if (((j - home) & tl->mask) >= ((j - hole) & tl->mask)) {
			tl->slots[hole] = tl->slots[j];
			hole = j;
		}
	}
	tl->slots[hole] = NULL;
	tl->count--;
	free(t);
}

void thread_loads_each(const struct thread_loads *tl, void (*fn)(struct thread_load *, void *),
		       void *arg)
{
	for (size_t i = 0; tl->slots && i <= tl->mask; i++)
		if (tl->slots[i])
			fn(tl->slots[i], arg);
}

void thread_loads_free(struct thread_loads *tl)
{
	for (size_t i = 0; tl->slots && i <= tl->mask; i++)
		free(tl->slots[i]);
	free(tl->slots);
	*tl = (struct thread_loads){0};
}
