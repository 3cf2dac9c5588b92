/* SPDX-License-Identifier: MIT */
/*
 * wpp_file.h — the on-disk layout of a .wpp trace file.
 *
 * A file is a header followed by self-describing chunks.  Each chunk carries
 * a CRC32C over its header fields and payload, so a reader accepts every
 * complete, intact chunk up to the first torn or corrupt one: a collector
 * killed mid-write leaves a file whose prefix is fully usable.  A file that
 * was closed cleanly ends with a WPP_CHUNK_END chunk.
 *
 * All integers little-endian.  Payload structs below are followed by their
 * variable-length tails as documented per type.  Readers reject payloads
 * shorter than their fixed part and tails that overrun the payload.
 * Documented for users in docs/wpp-file-format.md.
 */
#ifndef WPP_FILE_H
#define WPP_FILE_H

#include <stdint.h>

#define WPP_FILE_MAGIC	 "WPPTRACE"
#define WPP_FILE_VERSION 1u
/* A file that may hold BATCH_Z chunks: version 1 readers refuse it rather
 * than skip its paths as an unknown chunk type (docs/wpp-file-format.md). */
#define WPP_FILE_VERSION_BATCH_Z 2u
#define WPP_CHUNK_MAGIC		 0x4b435057u /* "WPCK" */
#define WPP_CHUNK_MAX_PAYLOAD	 (64u << 20)

struct wpp_file_header {
	char magic[8];	      /* WPP_FILE_MAGIC */
	uint32_t version;     /* WPP_FILE_VERSION */
	uint32_t header_size; /* sizeof(struct wpp_file_header) */
	uint64_t created_ns;  /* CLOCK_REALTIME at creation */
	uint64_t flags;	      /* reserved, 0 */
};

struct wpp_chunk_header {
	uint32_t magic;	 /* WPP_CHUNK_MAGIC */
	uint16_t type;	 /* enum wpp_chunk_type */
	uint16_t flags;	 /* reserved, 0 */
	uint32_t length; /* payload bytes that follow this header */
	uint32_t crc32c; /* CRC32C of {type, flags, length} bytes then payload */
};

enum wpp_chunk_type {
	WPP_CHUNK_INFO = 1, /* text "key=value\n" lines: command, transport, ... */
	WPP_CHUNK_PROCESS =
	    2, /* struct wpp_chunk_process + exe path + NUL + cmdline (NUL-separated) */
	WPP_CHUNK_MODULE = 3,  /* struct wpp_chunk_module + object path (NUL-terminated) */
	WPP_CHUNK_THREAD = 4,  /* struct wpp_chunk_thread */
	WPP_CHUNK_BATCH = 5,   /* struct wpp_chunk_batch + nwords trace words */
	WPP_CHUNK_GAP = 6,     /* struct wpp_chunk_gap */
	WPP_CHUNK_END = 7,     /* struct wpp_chunk_end: clean close */
	WPP_CHUNK_GRAMMAR = 8, /* struct wpp_chunk_grammar + nterminals struct
				* wpp_grammar_terminal + grammar_len bytes of a
				* serialized SEQUITUR grammar (docs/sequitur.md) */
	WPP_CHUNK_KIPF = 9,    /* struct wpp_chunk_kipf + context labels + nodes (docs/kpaths.md) */
	WPP_CHUNK_COUNTERS = 10,    /* struct wpp_chunk_counters + ncounters struct wpp_counter_desc
				     * (docs/counters.md) */
	WPP_CHUNK_SAMPLES = 11,	    /* struct wpp_chunk_samples + nsamples struct wpp_sample */
	WPP_CHUNK_COUNTS = 12,	    /* struct wpp_chunk_counts + ncounts struct wpp_count */
	WPP_CHUNK_SAMPLE_REGS = 13, /* struct wpp_chunk_sample_regs + nsamples struct
				     * wpp_sample_regs: the registers of the samples
				     * of the SAMPLES chunk right before it */
	WPP_CHUNK_BATCH_Z = 14,	    /* struct wpp_chunk_batch_z + nbatches struct
				     * wpp_chunk_batch + packed_len bytes of their
				     * compressed words (user/common/word_codec.h);
				     * only in files of version WPP_FILE_VERSION_BATCH_Z */
	WPP_CHUNK_WET = 15,	    /* struct wpp_chunk_wet + one part of a thread's stored
				     * WET (user/analysis/wet/wet_file.h, docs/wet.md) */
};

enum wpp_process_flags {
	WPP_PROC_FORKED = 1u << 0,   /* child of a traced process (ppid/parent_tid valid) */
	WPP_PROC_EXECED = 1u << 1,   /* a new image in a pid that was traced before */
	WPP_PROC_ATTACHED = 1u << 2, /* tracing began mid-run */
};

struct wpp_chunk_process {
	uint32_t pid;
	uint32_t ppid;
	uint32_t parent_tid;  /* thread that forked it, when FORKED */
	uint32_t flags;	      /* enum wpp_process_flags */
	uint32_t generation;  /* 0 for the first image of this pid, +1 per exec */
	uint32_t exe_len;     /* bytes of exe path including NUL */
	uint64_t time_ns;     /* CLOCK_MONOTONIC when seen */
	uint32_t cmdline_len; /* bytes of the NUL-separated argv that follow */
	uint32_t reserved0;
};

struct wpp_chunk_module {
	uint32_t pid;
	uint32_t generation;
	uint32_t fid_base; /* first fid of this TU in this process image */
	uint32_t nfuncs;
	uint64_t tu_hash;     /* selects the metadata blob inside the object */
	uint64_t meta_addr;   /* run-time address of the blob */
	uint64_t load_bias;   /* object's load bias in the process */
	uint8_t build_id[20]; /* GNU build-id of the object, zero-padded */
	uint32_t build_id_len;
	uint32_t path_len; /* bytes of object path including NUL */
	uint32_t reserved0;
};

enum wpp_thread_event { WPP_THREAD_START = 1, WPP_THREAD_EXIT = 2 };

struct wpp_chunk_thread {
	uint32_t pid;
	uint32_t tid;
	uint32_t event; /* enum wpp_thread_event */
	uint32_t generation;
	uint64_t time_ns;
};

enum wpp_batch_flags {
	WPP_BATCH_SIGNAL = 1u << 0,   /* recorded inside a signal handler: splice
				       * after word parent_off of batch parent_seq */
	WPP_BATCH_SALVAGED = 1u << 1, /* recovered from a dead producer's buffer */
	WPP_BATCH_FINAL = 1u << 2,    /* last batch of the thread */
};

/* The tid of the batches a recorder writes with a count build's counts it
 * read from the process's memory (at detach, or a killed process's last
 * snapshot): path records and REPEATs like a thread's drain, but no
 * thread's (no kernel thread has tid 0). */
#define WPP_TID_MEMORY_COUNTS 0u

struct wpp_chunk_batch {
	uint32_t pid;
	uint32_t tid;	     /* WPP_TID_MEMORY_COUNTS: counts read from memory */
	uint64_t seq;	     /* per-thread, assigned when the buffer starts filling */
	uint64_t parent_seq; /* SIGNAL only */
	uint32_t parent_off; /* SIGNAL only: words of the parent written before */
	uint32_t flags;	     /* enum wpp_batch_flags */
	uint64_t time_ns;    /* CLOCK_MONOTONIC at publish */
	uint32_t generation;
	uint32_t nwords;
	/* uint64_t words[nwords] follow */
};

/*
 * Batches whose words are compressed (user/common/word_codec.h): the
 * batches of one thread that the collector wrote at one moment, their
 * words coded as one stream, decodable without any other chunk.
 * head_crc32c is the CRC32C of this struct's first 12 bytes and the
 * heads: when the chunk's own CRC fails but the heads' holds, a reader
 * knows exactly whose words were lost and how many (each head's nwords)
 * and counts them as gaps instead of stopping (docs/wpp-file-format.md).
 */
struct wpp_chunk_batch_z {
	uint32_t nbatches;    /* struct wpp_chunk_batch heads that follow, >= 1 */
	uint32_t codec;	      /* enum wc_codec */
	uint32_t packed_len;  /* bytes after the heads: every head's words in order */
	uint32_t head_crc32c; /* CRC32C of the 12 bytes above, then the heads */
	/* struct wpp_chunk_batch heads[nbatches]; (nwords: words once decoded)
	 * unsigned char packed[packed_len]; */
};

struct wpp_chunk_gap {
	uint32_t pid;
	uint32_t tid;
	uint64_t after_seq; /* the gap sits after this batch */
	uint64_t lost_words;
	uint64_t lost_batches;
};

/*
 * A thread's k-iterations path forest (k-IPF, docs/kpaths.md), written by the
 * online k-path consumer when the thread ends.  The forest is stored in
 * preorder, siblings in increasing (fid, value) order; a forest too big for
 * one chunk continues in the next chunk of the same thread (part + 1), whose
 * context[] repeats the labels of the path from a root down to the parent of
 * its first node.  Node depths count from 0 at the roots.
 */
enum wpp_kipf_flags {
	WPP_KIPF_LAST = 1u << 0,       /* last part of this thread's forest */
	WPP_KIPF_PRUNED = 1u << 1,     /* cold nodes were pruned: counts are lower
					* bounds, each at most lost_items too low */
	WPP_KIPF_ACTIVATION = 1u << 2, /* k-paths of one function activation
					* (docs/kpaths.md), not thread-wide */
};

struct wpp_chunk_kipf {
	uint32_t pid;
	uint32_t tid;
	uint32_t generation;
	uint32_t k;		  /* longest k-path kept (forest depth), 1..WPP_KIPF_MAX_K */
	uint32_t part;		  /* 0, 1, ... within the thread */
	uint32_t flags;		  /* enum wpp_kipf_flags */
	uint32_t context_len;	  /* struct wpp_kipf_label entries after this struct */
	uint32_t nnodes;	  /* struct wpp_kipf_node entries after the context */
	uint64_t items;		  /* path records the forest was built from */
	uint64_t lost_items;	  /* records whose counts pruning dropped (0 = exact) */
	uint64_t peak_slab_nodes; /* largest k-slab forest size while recording */
	uint64_t reserved0;
	/* struct wpp_kipf_label context[context_len];
	 * struct wpp_kipf_node nodes[nnodes]; */
};

#define WPP_KIPF_MAX_K 64u

struct wpp_kipf_label {
	uint32_t fid;
	uint32_t reserved0;
	uint64_t value; /* path id (block index in blocks mode) */
};

struct wpp_kipf_node {
	uint32_t depth; /* 0 = root; at most one more than the previous node's */
	uint32_t fid;
	uint64_t value;
	uint64_t count; /* occurrences of the k-path from the root to here */
};

struct wpp_chunk_end {
	uint64_t batches;
	uint64_t words;
	uint64_t lost_words;
	uint64_t lost_batches;
	uint64_t end_ns;
};

enum wpp_grammar_flags {
	/* Terminals are raw 32-bit symbols (`wpptrace wpp --from-raw`): entry i
	 * of the table is the raw value of terminal i (in path_id); with no
	 * table, terminal values are the raw values themselves. */
	WPP_GRAMMAR_RAW = 1u << 0,
	/* Built by the chunked builder (docs/sequitur.md), not by one-level
	 * SEQUITUR(1): the serialized grammar is a DAG like any other, so
	 * readers that predate the flag read it as it is. */
	WPP_GRAMMAR_CHUNKED = 1u << 1,
};

/* One part of a thread's whole execution trace, stored after END by
 * `wpptrace wet` (docs/wet.md): a stored WET larger than a chunk is cut
 * into parts 0 .. nparts-1, written in order; blob_crc32c and total_len
 * keep the parts of one build together (a reader takes the thread's last
 * complete set). */
struct wpp_chunk_wet {
	uint32_t pid;
	uint32_t tid;
	uint32_t generation;
	uint32_t part;
	uint32_t nparts;
	uint32_t blob_crc32c; /* of the whole stored WET */
	uint64_t total_len;   /* bytes of the whole stored WET */
	uint64_t offset;      /* where this part's bytes go in it */
};

/* The whole-program-path grammar of one thread, built while recording. */
struct wpp_chunk_grammar {
	uint32_t pid;
	uint32_t tid;
	uint32_t generation;
	uint32_t flags;		/* enum wpp_grammar_flags */
	uint64_t nsymbols;	/* length of the thread's path stream (all segments) */
	uint32_t nterminals;	/* entries of the terminal table that follows */
	uint32_t segments;	/* stretches between gaps (gaps + 1) */
	uint64_t grammar_len;	/* bytes of serialized grammar after the table */
	uint64_t skipped_words; /* malformed records left out of the stream */
};

/* Terminal i of the grammar stands for this record. */
struct wpp_grammar_terminal {
	uint32_t fid;
	uint32_t reserved;
	uint64_t path_id; /* path id (or block index), or the raw value */
};

/*
 * Hardware/software counters (docs/counters.md).  COUNTERS describes the
 * events of the recording (written once, before any SAMPLES or COUNTS);
 * event numbers in SAMPLES and COUNTS index its table.
 */
#define WPP_COUNTER_NAME_MAX 48

enum wpp_counter_flags {
	WPP_COUNTER_SAMPLED = 1u << 0, /* samples were taken (period or freq) */
	WPP_COUNTER_COUNTED = 1u << 1, /* per-batch counts were read */
	WPP_COUNTER_FREQ = 1u << 2,    /* period is a frequency (Hz), the kernel adapts
					* the period; each sample carries its own */
};

struct wpp_counter_desc {
	char name[WPP_COUNTER_NAME_MAX]; /* as given, NUL-terminated ("cache-misses", "r01c2") */
	uint32_t type;			 /* perf_event_attr.type */
	uint32_t flags;			 /* enum wpp_counter_flags */
	uint64_t config;		 /* perf_event_attr.config */
	uint64_t period;		 /* sample period, or frequency with WPP_COUNTER_FREQ */
};

struct wpp_chunk_counters {
	uint32_t ncounters;
	uint32_t scope; /* 0 = per CPU, filtered to the traced threads */
			/* struct wpp_counter_desc counters[ncounters] follow */
};

/* Where the sampled thread stood in its own record stream. */
enum wpp_sample_pos {
	WPP_POS_BUFFER = 1,	  /* record `word` of batch `seq` (word may be >= the
				   * batch's nwords: then the next batch of the same
				   * signal depth, at word - nwords) */
	WPP_POS_NEXT = 2,	  /* record `word` of the first batch of this depth
				   * whose seq is > `seq` (the buffer was not open yet) */
	WPP_POS_NUMBERED = 3,	  /* record `word` of batch `seq`, not open yet */
	WPP_POS_UNKNOWN = 4,	  /* thread not registered, or inside the runtime's
				   * buffer switch: cannot be attributed */
	WPP_POS_DISCARD = 5,	  /* the thread was recording into the discard sink */
	WPP_POS_UNREGISTERED = 6, /* the thread had not started recording (process
				   * start-up before its first record, a thread that
				   * never records) or had no position descriptor */
};

enum wpp_sample_flags {
	WPP_SAMPLE_KERNEL = 1u << 0, /* interrupted in the kernel; ip is the user ip
				      * the thread will return to */
	WPP_SAMPLE_REGS = 1u << 1,   /* the sample's user registers follow in the
				      * SAMPLE_REGS chunk after its SAMPLES chunk */
};

struct wpp_sample {
	uint32_t pid;
	uint32_t tid;
	uint32_t generation;
	uint16_t counter; /* index into the COUNTERS table */
	uint8_t pos;	  /* enum wpp_sample_pos */
	uint8_t depth;	  /* signal nesting level the thread was at */
	uint64_t seq;
	uint32_t word;
	uint32_t flags; /* enum wpp_sample_flags */
	uint64_t ip;	/* user-space instruction pointer */
	uint64_t value; /* events this sample stands for (its period) */
	uint64_t time_ns;
};

struct wpp_chunk_samples {
	uint32_t nsamples;
	uint32_t reserved0;
	/* struct wpp_sample samples[nsamples] follow */
};

/*
 * The interrupted thread's user general-purpose registers at a sample (for
 * a sample in the kernel: where the thread entered it), in DWARF register
 * numbering (x86-64: rax rdx rcx rbx rsi rdi rbp rsp r8 .. r15), so that a
 * variable's DWARF location can be read at the sampled ip (docs/counters.md,
 * "The run's end").  A SAMPLE_REGS chunk follows the SAMPLES chunk whose
 * samples it describes: one entry per sample of that chunk that has
 * WPP_SAMPLE_REGS, in order.  Files before 2026-11-27 have none; readers
 * that do not know the chunk skip it.
 */
#define WPP_SAMPLE_NREGS 16
struct wpp_sample_regs {
	uint64_t r[WPP_SAMPLE_NREGS];
};

struct wpp_chunk_sample_regs {
	uint32_t nsamples;
	uint32_t arch; /* WPP_REGS_X86_64 */
		       /* struct wpp_sample_regs regs[nsamples] follow */
};
#define WPP_REGS_X86_64 62 /* the ELF machine number (EM_X86_64) */
/* The DWARF name of the artificial local variable wppcc gives a
 * run-counting function's run count (user/instrument/runs_debug.h): what
 * attribution reads from a sample's registers. */
#define WPP_RUN_COUNT_VAR "__wpp_run_count"

/* The counter's change while the thread filled batch `seq` (read when the
 * batch was published).  enabled/running: the counter was scheduled on the
 * PMU for `running` of the `enabled` ns; the estimate is
 * count * enabled / running (docs/counters.md). */
struct wpp_count {
	uint32_t pid;
	uint32_t tid;
	uint32_t generation;
	uint32_t counter;
	uint64_t seq;
	uint64_t count;
	uint64_t enabled_ns;
	uint64_t running_ns;
};

struct wpp_chunk_counts {
	uint32_t ncounts;
	uint32_t reserved0;
	/* struct wpp_count counts[ncounts] follow */
};

/* A file that may hold BATCH_Z chunks coded with LZ4 (word_codec.h, codec
 * 3): version 2 readers refuse it rather than lose those chunks' words. */
#define WPP_FILE_VERSION_BATCH_LZ4 3u
/* A file that may hold BATCH_Z chunks of the match stage (word_codec.h,
 * codecs 4-6): version 3 readers refuse it rather than lose their words. */
#define WPP_FILE_VERSION_BATCH_MATCH 4u

#endif
