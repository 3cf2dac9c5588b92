/* SPDX-License-Identifier: MIT */
/*
 * test_counters.c — the pure parts of counter support: the multiplexing
 * scale (checked against exact long-double arithmetic on random readings
 * and on the edge cases) and perf's event names (checked against the
 * values of <linux/perf_event.h>, computed here independently).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <linux/perf_event.h>

#include "bpfcollect/perf_events.h"
#include "costs/cost_scale.h"

static void scale_edges(void **state)
{
	(void)state;
	assert_int_equal(cost_scale(1000, 10, 0), 0);          /* never ran: nothing measured */
	assert_int_equal(cost_scale(1000, 10, 10), 1000);      /* never multiplexed */
	assert_int_equal(cost_scale(1000, 10, 20), 1000);      /* running > enabled (rounding): as is */
	assert_int_equal(cost_scale(1000, 20, 10), 2000);      /* ran half the time */
	assert_int_equal(cost_scale(1000, 30, 10), 3000);
	assert_int_equal(cost_scale(7, 3, 2), 10);             /* 10.5 rounds down */
	assert_int_equal(cost_scale(UINT64_MAX, 4, 2), UINT64_MAX); /* saturates */
	assert_int_equal(cost_scale(UINT64_MAX / 2, 2, 1), UINT64_MAX - 1);
	/* 64-bit products that would overflow without 128-bit arithmetic */
	assert_int_equal(cost_scale(UINT64_C(1) << 40, UINT64_C(1) << 40, UINT64_C(1) << 39), UINT64_C(1) << 41);
}

static uint64_t rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static void scale_random(void **state)
{
	(void)state;
	uint64_t seed = 0x5eedc0de;
	for (int i = 0; i < 100000; i++) {
		uint64_t count = rnd(&seed) >> (rnd(&seed) % 64);
		uint64_t enabled = (rnd(&seed) >> (rnd(&seed) % 64)) | 1;
		uint64_t running = (rnd(&seed) % enabled) + 1;
		unsigned __int128 want = (unsigned __int128)count * enabled / running;
		uint64_t expect = want > UINT64_MAX ? UINT64_MAX : (uint64_t)want;
		assert_true(cost_scale(count, enabled, running) == expect);
		/* an estimate never undercounts what was counted */
		assert_true(cost_scale(count, enabled, running) >= count);
	}
}

struct name_case {
	const char *name;
	uint32_t type;
	uint64_t config;
};

static void names_known(void **state)
{
	(void)state;
	const struct name_case cases[] = {
		{"cycles", PERF_TYPE_HARDWARE, 0},
		{"cpu-cycles", PERF_TYPE_HARDWARE, 0},
		{"instructions", PERF_TYPE_HARDWARE, 1},
		{"cache-references", PERF_TYPE_HARDWARE, 2},
		{"cache-misses", PERF_TYPE_HARDWARE, 3},
		{"branches", PERF_TYPE_HARDWARE, 4},
		{"branch-misses", PERF_TYPE_HARDWARE, 5},
		{"ref-cycles", PERF_TYPE_HARDWARE, 9},
		{"cpu-clock", PERF_TYPE_SOFTWARE, 0},
		{"task-clock", PERF_TYPE_SOFTWARE, 1},
		{"page-faults", PERF_TYPE_SOFTWARE, 2},
		{"faults", PERF_TYPE_SOFTWARE, 2},
		{"context-switches", PERF_TYPE_SOFTWARE, 3},
		{"cs", PERF_TYPE_SOFTWARE, 3},
		{"cpu-migrations", PERF_TYPE_SOFTWARE, 4},
		{"minor-faults", PERF_TYPE_SOFTWARE, 5},
		{"major-faults", PERF_TYPE_SOFTWARE, 6},
		/* cache id | op << 8 | result << 16 */
		{"L1-dcache-loads", PERF_TYPE_HW_CACHE, 0 | 0 << 8 | 0 << 16},
		{"L1-dcache-load-misses", PERF_TYPE_HW_CACHE, 0 | 0 << 8 | 1 << 16},
		{"L1-icache-load-misses", PERF_TYPE_HW_CACHE, 1 | 0 << 8 | 1 << 16},
		{"LLC-stores", PERF_TYPE_HW_CACHE, 2 | 1 << 8 | 0 << 16},
		{"LLC-store-misses", PERF_TYPE_HW_CACHE, 2 | 1 << 8 | 1 << 16},
		{"dTLB-load-misses", PERF_TYPE_HW_CACHE, 3 | 0 << 8 | 1 << 16},
		{"iTLB-loads", PERF_TYPE_HW_CACHE, 4 | 0 << 8 | 0 << 16},
		{"branch-load-misses", PERF_TYPE_HW_CACHE, 5 | 0 << 8 | 1 << 16},
		{"node-prefetch-misses", PERF_TYPE_HW_CACHE, 6 | 2 << 8 | 1 << 16},
		{"r01c2", PERF_TYPE_RAW, 0x1c2},
		{"rff", PERF_TYPE_RAW, 0xff},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct pc_event ev;
		assert_int_equal(pc_event_parse(cases[i].name, &ev), 0);
		assert_string_equal(ev.name, cases[i].name);
		assert_int_equal(ev.type, cases[i].type);
		assert_true(ev.config == cases[i].config);
		assert_int_equal(pc_event_needs_pmu(&ev), cases[i].type != PERF_TYPE_SOFTWARE);
	}
}

static void names_modifiers(void **state)
{
	(void)state;
	struct pc_event ev;
	assert_int_equal(pc_event_parse("cpu-clock:u", &ev), 0);
	assert_true(ev.exclude_kernel && !ev.exclude_user);
	assert_int_equal(pc_event_parse("page-faults:k", &ev), 0);
	assert_true(ev.exclude_user && !ev.exclude_kernel);
	assert_int_equal(pc_event_parse("cycles:uk", &ev), 0);
	assert_true(!ev.exclude_user && !ev.exclude_kernel);
}

static void names_rejected(void **state)
{
	(void)state;
	const char *bad[] = {"", "bogus", "cycles:x", "L1-dcache", "L1-dcache-misses", "LLC-load",
			     "r", "rxyz", "r12345678901234567", "cpu_clock",
			     "a-very-long-event-name-that-does-not-fit-in-the-table-slot"};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct pc_event ev;
		assert_int_equal(pc_event_parse(bad[i], &ev), -22);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(scale_edges),
		cmocka_unit_test(scale_random),
		cmocka_unit_test(names_known),
		cmocka_unit_test(names_modifiers),
		cmocka_unit_test(names_rejected),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
