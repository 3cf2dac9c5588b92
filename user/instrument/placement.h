/* SPDX-License-Identifier: MIT */
/*
 * placement.h — where the path register is incremented.
 *
 * Only the chords of a maximum-weight spanning tree of the DAG (undirected,
 * with a virtual EXIT->ENTRY edge forced into the tree) carry code.  With
 * potentials phi over the tree (phi(ENTRY) = phi(EXIT) = 0, phi(dst) =
 * phi(src) + val on tree edges) every edge gets
 *     inc(e) = val(e) + phi(src) - phi(dst)   (mod 2^64),
 * which is 0 on tree edges, and the incs along any ENTRY->EXIT path sum to
 * the path's id.  Heavier edges (weights.h) are preferred for the tree, so
 * hot edges carry no code.
 */
#ifndef WPP_INSTRUMENT_PLACEMENT_H
#define WPP_INSTRUMENT_PLACEMENT_H

#include "instrument/dag.h"

/* weight[e] for every DAG edge (larger = hotter).  Call after numbering.
 * Sets edges[].in_tree and edges[].inc.  Returns 0 or -1 (allocation). */
int wpp_dag_place(struct wpp_dag *d, const double *weight);

/* The same potentials for any other edge values on the tree wpp_dag_place
 * chose (e.g. preferential numbering's weights, ppp.h, whose register must
 * be updated on the same edges as the Ball-Larus one): inc[e] = val[e] +
 * phi(src) - phi(dst) mod 2^64, 0 on tree edges, summing along every
 * ENTRY->EXIT path to the path's sum of val.  Returns 0 or -1 (allocation). */
int wpp_dag_place_values(const struct wpp_dag *d, const uint64_t *val, uint64_t *inc);

#endif
