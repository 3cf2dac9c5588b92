/* SPDX-License-Identifier: MIT */
/*
 * wet_obtain.h — a thread's WET for the `wpptrace wet` commands: the one
 * stored in the recording (wet_store.h), else built from its decoded
 * stream (wet_build.h) and stored when the file can take it.  Building
 * first collects the pages the process's other threads store to: their
 * loads' writers are unknown (docs/wet.md, "Threads").
 */
#ifndef WPP_CLI_WET_OBTAIN_H
#define WPP_CLI_WET_OBTAIN_H

#include "decode/session.h"
#include "analysis/wet/wet_build.h"

struct wet_obtain {
	const char *name; /* the command, for messages */
	int build_cmd;	  /* `wet build`: verify what is stored; store what is
			   * built or say why not */
	long shadow_mb;	  /* --wet-shadow-mb, or -1: the builder's default */
	int lazy;	  /* a stored WET's streams parsed when first read (a query
			   * that reads a few of them) */
};

enum wet_origin {
	WET_BUILT,	   /* built, not stored (read-only file, no END, ...) */
	WET_READ,	   /* read from the recording */
	WET_STORED,	   /* built and stored */
	WET_BUILT_DAMAGED, /* built, not stored: the recording is damaged */
};

/* The WET of thread th of the recording at path: stored, else built (and
 * stored when the file can take it: `wet build` insists, a query does
 * not).  *secs: the build's time (0 when read).  NULL after an error
 * line. */
struct wet_thread *wet_obtain(const struct wet_obtain *o, struct session *s, const char *path,
			      const struct wpp_thread_trace *th, double *secs,
			      enum wet_origin *stored);

/* Seconds on the monotonic clock. */
double wet_now(void);

#endif
