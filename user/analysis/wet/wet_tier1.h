/* SPDX-License-Identifier: MIT */
/*
 * wet_tier1.h — tier-1 value compression of a WET node (docs/wet.md,
 * "Tier 1"; the paper's section 3.2): the statements of a node that depend
 * on the same inputs are a group, and a group stores one pattern stream
 * (per instance, the index of its distinct value tuple) plus, per
 * statement, its unique values in first-seen order:
 *
 *     value(s, k) = uvals_s[pattern[k]]
 *
 * Contract
 *   - wet_tier1_groups_from_inputs forms the groups from the statements'
 *     input sets by the paper's rules.
 *   - A group is built streaming, one instance (one value per statement)
 *     at a time, into tier-2 streams (wet_stream.h): pattern, unique values,
 *     and direct values.  A group whose tuples stop repeating (more than
 *     half of the last 256 instances brought a new tuple, checked every
 *     256 instances, or more than WET_T1_MAX_TUPLES distinct) switches to
 *     storing its statements' values directly from that instance on: a
 *     pattern would only add an index per instance.  Memory while building:
 *     the distinct tuples seen (at most WET_T1_MAX_TUPLES) and the
 *     streams' builders.
 *   - Every value of a finished group is read back by (statement, instance)
 *     through the streams; reading moves their cursors (one thread at a
 *     time), and is cheapest in instance order, either direction.
 */
#ifndef WPP_WET_TIER1_H
#define WPP_WET_TIER1_H

#include <stddef.h>
#include <stdint.h>

#include "analysis/wet/wet_stream.h"

#define WET_T1_CHECK_EVERY 256
#define WET_T1_MAX_TUPLES  (1u << 20)
/* Unique values are read in pattern order, out of sequence: short segments
 * keep a read bounded. */
#define WET_T1_UVALS_SEG_LEN 64

/* Group the nstmts statements of a node.  sets holds each statement's input
 * set as nwords 64-bit words (bit i = input i), statement after statement.
 * Statements with equal sets share a group; a group whose set is a proper
 * subset of others' joins the smallest of them (the first on ties), which
 * also puts an input statement many groups read into exactly one group.
 * Writes group[s] (0 .. ngroups-1, numbered by first statement) and returns
 * ngroups, or -1 when out of memory. */
int wet_tier1_groups_from_inputs(uint32_t nstmts, uint32_t nwords, const uint64_t *sets,
				 uint32_t *group);

struct wet_t1_builder {
	uint32_t nstmts;
	uint64_t ninst;
	uint64_t switch_at; /* UINT64_MAX while the pattern is in use */
	/* Distinct tuples, row after row, and an open-addressing map of
	 * (tuple id + 1); freed at the switch to direct values. */
	uint64_t *tuples;
	uint32_t ntuples, cap_tuples;
	uint32_t ntuples_at_check; /* at the last check */
	uint32_t *map;
	uint32_t map_cap;
	struct wet_builder pattern;
	struct wet_builder *uvals;  /* nstmts */
	struct wet_builder *direct; /* nstmts, from the switch on */
};

struct wet_t1_group {
	uint32_t nstmts;
	uint64_t ninst;
	uint64_t switch_at;	    /* instances before it read through the pattern */
	struct wet_stream *pattern; /* switch_at indices */
	struct wet_stream **uvals;  /* nstmts streams of unique values */
	struct wet_stream **direct; /* nstmts streams of ninst - switch_at values, or NULL */
};

/* 0, or -1 when out of memory or nstmts is 0. */
int wet_t1_builder_init(struct wet_t1_builder *b, uint32_t nstmts);
/* One instance: values[s] for each statement.  0, or -1 out of memory. */
int wet_t1_builder_add(struct wet_t1_builder *b, const uint64_t *values);
/* Finish into g (the builder is reset).  0, or -1 out of memory. */
int wet_t1_builder_finish(struct wet_t1_builder *b, struct wet_t1_group *g);
void wet_t1_builder_abort(struct wet_t1_builder *b);

/* Statement s's value at instance k.  0, or -1 when out of range or a
 * stream fails to read. */
int wet_t1_value(struct wet_t1_group *g, uint32_t s, uint64_t k, uint64_t *v);
/* Tier-1 size in bits, counted as the paper does: ceil(log2 ntuples) bits
 * per pattern entry, 64 per unique or direct value. */
uint64_t wet_t1_bits(const struct wet_t1_group *g);
void wet_t1_group_free(struct wet_t1_group *g);

#endif
