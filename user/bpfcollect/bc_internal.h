/* SPDX-License-Identifier: MIT */
/*
 * bc_internal.h — the collector's state, shared by the files of
 * user/bpfcollect/ and nothing else.
 *
 *   load.c     bc_open/bc_close: skeleton, rings, clear errors
 *   attach.c   USDT attachment to objects, -p / -a discovery
 *   multi_attach.c  one uprobe_multi link per object
 *   drain.c    drain threads, bc_start/bc_finish, counters
 *   demux.c    records -> ordered events (streams, loss -> gaps)
 *   lifecycle.c fork/exec/exit/register records -> process/thread events
 *   pause.c    back-pressure: continue the processes the probe stopped
 *   hold.c     a thread's batches handed on as one run (one chunk)
 *   kernel_btf.c  the sched tracepoints this kernel has, from its BTF
 */
#ifndef WPP_BC_INTERNAL_H
#define WPP_BC_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>

#include "bpfcollect/bpfcollect.h"
#include "bpfcollect/idmap.h"
#include "bpfcollect/multi_attach.h"
#include "bpf/wpp_bpf_records.h"

struct wpp_transport; /* libbpf skeleton */
struct gen_load;
struct bpf_program;
struct ring_buffer;
struct bpf_link;

/* A batch being assembled from chunk records, or held until the batches
 * published before it are resolved. */
struct bc_item {
	struct bc_item *next; /* held list, ascending pubno */
	uint64_t pubno;
	struct wpp_chunk_batch b;
	struct wpp_brec_loss lost_before;
	uint32_t got_words;
	uint64_t words[];
};

/* A stream's delivered batches not yet handed to the callback (hold.c). */
struct bc_hold {
	struct wpp_chunk_batch *heads;
	uint64_t *words; /* the batches' words, one after another */
	uint32_t nbatches, heads_cap;
	uint64_t nwords, words_cap;
	uint64_t since_ns;		 /* when the first was held */
	struct bc_stream *older, *newer; /* the collector's streams holding, by since_ns */
};

enum bc_stream_end { BC_END_OPEN = 0, BC_END_EXIT, BC_END_EXEC, BC_END_DETACH };

/* One thread in one process image (see wpp_bpf_records.h). */
struct bc_stream {
	uint64_t id;
	uint32_t pid, tid;
	uint64_t next_pubno;
	uint64_t end_pubno; /* valid once end != BC_END_OPEN */
	struct wpp_brec_loss lost_tail;
	enum bc_stream_end end;
	uint64_t end_time_ns;
	int blocked;		 /* its process's exec has not been delivered yet */
	uint32_t image;		 /* if blocked: the image it belongs to (bc_proc.execs_read
				  * when it was first met) */
	int had_loss;		 /* a gap was delivered: chunks of lost batches may trail */
	int start_checked;	 /* stream_unseen_start has decided (demux.c) */
	uint64_t lowest_seq;	 /* lowest seq delivered or named as a parent; 0 = none */
	uint64_t first_lost_seq; /* before the check: 1 + lowest seq a gap covered, or 0 */
	struct bc_item *held;
	struct bc_hold hold;
};

struct bc_module_pending {
	struct bc_module_pending *next;
	uint32_t image; /* as bc_stream.image */
	struct wpp_brec_register r;
};

/* A thread started by an image whose exec is not delivered yet. */
struct bc_start_pending {
	struct bc_start_pending *next;
	uint32_t image; /* as bc_stream.image */
	uint32_t tid;
	uint64_t time_ns;
};

/* An exec whose record was read while the image it replaces still had
 * streams open (lifecycle.c): what the new image is, kept until its turn. */
struct bc_exec_pending {
	struct bc_exec_pending *next;
	uint32_t old_tid;
	uint64_t time_ns;
	char *exe;
	char *cmdline;
	uint32_t cmdline_len;
};

struct bc_proc {
	uint32_t pid, ppid, parent_tid;
	uint32_t flags; /* wpp_process_flags for the next announcement */
	uint32_t generation;
	uint64_t time_ns;
	int announced;	       /* PROCESS delivered for the current image */
	int interesting;       /* deliver events for it (traced or instrumented) */
	int traced;	       /* counts towards bc_all_exited() */
	uint64_t start_ticks;  /* traced: its /proc start time (0: unknown), to tell
				* it from a process that reused its pid */
	uint32_t open_streams; /* unblocked streams not yet closed */
	uint32_t blocked_streams;
	/* Execs read but not delivered yet, oldest first: each waits until the
	 * streams of the image it replaces have closed.  A program can exec
	 * again before the collector has delivered its previous exec, so
	 * there can be several.  execs_read counts this pid's exec records;
	 * image k is the one exec record k started, and a stream or module
	 * first met while execs are pending belongs to image execs_read. */
	struct bc_exec_pending *execs;
	uint32_t execs_read, execs_done;
	struct bc_start_pending *starts; /* threads of pending images, in order */
	int exit_pending;		 /* last thread exited, streams still open */
	int exit_status;
	char *exe;
	char *cmdline;
	uint32_t cmdline_len;
	struct bc_module_pending *modules; /* registered in the pending image */
	uint32_t *fid_bases;		   /* TUs announced for the current image (no duplicates
					    * between the register probe and the registry) */
	uint32_t nfid_bases, fid_bases_cap;
	int registry_tried; /* the registry was read for the current image */
};

struct bc_thread {
	uint32_t tid, pid;
};

/* Back-pressure (pause.c). */
struct bc_pause {
	int enabled;	      /* pause_fill set in the BPF program */
	uint64_t resume_fill; /* continue when every ring holds at most this */
	void **pos;	      /* per CPU ring: its two position pages, read-only */
	size_t page;
	pthread_mutex_t lock;	/* serialises continuing; guards `continued` */
	uint64_t epoch_seen;	/* pause_epoch of the last pass */
	struct idmap continued; /* pid -> what was last continued */
	uint64_t continues;	/* SIGCONTs sent */
	uint64_t paused_ns;	/* summed from each process's latest stop to its continue */
};

struct bc_collector {
	struct bc_options opt;
	struct bc_callbacks cb;
	struct wpp_transport *skel;
	/* skel came from its generated loader (gen_load.h): its programs' fds
	 * are here, not libbpf's; NULL after an ordinary load. */
	struct gen_load *gen;
	/* After a loader load, the per-probe programs (wpp_batch,
	 * wpp_register, wpp_thread_pos) are loaded only when an object cannot
	 * go behind a uprobe_multi link: then, once, in a second object that
	 * shares every map of skel (bc_probe_programs). */
	struct wpp_transport *probe_skel;
	int probe_skel_failed; /* its load failed: not tried again */
	int ncpus;
	int *ring_fds;		   /* per-CPU batch rings */
	struct ring_buffer **rbs;  /* one per drain thread */
	struct ring_buffer *lc_rb; /* lifecycle ring; consumed under lock only */
	pthread_t *threads;
	int nthreads;
	atomic_int stop;
	int stop_fd; /* eventfd, readable once stop is set: wakes the drain threads */
	int started, finished;

	pthread_mutex_t lock; /* serialises demux state and callbacks */
	struct idmap streams; /* stream id -> bc_stream */
	/* Closed streams that lost batches: a chunk record of a lost batch can
	 * still sit in a ring after the stream closed, and must not open the
	 * stream again (ids are never reused; value: the collector, as a mark). */
	struct idmap closed_lossy;
	struct idmap procs; /* pid -> bc_proc */
	struct idmap tids;  /* tid -> bc_thread (announced threads) */
	/* tid -> struct detach_taken: words of its open batch an earlier
	 * collector took when it detached, dropped here (detach_take.h) */
	struct idmap taken;
	int live_traced; /* traced processes not yet exited */
	int ever_traced;
	/* bc_all_exited: since when /proc has shown no traced process alive
	 * while some exit was still unseen (0: one is alive), and when /proc
	 * was last looked at. */
	uint64_t gone_since_ns, gone_checked_ns;

	struct bpf_link **links;
	size_t nlinks, links_cap;
	/* Links made with the raw BPF commands, closed together: the
	 * uprobe_multi links (multi_attach.h), one per object, and the sched
	 * tracepoints' when the loader loaded the programs.  multi_ok: the
	 * program wpp_usdt_multi is loaded and new objects go through it;
	 * multi_refused: they go the per-probe way all the same
	 * (WPP_BPF_UPROBE_MULTI=per-object, to test that way in). */
	struct multi_links multi;
	int multi_ok, multi_refused;
	/* bc_traced_gone: every traced process has ended; detach_all leaves the
	 * links to close_later. */
	int traced_gone;
	char **attached;       /* object paths already attached (or probed and skipped) */
	uint8_t *instrumented; /* per attached[]: carries wpptrace probes */
	size_t nattached, attached_cap;

	int hello_fd; /* -a: listening for new process images (hello.c), else -1 */
	pthread_t hello_tid;

	struct bc_extension ext; /* zero when nothing rides along */
	struct bc_pause pause;

	/* Streams holding batches, oldest run first (hold.c; c->lock). */
	struct bc_stream *hold_oldest, *hold_newest;
	uint64_t hold_cap_words;  /* their buffers' capacity */
	atomic_ullong held_words; /* read without the lock: anything to release? */

	/* delivered by the library (BPF counts the rest) */
	atomic_ullong batches, words, gaps, records, unattributed_batches, unseen_batches;
	/* detach_take.h: batches and words read at detach; words dropped as
	 * an earlier collector's; threads left inside the buffer switch */
	uint64_t taken_batches, taken_words, taken_dropped, take_skipped;
};

/* demux.c — called with c->lock held */
void demux_batch_record(struct bc_collector *c, const void *data, size_t size);
struct bc_stream *demux_stream_get(struct bc_collector *c, uint64_t id, uint32_t pid, uint32_t tid);
void demux_stream_end(struct bc_collector *c, struct bc_stream *s, enum bc_stream_end end,
		      const struct wpp_brec_stream_end *e, uint64_t time_ns);
void demux_resolve(struct bc_collector *c, struct bc_stream *s);
/* Close every open stream at the end of collection (see bc_finish). */
void demux_finish(struct bc_collector *c);
/* An earlier collector's mark on a thread's open batch (positions.c). */
struct detach_taken;
void demux_note_taken(void *collector, const struct detach_taken *m);
/* Hand on b (words taken at detach, detach_take.h) as s's last batch,
 * publish number pubno with the loss BPF still holds before it, and end
 * the stream after it. */
void demux_end_with_taken(struct bc_collector *c, struct bc_stream *s, struct wpp_chunk_batch *b,
			  const uint64_t *words, uint64_t pubno,
			  const struct wpp_brec_loss *lost_before);

/* hold.c — called with c->lock held.  hold_batch takes a delivered batch
 * (to the callback now or later, in order); hold_release hands on s's run
 * (before anything else about s is delivered); hold_release_due those
 * held too long, or all; hold_free drops s's buffers (s is going). */
void hold_batch(struct bc_collector *c, struct bc_stream *s, const struct wpp_chunk_batch *b,
		const uint64_t *words);
void hold_release(struct bc_collector *c, struct bc_stream *s);
void hold_release_due(struct bc_collector *c, bool all);
void hold_free(struct bc_collector *c, struct bc_stream *s);

/* hello.c — -a: attach to every new image in probe mode before it records
 * (hello_listen warns and returns an error when it cannot listen;
 * hello_stop is idempotent, and called without c->lock). */
int hello_listen(struct bc_collector *c);
void hello_stop(struct bc_collector *c);

/* lifecycle.c — called with c->lock held */
void lifecycle_record(struct bc_collector *c, const void *data, size_t size);
struct bc_proc *proc_get(struct bc_collector *c, uint32_t pid, int create_from_proc);
void proc_announce(struct bc_collector *c, struct bc_proc *p);
void thread_announce(struct bc_collector *c, struct bc_proc *p, uint32_t tid, uint64_t time_ns);
void thread_exited(struct bc_collector *c, uint32_t pid, uint32_t tid, uint64_t time_ns);
void proc_stream_closed(struct bc_collector *c, struct bc_proc *p);
void proc_settle(struct bc_collector *c, struct bc_proc *p);
void proc_free(struct bc_proc *p);
/* Consume the lifecycle ring (with c->lock held). */
void lifecycle_drain(struct bc_collector *c);

/* A TU registration (from the probe or the registry) for its process. */
void lifecycle_register(struct bc_collector *c, const struct wpp_brec_register *r);
/* Read the registry of p's process once per image: it was met mid-run
 * (attach, static executable attached after exec), so its TUs may have
 * registered before the probe was there.  0 (also when already done), or
 * -errno from registry_read(), or -EBUSY (the process records through shm)
 * or -ECANCELED (tracing disabled in it, WPP_DISABLE). */
int lifecycle_registry_catch_up(struct bc_collector *c, struct bc_proc *p);
/* The same for a process first met through a batch, before that batch is
 * delivered; says once when it finds no TU (the words will not decode). */
void lifecycle_registry_late(struct bc_collector *c, struct bc_proc *p);

/* load.c */
/* prog's fd, from libbpf or from the loader (c->gen); -1 if not loaded. */
int bc_prog_fd(const struct bc_collector *c, const struct bpf_program *prog);
/* The object whose per-probe programs libbpf loaded (for
 * bpf_program__attach_usdt): c->skel after an ordinary load, else
 * c->probe_skel, loaded at the first call.  NULL after one line. */
struct wpp_transport *bc_probe_programs(struct bc_collector *c);

/* attach.c */
/* 0 = attached (now or before), -ENOENT = no wpptrace probes, -errno. */
int attach_object_locked(struct bc_collector *c, const char *path);
/* Attach to an executable and the libwpprt it will load (path already
 * absolute and resolved); how many of the two carry probes. */
int attach_program_locked(struct bc_collector *c, const char *real);
/* Attach to every instrumented object pid maps; how many there are. */
int attach_pid_mappings(struct bc_collector *c, pid_t pid);
void detach_all(struct bc_collector *c);

/* pause.c */
/* Map the ring positions (after the rings exist); 0 or -errno. */
int pause_setup(struct bc_collector *c);
void pause_teardown(struct bc_collector *c);
/* Unconsumed bytes in CPU cpu's batch ring (pause enabled only). */
uint64_t pause_ring_fill(const struct bc_collector *c, int cpu);
/* After a drain round: continue the stopped processes if every ring is
 * down to resume_fill; force: continue them whatever the rings hold (end
 * of collection).  Any thread, no lock held. */
void pause_resume(struct bc_collector *c, bool force);

#endif
