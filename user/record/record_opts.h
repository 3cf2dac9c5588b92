/* SPDX-License-Identifier: MIT */
/* record_opts.h — the command line of `wpptrace record`. */
#ifndef WPP_RECORD_OPTS_H
#define WPP_RECORD_OPTS_H

#include <sys/types.h>

#include "bpfcollect/bpfcollect.h"
#include "bpfcollect/perf_counters.h"
#include "kmod-free/shm_layout.h"

#define RECORD_MAX_PIDS 64

enum record_transport { RECORD_BPF = 0, RECORD_SHM = 1 };
/* --compress: BATCH chunks; BATCH_Z chunks all zstd (the smallest); BATCH_Z
 * chunks where a cheaper coder is used within a bytes budget (the
 * default; record_sink.h, RECORD_FAST_BYTES_PER_RECORD). */
enum record_compress {
	RECORD_COMPRESS_NONE = 0,
	RECORD_COMPRESS_ZSTD = 1,
	RECORD_COMPRESS_FAST = 2
};
/* --compress fast: the bytes per path record the batches may take where a
 * coder cheaper than zstd saves CPU (issue 23's target is 0.5 on the
 * geometric mean; this is per recording, heads included, with room for
 * the recordings zstd alone cannot bring under it: xz's decompression
 * takes 2.3).  0.5, not 0.4: the match stage's bare tokens of bzip2 -9
 * (0.48 under record) and xz -1 (0.48) then skip zstd, for 0.31 -> 0.34
 * and 0.42 -> 0.44 bytes a record over their workloads and a third off
 * bzip2 -9's collector (docs/benchmarks.md, "Cheaper probes");
 * --bytes-per-record sets another. */
#define RECORD_FAST_BYTES_PER_RECORD 0.5
/* --coder-thread: code chunks' second stage on a thread of its own when
 * a CPU is idle (record_idle.h), always, or never. */
enum record_coder_thread { RECORD_CODER_AUTO = 0, RECORD_CODER_ON = 1, RECORD_CODER_OFF = 2 };

struct record_opts {
	const char *output;		 /* -o, default "run.wpp" */
	enum record_transport transport; /* --transport, default bpf */
	struct wpp_shm_options shm;
	struct bc_options bpf;
	pid_t pids[RECORD_MAX_PIDS]; /* -p (bpf only) */
	int npids;
	int all;	   /* -a (bpf only) */
	double duration_s; /* -d, 0 = until the processes end or Ctrl-C */
	/* --snapshot-interval: seconds between two reads of a count build's
	 * counters (record_live_counts.h), what a killed one loses at most */
	double snapshot_interval_s;
	int quiet;
	int ready_fd;		 /* --ready-fd: told when recording begins (-1 = none) */
	int grammar;		 /* --grammar (or --grammar-wait/-builder): build grammars
				  * while recording; off by default */
	int grammar_algo;	 /* --grammar-builder: enum seq_algorithm (sequitur.h) */
	double grammar_wait_s;	 /* --grammar-wait: after the program, RECORD_GRAMMAR_WAIT_AUTO,
				  * RECORD_GRAMMAR_WAIT_ALL or seconds (>= 0) */
	int compress;		 /* --compress: RECORD_COMPRESS_* */
	int coder_thread;	 /* --coder-thread: RECORD_CODER_* */
	double bytes_per_record; /* --bytes-per-record: --compress fast's budget */
	/* --debug-discard-batches (a benchmark's yardstick, not for users):
	 * batches are drained and counted, then dropped: no path records
	 * counted, no coding, no BATCH chunk.  What the transport alone
	 * costs (docs/benchmarks.md, "The floor"). */
	int discard_batches;
	/* --debug-second-stage (tests): 0, or the codec (WC_CODEC_*) every
	 * chunk takes whatever it costs */
	uint32_t second_stage;
	uint32_t kpaths_k;	     /* -k K: build k-slab forests online (0 = off) */
	uint32_t kpaths_prune_nodes; /* --prune-nodes M: k-SF cap (0 = exact) */
	struct pc_options counters;  /* -e/-c/-F (bpf only); nevents 0 = none */
	char **argv;		     /* the program and its arguments, NULL with -p/-a */
};

/* --grammar-wait auto: as long again as the recording ran, at least 1 s */
#define RECORD_GRAMMAR_WAIT_AUTO (-1.0)
#define RECORD_GRAMMAR_WAIT_ALL	 (-2.0)

/* 0 = run, 1 = help was printed (exit 0), -1 = usage error (message printed). */
int record_parse_args(int argc, char **argv, struct record_opts *o);
/* A byte size as --ring-size takes it ("64K", "1M"; plain bytes otherwise)
 * into buf; returns buf. */
const char *record_size_text(uint32_t bytes, char *buf, size_t size);

#endif
