/* SPDX-License-Identifier: MIT */
/*
 * array_grow.h — the one way a growable array of ours makes room: double
 * the capacity (from a first size) until it holds what is needed, then
 * realloc.  One place that checks the multiplication and the counter's
 * width, so that no array can wrap its capacity or its byte size, and a
 * failure leaves the array and its capacity as they were (the caller's
 * error path needs nothing undone).
 *
 *     if (ARRAY_GROW(t->rows, t->cap, t->n + 1, 64))
 *             return -1;
 *     t->rows[t->n++] = row;
 *
 * Arrays whose growth is a rehash (open-addressing tables) grow their own
 * way; this is for arrays that keep their elements where they are.
 */
#ifndef WPP_ARRAY_GROW_H
#define WPP_ARRAY_GROW_H

#include <limits.h>
#include <stdint.h>
#include <stdlib.h>

/* Makes *arr (elements of elem bytes, *cap of them) hold at least need:
 * 0, or -1 (nothing changed) when memory or max_cap (the largest value
 * the caller's capacity counter holds) runs out. */
static inline int array_grow_to(void **arr, size_t elem, size_t need, size_t *cap, size_t first,
				size_t max_cap)
{
	size_t nc = *cap ? *cap : (first ? first : 1);
	void *p;

	if (need <= *cap)
		return 0;
	while (nc < need) {
		if (nc > SIZE_MAX / 2)
			return -1;
		nc *= 2;
	}
	if (nc > max_cap || nc > SIZE_MAX / elem)
		return -1;
	p = realloc(*arr, nc * elem);
	if (!p)
		return -1;
	*arr = p;
	*cap = nc;
	return 0;
}

/* The largest value a capacity counter of cap's type holds. */
#define ARRAY_CAP_MAX(cap)                                                                         \
	_Generic((cap), int: (size_t)INT_MAX, unsigned: (size_t)UINT_MAX, default: SIZE_MAX)

/* ARRAY_GROW(arr, cap, need, first): array_grow_to for a typed array
 * pointer and capacity lvalue (any unsigned width, or int); 0 or -1. */
#define ARRAY_GROW(arr, cap, need, first)                                                          \
	__extension__({                                                                            \
		size_t ag_cap_ = (size_t)(cap);                                                    \
		void *ag_p_ = (void *)(arr);                                                       \
		int ag_rc_ = array_grow_to(&ag_p_, sizeof(*(arr)), (need), &ag_cap_, (first),      \
					   ARRAY_CAP_MAX(cap));                                    \
		if (ag_rc_ == 0) {                                                                 \
			(arr) = ag_p_;                                                             \
			(cap) = (__typeof__(cap))ag_cap_;                                          \
		}                                                                                  \
		ag_rc_;                                                                            \
	})

#endif
