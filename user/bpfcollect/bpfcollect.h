/* SPDX-License-Identifier: MIT */
/*
 * bpfcollect.h — the BPF transport's collector library: loads the BPF
 * programs (bpf/wpp_transport.bpf.c), attaches them to instrumented
 * objects, drains the per-CPU ring buffers and hands the caller a clean,
 * ordered event stream whose items are exactly the .wpp chunk structs
 * (wpp/wpp_file.h).  The caller (wpptrace record) writes them out.
 *
 * Guarantees of the event stream, per thread stream (one thread in one
 * process image):
 *   - batches arrive in the order the thread published them, regardless of
 *     which CPU's ring carried them;
 *   - every batch the probe saw is either delivered whole or accounted for
 *     by a gap event placed exactly where the lost batches were published
 *     (before the next delivered batch, or before the thread's exit);
 *   - a thread's START precedes its batches, its EXIT follows them; a
 *     process event (fork/exec/attach) precedes its threads' events.
 *
 * Threading: callbacks run on the drain thread(s) but never concurrently
 * (one lock serialises them), so a callback may write a file without
 * locking.  All bc_* calls except bc_counters() must come from one thread.
 *
 * Errors: functions return 0 / negative errno, or NULL; the library has
 * already printed one "wpptrace: " line saying what failed and why.
 */
#ifndef WPP_BPFCOLLECT_H
#define WPP_BPFCOLLECT_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "wpp/wpp_file.h"

/* Defaults (docs/bpf-transport.md, "Why these defaults").  Back-pressure
 * makes recording lossless whatever the ring size, so a ring only has to
 * absorb bursts between two drain rounds: 4 MiB per CPU.  A ring that
 * fits the last-level cache takes the program's copies at cache speed and
 * costs a quarter of 16 MiB's creation (the kernel allocates it whole):
 * 6-8 % more path records per collector CPU second than 16 MiB and 15 ms
 * less start-up per `record` (docs/benchmarks.md, "Record's end, the
 * rings' size").  (With drop_when_full, bigger rings lose less.) */
#define BC_DEFAULT_RING_BYTES (4u << 20)
/* The batch `wpptrace record` asks of a program it starts (WPP_BUFFER_WORDS,
 * unless --buffer-words says otherwise).  Every batch costs the program a
 * uprobe trap, about 14 us here, so 64 Ki words trap an eighth as often as
 * the runtime's own default of 8 Ki: bzip2 -9's system time 0.08-0.11 s ->
 * 0.02-0.05 s, lua's 0.75 s -> 0.14 s (docs/bpf-transport.md).  Processes
 * that started without the tracer (-p, -a) keep the runtime's default: a
 * quiet server would otherwise hold 512 KiB per thread back from a
 * recording that ends before they exit. */
#define BC_RECORD_BATCH_WORDS 65536u
/* Twice that (a batch may run two slack words past its size): a batch fits
 * one record, which the collector hands on without copying.  Records are
 * sized to their batch, so a large maximum wastes no ring space.  Lowered
 * to fit twice in a small ring. */
#define BC_DEFAULT_RECORD_WORDS (2u * BC_RECORD_BATCH_WORDS)
#define BC_MAX_RECORD_WORDS	(1u << 17)

/* max_threads for a program `record` starts (record_bpf.c). */
#define BC_PROGRAM_MAX_THREADS 8192u

struct bc_options {
	uint32_t ring_bytes;	/* per-CPU batch ring; power of two; 0 = default */
	uint32_t record_words;	/* most words in one ring record; 0 = default */
	uint32_t drain_threads; /* 0 = one per CPU; at most the number of CPUs */
	uint32_t max_threads;	/* threads at once (the thread and position
				 * tables' entries); 0 = 65536 */
	/* Testing knob: pause this long after every drain round, to play a
	 * slow consumer (overload tests).  0 in normal use. */
	uint32_t drain_delay_us;
	/* true: trace only processes added with bc_trace_pid() and their
	 * descendants.  false: system-wide (wpptrace record -a). */
	bool filter_pids;
	/* true: after exec of a traced process, attach to the new executable
	 * if it carries wpptrace probes (static runtime).  Always true with
	 * filter_pids == false. */
	bool attach_on_exec;
	/* false (default): back-pressure — a process publishing into a ring
	 * that is half full is stopped until the collector has drained the
	 * rings, so nothing is lost (docs/bpf-transport.md).  true: a full
	 * ring drops batches instead (counted, gaps in the stream). */
	bool drop_when_full;
	/* Hand a thread's batches to the batch callback in runs of up to this
	 * many words, each followed by the flush callback, so that a sink
	 * can store a run as one chunk (the rings interleave threads).  A run
	 * is handed on before anything else about its thread, and after
	 * about 100 ms at most (user/bpfcollect/hold.c).  0 (default): each
	 * batch at once, no flush callback. */
	uint32_t hold_words;
	/* true: at the end of collection, hand on what each thread still
	 * alive recorded since its last batch, read from its memory, and
	 * mark it taken there so a later attach does not record it again
	 * (detach_take.h).  false (a viewer: top): those words stay for the
	 * next collector. */
	bool take_at_detach;
};

enum bc_process_event {
	BC_PROCESS_NEW = 1,  /* fork, exec or attach: ev->proc.flags says which */
	BC_PROCESS_EXIT = 2, /* last thread exited; proc.pid and exit_status */
};

struct bc_process {
	enum bc_process_event event;
	struct wpp_chunk_process proc; /* exe_len/cmdline_len describe the tails */
	const char *exe;	       /* NUL-terminated, proc.exe_len bytes with NUL */
	const char *cmdline;	       /* proc.cmdline_len bytes, NUL-separated */
	int exit_status;	       /* BC_PROCESS_EXIT: wait(2) status */
};

struct bc_counters {
	uint64_t batches; /* delivered to the batch callback */
	uint64_t words;
	uint64_t lost_batches; /* counted by BPF (ring full, unreadable words,
				* thread table full) */
	uint64_t lost_words;
	uint64_t lost_reserve;	 /* of lost_batches: ring full */
	uint64_t lost_read;	 /* of lost_batches: bpf_probe_read_user failed */
	uint64_t lost_untracked; /* of lost_batches: no thread slot, no gap event */
	uint64_t lost_untracked_words;
	uint64_t lifecycle_lost; /* fork/exec/exit/register records dropped */
	uint64_t probe_hits;
	uint64_t records;	   /* ring records consumed */
	uint64_t gaps;		   /* gap events delivered */
	uint64_t unseen_batches;   /* published before the probe was attached, in
				    * a process not attached mid-run (a gap of
				    * unknown size at its thread's start) */
	uint64_t pauses;	   /* back-pressure stops sent by the probe */
	uint64_t pause_failures;   /* stops that could not be sent (then a full
				    * ring drops, as with drop_when_full) */
	uint64_t continues;	   /* SIGCONTs the collector sent */
	uint64_t paused_ns;	   /* time stopped, from each continued process's
				    * latest stop (a lower bound) */
	uint64_t salvaged_batches; /* copied from threads that ended with words
				    * unpublished (WPP_BATCH_SALVAGED) */
	uint64_t salvaged_words;
	uint64_t salvage_skipped;    /* levels found mid-switch (words published) */
	uint64_t salvage_unreadable; /* threads or levels whose state could not be
				      * read (not mapped, or paged out): what they
				      * held unpublished is lost, uncounted */
	uint64_t position_full;	     /* threads the position table had no room for:
				      * none of theirs could be salvaged */
	uint64_t taken_batches;	     /* take_at_detach: live threads' unpublished words */
	uint64_t taken_words;	     /* (after what an earlier collector took) */
	uint64_t taken_dropped;	     /* words an earlier collector took at its detach */
	uint64_t take_skipped;	     /* live threads whose words could not be taken */
};

struct bc_callbacks {
	void *ctx;
	void (*process)(void *ctx, const struct bc_process *p);
	void (*thread)(void *ctx, const struct wpp_chunk_thread *t);
	/* path: the object holding the TU (NUL-terminated; "" if unknown) */
	void (*module)(void *ctx, const struct wpp_chunk_module *m, const char *path);
	void (*batch)(void *ctx, const struct wpp_chunk_batch *b, const uint64_t *words);
	void (*gap)(void *ctx, const struct wpp_chunk_gap *g);
	/* The batches since the last flush are one run of one thread (with
	 * hold_words; may be NULL). */
	void (*flush)(void *ctx);
};

struct bc_collector;

/* Something that rides along with the transport (the counters,
 * user/bpfcollect/perf_counters.h): told about every object the probes
 * are attached to, and given a turn to drain its own ring on drain thread 0
 * with the collector's lock held (so its callbacks may write the same file
 * as the transport's).  Both hooks run with the lock held. */
struct bc_extension {
	void *ctx;
	void (*object_attached)(void *ctx, const char *path);
	void (*drain)(void *ctx);
};

/* Install before anything is attached (right after bc_open). */
void bc_set_extension(struct bc_collector *c, const struct bc_extension *ext);
/* The traced-pid set's map, to be shared with other BPF objects. */
int bc_traced_pids_fd(struct bc_collector *c);
/* The threads' positions (wpp_position_records.h), likewise: filled by the
 * thread probe and, for threads met mid-run, when their process is attached
 * (-p, -a, a late hello). */
int bc_positions_fd(struct bc_collector *c);
/* The image generation the collector gives pid now (lock held: from an
 * extension hook). */
uint32_t bc_generation_locked(struct bc_collector *c, uint32_t pid);

/* Load and verify the BPF programs and create the rings.  Missing
 * privilege or kernel features: NULL after one line naming what is missing
 * and suggesting --transport=shm. */
struct bc_collector *bc_open(const struct bc_options *opt, const struct bc_callbacks *cb);

/* Attach the batch and register probes in an ELF object (an executable
 * linked with the static runtime, or libwpprt.so) for every process that
 * maps it (filtered by the traced set when filter_pids).  Attaching the
 * same object twice is a no-op.  -ENOENT (quietly, no message) when the
 * object carries no wpptrace probes. */
int bc_attach_object(struct bc_collector *c, const char *path);

/* Attach to a program about to be started: the executable (static
 * runtime) and the libwpprt it will load (DT_NEEDED, resolved through its
 * run path like the loader does).  -ENOENT quietly when neither carries
 * probes (the program is not instrumented, or loads the runtime later). */
int bc_attach_program(struct bc_collector *c, const char *path);

/* Trace a process: add it to the traced set, report it (ATTACHED, with its
 * current threads) and attach to every instrumented object it maps.  Used
 * for -p PID and for a child the recorder started (call before the child
 * execs: then it is reported by its exec event, not as attached). */
int bc_trace_pid(struct bc_collector *c, pid_t pid, bool announce);

/* System-wide: attach to every instrumented object mapped by any running
 * process (a scan of /proc/<pid>/maps); later execs attach on the fly.
 * found (may be NULL) is told each running process that maps one (with
 * the collector's lock held: it must not call back into c). */
int bc_trace_all(struct bc_collector *c, void (*found)(pid_t pid, void *arg), void *arg);

/* Start the drain threads.  Events flow to the callbacks from now on. */
int bc_start(struct bc_collector *c);

/* The options in force, defaults filled in. */
void bc_effective_options(const struct bc_collector *c, struct bc_options *out);

/* Snapshot of the counters; callable from any thread at any time. */
void bc_counters(struct bc_collector *c, struct bc_counters *out);

/* True once every process traced with filter_pids has exited and its
 * events have been delivered (the recorder then finishes). */
bool bc_all_exited(struct bc_collector *c);

/* Every process traced has ended and been reaped, and nothing can start
 * another (a program record started, with all it started: record is their
 * subreaper).  bc_finish then does not wait for the probes' links to close
 * (grace periods, 10-20 ms each): a process of their own closes them, and
 * may outlive the caller by that long (close_later.h). */
void bc_traced_gone(struct bc_collector *c);

/* Stop the drain threads, drain what is left, close every open stream
 * (reporting still-pending loss as gaps and the thread as exited only if
 * it really did) and fill the counters.  Safe to call once. */
int bc_finish(struct bc_collector *c, struct bc_counters *final);

/* Detach and free. */
void bc_close(struct bc_collector *c);

/* One line "lost N events in M batches (...)" or nothing when lossless. */
void bc_report_loss(const struct bc_counters *k);

/* Ring sizing against the batch size (both callable before bc_open).  A
 * batch goes into one CPU's ring whole, in one probe call, or is lost: a
 * ring that cannot take it when empty loses every such batch, whatever
 * drop_when_full says (load.c).  record_words as in bc_options (0 = the
 * default, which shrinks with the ring); nwords = the words of the batch
 * (a runtime buffer of N words publishes up to N + WPP_SLACK_WORDS).
 * bc_ring_fits_batch: 1 the ring can accept such a batch, 0 it never can,
 * -1 ring_bytes or record_words are invalid (bc_open says why).
 * bc_ring_min_bytes: the smallest valid ring that can (0: none up to 2 GiB).
 * bc_open uses BC_DEFAULT_RING_BYTES when ring_bytes is 0. */
int bc_ring_fits_batch(uint32_t ring_bytes, uint32_t record_words, uint64_t nwords);
/* The kernel's rule for a ring buffer map: a power of two, at least a page. */
int bc_ring_size_valid(uint32_t ring_bytes);
uint32_t bc_ring_min_bytes(uint32_t record_words, uint64_t nwords);

#endif
