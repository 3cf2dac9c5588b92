/* SPDX-License-Identifier: MIT */
/*
 * test_wet_shadow.c — the WET builder's shadow memory against a byte
 * array that remembers every byte's last writer: random stores and loads
 * of any size and alignment across page boundaries; exact with room to
 * spare, and with a cap that forces pages out, every answer either exact
 * or "unknown", never another writer.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "wet_gen.h"
#include "analysis/wet/wet_shadow.h"

#define NPAGES 6
#define SPAN   (NPAGES * WET_SHADOW_PAGE)

/* One run of random operations; cap 0 = no cap to speak of. */
static void run(size_t cap, uint64_t base, uint64_t seed, unsigned ops, int *saw_unknown)
{
	struct wet_shadow *sh = wet_shadow_new(cap ? cap : (size_t)1 << 30);
	uint64_t *oracle = calloc(SPAN, sizeof(*oracle));
	uint64_t writers[WET_SHADOW_MAX_ACCESS], want[WET_SHADOW_MAX_ACCESS];

	assert_non_null(sh);
	for (unsigned op = 1; op <= ops; op++) {
		uint64_t r = wet_gen_rand(&seed);
		/* Mostly small accesses, near granule and page edges. */
		uint64_t size = r % 8 == 0 ? 1 + (r >> 8) % 300 : 1 + (r >> 8) % 16;
		uint64_t off = (r >> 20) % (SPAN - size);

		if (r % 3 == 0)
			off = (off / 8) * 8; /* aligned, whole granules */
		if (r % 5 < 3) {
			uint64_t w = 1 + (r >> 40) % 50;

			assert_int_equal(wet_shadow_store(sh, base + off, size, w), 0);
			for (uint64_t i = 0; i < size; i++)
				oracle[off + i] = w;
			/* The bytes just written are always exact. */
			for (uint64_t i = 0; i < size; i++)
				assert_true(wet_shadow_writer(sh, base + off + i) == w);
			if (cap)
				assert_true(wet_shadow_bytes(sh) <= cap);
		} else {
			int n = wet_shadow_load(sh, base + off, size, writers), m = 0;

			assert_true(n >= 1);
			for (uint64_t i = 0; i < size; i++) {
				uint64_t got = wet_shadow_writer(sh, base + off + i);
				int k;

				if (got != oracle[off + i]) {
					if (!cap || got != WET_WRITER_UNKNOWN)
						fail_msg("byte %#llx: writer %#llx, want %#llx",
							 (unsigned long long)(base + off + i),
							 (unsigned long long)got,
							 (unsigned long long)oracle[off + i]);
					*saw_unknown = 1;
				}
				for (k = 0; k < m && want[k] != got; k++)
					;
				if (k == m)
					want[m++] = got;
			}
			assert_int_equal(n, m);
			assert_memory_equal(writers, want, (size_t)m * sizeof(*want));
		}
	}
	if (cap)
		assert_true(wet_shadow_evictions(sh) > 0);
	else
		assert_true(wet_shadow_evictions(sh) == 0);
	wet_shadow_free(sh);
	free(oracle);
}

static void test_exact(void **state)
{
	(void)state;
	int unknown = 0;

	/* Page-aligned, odd, and ending at the top of the address space. */
	run(0, 0x7f0000000000u, 1, 40000, &unknown);
	run(0, 0x55d0c3a81003u, 2, 40000, &unknown);
	run(0, UINT64_MAX - SPAN + 1, 3, 20000, &unknown);
	assert_false(unknown);
}

static void test_capped(void **state)
{
	(void)state;
	int unknown = 0;

	/* Room for about three pages of six. */
	run(3 * (WET_SHADOW_PAGE + 200) + 4096, 0x7f0000000000u, 4, 40000, &unknown);
	assert_true(unknown);
}

static void test_bad_arguments(void **state)
{
	(void)state;
	struct wet_shadow *sh = wet_shadow_new(0);
	uint64_t w[4];

	assert_non_null(sh);
	assert_int_equal(wet_shadow_store(sh, 0x1000, 8, WET_WRITER_NONE), -1);
	assert_int_equal(wet_shadow_store(sh, 0x1000, 8, WET_WRITER_UNKNOWN), -1);
	assert_int_equal(wet_shadow_store(sh, UINT64_MAX - 3, 8, 1), -1); /* wraps */
	assert_int_equal(wet_shadow_load(sh, 0x1000, 0, w), -1);
	assert_int_equal(wet_shadow_load(sh, 0x1000, WET_SHADOW_MAX_ACCESS + 1, w), -1);
	assert_int_equal(wet_shadow_load(sh, 0x1000, 4, w), 1);
	assert_true(w[0] == WET_WRITER_NONE);
	wet_shadow_free(sh);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_exact),
		cmocka_unit_test(test_capped),
		cmocka_unit_test(test_bad_arguments),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
