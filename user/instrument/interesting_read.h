/* SPDX-License-Identifier: MIT */
/*
 * interesting_read.h — interesting-path sets (wpp/interesting.h) read for
 * preferential path profiling: per function, the Ball-Larus ids PPP
 * numbers compactly.  Several files make one set (their union, counts
 * summed); each may be a recorded set (`wpptrace interesting`) or a
 * hand-written `FUNCTION PATH_ID` list.  LLVM-independent: the driver
 * checks the files with it before compiling, the pass reads them per
 * translation unit, the unit tests fuzz it.
 *
 * The files are untrusted: a malformed line, a number out of range,
 * functions or ids out of order, or two files disagreeing on a
 * function's edge count make the load fail with one reason naming the
 * file and line; nothing half-read is used.
 */
#ifndef WPP_INSTRUMENT_INTERESTING_READ_H
#define WPP_INSTRUMENT_INTERESTING_READ_H

#include <stddef.h>
#include <stdint.h>

struct wpp_interesting_fn {
	uint64_t stable_id; /* 0 when by_name */
	const char *name;
	const char *source; /* its unit's main source file; NULL when by_name */
	uint32_t nedges;    /* 0 when by_name */
	int by_name;	    /* from a hand-written list: matched by name alone */
	uint32_t nids;
	const uint64_t *ids;	/* Ball-Larus ids, increasing, distinct */
	const uint64_t *counts; /* executions per id (0 when unknown) */
	/* by_name: the lines naming it (repeats included), and where each id
	 * was first listed: line number, and file as an index into files */
	uint32_t nlines;
	const uint32_t *list_lines, *list_files;
};

struct wpp_interesting {
	/* recorded functions by increasing stable id, then hand-written ones
	 * by name */
	struct wpp_interesting_fn *fns;
	size_t nrecorded, nfns;
	/* recorded functions by name, then source (the stale check) */
	const struct wpp_interesting_fn **by_name;
	uint64_t *id_store, *count_store;
	uint32_t *line_store, *file_store;
	char *name_store;
	const char **files; /* the names the files were given, in order */
	size_t nfiles;
};

/* The union of the files (paths[0..n)).  0, or -1 with why ("FILE: line
 * N: reason", or an I/O error); s is then empty. */
int wpp_interesting_load(struct wpp_interesting *s, const char *const *paths, size_t n, char *why,
			 size_t whylen);
/* The same from buffers (tests, fuzzing); names[k] labels texts[k] in
 * errors. */
int wpp_interesting_parse(struct wpp_interesting *s, const char *const *texts, const size_t *lens,
			  const char *const *names, size_t n, char *why, size_t whylen);
void wpp_interesting_free(struct wpp_interesting *s);
/* The source file of the first recorded function called name (as set
 * files write it), or NULL: none recorded (a hand-written list has no
 * sources). */
const char *wpp_interesting_source_of(const struct wpp_interesting *s, const char *name);

/* What the set says about one function of the build being compiled. */
enum wpp_interesting_match {
	WPP_INTERESTING_NONE,  /* not in the set: no interesting paths */
	WPP_INTERESTING_FOUND, /* *ids: its interesting ids */
	WPP_INTERESTING_STALE, /* recorded from another build of it */
};

/*
 * Look up the function (stable id, DAG edge count, linkage name, its
 * unit's main source file written as the file writes it, wpp/interesting.h):
 * its recorded entry when the id and edge count match, the union with a
 * hand-written entry of its name.  On FOUND, *ids is malloc'd (caller
 * frees) with *n increasing distinct ids, and, when counts is not NULL,
 * *counts (malloc'd too) their executions as the set records them (0
 * where it does not).  STALE when the recorded set has
 * the name and source under another id, or the id with another edge
 * count: the function's entry cannot be trusted, whatever else names it.
 * -1 when out of memory.
 */
int wpp_interesting_lookup(const struct wpp_interesting *s, uint64_t stable_id, uint32_t nedges,
			   const char *name, const char *source, uint64_t **ids, uint64_t **counts,
			   size_t *n);

/* The hand-written entry of that name, or NULL (where its ids came from,
 * for messages: a listed id past the function's paths, a listed name no
 * function of the build has). */
const struct wpp_interesting_fn *wpp_interesting_listed(const struct wpp_interesting *s,
							const char *name);

#endif
