/* SPDX-License-Identifier: MIT */
/*
 * sequitur_digram.h — the digram index of the SEQUITUR builder.
 *
 * A map from a digram (two 32-bit symbol codes, packed into one 64-bit key)
 * to the node index of one occurrence of it.  The hash is a fixed
 * multiplicative one of the symbol values, never of pointers: the table's
 * content is a pure function of the operations applied to it (determinism).
 *
 * Buckets of one cache line.  The table is an array of 64-byte buckets of
 * eight entries: eight 32-bit tags (the top bits of the key's hash, low
 * bit forced to 1; 0 marks a free entry), then the eight nodes.  A key
 * lives in its home bucket (the top bits of its hash) or, when that was
 * full, in the next one with room (linear probing by bucket).  A lookup
 * loads one line, compares the eight tags at once and reads the nodes of
 * a matching tag only; per bucket, a byte counts the entries that had to
 * go past it, so a lookup goes on to the next bucket only when it is
 * not zero (saturating at 255, then sticky until the table grows).
 * Deletion just frees the entry and decrements the counts its insertion
 * incremented: no shifting, no tombstones.
 *
 * Why buckets (stop 20): the previous table (8-byte slots, an occupancy
 * bitmap, linear probing per slot) spent two hard-to-predict branches per
 * lookup (is the home slot used? does its fingerprint match?) and a probe
 * loop.  A bucket answers with one branch — found or not — whose outcome
 * is the cascade's own.  On the 10 M synthetic trace cachegrind's branch
 * model counts 3.8 -> 2.7 mispredicts per input symbol, its L2-sized cache
 * as many misses, and buckets stay fast up to a load of 3/4 (the table is
 * half the size it was at 1/2).
 *
 * The key itself is not stored.  An entry's value names the node i where
 * the digram starts, and stands for (n[i].sym, n[n[i].next].sym), which
 * the builder keeps true for every indexed node (it unindexes a node
 * before relinking it or changing its symbol).  The value is i itself, or
 * g | SEQ_DIGRAM_WHOLE when the digram is the whole body of rule g (then
 * i is n[g].next): the builder's cascade looks up (symbol, rule) keys, the
 * rule being what the previous lookup found, and a value that names the
 * rule lets the next lookup start without waiting for a node to load
 * (see sequitur.c, "values that name a rule").  The lookups are inline:
 * the builder does two or three per input symbol; growing the table is
 * rare and out of line.
 *
 * Contract: node 0 is never indexed, node and rule indices are below
 * SEQ_DIGRAM_WHOLE, and SEQ_DIGRAM_NONE is no valid value.  A value is
 * stored at most once.  Functions that can grow the table report
 * allocation failure (-1) and leave it unchanged.
 */
#ifndef WPP_SEQUITUR_DIGRAM_H
#define WPP_SEQUITUR_DIGRAM_H

#include <stddef.h>
#include <stdint.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#define SEQ_DIGRAM_NONE UINT32_MAX
/* A value with this bit names a rule whose whole body is the digram. */
#define SEQ_DIGRAM_WHOLE 0x80000000u
#define SEQ_DIGRAM_LANES 8u
/* An overflow count at this value no longer counts (see above). */
#define SEQ_DIGRAM_STICKY 255u

/* One symbol occurrence (or a rule's guard): see sequitur_internal.h. */
struct seq_node {
	uint32_t sym;  /* terminal, SEQ_RULE_BIT|guard, or SEQ_DEAD_SYM */
	uint32_t prev; /* neighbours in the rule's circular list */
	uint32_t next;
	uint32_t aux; /* guards: reference count | ROOT_FLAG; body nodes:
			 DIGRAM_OWNER when the index points at this node */
};

struct seq_digram_bucket {
	uint32_t tag[SEQ_DIGRAM_LANES];	 /* hash | 1, or 0: free */
	uint32_t node[SEQ_DIGRAM_LANES]; /* the value; 0 where free */
};

struct seq_digram_index {
	struct seq_digram_bucket *buckets; /* 64-byte aligned */
	uint8_t *overflow;		   /* per bucket: entries placed past it */
	uint32_t mask;			   /* buckets - 1; a power of two, >= 2 */
	unsigned shift;			   /* 32 - log2(buckets): home = hash >> shift */
	uint32_t count;
	uint32_t limit; /* count that makes the table grow: 3/4 of its entries */
};

static inline uint64_t seq_digram_key(uint32_t first, uint32_t second)
{
	return (uint64_t)first << 32 | second;
}

/* Fibonacci hashing: the top bits of key * 2^64/phi spread consecutive
 * symbol values over the whole table. */
static inline uint32_t seq_digram_fp(uint64_t key)
{
	return (uint32_t)((key * 0x9e3779b97f4a7c15ull) >> 32);
}

/* The stored tag of a hash: never 0, same home bucket. */
static inline uint32_t seq_digram_tag(uint32_t fp)
{
	return fp | 1;
}

static inline uint32_t seq_digram_home(const struct seq_digram_index *idx, uint32_t fp)
{
	return fp >> idx->shift;
}

static inline uint32_t seq_digram_next(const struct seq_digram_index *idx, uint32_t b)
{
	return (b + 1) & idx->mask;
}

/* Bit j set: v[j] == x, for the eight lanes of v. */
static inline unsigned seq_digram_lanes_eq(const uint32_t *v, uint32_t x)
{
#ifdef __SSE2__
	__m128i want = _mm_set1_epi32((int)x);
	__m128i lo = _mm_cmpeq_epi32(_mm_load_si128((const __m128i *)v), want);
	__m128i hi = _mm_cmpeq_epi32(_mm_load_si128((const __m128i *)(v + 4)), want);
	/* Two bytes per lane after packing to 16 bits: keep one. */
	return (unsigned)_mm_movemask_epi8(_mm_packs_epi32(lo, hi)) & 0x5555u;
#else
	unsigned m = 0;
	for (unsigned j = 0; j < SEQ_DIGRAM_LANES; j++)
		m |= (unsigned)(v[j] == x) << (2 * j);
	return m;
#endif
}

/* Masks from seq_digram_lanes_eq have lane j at bit 2j. */
static inline unsigned seq_digram_lane(unsigned mask)
{
	return (unsigned)__builtin_ctz(mask) / 2;
}

/* Start loading the bucket where key's lookup begins (no effect on
 * content).  Not its overflow count: the counts, a byte a bucket, are
 * 1/64 of the table and mostly in cache. */
static inline void seq_digram_prefetch(const struct seq_digram_index *idx, uint64_t key)
{
	__builtin_prefetch(&idx->buckets[seq_digram_home(idx, seq_digram_fp(key))]);
}

/* A table of 2^log2_capacity entries (kept at most 3/4 full). */
int seq_digram_init(struct seq_digram_index *idx, unsigned log2_capacity);
void seq_digram_free(struct seq_digram_index *idx);

/* Out of line: double the table. */
int seq_digram_grow(struct seq_digram_index *idx);

/* The node a value names (v is not SEQ_DIGRAM_NONE). */
static inline uint32_t seq_digram_node_of(const struct seq_node *n, uint32_t v)
{
	return (v & SEQ_DIGRAM_WHOLE) ? n[v & ~SEQ_DIGRAM_WHOLE].next : v;
}

/* Does the entry with value v stand for key?  (Reads the nodes.)  A
 * rule's body of two is its guard's next and prev: both symbols load
 * beside each other once the guard is in. */
static inline int seq_digram_is(const struct seq_node *n, uint32_t v, uint64_t key)
{
	uint32_t first, second;

	if (v & SEQ_DIGRAM_WHOLE) {
		const struct seq_node *guard = &n[v & ~SEQ_DIGRAM_WHOLE];
		first = guard->next;
		second = guard->prev;
	} else {
		first = v;
		second = n[v].next;
	}
	return seq_digram_key(n[first].sym, n[second].sym) == key;
}

/* Where key's entry is: *bucket and the lane's index; -1 if absent. */
static inline int seq_digram_locate(const struct seq_digram_index *idx, const struct seq_node *n,
				    uint64_t key, uint32_t *bucket)
{
	uint32_t fp = seq_digram_fp(key), tag = seq_digram_tag(fp);

	for (uint32_t b = seq_digram_home(idx, fp);; b = seq_digram_next(idx, b)) {
		const struct seq_digram_bucket *bk = &idx->buckets[b];
		for (unsigned m = seq_digram_lanes_eq(bk->tag, tag); m; m &= m - 1) {
			unsigned j = seq_digram_lane(m);
			if (seq_digram_is(n, bk->node[j], key)) {
				*bucket = b;
				return (int)j;
			}
		}
		if (!idx->overflow[b])
			return -1;
	}
}

/* The value stored for key, or SEQ_DIGRAM_NONE. */
static inline uint32_t seq_digram_find(const struct seq_digram_index *idx, const struct seq_node *n,
				       uint64_t key)
{
	uint32_t b;
	int j = seq_digram_locate(idx, n, key, &b);

	return j < 0 ? SEQ_DIGRAM_NONE : idx->buckets[b].node[j];
}

static inline int seq_digram_full(const struct seq_digram_index *idx)
{
	return idx->count >= idx->limit;
}

/* Place an entry whose key the table lacks: the first free lane from its
 * home bucket, counting the full buckets it passes.  The table has room. */
static inline void seq_digram_place(struct seq_digram_index *idx, uint32_t tag, uint32_t v)
{
	uint32_t b = seq_digram_home(idx, tag);

	for (;; b = seq_digram_next(idx, b)) {
		struct seq_digram_bucket *bk = &idx->buckets[b];
		unsigned free_lanes = seq_digram_lanes_eq(bk->tag, 0);
		if (free_lanes) {
			unsigned j = seq_digram_lane(free_lanes);
			bk->tag[j] = tag;
			bk->node[j] = v;
			idx->count++;
			return;
		}
		if (idx->overflow[b] != SEQ_DIGRAM_STICKY)
			idx->overflow[b]++;
	}
}

/* Store (key, v) for a key known to be absent (fingerprint fp): no key
 * is compared and no node is read.  0 or -1 (the table could not grow;
 * nothing stored). */
static inline int seq_digram_insert_absent(struct seq_digram_index *idx, uint32_t fp, uint32_t v)
{
	if (seq_digram_full(idx) && seq_digram_grow(idx) < 0)
		return -1;
	seq_digram_place(idx, seq_digram_tag(fp), v);
	return 0;
}

/* Store (key, v), replacing any value stored for key; *replaced gets
 * the value it displaced or SEQ_DIGRAM_NONE.  0 or -1. */
static inline int seq_digram_put(struct seq_digram_index *idx, const struct seq_node *n,
				 uint64_t key, uint32_t v, uint32_t *replaced)
{
	uint32_t b;
	int j = seq_digram_locate(idx, n, key, &b);

	*replaced = SEQ_DIGRAM_NONE;
	if (j >= 0) {
		*replaced = idx->buckets[b].node[j];
		idx->buckets[b].node[j] = v;
		return 0;
	}
	return seq_digram_insert_absent(idx, seq_digram_fp(key), v);
}

/* Free lane j of bucket b and take back the overflow counts its placement
 * made.  Out of line: most entries sit in their home bucket. */
void seq_digram_remove_at(struct seq_digram_index *idx, uint32_t b, unsigned j);

/* Where key's entry is if its value is v or alias (a node may be stored
 * under either of its two values): *bucket and the lane, or -1.  Values
 * are stored once, so no node is read. */
static inline int seq_digram_locate_value(const struct seq_digram_index *idx, uint64_t key,
					  uint32_t v, uint32_t alias, uint32_t *bucket)
{
	for (uint32_t b = seq_digram_home(idx, seq_digram_fp(key));; b = seq_digram_next(idx, b)) {
		const uint32_t *values = idx->buckets[b].node;
		unsigned m = seq_digram_lanes_eq(values, v) | seq_digram_lanes_eq(values, alias);
		if (m) {
			*bucket = b;
			return (int)seq_digram_lane(m);
		}
		if (!idx->overflow[b])
			return -1;
	}
}

/* Remove key's entry only if its value is v or alias (another occurrence
 * of the same digram may own the entry; it must survive).  1 if removed. */
static inline int seq_digram_remove_if(struct seq_digram_index *idx, uint64_t key, uint32_t v,
				       uint32_t alias)
{
	uint32_t b;
	int j = seq_digram_locate_value(idx, key, v, alias, &b);

	if (j < 0)
		return 0;
	seq_digram_remove_at(idx, b, (unsigned)j);
	return 1;
}

/* Bytes held by the table. */
uint64_t seq_digram_bytes(const struct seq_digram_index *idx);

/* The table's own consistency, for the builder's invariant checker (and
 * in sequitur_check.c with it): the count, free lanes, and every overflow
 * count against the entries placed past its bucket.  0, or -1 with a
 * reason in why. */
int seq_digram_check(const struct seq_digram_index *idx, char *why, size_t whylen);

/* malloc() for an array read at random: 64-byte aligned, and from 2 MiB up
 * aligned and advised onto transparent huge pages.  Freed with free(). */
void *seq_alloc_random_access(size_t bytes);

/* An array read at random that doubles as it fills (the builder's nodes):
 * its contents kept, from old_bytes (0: p is NULL) to new_bytes.  Below
 * 2 MiB it is a seq_alloc_random_access() copy; from 2 MiB up the array
 * is its own huge-page-aligned mapping, and growing it moves page tables
 * (mremap) instead of copying the old contents into fresh pages that
 * the kernel must zero first.  NULL when out of memory (p is then still
 * valid).  Freed with seq_free_growable(p, its size). */
void *seq_grow_growable(void *p, size_t old_bytes, size_t new_bytes);
void seq_free_growable(void *p, size_t bytes);

#endif
