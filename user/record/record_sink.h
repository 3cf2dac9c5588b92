/* SPDX-License-Identifier: MIT */
/*
 * record_sink.h — where every transport's events end up: .wpp chunks
 * (PROCESS, MODULE, THREAD, BATCH, GAP, END) plus the online analyses
 * (user/collect/online.h: grammars, k-slab forests) fed as batches arrive.
 *
 * Lifecycle, the same for every transport:
 *   record_sink_open()  -> output file, INFO chunk, online analyses
 *   record_sink_thread/batch/gap()  (and the transport's own PROCESS/MODULE)
 *   record_sink_close() -> online results, END, summary line
 * or record_sink_abort() when the run could not start.
 */
#ifndef WPP_RECORD_SINK_H
#define WPP_RECORD_SINK_H

#include "record/record_idle.h"
#include "record/record_opts.h"
#include "kmod-free/shm_collector.h"
#include "common/wppfile.h"

struct wpp_online;
struct wpp_batch_group;

/* Batches of one thread coded as one stream: one BPF batch, or 8 default
 * shm batches.  Bigger groups code smaller (docs/benchmarks.md,
 * "Compressing batches") but hold more words in memory, lost if the
 * collector is killed, and the match stage's copy of them then no longer
 * stays in a 512 KiB L2: lua's coding ran 15 % slower in groups of 256 Ki
 * words (docs/benchmarks.md, "The collector's writes and wake-ups"). */
#define RECORD_GROUP_WORDS 65536u

/* Over shm what the collector has coded is held, and written when it is
 * idle only once it is this old: the group of batches being filled, and
 * the file's chunks (wppw_hold, up to RECORD_HOLD_BYTES), so that an idle
 * moment between two wake-ups (a pass per half ring) does not cut a group
 * short or cost a write().  A collector killed loses them besides what
 * its rings held: at most one group, the coder thread's chunk and the
 * held bytes, none older than RECORD_HOLD_NS.  Over BPF the sink flushes
 * after each run of batches (record_sink_flush) and holds nothing. */
#define RECORD_HOLD_BYTES (64u << 10)
#define RECORD_HOLD_NS	  (50u * 1000 * 1000)

struct record_sink {
	struct wpp_writer *w;
	struct wpp_chunk_end totals;
	uint64_t processes, threads, modules;
	int failed;		   /* a write failed: stop recording, keep the program running */
	struct wpp_online *online; /* NULL: no online analyses */
	struct record_online_cfg *online_cfg;
	/* Batches of one thread held to be written as one BATCH_Z chunk
	 * (NULL: stored raw, --compress none), until they reach group_words
	 * words, another thread's batch or any other chunk comes, or the
	 * transport goes idle (record_sink_flush). */
	struct wpp_batch_group *group;
	uint64_t group_words;
	uint64_t group_ns;	 /* when the group took its first batch (0: empty) */
	int holding;		 /* RECORD_HOLD_NS applies (shm) */
	double bytes_per_record; /* the budget: 0 (--compress zstd) or --bytes-per-record */
	/* --coder-thread: RECORD_CODER_*; with auto, the machine's idle
	 * CPUs say when the group codes on its second thread */
	int coder_thread;
	struct record_idle idle;
	int discard;	      /* --debug-discard-batches: batches counted, then dropped */
	uint64_t batch_bytes; /* bytes of BATCH/BATCH_Z chunks written */
	uint64_t records;     /* path records in them (REPEATs expanded) */
	/* The processes whose counts are read periodically, and at detach
	 * (record_live_counts.h); NULL: none */
	struct record_live_counts *live_counts;
};

/* Create the output and write INFO (transport_lines: "key=value\n" lines).
 * 0, or -1 with a message printed (nothing left behind). */
int record_sink_open(struct record_sink *rs, const struct record_opts *o,
		     const char *transport_lines);
/* Transport-neutral events: written to the file and fed to online analyses.
 * Return 0 or -errno (and set rs->failed). */
int record_sink_thread(struct record_sink *rs, const struct wpp_chunk_thread *t);
int record_sink_batch(struct record_sink *rs, const struct wpp_chunk_batch *b,
		      const uint64_t *words);
int record_sink_gap(struct record_sink *rs, const struct wpp_chunk_gap *g);
/* Write the batches held for compression (before any other chunk, and
 * whenever the transport has nothing more for now).  0 or -1 (failed). */
int record_sink_flush(struct record_sink *rs);
/* The transport has nothing more for now: record_sink_flush once what is
 * held has waited RECORD_HOLD_NS (at once for a sink that holds nothing:
 * without wppw_hold, over BPF).  0 or -1 (failed). */
int record_sink_idle(struct record_sink *rs);
/* Finish online analyses, write END, close, say what was recorded (extra is
 * appended to the summary line).  0, or 1 if the file is incomplete. */
int record_sink_close(struct record_sink *rs, const struct record_opts *o, const char *extra);
/* " (collector CPU S s, max RSS N MB<more>)" for the summary line: this
 * process's own CPU time and peak RSS so far.  more may be "". */
void record_usage_text(char *buf, size_t size, const char *more);
/* The run did not start: drop the new output (not yet in place: a file
 * that had its name keeps it, out_file.h). */
void record_sink_abort(struct record_sink *rs, const struct record_opts *o);

/* The shm collector's callbacks bound to rs. */
struct wpp_shm_sink record_sink_ops(struct record_sink *rs);
/* Callbacks that accept and drop everything (after the output failed). */
extern const struct wpp_shm_sink record_sink_drop;

#endif
