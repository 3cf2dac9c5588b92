/* SPDX-License-Identifier: MIT */
/*
 * sequitur_recency.h — a move-to-front list without a length cap: the rank
 * of a symbol among the symbols of one class by last use (0 = used last)
 * and the symbol at a rank, each in O(log n).
 *
 * Used by grammar format version 4 (sequitur_serial_v2.c) for the symbols
 * that start with one terminal.  A capped list scanned linearly costs
 * O(cap) per symbol and, on real programs' streams, misses the rules used
 * longer ago than its cap; this one holds every symbol of the class.
 *
 * Each use of a symbol takes the class's next stamp; the list is the live
 * stamps (one per symbol, its last use) in a Fenwick tree, so a rank is a
 * count of live stamps above the symbol's.  The caller keeps each symbol's
 * current stamp (0: not in the list yet): a symbol belongs to exactly one
 * class, so one array per kind of symbol serves every class.  Stamps only
 * grow, so memory is proportional to the class's uses, not its symbols.
 */
#ifndef WPP_SEQUITUR_RECENCY_H
#define WPP_SEQUITUR_RECENCY_H

#include <stdint.h>

struct recency {
	uint32_t *fen; /* Fenwick tree over stamps 1..cap: live stamps */
	uint32_t *sym; /* sym[stamp]: its symbol (any value; dead stamps keep theirs) */
	uint32_t cap;  /* a power of two, or 0 before the first use */
	uint32_t now;  /* the last stamp handed out */
	uint32_t n;    /* symbols in the list */
};

/* Move s to the front (adding it if *stamp is 0); *stamp is s's stamp and
 * is updated.  0, or -1 when out of memory (or out of stamps: 2^31 uses). */
int recency_touch(struct recency *r, uint32_t *stamp, uint32_t s);

/* The rank of the symbol whose stamp is stamp (live, nonzero). */
uint32_t recency_rank(const struct recency *r, uint32_t stamp);

/* The symbol at rank (below r->n). */
uint32_t recency_at(const struct recency *r, uint32_t rank);

void recency_free(struct recency *r);

#endif
