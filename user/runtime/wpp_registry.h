/* SPDX-License-Identifier: MIT */
/*
 * wpp_registry.h — the process-global TU registry libwpprt keeps at the
 * exported symbol `__wpp_registry`, for collectors that attach to a running
 * process (the BPF collector with -p reads it through /proc/PID/mem after
 * finding the symbol in libwpprt's (or the executable's) symbol table).
 *
 * Layout is fixed ABI (little-endian x86-64, natural alignment):
 *  - header at __wpp_registry;
 *  - `entries` is the address of an array of `capacity` entries, of which the
 *    first `count` are valid.  The array only grows: a larger copy is made and
 *    `entries` switched with a release store; old arrays are never freed, so
 *    a reader racing with growth still reads valid (older) data.
 *  - `update_seq` is odd while a writer is changing the registry and even
 *    otherwise (seqlock): a reader copies header + entries and retries if the
 *    value changed or was odd.
 *  - `path` is the address of a NUL-terminated string of path_len bytes
 *    (incl. NUL), never freed.
 *  - version 2 adds `counts`: the address of the pointer to the first
 *    per-thread block of path counters (counting mode, -fwpp-mode=count;
 *    docs/runtime.md "Counting"), 0 in a runtime without them.  Blocks form
 *    a push-only list and are never freed; a block's arrays and hash are
 *    never unmapped either (a reader may see zeros, never a fault).  A live
 *    reader sums the counters of the blocks in state WPP_COUNT_LIVE: the
 *    counts not yet drained into a trace stream.
 *  - version 3 adds the flags of dual builds (wppcc -fwpp-dual,
 *    docs/runtime.md "Dual builds"): `dual_flags` is the address of an
 *    array of `dual_count` addresses, one byte each, that select the
 *    instrumented copies (non-zero) or the plain ones (0).  Like `entries`
 *    the array only grows, by a copy switched with a release store after
 *    the count.  `dual_on` is what a flag registered from now on starts
 *    as: a collector that attaches writes 1 there first and then 1 into
 *    every flag (a TU that registers meanwhile either sees dual_on or is
 *    in the array the collector reads: both sides write, fence, then read).
 */
#ifndef WPP_RT_REGISTRY_H
#define WPP_RT_REGISTRY_H

#include <stdint.h>

#define WPP_REGISTRY_MAGIC   "WPPREG\0\0"
#define WPP_REGISTRY_VERSION 3u
#define WPP_REGISTRY_SYMBOL  "__wpp_registry"
/* Set to 1 by a collector that records a program from its start in probe
 * mode (`record -- PROG`): dual builds start with their flags set. */
#define WPP_TRACE_ON_ENV "WPP_TRACE_ON"

enum wpp_registry_transport {
	WPP_REG_TRANSPORT_NONE = 0,
	WPP_REG_TRANSPORT_DISCARD = 1,
	WPP_REG_TRANSPORT_PROBE = 2,
	WPP_REG_TRANSPORT_SHM = 3,
};

struct wpp_registry_entry {
	uint64_t tu_hash;
	uint32_t fid_base;
	uint32_t nfuncs;
	uint64_t meta_addr; /* run-time address of the TU's metadata blob */
	uint64_t meta_size;
	uint64_t load_bias; /* of the ELF object containing the blob */
	uint64_t path;	    /* address of the object's path */
	uint32_t path_len;
	uint32_t build_id_len;
	uint8_t build_id[20];
	uint32_t reserved0;
};

struct wpp_registry {
	char magic[8];	     /* WPP_REGISTRY_MAGIC */
	uint32_t version;    /* WPP_REGISTRY_VERSION */
	uint32_t entry_size; /* sizeof(struct wpp_registry_entry) */
	uint64_t update_seq; /* seqlock, see above */
	uint32_t pid;	     /* process the data describes (updated in fork children) */
	uint32_t next_fid;   /* first unassigned fid */
	uint32_t count;
	uint32_t capacity;
	uint64_t entries;   /* address of struct wpp_registry_entry[capacity] */
	uint32_t transport; /* enum wpp_registry_transport */
	uint32_t buffer_words;
	uint64_t counts;     /* version 2: address of the first wpp_count_block's address */
	uint64_t dual_flags; /* version 3: address of uint64_t[dual_count], flag addresses */
	uint32_t dual_count;
	uint32_t dual_on; /* what newly registered flags start as */
};

/* A version 1 registry ends before `counts`, a version 2 one before
 * `dual_flags`. */
#define WPP_REGISTRY_V1_SIZE 56u
#define WPP_REGISTRY_V2_SIZE 64u
_Static_assert(__builtin_offsetof(struct wpp_registry, counts) == WPP_REGISTRY_V1_SIZE,
	       "version 2 appends to version 1");
_Static_assert(__builtin_offsetof(struct wpp_registry, dual_flags) == WPP_REGISTRY_V2_SIZE,
	       "version 3 appends to version 2");

enum wpp_count_block_state { WPP_COUNT_LIVE = 1, WPP_COUNT_FREE = 2 };

/* One thread's path counters (runtime: rt_count.c, whose struct has this
 * layout). */
struct wpp_count_block {
	uint64_t next;	 /* address of the next block, 0 at the end */
	uint32_t state;	 /* enum wpp_count_block_state */
	uint32_t busy;	 /* the owner is inside its hash */
	uint64_t arrays; /* address of struct wpp_count_array_ref[cap], narrays valid */
	uint32_t narrays, cap;
	uint64_t hash;	   /* address of struct wpp_count_hash_entry[hash_cap] */
	uint64_t hash_cap; /* 0 or a power of two */
	uint64_t hash_used;
	/* Drains begun plus drains ended: odd while one runs.  A reader that
	 * sees it move (or odd) across its read of the block knows the counts
	 * it read may have left (partly) into a trace stream meanwhile
	 * (docs/design.md, "Counts of attached processes are read at
	 * detach").  A runtime without it leaves the zeroed page there: 0. */
	uint64_t drains;
	uint32_t tid; /* the owner's thread id (0 from a runtime without it) */
	uint32_t reserved;
};

struct wpp_count_array_ref {
	uint64_t desc;	   /* address of the TU's struct wpp_count_desc (trace_abi.h) */
	uint64_t tls_slot; /* the owner's TLS pointer of the TU */
	uint64_t base;	   /* address of uint64_t[desc->nslots] */
};

struct wpp_count_hash_entry {
	uint64_t fidw; /* 0: free */
	uint64_t id;
	uint64_t count;
};

#endif
