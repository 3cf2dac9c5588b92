/* SPDX-License-Identifier: MIT */
/*
 * test_thread_loads — the worker's table of open threads against a plain
 * list: random adds, removals and lookups (exact key, and the newest open
 * generation of a (pid, tid), which GAP chunks use), with few distinct
 * pids and tids so that generations collide, probe runs are long and
 * backward-shift deletion is exercised.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "collect/thread_loads.h"

#define MAX_OPEN 600

struct model {
	struct wpp_thread_key key[MAX_OPEN];
	struct thread_load *entry[MAX_OPEN];
	size_t n;
};

static unsigned rnd(unsigned *s)
{
	*s = *s * 1103515245u + 12345u;
	return *s >> 8;
}

static int model_find(const struct model *m, const struct wpp_thread_key *k)
{
	for (size_t i = 0; i < m->n; i++)
		if (m->key[i].pid == k->pid && m->key[i].tid == k->tid &&
		    m->key[i].generation == k->generation)
			return (int)i;
	return -1;
}

static struct thread_load *model_newest(const struct model *m, uint32_t pid, uint32_t tid)
{
	int best = -1;

	for (size_t i = 0; i < m->n; i++)
		if (m->key[i].pid == pid && m->key[i].tid == tid &&
		    (best < 0 || m->key[i].generation > m->key[best].generation))
			best = (int)i;
	return best < 0 ? NULL : m->entry[best];
}

static void count_entry(struct thread_load *t, void *arg)
{
	(void)t;
	(*(size_t *)arg)++;
}

static void check_against_model(const struct thread_loads *tl, const struct model *m, unsigned *s)
{
	size_t seen = 0;

	assert_int_equal(tl->count, m->n);
	thread_loads_each(tl, count_entry, &seen);
	assert_int_equal(seen, m->n);
	for (size_t i = 0; i < m->n; i++)
		assert_ptr_equal(thread_loads_find(tl, &m->key[i]), m->entry[i]);
	for (int k = 0; k < 20; k++) {
		uint32_t pid = rnd(s) % 4, tid = rnd(s) % 8;
		struct wpp_thread_key key = {pid, tid, rnd(s) % 6};
		if (model_find(m, &key) < 0)
			assert_null(thread_loads_find(tl, &key));
		assert_ptr_equal(thread_loads_newest(tl, pid, tid), model_newest(m, pid, tid));
	}
}

static void test_thread_loads_match_a_list(void **state)
{
	(void)state;

	for (unsigned seed = 1; seed <= 40; seed++) {
		struct thread_loads tl = {0};
		struct model m = {.n = 0};
		unsigned s = seed;
		/* Some rounds keep few threads open (short runs), some many
		 * (the table grows several times). */
		size_t cap = seed % 2 ? 12 : MAX_OPEN;

		for (int op = 0; op < 3000; op++) {
			struct wpp_thread_key key = {rnd(&s) % 4, rnd(&s) % 8, rnd(&s) % 6};
			if (seed % 2 == 0)
				key.pid = rnd(&s) % 64; /* more distinct runs */
			int i = model_find(&m, &key);
			if (i < 0 && m.n < cap && rnd(&s) % 3) {
				struct thread_load *t = thread_loads_add(&tl, &key);
				assert_non_null(t);
				assert_memory_equal(&t->key, &key, sizeof(key));
				assert_int_equal(t->queued_bytes, 0);
				m.key[m.n] = key;
				m.entry[m.n++] = t;
			} else if (i >= 0) {
				thread_loads_remove(&tl, m.entry[i]);
				m.key[i] = m.key[--m.n];
				m.entry[i] = m.entry[m.n];
			}
			if (op % 50 == 0)
				check_against_model(&tl, &m, &s);
		}
		check_against_model(&tl, &m, &s);
		thread_loads_free(&tl);
		assert_null(tl.slots);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_thread_loads_match_a_list),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
