/* SPDX-License-Identifier: MIT */
/*
 * interesting_set.h — the paths recordings executed, per function, written
 * as an interesting-path set (wpp/interesting.h) for preferential path
 * profiling (`wppcc --wpp-interesting`): all of them, those executed at
 * least C times, the N hottest over all recordings, or, both given, the N
 * hottest of those executed at least C times (a comment line of the file
 * says which).  Functions are keyed
 * by stable id, so the same source function seen in several processes,
 * binaries or recordings is summed.  Paths of blocks-mode code have no
 * Ball-Larus ids and are left out.
 */
#ifndef WPP_REPORT_INTERESTING_SET_H
#define WPP_REPORT_INTERESTING_SET_H

#include <stdint.h>
#include <stdio.h>

#include "report/profile.h"

struct interesting_set;

struct interesting_select {
	uint64_t top;	    /* keep the N hottest paths (0: no limit) */
	uint64_t min_count; /* keep paths executed at least this often */
};

struct interesting_stats {
	uint64_t functions, paths; /* written */
	uint64_t executed;	   /* distinct paths the recordings executed */
	uint64_t conflicting;	   /* functions left out: one stable id, two DAGs */
};

struct interesting_set *interesting_set_new(void);
void interesting_set_free(struct interesting_set *s);
/* Add p's paths (p may be closed afterwards).  0, or -1 when out of memory. */
int interesting_set_add(struct interesting_set *s, const struct rpt_profile *p);
/* Write the selected paths; comment lines name the inputs (source) and
 * the selection.
 * 0, or -1 on a write error or out of memory (the caller reports it). */
int interesting_set_write(struct interesting_set *s, const struct interesting_select *sel,
			  FILE *out, const char *source, struct interesting_stats *st);

#endif
