/* SPDX-License-Identifier: MIT */
/*
 * trace_abi.h — the contract between instrumented code (emitted by the wppcc
 * pass), the runtime (libwpprt), the transports and the decoder.
 *
 * A thread's trace is a sequence of 64-bit little-endian words.  Every word
 * names its function, so a word can be decoded without any call-stack
 * reconstruction (longjmp, signals and attach-mid-run stay simple):
 *
 *   63            40 39                                   0
 *  +----------------+--------------------------------------+
 *  |   fid (24 bit) |            payload (40 bit)          |
 *  +----------------+--------------------------------------+
 *
 *  fid = 1 .. WPP_FID_MAX   a function; payload is its Ball-Larus path id
 *                           (or, in blocks mode, the index of the block
 *                           entered; the TU's metadata says which mode).
 *  fid = WPP_FID_CONTROL    a control word; payload = op << 32 | operand.
 *  fid = WPP_FID_UNREGISTERED  emitted by a TU whose constructor has not run
 *                           yet; the decoder reports such words as
 *                           unattributed.
 *
 * The all-zero word is never a valid record, so a zero-filled buffer region
 * reads as "nothing written yet" (the shm transport salvages partially filled
 * buffers of crashed processes this way).
 *
 * fids are assigned by the runtime at module registration: each translation
 * unit (TU) gets a contiguous range [fid_base, fid_base + nfuncs).  The
 * runtime stores the pre-shifted base (`fid_base << 40`) in the TU's slot;
 * the TU's constructor then derives each function's word
 * `(fid_base + local_index) << 40` into a per-function slot, which an
 * activation loads once; the path register starts at that value so the
 * recorded word is register + final increment, no extra work.
 */
#ifndef WPP_TRACE_ABI_H
#define WPP_TRACE_ABI_H

#include <stdint.h>

#define WPP_ABI_VERSION 1u

#define WPP_FID_SHIFT	     40
#define WPP_FID_BITS	     24
#define WPP_PAYLOAD_MASK     ((UINT64_C(1) << WPP_FID_SHIFT) - 1)
#define WPP_FID_CONTROL	     0u
#define WPP_FID_UNREGISTERED ((1u << WPP_FID_BITS) - 1)
/* fids 0x800000 .. 0xbfffff are never assigned: a WET value word has that
 * shape (wet_abi.h), so readers tell it from a record without metadata. */
#define WPP_FID_MAX ((1u << (WPP_FID_BITS - 1)) - 1)

/* Functions with at most this many Ball-Larus paths use one-word records. */
#define WPP_NARROW_PATH_LIMIT (UINT64_C(1) << WPP_FID_SHIFT)
/* Wide functions keep a 64-bit path id; their DAG is cut by truncation
 * edges so that the number of paths never exceeds this limit. */
#define WPP_WIDE_PATH_LIMIT (UINT64_C(1) << 63)
/* Set in the second word of a wide record; the wide register starts with it,
 * as a narrow register starts with its fid, so it costs no instruction. */
#define WPP_WIDE_ID_MARK (UINT64_C(1) << 63)

static inline uint32_t wpp_word_fid(uint64_t w)
{
	return (uint32_t)(w >> WPP_FID_SHIFT);
}
static inline uint64_t wpp_word_payload(uint64_t w)
{
	return w & WPP_PAYLOAD_MASK;
}
static inline uint64_t wpp_make_word(uint32_t fid, uint64_t payload)
{
	return ((uint64_t)fid << WPP_FID_SHIFT) | (payload & WPP_PAYLOAD_MASK);
}

/* Control words: fid 0, payload = op << 32 | operand (32 bits). */
enum wpp_ctrl_op {
	WPP_CTRL_INVALID = 0,	/* never emitted: the zero word means "empty" */
	WPP_CTRL_WIDE_PATH = 1, /* operand = fid; the next word is the path id with
				 * WPP_WIDE_ID_MARK set (ids are < 2^63), so it is
				 * never the all-zero "unwritten" word */
	WPP_CTRL_GAP = 2,	/* operand = 0; the next word is the number of lost
				 * words. Inserted by transports/collector only. */
	WPP_CTRL_PAD = 3,	/* filler, ignored by decoders */
	WPP_CTRL_REPEAT = 4,	/* operand = n >= 1: the path record just before
				 * this word in the same stream (a narrow word or
				 * a wide pair, possibly at the end of the
				 * previous batch of the same thread and signal
				 * depth) ran n more times in a row.  Emitted by
				 * loops whose iterations repeat one path
				 * (docs/instrumentation.md); several in a row
				 * add up; PAD and zero words in between are
				 * transparent.  With no such record before it
				 * (stream start, a signal handler's level just
				 * entered, after a gap or a malformed word,
				 * including REPEAT 0) the n instances are
				 * unattributable. */
};

/* Largest count one REPEAT word carries (longer runs use several words). */
#define WPP_REPEAT_MAX UINT32_MAX

static inline uint64_t wpp_make_ctrl(enum wpp_ctrl_op op, uint32_t operand)
{
	return wpp_make_word(WPP_FID_CONTROL, ((uint64_t)op << 32) | operand);
}
static inline enum wpp_ctrl_op wpp_ctrl_op(uint64_t w)
{
	return (enum wpp_ctrl_op)((w >> 32) & 0xff);
}
static inline uint32_t wpp_ctrl_operand(uint64_t w)
{
	return (uint32_t)w;
}

/*
 * Symbols the pass emits references to (all provided by libwpprt).
 *
 * Per-thread state, initial-exec TLS.  The inline record sequence is
 *
 *     cur[0..k-1] = words;  cur += k;
 *     __wpp_cursor = cur;               // after the words (release, 1 thread)
 *     if (cur >= __wpp_limit) {         // cold, unlikely
 *             __wpp_flush();            // preserve_most calling convention
 *             cur = __wpp_cursor;
 *     }
 *
 * with k = 1 (narrow) or 2 (wide), where cur is the function's copy of the
 * cursor, loaded from __wpp_cursor at function entry and after every call
 * that may record.  So __wpp_cursor is exact at every record and covers
 * written words only; the runtime moves it only inside such a call (or for
 * a signal handler's own level, restored before returning), and may lower
 * __wpp_limit at any time to make the next record call __wpp_flush().
 * __wpp_flush preserves every general register except r11; code built for
 * the C convention may call it too.  The runtime guarantees at least one
 * word of slack past __wpp_limit, so a 2-word record that crosses the limit
 * still lands in owned memory.  Before the thread's first record both
 * pointers address a small per-thread scratch area, so the first record
 * always reaches __wpp_flush(), which sets up the real buffer.
 *
 * Runs (WPP_CTRL_REPEAT): a loop may keep "same path as last iteration"
 * in a register count instead of appending a word per iteration; it writes
 * the first instance as a normal record and the count as a REPEAT word when
 * the path changes or the loop is left, always before any later record of
 * the thread.  While a run is being counted the cursor stays where the
 * REPEAT word will go, so a sample taken then has the REPEAT word's position
 * and belongs to the run's repeated instances (readers attribute it to the
 * first of them).
 */
#define WPP_SYM_CURSOR "__wpp_cursor"
#define WPP_SYM_LIMIT  "__wpp_limit"
/* __wpp_limit is the TLS word right after __wpp_cursor: instrumented code
 * addresses it as __wpp_cursor + WPP_LIMIT_OFFSET, so one TLS offset (one
 * GOT entry, one register) serves both.  The runtime exports both names. */
#define WPP_LIMIT_OFFSET  8
#define WPP_SYM_FLUSH	  "__wpp_flush"	      /* void __wpp_flush(void), preserve_most */
#define WPP_SYM_FLUSH_ALL "__wpp_flush_all"   /* void (void): before exec*, _exit, abort */
#define WPP_SYM_REGISTER  "__wpp_register_tu" /* void (struct wpp_tu_desc *) */

/*
 * USDT probes in libwpprt (provider "wpptrace"), for the BPF transport:
 *   wpptrace:batch     arg1 const uint64_t *words, arg2 uint32_t nwords,
 *                      arg3 uint64_t seq, arg4 uint32_t flags (wpp_batch_flags),
 *                      arg5 uint64_t parent_seq, arg6 uint32_t parent_off,
 *                      arg7 uint32_t generation
 *                      fired once per published batch, words still valid.
 *   wpptrace:register  arg1 const struct wpp_tu_desc *desc, arg2 uint32_t fid_base,
 *                      arg3 const struct wpp_registry_entry *entry (user/runtime/wpp_registry.h)
 *                      fired after a TU received its fid range.
 * All probe arguments are passed as 8-byte values.
 * The runtime's exact argument list is the one in its .note.stapsdt; keep this
 * comment and user/runtime in agreement.
 */

/*
 * One per instrumented TU, emitted by the pass as a private global and passed
 * to __wpp_register_tu() from a constructor (llvm.global_ctors priority 0).
 * Layout is fixed (ABI); all fields naturally aligned.
 */
struct wpp_tu_desc {
	uint32_t abi_version;	 /* WPP_ABI_VERSION */
	uint32_t nfuncs;	 /* number of fids this TU needs */
	uint64_t tu_hash;	 /* equals the metadata blob's tu_hash */
	uint64_t *fid_base_slot; /* runtime stores fid_base << WPP_FID_SHIFT here */
	const void *meta;	 /* this TU's metadata blob (meta_format.h) */
	uint64_t meta_size;
};

/*
 * Counting mode (-fwpp-mode=count, WPP_MODE_COUNTS in the metadata).  A TU
 * keeps one thread-local pointer (TU-local TLS, NULL in a new thread) to
 * this thread's array of the TU's path counters, uint64_t[nslots]; a
 * function loads it once at entry, and on NULL calls
 *
 *     uint64_t *__wpp_count_alloc(struct wpp_count_desc *desc, uint64_t **tls_slot)
 *
 * which stores the thread's (zeroed) array into *tls_slot and returns it.
 * A path end of function i with first[i] < first[i + 1] is one
 * `base[first[i] + id] += 1`; a function whose paths do not fit an array
 * range (first[i] == first[i + 1]: more than WPP_COUNT_ARRAY_MAX_PATHS, or
 * past the TU's WPP_COUNT_TU_MAX_SLOTS) calls
 *
 *     void __wpp_count_hash(uint64_t fid_word, uint64_t id)
 *
 * with its fid word (as a trace word's high bits) instead.  No atomics: each
 * thread owns its arrays.  The runtime turns counts into ordinary path
 * records followed by REPEAT words (count - 1) in the thread's stream when
 * it flushes (thread exit, exec, exit), so every reader of traces reads
 * counts unchanged; only the order of paths is lost.
 */
#define WPP_SYM_COUNT_ALLOC "__wpp_count_alloc"
/* Initial-exec TLS pointer to the thread's count block (NULL before its
 * first count); a hashed function's path end first probes the block's
 * hash inline: if the owner is not inside it (busy == 0) and the entry at
 * the path's home slot is the path, it marks busy, adds 1 to the entry's
 * count and clears busy, with no call; anything else calls the hash.  The
 * hash is open addressing over entries {fid word, id, count} (24 bytes),
 * the home slot of (fidw, id) being h ^ (h >> 29) masked by cap - 1, where
 * h = (id ^ fidw) * 0x9e3779b97f4a7c15. */
#define WPP_SYM_COUNT_SELF	  "__wpp_count_self"
#define WPP_COUNT_BUSY_OFFSET	  12 /* uint32_t */
#define WPP_COUNT_HASH_OFFSET	  32 /* entries */
#define WPP_COUNT_HASH_CAP_OFFSET 40 /* uint64_t, a power of two or 0 */
#define WPP_COUNT_HASH_MUL	  UINT64_C(0x9e3779b97f4a7c15)
#define WPP_SYM_COUNT_HASH	  "__wpp_count_hash"
/*
 * A hashed function's path cache.  Before the hash, a hashed function's
 * path end tries a small direct-mapped table of its own in the TU's array:
 * its range is N = WPP_COUNT_CACHE_PAIRS keys (id + 1; 0 = free) followed
 * by their N counts, reached from the array base the function loads at
 * entry.  A PPP function's residual paths count the same way, in a cache
 * after its interval (N: its paths, rounded up to a power of two, at most
 * WPP_COUNT_CACHE_PAIRS).  Its register starts one above the path id, so the path end has
 * key = id + 1 at hand:
 *
 *     k = (key * WPP_COUNT_HASH_MUL) >> (64 - log2 N);
 *     if (base[first[i] + k] == key) base[first[i] + N + k] += 1;
 *     else __wpp_count_cache_miss(fid_word, key, base, first[i] + k, N);
 *
 * The miss claims a free key slot for the path (one compare-exchange, so
 * a signal handler on the thread cannot claim it twice) and counts there,
 * or counts id in the hash when another path holds the slot.  A key, once
 * claimed, stays until the array is given back (fork child, thread exit),
 * so the inline compare and add always count the path the key names;
 * drains take each count by exchange and leave the key.  Such a TU's
 * descriptor has abi_version WPP_COUNT_DESC_CACHED and `cached`.
 */
#define WPP_SYM_COUNT_CACHE_MISS "__wpp_count_cache_miss"
/* Pairs per cached function (a power of two: 64 KiB of the thread's
 * array, backed only where touched); the pass takes another from
 * WPP_COUNT_CACHE_PAIRS in its environment (0: no cache, measurements). */
#define WPP_COUNT_CACHE_PAIRS	  4096u
#define WPP_COUNT_CACHE_MAX_PAIRS (1u << 20)
/* Default; the pass takes another from WPP_COUNT_ARRAY_MAX_PATHS in its
 * environment (measurements).  A range is at most 4 GiB of a thread's
 * array: virtual, backed only where touched, and drained page by page
 * where the kernel says a page was ever written (docs/instrumentation.md,
 * "Counting mode").  Functions with more paths than this (bzip2's
 * BZ2_compressBlock has 7e17) count in the hash. */
#define WPP_COUNT_ARRAY_MAX_PATHS (UINT64_C(1) << 29)
/* A TU's array holds at most this many counters (8 GiB of address space
 * per thread and TU): a function whose range would take it past this
 * counts in the hash, in function order. */
#define WPP_COUNT_TU_MAX_SLOTS (UINT64_C(1) << 30)
/* A PPP function's interval bound: its slot table is a constant in the
 * binary, 8 bytes per PPP id. */
#define WPP_PPP_MAX_INTERVAL 8192u

/*
 * Preferential path counting (-fwpp-mode=ppp, WPP_MODE_PPP).  A function
 * numbered preferentially (ppp.h) keeps a second register, its PPP id,
 * updated on the same chords as the Ball-Larus one; its array range has
 * one counter per PPP id below the function's interval, and its path end
 * is
 *
 *     if (ppp < interval && slots[ppp] == bl) base[first[i] + ppp] += 1;
 *     else count bl as a cached hashed function does (a residual path)
 *
 * where slots (the function's slot table, constant) holds the Ball-Larus id
 * of the interesting path each PPP id stands for, WPP_PPP_HOLE where none
 * does.  A path that is not interesting can share a PPP id with one that
 * is (PPP numbers interesting paths only): the Ball-Larus register tells
 * them apart, so nothing is ever counted for the wrong path.  Such a TU's
 * descriptor has abi_version WPP_COUNT_DESC_PPP and `ppp_slots`; the
 * runtime turns slot k of function i back into path ppp_slots[i][k] when
 * it drains (functions with a NULL table count by Ball-Larus id), so the
 * recording holds Ball-Larus ids as in counting mode.
 */
#define WPP_COUNT_DESC_PPP 2u
/* ppp_slots (NULL, or as above) and cached (path caches) both follow */
#define WPP_COUNT_DESC_CACHED 3u
#define WPP_PPP_HOLE	      UINT64_MAX /* never a path id (those are below 2^63) */
/* Bytes of a descriptor without ppp_slots (abi_version WPP_ABI_VERSION). */
#define WPP_COUNT_DESC_V1_SIZE 40u

struct wpp_count_desc {
	uint32_t abi_version;	       /* WPP_ABI_VERSION, WPP_COUNT_DESC_PPP or _CACHED */
	uint32_t nfuncs;	       /* the TU's functions, by local index */
	uint64_t nslots;	       /* counters in one thread's array */
	const uint64_t *fid_base_slot; /* the TU's wpp_tu_desc.fid_base_slot */
	const uint64_t *first;	       /* [nfuncs + 1]: function i counts in
					* [first[i], first[i + 1]) */
	uint64_t *late;		       /* runtime-owned: a shared array of nslots
					* that exited threads count into */
	/* abi_version WPP_COUNT_DESC_PPP or _CACHED: NULL, or [nfuncs],
	 * function i's slot table (a Ball-Larus id per slot of its range
	 * before its path cache, if any) or NULL */
	const uint64_t *const *ppp_slots;
	/* abi_version WPP_COUNT_DESC_CACHED only: [nfuncs], 0, or log2 of
	 * the pairs of function i's path cache: the last 2^(c + 1) slots of
	 * its range (keys, then counts; a PPP function's interval before) */
	const uint8_t *cached;
};
/* Bytes of a descriptor without cached (abi_version WPP_COUNT_DESC_PPP). */
#define WPP_COUNT_DESC_V2_SIZE 48u
_Static_assert(__builtin_offsetof(struct wpp_count_desc, ppp_slots) == WPP_COUNT_DESC_V1_SIZE,
	       "the PPP descriptor appends to the counting one");
_Static_assert(__builtin_offsetof(struct wpp_count_desc, cached) == WPP_COUNT_DESC_V2_SIZE,
	       "the cached descriptor appends to the PPP one");

#endif
