/* SPDX-License-Identifier: MIT */
/*
 * tpp_quality.h — how well a targeted-path-profiling run's profile matches
 * a full Ball-Larus profile of the same run: the accuracy of definite flow
 * (AoDF, Joshi, Bond and Zilles, CGO 2004, section 5), per function.
 *
 * Both profiles are lists of (function key, path id, executions, length
 * in blocks); entries of one path may repeat (per process image) and are
 * summed.  For every path, the TPP profile's excess over the reference is
 * overcount and its shortfall undercount, each weighted by the path's
 * length in blocks (its definite flow):
 *     AoDF = 100 % - over % - under %   of the reference's total weight.
 * Cold paths, which a TPP run counts only together, are undercounts.
 * Pure arithmetic, no I/O, so it is unit-tested on hand-worked figures.
 */
#ifndef WPP_REPORT_TPP_QUALITY_H
#define WPP_REPORT_TPP_QUALITY_H

#include <stddef.h>
#include <stdint.h>

struct tppq_path {
	uint64_t fn_key; /* the function's stable id */
	uint64_t id;	 /* Ball-Larus path id */
	uint64_t count;
	uint32_t nblocks;
};

struct tppq_fn {
	uint64_t fn_key;
	uint64_t ref_exec, tpp_exec; /* executions in each profile */
	uint64_t total, over, under; /* weights: executions x blocks (saturating) */
	uint64_t cold, pieces;	     /* left to the caller: the TPP run's cold
				      * counter and loop pieces, */
	uint64_t counted, obvious;   /* its paths counted by a recording point
				      * and by a defining edge's counter, */
	uint64_t counters;	     /* and the counters the function owns */
};

/* Per function of either list, by increasing key (ref and tpp are sorted
 * in place).  0, or -1 out of memory. */
int tppq_compare(struct tppq_path *ref, size_t nref, struct tppq_path *tpp, size_t ntpp,
		 struct tppq_fn **out, size_t *nout);

/* The AoDF of these weights, percent; 100 when total is 0 and nothing is
 * over, and never below 0. */
double tppq_aodf(uint64_t total, uint64_t over, uint64_t under);

#endif
