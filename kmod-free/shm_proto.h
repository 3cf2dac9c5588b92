/* SPDX-License-Identifier: MIT */
/*
 * shm_proto.h — the layout of the shared-memory transport region, shared by
 * the producer (libwpprt, in every traced process) and the collector
 * (`wpptrace record`).  Documented in docs/shm-transport.md.
 *
 * The collector creates one region (a memfd) and passes its path in the
 * environment (WPP_SHM=/proc/<collector pid>/fd/<n>).  Every traced process
 * maps it MAP_SHARED at whatever address; all references inside the region
 * are therefore byte offsets from its start, never pointers.
 *
 *   +--------------------+  offset 0
 *   | wpp_shm_header     |  geometry, allocation counters, doorbell
 *   +--------------------+  procs_off
 *   | wpp_shm_proc[]     |  process images (pid, ppid, generation, argv)
 *   +--------------------+  tus_off
 *   | wpp_shm_tu[]       |  registered translation units (-> MODULE chunks)
 *   +--------------------+  threads_off
 *   | wpp_shm_thread[]   |  thread slots, each with WPP_SHM_LEVELS rings
 *   +--------------------+  slots_off
 *   | batch slots        |  thread i owns slots_per_thread consecutive slots:
 *   |                    |  ring_slots for level 0, then sig_ring_slots for
 *   |                    |  each signal level 1..WPP_SHM_LEVELS-1
 *   +--------------------+
 *
 * A batch slot is a wpp_batch_hdr followed by buffer_words + WPP_SLACK_WORDS
 * words.  Producers write trace words straight into the slot (zero copy) and
 * publish it with a release store of the ring's head; the collector consumes
 * it, zeroes it and advances tail with a release store.  Each ring has one
 * producer (the code of one thread running at one signal-nesting level) and
 * one consumer, so no locks are needed anywhere.
 *
 * Lossless: a producer whose ring is full sleeps on the ring's futex until the
 * collector frees a slot.  Zeroed slots make crash salvage possible: words of
 * a slot that was being filled when its process died are the non-zero prefix.
 *
 * Table entries (procs, tus, threads) are claimed by producers with a CAS from
 * FREE and returned to FREE by the collector once everything they describe
 * has been written out, so the region's size is bounded for any run length.
 */
#ifndef WPP_SHM_PROTO_H
#define WPP_SHM_PROTO_H

#include <stdint.h>

#define WPP_SHM_MAGIC "WPPSHM\0\0"
/* Both sides refuse a region of any other version (and any other
 * header_size).  Bumped whenever a side must do something an older build
 * of the other does not: 2 = producers raise the tables' high-water marks
 * (wpp_shm_header.procs_high), which a version-1 producer never did, so a
 * version-2 collector would not look at its entries. */
#define WPP_SHM_VERSION 2u
#define WPP_SHM_ENV	"WPP_SHM"
/* The batch size (words) a traced program's runtime uses when no collector
 * region tells it (the probe mode): set by `record` for a program it starts. */
#define WPP_BUFFER_WORDS_ENV "WPP_BUFFER_WORDS"

/* Level 0 = the thread's own code; 1..LEVELS-1 = nested signal handlers. */
#define WPP_SHM_LEVELS 5
/* Words past the limit every buffer keeps (a 2-word record may cross it). */
#define WPP_SLACK_WORDS 2

/* Defaults and bounds (all overridable by the collector's options). */
#define WPP_SHM_DEF_BUFFER_WORDS 8192u
/* 32 x 8192 words = 2 MiB per busy thread.  The collector sleeps until a
 * ring is half full, so the ring's length sets how often the program wakes
 * it: a wake-up costs the program a FUTEX_WAKE and, on a busy machine, its
 * CPU (the woken collector lands on the program's core and preempts it).
 * 16 slots woke it twice as often; fewer cost syscalls and waits on a full
 * ring, more cost memory (docs/shm-transport.md, docs/benchmarks.md
 * "What the transport costs the program"). */
#define WPP_SHM_DEF_RING_SLOTS	   32u
#define WPP_SHM_DEF_SIG_RING_SLOTS 2u
#define WPP_SHM_DEF_THREADS	   128u
#define WPP_SHM_DEF_PROCS	   128u
#define WPP_SHM_DEF_TUS		   1024u
#define WPP_SHM_MIN_BUFFER_WORDS   16u
#define WPP_SHM_MAX_BUFFER_WORDS   (1u << 22)
#define WPP_SHM_MAX_RING_SLOTS	   1024u

/*
 * Header of every batch buffer, in shm slots and in the runtime's private
 * buffers alike (the later BPF transport reads it just before the words the
 * USDT probe points at).  Producers fill seq/parent/flags when the buffer
 * starts filling (so a salvaged buffer is still placed correctly) and
 * nwords/time_ns when it is published.
 */
struct wpp_batch_hdr {
	uint64_t seq;	     /* per-thread, dense from 1; 0 = buffer not started */
	uint64_t parent_seq; /* WPP_BATCH_SIGNAL: batch that was interrupted */
	uint32_t parent_off; /* words of the parent reserved before the signal */
	uint32_t flags;	     /* enum wpp_batch_flags (wpp/wpp_file.h) */
	uint64_t time_ns;    /* CLOCK_MONOTONIC at publish */
	uint32_t nwords;     /* words that follow, valid once published */
	uint32_t level;	     /* signal nesting level that filled it */
	uint32_t pid, tid;
	uint32_t generation;
	uint32_t reserved0;
	/* Probe mode: a detaching BPF collector's mark (seq and words it took
	 * from this open buffer, user/bpfcollect/detach_take.h); the runtime
	 * clears it with the header after each publish and never writes it. */
	uint64_t reserved1;
};
_Static_assert(sizeof(struct wpp_batch_hdr) == 64, "batch header is one cache line");

struct wpp_shm_header {
	char magic[8];	      /* WPP_SHM_MAGIC */
	uint32_t version;     /* WPP_SHM_VERSION */
	uint32_t header_size; /* sizeof(struct wpp_shm_header) */
	uint64_t region_size;
	uint32_t buffer_words;	 /* record capacity of a slot (slack comes on top) */
	uint32_t ring_slots;	 /* level-0 ring length */
	uint32_t sig_ring_slots; /* ring length of each signal level */
	uint32_t slots_per_thread;
	uint32_t max_procs, max_tus, max_threads;
	uint32_t collector_pid;
	uint64_t slot_bytes;
	uint64_t procs_off, tus_off, threads_off, slots_off;
	/* The collector sleeps on doorbell when idle (collector_sleeping set,
	 * bounded timeout).  A producer bumps and FUTEX_WAKEs it only when a
	 * publish leaves its ring at least wpp_shm_doorbell_fill() full or
	 * hands over a partial/final batch (flush, exit, exec, signal level),
	 * and only if collector_sleeping is set (docs/shm-transport.md). */
	uint32_t doorbell;
	uint32_t collector_sleeping;
	/* Set by the collector when it stops draining; producers then drop
	 * instead of waiting forever. */
	uint32_t collector_gone;
	/* Bumped (release) after every TU entry is published, so a collector
	 * that sees a batch can tell whether a new module must be read first. */
	uint32_t tu_epoch;
	uint64_t table_full; /* claims refused because a table was full */
	/* Transport statistics, bumped by producers on their slow (syscall)
	 * paths only: doorbell FUTEX_WAKEs, space waits (FUTEX_WAITs on a full
	 * ring), and space waits that ran into their timeout while the
	 * collector was alive (each one is a lost or very late wake-up). */
	uint64_t doorbell_wakes;
	uint64_t space_waits;
	uint64_t space_wait_timeouts;
	/* Claims that found their table full of entries the collector had
	 * still to reclaim (exited threads, finished processes) and waited
	 * for it instead of giving up (wpp_shm_thread_open). */
	uint64_t entry_waits;
	/* High-water marks: 1 + the highest index of the table a producer has
	 * ever claimed.  A producer raises its table's mark (never lowers it)
	 * as soon as its claim succeeds, before it fills the entry, so an
	 * entry abandoned half-way is below it too.  The collector looks only
	 * at entries below its own running maximum of the marks (bounded by
	 * its table sizes), so a short run's collector never reads, and never
	 * faults in, the pages of entries nobody used.  A writer that lowers
	 * a mark cannot lower that maximum; it can at most hide an entry
	 * claimed since the collector last read the mark, until the
	 * collector's look at which pages of the region were ever written
	 * (periodic, before it retires a process, and final:
	 * shm_collector.c). */
	uint32_t procs_high, tus_high, threads_high;
	uint32_t reserved0;
	uint64_t reserved[2]; /* zero: room for later fields */
};

enum wpp_shm_entry_state {
	WPP_SHM_FREE = 0,
	WPP_SHM_CLAIMED = 1, /* producer is filling the entry */
	WPP_SHM_LIVE = 2,    /* published; for threads: running */
	WPP_SHM_EXITING = 3, /* thread: said goodbye (late records may follow);
			      * proc: replaced by a new image (exec) */
};

#define WPP_SHM_EXE_MAX	    256
#define WPP_SHM_CMDLINE_MAX 1024
#define WPP_SHM_PATH_MAX    512

struct wpp_shm_proc {
	uint32_t state; /* enum wpp_shm_entry_state */
	uint32_t pid, ppid, parent_tid;
	uint32_t flags; /* enum wpp_process_flags */
	uint32_t generation;
	uint64_t start_ticks; /* /proc/PID/stat starttime: exec keeps it, pid reuse changes it */
	uint64_t time_ns;
	uint32_t exe_len;     /* incl. NUL */
	uint32_t cmdline_len; /* NUL-separated argv bytes */
	char exe[WPP_SHM_EXE_MAX];
	char cmdline[WPP_SHM_CMDLINE_MAX];
};

struct wpp_shm_tu {
	uint32_t state;
	uint32_t proc_index; /* owning wpp_shm_proc */
	uint32_t fid_base, nfuncs;
	uint64_t tu_hash, meta_addr, load_bias;
	uint8_t build_id[20];
	uint32_t build_id_len;
	uint32_t path_len; /* incl. NUL */
	uint32_t reserved0;
	char path[WPP_SHM_PATH_MAX];
};

struct wpp_shm_ring {
	uint64_t head;	      /* batches published (producer, release) */
	uint64_t tail;	      /* batches consumed and zeroed (collector, release) */
	uint32_t space_futex; /* producer sleeps here while the ring is full */
	uint32_t producer_waiting;
	uint32_t nslots;
	uint32_t first_slot; /* index among the thread's slots */
};

/* The tail a collector gives every ring of a producer it cut off: beyond
 * any head, so the producer stops using them (shm_producer.c). */
#define WPP_SHM_TAIL_CUT UINT64_MAX

struct wpp_shm_thread {
	uint32_t state;
	uint32_t proc_index;
	uint32_t pid, tid;
	uint64_t start_ns;
	uint64_t lost_words; /* records the producer had to drop (nesting overflow) */
	struct wpp_shm_ring rings[WPP_SHM_LEVELS];
};

/*
 * Wake-up thresholds of a ring of n slots (both sides use these, so they
 * cannot disagree):
 *  - doorbell fill: a publish that leaves at least this many published,
 *    unconsumed slots rings the doorbell (if the collector sleeps).  Half
 *    the ring: the other half is the headroom the producer keeps filling
 *    while the collector wakes up.  Below it the collector's bounded sleep
 *    picks the data up, so nothing waits longer than that timeout.
 *  - space low-water: a producer waiting on a full ring is woken once the
 *    collector has brought the ring down to this many slots, not at the
 *    first freed slot, so one wait buys it n - low slots to fill.
 */
static inline uint32_t wpp_shm_doorbell_fill(uint32_t n)
{
	return (n + 1) / 2;
}
static inline uint32_t wpp_shm_space_low(uint32_t n)
{
	return n / 2;
}

static inline uint64_t wpp_shm_slot_bytes(uint32_t buffer_words)
{
	return sizeof(struct wpp_batch_hdr) + ((uint64_t)buffer_words + WPP_SLACK_WORDS) * 8;
}

/*
 * Where things are, as each side computes it for itself.  Every process with
 * the region mapped can write every byte of it, so neither side ever takes
 * a size, an offset, a ring length or a slot index from the region: the
 * collector keeps the geometry it created the region with, a producer the
 * one it derived (wpp_shm_layout) from the header it checked at attach.
 * The ring fields nslots/first_slot in the region are informative only.
 * Indices passed to these accessors must be below the geometry's counts
 * (callers bound every index they read from the region).
 */
struct wpp_shm_geometry {
	uint64_t region_size, slot_bytes;
	uint64_t procs_off, tus_off, threads_off, slots_off;
	uint32_t buffer_words, ring_slots, sig_ring_slots, slots_per_thread;
	uint32_t max_procs, max_tus, max_threads;
};

static inline struct wpp_shm_proc *wpp_shm_proc_at(void *base, const struct wpp_shm_geometry *g,
						   uint32_t i)
{
	return (struct wpp_shm_proc *)((char *)base + g->procs_off) + i;
}
static inline struct wpp_shm_tu *wpp_shm_tu_at(void *base, const struct wpp_shm_geometry *g,
					       uint32_t i)
{
	return (struct wpp_shm_tu *)((char *)base + g->tus_off) + i;
}
static inline struct wpp_shm_thread *wpp_shm_thread_at(void *base, const struct wpp_shm_geometry *g,
						       uint32_t i)
{
	return (struct wpp_shm_thread *)((char *)base + g->threads_off) + i;
}
/* Ring `level`'s length and first slot among its thread's slots. */
static inline uint32_t wpp_shm_ring_len(const struct wpp_shm_geometry *g, int level)
{
	return level == 0 ? g->ring_slots : g->sig_ring_slots;
}
static inline uint32_t wpp_shm_ring_first(const struct wpp_shm_geometry *g, int level)
{
	return level == 0 ? 0 : g->ring_slots + (uint32_t)(level - 1) * g->sig_ring_slots;
}
/* Slot for batch number k (any k: taken modulo the ring) of ring `level`
 * (< WPP_SHM_LEVELS) of thread slot ti (< max_threads). */
static inline struct wpp_batch_hdr *wpp_shm_slot(void *base, const struct wpp_shm_geometry *g,
						 uint32_t ti, int level, uint64_t k)
{
	uint64_t idx = (uint64_t)ti * g->slots_per_thread + wpp_shm_ring_first(g, level) +
		       k % wpp_shm_ring_len(g, level);
	return (struct wpp_batch_hdr *)((char *)base + g->slots_off + idx * g->slot_bytes);
}

#endif
