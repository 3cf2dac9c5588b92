/* SPDX-License-Identifier: MIT */
/*
 * wpp_bpf_records.h — the records the BPF transport programs
 * (bpf/wpp_transport.bpf.c) put into BPF ring buffers, and the maps'
 * value layouts user space reads.  Shared by the BPF object and by the
 * collector library (user/bpfcollect/); nothing else should include it.
 *
 * Two kinds of ring:
 *  - one batch ring per CPU (BPF_MAP_TYPE_ARRAY_OF_MAPS of ringbufs, indexed
 *    by the CPU the probe ran on), so producers on different CPUs never
 *    contend on one ring's spinlock;
 *  - one small lifecycle ring for fork/exec/exit/register records, so an
 *    overloaded batch ring never drops the events that open and close
 *    streams.
 *
 * A record is sized to what it carries (bpf_ringbuf_reserve_dynptr); a
 * batch larger than the record limit (record_words) is split into chunk
 * records, most batches are one record.  Each
 * thread's batches are numbered by BPF with a dense per-stream publish
 * number ("pubno"); a lost batch still consumes its pubno, and the next
 * completely delivered batch of the stream says how many batches/words
 * were lost right before it.  The exit/exec record closing a stream carries
 * the stream's final pubno and any loss not yet reported, so the collector
 * can tell "still in flight on another CPU's ring" from "lost" exactly.
 *
 * Integers are host-endian (x86-64 little-endian); field sizes are fixed.
 */
#ifndef WPP_BPF_RECORDS_H
#define WPP_BPF_RECORDS_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

#include "bpf/wpp_position_records.h"

enum wpp_brec_kind {
	WPP_BREC_BATCH = 1,    /* struct wpp_brec_batch + words, batch rings */
	WPP_BREC_FORK = 2,     /* struct wpp_brec_fork, lifecycle ring */
	WPP_BREC_EXEC = 3,     /* struct wpp_brec_exec, lifecycle ring */
	WPP_BREC_EXIT = 4,     /* struct wpp_brec_exit, lifecycle ring */
	WPP_BREC_REGISTER = 5, /* struct wpp_brec_register, lifecycle ring */
};

/* A stream is one thread in one process image: it begins at the thread's
 * first batch and ends at the thread's exit or exec.  Stream ids are unique
 * for the life of the BPF object (tids get reused; stream ids do not). */
struct wpp_brec_head {
	__u32 kind; /* enum wpp_brec_kind */
	__u32 pid;  /* tgid */
	__u32 tid;
	__u32 cpu;
	__u64 time_ns; /* bpf_ktime_get_ns(): CLOCK_MONOTONIC */
};

/* Loss not yet reported for a stream: `batches` whole batches holding
 * `words` words, all published right before the record that carries it.
 * min_seq is the smallest runtime seq among them. */
struct wpp_brec_loss {
	__u64 words;
	__u64 batches;
	__u64 min_seq;
};

/* Batch flags of wpp/wpp_file.h BPF sets or reads: WPP_BATCH_SIGNAL,
 * WPP_BATCH_SALVAGED and WPP_BATCH_FINAL (checked in
 * user/bpfcollect/demux.c). */
#define WPP_BREC_SIGNAL	  1u
#define WPP_BREC_SALVAGED 2u
/* WPP_BATCH_FINAL, the runtime's: the thread's last batch. */
#define WPP_BREC_FINAL 4u
/* A batch whose stream's end waits for it wakes the collector at once. */
#define WPP_BREC_WAKE_FLAGS (WPP_BREC_FINAL | WPP_BREC_SALVAGED)

struct wpp_brec_batch {
	struct wpp_brec_head h;
	__u64 stream_id;
	__u64 pubno; /* dense per-stream publish number, from 0 */
	__u64 seq;   /* the runtime's arguments, passed through */
	__u64 parent_seq;
	__u32 parent_off;
	__u32 flags;
	__u32 generation;
	__u32 nwords;			  /* words in the whole batch */
	__u32 chunk_off;		  /* word index of this record's first word */
	__u32 chunk_words;		  /* valid words in this record */
	struct wpp_brec_loss lost_before; /* snapshot at probe entry */
					  /* __u64 words[chunk_words] follow */
};

struct wpp_brec_fork {
	struct wpp_brec_head h; /* the parent thread (pid, tid) */
	__u32 child_pid;
	__u32 child_tid;
	__u32 is_thread; /* clone within the same process */
	__u32 reserved0;
};

#define WPP_BREC_PATH_MAX 256
#define WPP_BREC_ARGS_MAX 256

/* Thread state at the end of a stream (exit or exec). */
struct wpp_brec_stream_end {
	__u64 stream_id; /* 0 if the thread never published a batch */
	__u64 end_pubno; /* number of pubnos the stream used */
	struct wpp_brec_loss lost_tail;
};

/* An executable the collector has looked at (attached to, or found
 * without probes), as the kernel names its file: (s_dev in user space's
 * encoding, inode number).  Key of the exec_seen map. */
struct wpp_exe_key {
	__u64 dev;
	__u64 ino;
};

struct wpp_brec_exec {
	struct wpp_brec_head h; /* pid after exec; tid == pid */
	__u32 old_tid;		/* the tid that called exec */
	__u32 filename_len;	/* bytes including NUL, 0 if unreadable */
	__u32 args_len;		/* bytes of NUL-separated argv copied */
	/* 1: the new image was stopped (SIGSTOP, before its first instruction)
	 * because its executable is not in exec_seen; the collector attaches,
	 * then sends SIGCONT. */
	__u32 held;
	struct wpp_brec_stream_end old_stream; /* the old image's stream of old_tid */
	char filename[WPP_BREC_PATH_MAX];
	char args[WPP_BREC_ARGS_MAX];
	/* The name of the file actually executed (its dentry): filename may be
	 * a /proc/self/exe alias that means nothing once the process is gone. */
	char exe_name[64];
};

struct wpp_brec_exit {
	struct wpp_brec_head h;
	__u32 group_dead; /* last thread of the process */
	__u32 exit_code;  /* task->exit_code (wait status layout) */
	struct wpp_brec_stream_end stream;
};

struct wpp_brec_register {
	struct wpp_brec_head h;
	__u64 desc_addr;
	__u64 tu_hash;
	__u64 meta_addr;
	__u64 meta_size;
	__u32 fid_base;
	__u32 nfuncs;
	__u32 abi_version;
	__u32 read_ok; /* 0: the descriptor could not be read */
	/* From the runtime's registry entry (probe argument 3), read while
	 * the process is certainly alive; entry_ok == 0 when the probe had no
	 * entry argument or it could not be read (then user space asks /proc). */
	__u64 load_bias;
	__u32 entry_ok;
	__u32 build_id_len;
	__u8 build_id[20];
	__u32 path_len; /* bytes of path including NUL, 0 if unreadable */
	char path[WPP_BREC_PATH_MAX];
};

/* Per-CPU counters (BPF_MAP_TYPE_PERCPU_ARRAY, one element); user space
 * sums over CPUs.  Every batch the probe saw ends in exactly one of
 * batches_delivered or lost_batches. */
struct wpp_bpf_counters {
	__u64 probe_hits; /* batch probe firings that passed the filter */
	__u64 batches_delivered;
	__u64 words_delivered;
	__u64 records; /* chunk records submitted */
	__u64 lost_batches;
	__u64 lost_words;
	__u64 reserve_failures; /* batch ring full */
	__u64 read_failures;	/* bpf_probe_read_user on the words failed */
	__u64 no_ring;		/* no ring for this CPU (should not happen) */
	__u64 no_thread_slot;	/* thread table full: batch counted as lost */
	__u64 lifecycle_lost;	/* lifecycle ring full */
	__u64 register_read_failures;
	__u64 pauses;	      /* back-pressure: publishing process stopped */
	__u64 pause_failures; /* ring over pause_fill but the stop failed
			       * (pause table full, signal refused) */
	/* A thread that ended (exit, exec, fatal signal) with words not yet
	 * published: batches and words copied from its buffers (WPP_BATCH_SALVAGED),
	 * and levels that could not be, because the thread was inside the
	 * runtime's buffer switch (not counted as lost: such a level's words
	 * were published just before, or are the handful in a scratch). */
	__u64 salvaged_batches;
	__u64 salvaged_words;
	__u64 salvage_skipped;
	/* Threads and levels whose state the salvage could not read (the
	 * memory its position descriptor names is not mapped, or is paged
	 * out: the read cannot fault it in): what they held unpublished is
	 * lost, in a number of words nobody can know, maybe none. */
	__u64 salvage_unreadable;
	/* Threads whose position the table had no room for (more threads at
	 * once than --max-threads): nothing of theirs can be salvaged. */
	__u64 position_full;
	/* The words of the no_thread_slot batches: a loss no stream reports. */
	__u64 no_thread_slot_words;
};

/* Back-pressure state of a process the batch probe has stopped, hash keyed
 * by pid (deleted when the process exits).  The probe bumps `stops` after
 * each SIGSTOP it sends, then the global pause_epoch; the collector
 * continues a process whose (incarnation, stops) differs from the pair it
 * last continued.  incarnation is unique per entry, so a reused pid is
 * never mistaken for the process it replaces. */
struct wpp_bpf_pause {
	__u64 incarnation;
	__u64 stops;
	__u64 stop_ns; /* bpf_ktime_get_ns() of the latest stop */
};

/* Per-thread state, hash keyed by tid. */
#define WPP_RECENT_SEQS 4
struct wpp_bpf_thread {
	__u64 stream_id;
	__u32 pid;
	__u32 reserved0;
	__u64 next_pubno;
	struct wpp_brec_loss pending;
	/* seqs of the last WPP_RECENT_SEQS batches, by pubno: a thread that
	 * ends between publishing a batch and clearing it from its level is
	 * not salvaged twice */
	__u64 recent_seq[WPP_RECENT_SEQS];
};

#endif
