/* SPDX-License-Identifier: MIT */
/*
 * ppp_compact.h — pull a preferential numbering's ids down into its holes.
 *
 * The numbering (ppp.h) decides each edge's weight at one node, knowing
 * only what lies below (or above) it, so holes it leaves stay.  Given the
 * weights, the interesting paths' ids and which interesting paths take
 * each edge, this repeatedly takes the path with the largest id and looks
 * for an edge on it whose interesting paths can all move down by one
 * common amount onto ids no other interesting path holds, staying >= 0;
 * changing that edge's weight by the amount moves exactly those paths.
 * The lowest landing over the path's edges wins (fewest paths moved on a
 * tie).  It stops when the largest id cannot move or the budget is spent.
 *
 * Every move is checked against all ids, so ids stay distinct; the
 * smallest id stays 0 (an edge holding it cannot move down) and the
 * largest only falls: the interval can only shrink.  Paths outside the
 * set move too, which costs nothing: the profiler tells them apart with
 * the Ball-Larus register whatever their preferential id.
 *
 * Budget: decremented by the ids looked at; the caller's bound.
 */
#ifndef WPP_INSTRUMENT_PPP_COMPACT_H
#define WPP_INSTRUMENT_PPP_COMPACT_H

#include <stdint.h>

struct wpp_ppp_compact_in {
	uint32_t npaths, nedges;
	/* the interesting paths taking edge e: epaths[estart[e] .. estart[e + 1]) */
	const uint32_t *estart, *epaths;
};

/* pid: per interesting path, its id (distinct, >= 0, the smallest 0);
 * weight: per edge.  Both updated.  Returns 0, or -1 out of memory (pid
 * and weight then unchanged or consistently moved). */
int wpp_ppp_compact(const struct wpp_ppp_compact_in *in, int64_t *pid, int64_t *weight,
		    int64_t *budget);

#endif
