/* SPDX-License-Identifier: MIT */
/*
 * top_rows.h — one interval of `wpptrace top`: the paths that ran in it,
 * from counting builds (top_count.c) and tracing builds (top_trace.c)
 * alike, per process or merged per binary, sorted hottest first, and
 * printed as text or as one JSON line.
 */
#ifndef WPP_TOP_ROWS_H
#define WPP_TOP_ROWS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "record/top_tu.h"

struct top_row {
	pid_t pid;		 /* merged rows: the lowest pid */
	uint32_t nprocs;	 /* processes the row sums (1 unless merged) */
	const struct top_tu *tu; /* NULL: no TU of the process holds fid */
	const struct wpp_fn *fn; /* NULL: not resolvable */
	uint32_t fid;
	uint64_t id, count;
	uint32_t line_min, line_max; /* 0, 0: unknown (filled for the rows shown) */
};

struct top_rows {
	struct top_row *v;
	size_t n, cap;
	uint64_t total; /* path executions of every row added */
	pid_t *pids;	/* processes watched in the interval (with repeats) */
	size_t npids, pids_cap;
};

/* 0, or -1 without memory. */
int top_rows_add(struct top_rows *r, const struct top_row *row);
/* pid was watched in this interval (whether or not it ran a path). */
int top_rows_saw(struct top_rows *r, pid_t pid);
/* Rows of one TU function and path summed over processes (nprocs says
 * how many); rows without a function stay per process. */
void top_rows_merge(struct top_rows *r);
/* Hottest first; the source line spans of the first `shown` rows. */
void top_rows_sort(struct top_rows *r, size_t shown);
/* Distinct processes watched in the interval. */
unsigned top_rows_processes(struct top_rows *r);
void top_rows_free(struct top_rows *r);

struct top_header {
	long interval;
	double seconds;
	unsigned processes;
	int tracing;	   /* tracing builds are watched: say what was lost */
	uint64_t lost;	   /* events (trace words) lost in the interval */
	unsigned skipped;  /* processes top cannot read (another user's) */
	unsigned untraced; /* tracing builds not watched (no BPF privilege) */
};

/* The interval: a header line and up to `shown` rows (0: all), or one
 * JSON line; merged: rows per binary. */
void top_rows_print(const struct top_rows *r, const struct top_header *h, size_t shown, int json,
		    int merged);

#endif
