/* SPDX-License-Identifier: MIT */
/*
 * rt_internal.h — state shared by the files of libwpprt (never installed,
 * never seen by instrumented code; the public side is wpp/trace_abi.h).
 *
 * A thread records at signal-nesting level `depth` (0 = its own code).  Each
 * level owns a buffer (a shm ring slot or a private buffer) plus a tiny
 * scratch area: after a publish the level's cursor points at its scratch, so
 * the next record lands there and reaches __wpp_flush(), which opens the next
 * buffer and moves the scratch words into it.  Opening lazily keeps batch
 * sequence numbers dense (every number is published exactly once) without
 * publishing empty batches.
 */
#ifndef WPP_RT_INTERNAL_H
#define WPP_RT_INTERNAL_H

#include <stdint.h>
#include <sys/types.h>

#include "kmod-free/shm_producer.h"

#define RT_TLS		 __attribute__((tls_model("initial-exec")))
#define RT_HIDDEN	 __attribute__((visibility("hidden")))
#define RT_LEVELS	 WPP_SHM_LEVELS
#define RT_SCRATCH_WORDS 4   /* one 2-word record + slack */
#define RT_DISCARD_WORDS 320 /* >= a WET reservation (wet_abi.h) */

extern __thread uint64_t *__wpp_cursor RT_TLS;
extern __thread uint64_t *__wpp_limit RT_TLS;
extern uint64_t rt_global_scratch[RT_SCRATCH_WORDS] RT_HIDDEN;
/* The record sequence's slow path (trace_abi.h); C callers may use it. */
__attribute__((preserve_most)) void __wpp_flush(void);
/* A WET path start's slow path (wet_abi.h). */
__attribute__((preserve_most)) void __wpp_reserve(uint64_t nwords);

struct rt_level {
	struct wpp_batch_hdr *hdr; /* open buffer, or NULL while in scratch */
	uint64_t *words;
	uint32_t cap;	 /* words before the limit */
	uint32_t pinned; /* seq was handed to a signal batch as parent:
			  * publish it even if it stays empty */
	uint64_t seq;	 /* 0 until the level's next buffer is numbered */
	/* signal levels only */
	uint64_t parent_off;
	uint32_t parent_abandoned;	      /* the interrupted level's handler had left by
					       * longjmp: pop it at the next flush below */
	uint32_t sunk;			      /* no buffer could be had (collector gone, out of
					       * memory): the level records into the thread's
					       * discard sink for good, rewound at every flush */
	uint64_t *saved_cursor, *saved_limit; /* of the interrupted level */
	uintptr_t entry_sp;		      /* trampoline frame: above it = handler left */
	uintptr_t alt_lo, alt_hi;	      /* alternate stack the handler ran on, if any */
	uint64_t scratch[RT_SCRATCH_WORDS];
};

enum rt_thread_state { RT_T_NEW = 0, RT_T_LIVE, RT_T_DISCARD, RT_T_DONE };

struct rt_thread {
	int state;
	int depth;    /* current signal nesting level */
	int overflow; /* handlers nested deeper than RT_LEVELS-1 */
	int exit_rounds;
	uint32_t tid;
	uint64_t next_seq;
	uint64_t lost_words;
	void *transport;	      /* the transport's per-thread handle */
	struct wpp_shm_lane shm_lane; /* shm: where transport points */
	void *private_buf[RT_LEVELS]; /* probe transport: one buffer per level */
	struct rt_level lv[RT_LEVELS];
	uint64_t discard[RT_DISCARD_WORDS + WPP_SLACK_WORDS];
};

extern __thread struct rt_thread rt_self RT_TLS RT_HIDDEN;

/* --- process identity (rt_process.c) --- */
struct rt_process {
	uint32_t pid, ppid, parent_tid, flags, generation;
	uint64_t start_ticks;
	char exe[256];
	char cmdline[1024];
	uint32_t cmdline_len;
};
extern struct rt_process rt_proc RT_HIDDEN;
/* Set only in a vfork child: the identity it records under, so that the
 * parent's other threads, which share rt_proc, never see the child's. */
extern __thread struct rt_process *rt_proc_override RT_TLS RT_HIDDEN;
static inline struct rt_process *rt_process_self(void)
{
	return rt_proc_override ? rt_proc_override : &rt_proc;
}
void rt_process_identify(struct rt_process *p, uint32_t parent_tid, uint32_t flags) RT_HIDDEN;
uint32_t rt_gettid(void) RT_HIDDEN;
uint64_t rt_now_ns(void) RT_HIDDEN;

/* --- transport (rt_transport.c and backends) --- */
struct rt_buf {
	struct wpp_batch_hdr *hdr;
	uint64_t *words;
	uint32_t cap;
};

struct rt_transport_ops {
	const char *name;
	/* Per-thread attach; -1 sends the thread's records to the discard sink. */
	int (*thread_open)(struct rt_thread *t);
	/* A zeroed buffer for level; may wait (shm, full ring).  -1 = give up. */
	int (*buf_begin)(struct rt_thread *t, int level, struct rt_buf *b);
	/* The header is complete; hand the buffer over. */
	void (*buf_publish)(struct rt_thread *t, int level, struct rt_buf *b);
	void (*thread_close)(struct rt_thread *t, int last);
	void (*lost)(struct rt_thread *t, uint64_t words);
	void (*module)(uint32_t fid_base, uint32_t nfuncs, uint64_t tu_hash, uint64_t meta_addr,
		       uint64_t load_bias, const uint8_t *build_id, uint32_t build_id_len,
		       const char *path);
	/* In a fork child, before any record: become a new process. */
	void (*fork_child)(void);
};

extern const struct rt_transport_ops *rt_transport RT_HIDDEN;
extern const struct rt_transport_ops rt_transport_shm RT_HIDDEN;
extern const struct rt_transport_ops rt_transport_probe RT_HIDDEN;
extern const struct rt_transport_ops rt_transport_discard RT_HIDDEN;
extern uint32_t rt_buffer_words RT_HIDDEN;
/* Select the transport once per process (idempotent, cheap when done). */
void rt_init(void) RT_HIDDEN;
/* One line on stderr, "wpptrace: runtime: " a b (no stdio: usable from
 * constructors). */
void rt_say(const char *a, const char *b) RT_HIDDEN;
int rt_init_done(void) RT_HIDDEN;
int rt_shm_attach(const char *path) RT_HIDDEN;
/* A vfork child's own shm client (the process's one is shared with the
 * parent's threads): copy the calling thread's client into own, and make
 * the calling thread use `own` (NULL: the process's); returns the previous. */
struct wpp_shm_client;
void rt_shm_client_copy(struct wpp_shm_client *own) RT_HIDDEN;
struct wpp_shm_client *rt_shm_client_use(struct wpp_shm_client *own) RT_HIDDEN;

/* --- buffers (rt_buffers.c) --- */
void rt_thread_start(struct rt_thread *t) RT_HIDDEN;
/* Publish the level's data (if any) and leave its cursor at its scratch. */
void rt_level_finish(struct rt_thread *t, int level, uint32_t extra_flags) RT_HIDDEN;
/* Pop signal levels whose handler frame is gone (longjmp out of a handler).
 * force: pop every signal level (thread exit). */
void rt_unwind(struct rt_thread *t, uintptr_t sp, int force) RT_HIDDEN;
/* Has the handler of signal level lv left (longjmp), seen from sp? */
int rt_level_abandoned(const struct rt_level *lv, uintptr_t sp) RT_HIDDEN;
/* Words of `level` reserved so far (its cursor relative to its buffer). */
uint64_t rt_level_offset(struct rt_thread *t, int level, uint64_t *cursor) RT_HIDDEN;
/* A fork or vfork child's thread goes on with fresh streams (seq 1) and
 * none of the parent's open buffers; shares_parent_memory (vfork): the
 * parent's private buffers are left alone too.  Nothing happens for a
 * thread that was not recording. */
void rt_thread_restart(struct rt_thread *t, int shares_parent_memory) RT_HIDDEN;

/* --- registry (rt_registry.c) --- */
void rt_registry_replay(void) RT_HIDDEN; /* re-announce modules (fork/vfork child) */
void rt_registry_fork_prepare(void) RT_HIDDEN;
void rt_registry_fork_parent(void) RT_HIDDEN;
void rt_registry_fork_child(void) RT_HIDDEN;
void rt_registry_set_pid(uint32_t pid) RT_HIDDEN; /* fork child */

/* --- lifecycle (rt_lifecycle.c) --- */
void rt_lifecycle_init(void) RT_HIDDEN;
/* Probe mode, once per image: wait for system-wide collectors to attach
 * (rt_hello.c); returns how many answered. */
int rt_hello_collectors(void) RT_HIDDEN; /* how many collectors answered */
/* --- dual builds' flags (rt_dual.c) --- */
void rt_dual_set(int on) RT_HIDDEN;
void rt_thread_arm_exit(struct rt_thread *t) RT_HIDDEN;
void rt_vfork_thread_exit(void) RT_HIDDEN; /* release the vfork save area */
/* A vfork-like child (rt_vfork.c): the parent's thread before the syscall,
 * the child after it, the parent once the child has exec'd or exited. */
void rt_vfork_prepare(void) RT_HIDDEN;
void rt_vfork_child(void) RT_HIDDEN;
void rt_vfork_parent(void) RT_HIDDEN;
/* The fork child's restart (a fork, or a clone without CLONE_VM). */
void rt_fork_child(void) RT_HIDDEN;
/* The process is about to end from this thread: publish what it holds. */
void rt_final_flush(void) RT_HIDDEN;
/* This thread's TLS is now shared with a concurrent clone(CLONE_VM)
 * child: publish and close its stream, record nothing more, say so. */
void rt_thread_shared(void) RT_HIDDEN;

#endif
