/* SPDX-License-Identifier: MIT */
/*
 * wet_shadow.h — the shadow memory the WET builder matches loads to
 * stores with (docs/wet.md, "Dependences": memory dependences are found at
 * build time, by address matching).
 *
 * Contract
 *   - A store records its writer (an id < 2^63 the builder chooses, e.g. a
 *     statement instance) for every byte it covers; a load asks who wrote
 *     each of its bytes last.
 *   - Memory is kept per 4 KiB page of address space: one writer per
 *     8-byte granule while its bytes share one, eight otherwise.  The
 *     total is capped (max_bytes); past the cap the least recently written
 *     page is dropped, and its bytes answer WET_WRITER_UNKNOWN from then on
 *     (until written again): a dependence is reported as unknown, never
 *     invented.  Bytes never written answer WET_WRITER_NONE.
 *   - Every operation is O(bytes touched) plus O(1) expected for the page
 *     lookup.  Not thread-safe.
 */
#ifndef WPP_WET_SHADOW_H
#define WPP_WET_SHADOW_H

#include <stddef.h>
#include <stdint.h>

#define WET_WRITER_NONE	   UINT64_C(0)
#define WET_WRITER_UNKNOWN (UINT64_C(1) << 63)
#define WET_WRITER_MAX	   (WET_WRITER_UNKNOWN - 1)
#define WET_SHADOW_PAGE	   4096u

struct wet_shadow;

/* NULL when out of memory.  max_bytes below two pages is raised to two. */
struct wet_shadow *wet_shadow_new(size_t max_bytes);
void wet_shadow_free(struct wet_shadow *sh);

/* Bytes [addr, addr + size) were written by writer (1..WET_WRITER_MAX).
 * 0, or -1 when out of memory or the writer is out of range. */
int wet_shadow_store(struct wet_shadow *sh, uint64_t addr, uint64_t size, uint64_t writer);
/* Who wrote the byte at addr last. */
uint64_t wet_shadow_writer(const struct wet_shadow *sh, uint64_t addr);
/* The largest access wet_shadow_load answers at once. */
#define WET_SHADOW_MAX_ACCESS 4096u
/* The distinct writers of [addr, addr + size), in the order their first
 * byte appears, into writers (room for size entries); returns how many,
 * or -1 when size is 0 or above WET_SHADOW_MAX_ACCESS. */
int wet_shadow_load(const struct wet_shadow *sh, uint64_t addr, uint64_t size, uint64_t *writers);
/* Bytes the shadow holds now (pages, granule expansions, tables). */
size_t wet_shadow_bytes(const struct wet_shadow *sh);
/* Pages dropped so far for the cap. */
uint64_t wet_shadow_evictions(const struct wet_shadow *sh);

#endif
