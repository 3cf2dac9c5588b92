/* SPDX-License-Identifier: MIT */
/*
 * session.h — what every report command does first: load the .wpp file,
 * say in one line how intact it is, resolve every module's metadata and
 * refuse (one error line) when nothing could ever be attributed.
 *
 * File integrity policy (docs/cli.md): a file without END or with a torn
 * tail (the collector died) is decoded up to the tear with a one-line
 * warning and exit 3 (WPP_EXIT_INCOMPLETE); a chunk that is present but corrupt (bad checksum,
 * bad magic) is an error: the intact prefix is still reported, then exit 1.
 */
#ifndef WPP_DECODE_SESSION_H
#define WPP_DECODE_SESSION_H

#include <stdio.h>

#include "decode/decoder.h"
#include "decode/module_map.h"
#include "symbolizer/symbolizer.h"
#include "decode/trace_file.h"
#include "common/opt_error.h"

struct session {
	struct wpp_trace *trace;
	struct wpp_symbolizer *sym;
	struct wpp_modules *mods;
	int exit_status; /* what the command returns if nothing else fails */
};

/* 0, or an exit status after printing one error line.  Compressed batches
 * stay compressed and are decoded as readers walk them
 * (wpp_trace_load_on_demand), so memory follows the file, not the trace's
 * length: a command reads batch words through the decoder (decoder.h) or
 * batch_words.h, never from the batch references directly. */
int session_open(struct session *s, const char *path);
/* session_open() for a command that can do without attribution
 * (`info`'s counters): no usable metadata is a warning; still non-zero. */
int session_open_optional(struct session *s, const char *path);
void session_close(struct session *s);

/* Which threads a command looks at: each field -1 (any) or the value to
 * match.  gen is the image generation (a thread that exec()s keeps its
 * pid and tid and starts generation + 1). */
struct thread_filter {
	long pid, tid, gen;
};
#define THREAD_FILTER_ANY {-1, -1, -1}
int thread_selected(const struct thread_filter *f, const struct wpp_thread_trace *th);
/* A command found no thread to report on: with a filter given, that is a
 * mistake on the command line (one error line naming the filter; returns
 * WPP_EXIT_USAGE so a script cannot take a typo for success); without
 * one, the file holds no threads (a warning, unless its damage was
 * already reported; returns exit_status unchanged). */
int no_thread_selected(const char *cmd, const char *path, const struct thread_filter *f,
		       int exit_status);
/* What the listings (script, wet dump) do for every thread: fn(ctx, s, th)
 * for each thread f selects, in the file's order, with a blank line on
 * `between` (NULL: none) separating two threads.  The number of threads
 * listed, or -1 as soon as fn returns < 0 (no thread after it is listed). */
long session_each_thread(struct session *s, const struct thread_filter *f, FILE *between,
			 int (*fn)(void *ctx, struct session *s, const struct wpp_thread_trace *th),
			 void *ctx);
/* A listing's decoder for th (every path expanded to its blocks); with
 * heading not NULL, the thread's title line "== pid P tid T ==" ("== pid
 * P tid T (after exec) ==" for a later image) is printed on it first.
 * NULL without memory. */
struct wpp_decoder *session_listing_decoder(struct session *s, const struct wpp_thread_trace *th,
					    FILE *heading);
/* The filter as the command line gave it (" --pid P --tid T --gen G",
 * the fields given; "" for none), for messages. */
void thread_filter_text(const struct thread_filter *f, char *what, size_t len);

/* Commands that need the order of paths (wpp, hot, kpaths, script) refuse
 * a recording whose images of the threads f selects contain TUs built with
 * -fwpp-mode=count or ppp: their paths were counted, and the runtime wrote
 * each once with its count.  (Only those: a system-wide recording may hold
 * another program's count build.)  0, or WPP_EXIT_ERROR after one error
 * line naming the TU. */
int session_refuse_counts(struct session *s, const char *cmd, const char *path,
			  const struct thread_filter *f);
/* session_open(), then session_refuse_counts(): what a command needing
 * the order of paths opens its input with.  0, or the exit status (the
 * session closed, the one line said). */
int session_open_ordered(struct session *s, const char *cmd, const char *path,
			 const struct thread_filter *f);
/* The first TU of an image of the threads f selects (every thread when f
 * is NULL) for which pred holds, or NULL. */
const struct wpp_tu *session_find_tu(struct session *s, const struct thread_filter *f,
				     int (*pred)(const struct wpp_tu *));

/* Parse a non-negative decimal option value; -1 if malformed. */
long parse_count(const char *s);
/* The value of numeric option --NAME of command CMD into *out: 0, or -1
 * after "CMD: --NAME needs a number, not 'ARG'" was printed. */
int parse_count_opt(const char *cmd, const char *name, const char *arg, long *out);

/* Source position of a block: the block's first line, else the function's file. */
void block_position(const struct wpp_fn *fn, uint32_t block, const char **file, uint32_t *line);

#endif
