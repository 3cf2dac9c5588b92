/* SPDX-License-Identifier: MIT */
/*
 * edge_profile_read.h — an edge profile file (wpp/edge_profile.h) read
 * for placement: per function, how often each DAG edge ran in a recording.
 * LLVM-independent (the driver checks a profile with it before compiling,
 * the pass reads it per translation unit, the unit tests fuzz it).
 *
 * The file is untrusted: any malformed line, number out of range, function
 * out of order or edge count that does not match makes the load fail with
 * one reason naming the line; nothing half-read is used.
 */
#ifndef WPP_INSTRUMENT_EDGE_PROFILE_READ_H
#define WPP_INSTRUMENT_EDGE_PROFILE_READ_H

#include <stddef.h>
#include <stdint.h>

#include "instrument/dag.h"

struct wpp_edge_prof_edge {
	uint32_t src, dst, kind;
	uint64_t count;
};

struct wpp_edge_prof_fn {
	uint64_t stable_id;
	const char *name;
	const char *source; /* as the file writes it; NULL in a version 1 file */
	uint32_t nedges;
	const struct wpp_edge_prof_edge *edges; /* metadata edge order */
};

struct wpp_edge_prof {
	struct wpp_edge_prof_fn *fns; /* by increasing stable id */
	size_t nfns;
	/* every function by name, then source (the stale check) */
	const struct wpp_edge_prof_fn **by_name;
	struct wpp_edge_prof_edge *edge_store;
	char *name_store;
};

/* 0, or -1 with why ("LINE: reason", or an I/O error); p is then empty. */
int wpp_edge_prof_load(struct wpp_edge_prof *p, const char *path, char *why, size_t whylen);
/* The same from a buffer (tests, fuzzing). */
int wpp_edge_prof_parse(struct wpp_edge_prof *p, const char *text, size_t len, char *why,
			size_t whylen);
void wpp_edge_prof_free(struct wpp_edge_prof *p);

const struct wpp_edge_prof_fn *wpp_edge_prof_find(const struct wpp_edge_prof *p,
						  uint64_t stable_id);
/* 1 if the profile has a function of that name from that source file (the
 * translation unit's main source as given to the compiler, source_len
 * bytes, compared as the file writes it) under any id; in a version 1
 * file, of that name from any file. */
int wpp_edge_prof_has_name(const struct wpp_edge_prof *p, const char *name, const char *source,
			   size_t source_len);

/* The source file of the profile's first function called name (as the
 * file writes it), or NULL: none, or a version 1 file. */
const char *wpp_edge_prof_source_of(const struct wpp_edge_prof *p, const char *name);

/*
 * Placement weights for d (numbered) from f, in place: w holds a static
 * estimate (any non-negative values, e.g. wpp_weights_static) and becomes
 * the measured count of each DAG edge, ties broken by that estimate, so
 * edges that never ran keep the static order.  Returns 0 when applied, 1
 * when f's edges are not d's (another build of the function), -1 when out
 * of memory; w is untouched unless 0.
 */
int wpp_edge_prof_apply(const struct wpp_edge_prof_fn *f, const struct wpp_dag *d, double *w);

/* The measured count of each edge of d (numbered) into train[d->nedges]
 * (TPP's training profile, tpp.h).  Returns like wpp_edge_prof_apply;
 * train is untouched unless 0. */
int wpp_edge_prof_counts(const struct wpp_edge_prof_fn *f, const struct wpp_dag *d,
			 uint64_t *train);

#endif
