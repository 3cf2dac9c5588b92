/* SPDX-License-Identifier: MIT */
/*
 * grow_u32.h — doubling growth of a uint32_t array, the one growth policy of
 * the grammar builder's stacks and the serializer's move-to-front lists.
 * Doubling keeps appends amortized O(1); the caps are 32-bit because every
 * count in a grammar is.
 */
#ifndef WPP_GROW_U32_H
#define WPP_GROW_U32_H

#include <stdint.h>
#include <stdlib.h>

/* Double *cap (or set it to first_cap when 0) and resize *v to match.
 * 0, or -1 when out of memory (*v and *cap unchanged). */
static inline int grow_u32(uint32_t **v, uint32_t *cap, uint32_t first_cap)
{
	uint32_t n = *cap ? 2 * *cap : first_cap;
	uint32_t *bigger = realloc(*v, n * sizeof(*bigger));

	if (!bigger)
		return -1;
	*v = bigger;
	*cap = n;
	return 0;
}

#endif
