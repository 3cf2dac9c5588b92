/* SPDX-License-Identifier: MIT */
/*
 * sequitur.c — SEQUITUR and SEQUITUR(1), online.  See sequitur.h for the
 * contract and sequitur_internal.h for the node representation.
 *
 * The structure follows Nevill-Manning & Witten's linear-time algorithm:
 * appending a symbol forms one new digram; check() looks it up; a
 * duplicate is replaced by a rule (match/substitute), which forms new
 * digrams that are checked in turn; a rule whose use count falls to one is
 * inlined (expand).  Differences from the reference implementation, each
 * for a reason given where it happens: index-based nodes, the value-keyed
 * digram index (the segment's last digram indexed lazily, outside the
 * table), utility checked on both ends of a rule, a duplicate whose
 * other occurrence is a whole rule body reusing that rule from either side,
 * guards of deleted rules recycled only between steps, and the look-ahead.
 */
#include "analysis/grammar/sequitur_internal.h"
#include "analysis/grammar/grow_u32.h"

#include <stdlib.h>
#include <string.h>

/* The per-symbol path is a handful of small helpers; they must be inlined
 * into it (the compiler's heuristics left some as calls, and the call
 * overhead was a tenth of the instructions per symbol). */
#define HOT static inline __attribute__((always_inline))

#define INITIAL_NODES 1024u
#define MAX_NODES     0x7ffffff0u

static inline uint64_t digram_key_at(const struct seq_builder *b, uint32_t i)
{
	return seq_digram_key(b->n[i].sym, b->n[b->n[i].next].sym);
}

static inline uint32_t *refs_of(struct seq_builder *b, uint32_t guard)
{
	return &b->n[guard].aux;
}

static inline uint32_t refcount(const struct seq_builder *b, uint32_t guard)
{
	return b->n[guard].aux & REFS_MASK;
}

static inline int rule_alive(const struct seq_builder *b, uint32_t guard)
{
	return seq_node_is_guard(b, guard);
}

/* Allocation failure must not corrupt memory: we hand out the dummy node 0
 * (all later index arithmetic stays in bounds) and poison the builder.
 * The array is read at random like the digram table, so it goes on huge
 * pages the same way: on the synthetic trace half the page faults (1 915
 * -> 933).  From 2 MiB up a doubling moves page tables instead of copying
 * (seq_grow_growable): a copy zeroed and wrote every old page again. */
static __attribute__((noinline)) int grow_nodes(struct seq_builder *b)
{
	uint32_t cap = b->cap * 2;
	struct seq_node *bigger;

	if (b->cap >= MAX_NODES / 2 ||
	    !(bigger = seq_grow_growable(b->n, (size_t)b->cap * sizeof(*bigger),
					 (size_t)cap * sizeof(*bigger)))) {
		b->failed = 1;
		return -1;
	}
	b->n = bigger;
	b->cap = cap;
	return 0;
}

HOT uint32_t new_node(struct seq_builder *b, uint32_t sym)
{
	uint32_t i;

	if (b->free_head) {
		i = b->free_head;
		b->free_head = b->n[i].next;
	} else {
		if (b->used == b->cap && grow_nodes(b) < 0)
			return 0;
		i = b->used++;
	}
	b->n[i] = (struct seq_node){sym, 0, 0, 0};
	return i;
}

HOT void free_node(struct seq_builder *b, uint32_t i)
{
	if (i == 0)
		return;
	b->n[i].sym = SEQ_DEAD_SYM;
	b->n[i].next = b->free_head;
	b->free_head = i;
}

HOT void link_nodes(struct seq_builder *b, uint32_t l, uint32_t r)
{
	b->n[l].next = r;
	b->n[r].prev = l;
}

/* Is the digram at m the whole body of an ordinary (non-root) rule?  Then
 * its guard, else 0. */
HOT uint32_t whole_rule_at(const struct seq_builder *b, uint32_t m)
{
	uint32_t g = b->n[m].prev;

	/* The body is exactly m and its successor when that successor is
	 * followed by g itself (a body node naming g would make g refer to
	 * itself): an index compare, no third node read. */
	if (!seq_node_is_guard(b, g) || b->n[b->n[m].next].next != g)
		return 0;
	return (b->n[g].aux & ROOT_FLAG) ? 0 : g;
}

/*
 * Values that name a rule.  Most lookups in a cascade are of a digram
 * (symbol, rule) where the rule is what the lookup before found: the whole
 * body of a rule, replaced by a reference to it.  If the table gave the
 * node m, the next key would have to wait for m to load (its prev is the
 * rule): two cache misses a level, one after the other.  So the entry of
 * a digram that is a rule's whole body may hold the rule instead (g |
 * SEQ_DIGRAM_WHOLE; m is n[g].next), and the next lookup starts as soon as
 * the bucket arrives; m and g load beside it.
 *
 * The rule: a value that names g promises that g is a live ordinary rule
 * whose body is exactly that digram.  A plain node value promises nothing
 * about rules (whole_rule_at() is asked, as before): entries are encoded
 * when stored, and where a body later becomes exactly two symbols without
 * its digram being stored again (rare; also join() stores a run's digram
 * before the link that may make it whole) the entry stays plain until a
 * fast-path lookup (entry_rule()) finds it so and promotes it.  Where
 * a named body changes while its digram stays indexed (expand() moves it
 * into another rule, fold_pair() extends it) the entry is made plain
 * first: demote_whole().  The checker verifies the promise.
 */

/* The value to store for the digram at body node i. */
HOT uint32_t entry_value(const struct seq_builder *b, uint32_t i)
{
	uint32_t g = whole_rule_at(b, i);

	return g ? g | SEQ_DIGRAM_WHOLE : i;
}

/* The node a found value names. */
HOT uint32_t entry_node(const struct seq_builder *b, uint32_t v)
{
	return seq_digram_node_of(b->n, v);
}

/* The table's entry for the digram at i, if its value is from, gets the
 * value to.  (The lazy entry is not in the table: always plain.) */
static __attribute__((noinline)) void replace_value(struct seq_builder *b, uint32_t i,
						    uint32_t from, uint32_t to)
{
	uint32_t bucket;
	int j = seq_digram_locate_value(&b->digrams, digram_key_at(b, i), from, from, &bucket);

	if (j >= 0)
		b->digrams.buckets[bucket].node[j] = to;
}

/* The rule whose whole body a found value's digram is, or 0.  A plain
 * value whose digram has become a rule's whole body since it was stored
 * is promoted, so that the next lookup finds the rule (on lua's stream
 * 149 578 such finds came from a handful of entries). */
HOT uint32_t entry_rule(struct seq_builder *b, uint32_t v)
{
	uint32_t g;

	if (v & SEQ_DIGRAM_WHOLE)
		return v & ~SEQ_DIGRAM_WHOLE;
	g = whole_rule_at(b, v);
	if (g)
		replace_value(b, v, v, g | SEQ_DIGRAM_WHOLE);
	return g;
}

/* The value naming rule g, if its first digram's entry has it, becomes
 * the plain node value: g's body is about to change. */
static void demote_whole(struct seq_builder *b, uint32_t g)
{
	uint32_t first = b->n[g].next;

	if (b->n[first].next == b->n[g].prev && (b->n[first].aux & DIGRAM_OWNER))
		replace_value(b, first, g | SEQ_DIGRAM_WHOLE, first);
}

static void put_digram(struct seq_builder *b, uint32_t i)
{
	uint64_t key = digram_key_at(b, i);
	uint32_t old;

	if (seq_lazy_holds(b, key)) { /* i displaces the lazy entry */
		b->n[b->lazy].aux &= ~DIGRAM_OWNER;
		b->lazy = 0;
		b->lazy_key = LAZY_NONE;
	}
	if (seq_digram_put(&b->digrams, b->n, key, entry_value(b, i), &old) < 0) {
		b->failed = 1;
		return;
	}
	if (old != SEQ_DIGRAM_NONE)
		b->n[entry_node(b, old)].aux &= ~DIGRAM_OWNER;
	b->n[i].aux |= DIGRAM_OWNER;
}

/* Forget the digram starting at body node i (not a guard), if the index
 * holds this occurrence. */
HOT void forget_owned_digram(struct seq_builder *b, uint32_t i)
{
	if (!(b->n[i].aux & DIGRAM_OWNER))
		return;
	b->n[i].aux &= ~DIGRAM_OWNER;
	if (i == b->lazy) {
		b->lazy = 0;
		b->lazy_key = LAZY_NONE;
		return;
	}
	/* Stored as i, or as the rule of a whole body: then i's prev. */
	seq_digram_remove_if(&b->digrams, digram_key_at(b, i), i, b->n[i].prev | SEQ_DIGRAM_WHOLE);
}

/* Forget the digram starting at i, if the index holds this occurrence.
 * The owner bit answers "does it?" without a probe: most digrams broken
 * by a substitution are not the indexed occurrence.  (A guard's aux is
 * its reference count, so guards are told apart first; in the current
 * segment the only guard is the segment's own, whose aux is ROOT_FLAG
 * with the owner bit clear, and check_tail() calls the above directly.) */
HOT void delete_digram(struct seq_builder *b, uint32_t i)
{
	if (!seq_node_is_guard(b, i))
		forget_owned_digram(b, i);
}

static inline int same3(const struct seq_builder *b, uint32_t a, uint32_t m, uint32_t c)
{
	return a && c && !seq_node_is_guard(b, m) && b->n[a].sym == b->n[m].sym &&
	       b->n[c].sym == b->n[m].sym;
}

/*
 * Make r follow l, where l already had a successor that is going away.
 * In a run "aaa" only one of the two overlapping digrams is indexed; when
 * the indexed one is broken the survivor must be indexed instead, which is
 * what the two same3() cases restore (before the old entry is dropped).
 */
static void join(struct seq_builder *b, uint32_t l, uint32_t r)
{
	delete_digram(b, l);
	if (same3(b, b->n[r].prev, r, b->n[r].next))
		put_digram(b, r);
	if (same3(b, b->n[l].prev, l, b->n[l].next))
		put_digram(b, b->n[l].prev);
	link_nodes(b, l, r);
}

static void insert_after(struct seq_builder *b, uint32_t x, uint32_t y)
{
	/* y is fresh: link it to x's successor first; join() then reads x's
	 * old successor to drop the digram (x, old). */
	link_nodes(b, y, b->n[x].next);
	join(b, x, y);
}

/* One use of sym fewer; whether that left its rule with a single use. */
HOT int unuse_leaves_one(struct seq_builder *b, uint32_t sym)
{
	if (!(sym & SEQ_RULE_BIT))
		return 0;
	return (--*refs_of(b, sym & ~SEQ_RULE_BIT) & REFS_MASK) == 1;
}

HOT void unuse(struct seq_builder *b, uint32_t sym)
{
	(void)unuse_leaves_one(b, sym);
}

/* Unlink and free a body symbol, keeping index and counts right. */
static void delete_symbol(struct seq_builder *b, uint32_t x)
{
	uint32_t p = b->n[x].prev, nx = b->n[x].next;

	join(b, p, nx);
	/* x's own links are intact, so its digram (x, nx) is still keyed. */
	delete_digram(b, x);
	unuse(b, b->n[x].sym);
	free_node(b, x);
	b->body_symbols--;
}

HOT uint32_t new_symbol(struct seq_builder *b, uint32_t sym)
{
	uint32_t x = new_node(b, sym);

	if (sym & SEQ_RULE_BIT)
		(*refs_of(b, sym & ~SEQ_RULE_BIT))++;
	b->body_symbols++;
	return x;
}

static uint32_t new_rule(struct seq_builder *b)
{
	uint32_t g = new_node(b, 0);

	b->n[g].sym = SEQ_RULE_BIT | g;
	b->n[g].prev = b->n[g].next = g;
	b->live_rules++;
	return g;
}

/* The guard's index may not be reused before the step ends: a caller up
 * the stack may still hold it and asks rule_alive() before touching it. */
static void delete_rule(struct seq_builder *b, uint32_t g)
{
	b->n[g].sym = SEQ_DEAD_SYM;
	b->n[g].next = b->dead_guards;
	b->dead_guards = g;
	b->live_rules--;
}

static void recycle_dead_guards(struct seq_builder *b)
{
	while (b->dead_guards) {
		uint32_t g = b->dead_guards;
		b->dead_guards = b->n[g].next;
		free_node(b, g);
	}
}

static int check(struct seq_builder *b, uint32_t x);
static __attribute__((noinline)) void expand(struct seq_builder *b, uint32_t x);

/* Replace the digram at x by a reference to rule g. */
static void substitute(struct seq_builder *b, uint32_t x, uint32_t g)
{
	uint32_t q = b->n[x].prev;

	delete_symbol(b, b->n[q].next);
	delete_symbol(b, b->n[q].next);
	insert_after(b, q, new_symbol(b, SEQ_RULE_BIT | g));
	if (!check(b, q))
		check(b, b->n[q].next);
}

/* Rule utility at the body node at: inline the rule it refers to if that
 * rule is used only there. */
HOT void inline_if_lonely(struct seq_builder *b, uint32_t at)
{
	uint32_t s = b->n[at].sym;

	if ((s & SEQ_RULE_BIT) && refcount(b, s & ~SEQ_RULE_BIT) == 1)
		expand(b, at);
}

/* Utility at rule g's last symbol. */
HOT void enforce_utility_last(struct seq_builder *b, uint32_t g)
{
	if (rule_alive(b, g))
		inline_if_lonely(b, b->n[g].prev);
}

HOT void enforce_utility(struct seq_builder *b, uint32_t g)
{
	/* The reference implementation only looks at the first symbol; a
	 * rule's last symbol can lose its second use too (its other
	 * occurrence was the one just replaced), so look at both. */
	if (!rule_alive(b, g))
		return;
	inline_if_lonely(b, b->n[g].next);
	enforce_utility_last(b, g);
}

/* ss (new) and m (indexed earlier) are non-overlapping equal digrams. */
static void match(struct seq_builder *b, uint32_t ss, uint32_t m)
{
	uint32_t g = whole_rule_at(b, m);

	if (g) {
		substitute(b, ss, g);
	} else if ((g = whole_rule_at(b, ss)) != 0) {
		/* The new occurrence became a rule's entire body (its
		 * neighbours were just folded away): reuse that rule rather
		 * than leave a one-symbol rule behind. */
		substitute(b, m, g);
	} else {
		g = new_rule(b);
		uint32_t a = new_symbol(b, b->n[ss].sym);
		uint32_t c = new_symbol(b, b->n[b->n[ss].next].sym);
		link_nodes(b, g, a);
		link_nodes(b, a, c);
		link_nodes(b, c, g);
		substitute(b, m, g);
		substitute(b, ss, g);
		if (rule_alive(b, g))
			put_digram(b, b->n[g].next);
	}
	enforce_utility(b, g);
}

/* SEQUITUR(1): x is the digram at the end of the current segment and is a
 * duplicate that would need a new rule.  Wait if its second symbol and the
 * next input symbol form the whole body of an existing rule. */
static int defer_for_lookahead(struct seq_builder *b, uint32_t x)
{
	uint32_t y = b->n[x].next, m;

	if (!b->have_lookahead || b->n[y].next != b->cur_root)
		return 0;
	m = seq_index_find(b, seq_digram_key(b->n[y].sym, b->lookahead));
	if (m == SEQ_DIGRAM_NONE || !entry_rule(b, m))
		return 0;
	b->deferred = 1;
	return 1;
}

/* Look up the digram at x; if it is new, index it here.  Returns the
 * other occurrence's value, or SEQ_DIGRAM_NONE. */
HOT uint32_t lookup_or_index(struct seq_builder *b, uint32_t x)
{
	uint64_t key = digram_key_at(b, x);
	uint32_t m = seq_index_find(b, key);

	if (m != SEQ_DIGRAM_NONE)
		return m;
	if (seq_digram_insert_absent(&b->digrams, seq_digram_fp(key), entry_value(b, x)) < 0)
		b->failed = 1;
	else
		b->n[x].aux |= DIGRAM_OWNER;
	return m;
}

/* Move the lazy entry into the table.  Its key is not there: the lazy
 * entry is made only for a key the table lacks, and put_digram() retires
 * it before the table gets the key another way. */
static __attribute__((noinline)) void store_lazy(struct seq_builder *b)
{
	if (seq_digram_insert_absent(&b->digrams, seq_digram_fp(b->lazy_key), b->lazy) < 0)
		b->failed = 1;
	b->lazy = 0;
	b->lazy_key = LAZY_NONE;
}

/* Index the new digram key at x, the segment's last digram, lazily. */
HOT void index_lazily(struct seq_builder *b, uint32_t x, uint64_t key)
{
	if (b->lazy)
		store_lazy(b);
	b->lazy = x;
	b->lazy_key = key;
	b->n[x].aux |= DIGRAM_OWNER;
}

/*
 * lookup_or_index() for the last digram of the current segment (x, then
 * its successor, then the guard).  A new one is indexed lazily, outside
 * the table: on repetitive input the next step usually substitutes a rule
 * for the symbol after x at once, which removes this digram again, and
 * then neither the store nor the removal (a probe and a backward shift)
 * is ever made.  Only one entry can be lazy: the previous one, if still
 * indexed, goes into the table now.  Returns what lookup_or_index() does.
 */
HOT uint32_t lookup_or_index_last(struct seq_builder *b, uint32_t x)
{
	uint64_t key = digram_key_at(b, x);
	uint32_t m = seq_index_find(b, key);

	if (m == SEQ_DIGRAM_NONE)
		index_lazily(b, x, key);
	return m;
}

/* The digram at x equals the one indexed at m: restore uniqueness.
 * Returns 1 if the grammar was changed (x may be gone). */
static int resolve(struct seq_builder *b, uint32_t x, uint32_t m)
{
	if (m == x)
		return 0;
	if (b->n[m].next == x || b->n[x].next == m) /* overlapping, as in "aaa" */
		return 0;
	if (!whole_rule_at(b, m) && !whole_rule_at(b, x) && defer_for_lookahead(b, x))
		return 0;
	match(b, x, m);
	return 1;
}

/* Enforce digram uniqueness for the digram starting at x.  Returns 1 if
 * the grammar was changed (x may be gone). */
static int check(struct seq_builder *b, uint32_t x)
{
	uint32_t m;

	if (seq_node_is_guard(b, x) || seq_node_is_guard(b, b->n[x].next))
		return 0;
	m = lookup_or_index(b, x);
	return m == SEQ_DIGRAM_NONE ? 0 : resolve(b, x, entry_node(b, m));
}

static __attribute__((noinline)) void grow_utility(struct seq_builder *b)
{
	if (grow_u32(&b->utility, &b->utility_cap, 64) < 0)
		b->failed = 1;
}

/*
 * check_tail()'s substitutions await their utility check, innermost last
 * as the recursive code would check them; only when some rule may be left
 * with one use is the list needed (2 % of the synthetic trace's steps), so
 * the cascade just counts them and this writes the list: the depth rules
 * it substituted, the last one referenced at node at.  Each one's body
 * ends with the one before it (its body was (x, previous rule)), and
 * nothing but the segment's end has changed since, so they are found by
 * walking down the last symbols.
 */
static __attribute__((noinline)) void list_cascade(struct seq_builder *b, uint32_t at,
						   uint32_t depth)
{
	while (b->utility_cap - b->nutility < depth) {
		grow_utility(b);
		if (b->failed)
			return;
	}
	uint32_t g = b->n[at].sym & ~SEQ_RULE_BIT;
	for (uint32_t k = depth; k-- > 0;) {
		b->utility[b->nutility + k] = g;
		if (k)
			g = b->n[b->n[g].prev].sym & ~SEQ_RULE_BIT;
	}
	b->nutility += depth;
}

/*
 * The duplicate (x, y) at the end of the segment, whose other occurrence m
 * is not a whole rule body: what the general path (resolve -> match) does,
 * done directly for the two cases every loop iteration meets, with the
 * same result.  The general path makes a rule C -> x y, substitutes it at
 * m and at the end (four symbol deletions and two insertions, each through
 * join() and check()), and enforces C's utility.
 *
 *  - x is a rule B used exactly twice (here and at m): C's utility check
 *    then inlines B, so C is B with y appended.  Here B itself is
 *    extended: the y after m moves to the end of B's body, the y at the
 *    end goes.
 *  - otherwise C is made as the general path makes it (its guard and body
 *    allocated first, so the node layout stays as it was), and the x at
 *    the end becomes the reference to C.
 *
 * The grammar is the same up to rule names (node indices, which the export
 * does not keep), and so is the digram index: every digram through C (or
 * the extended B) that the general path would check is new, so it is
 * indexed without a search for a match; then come the checks the general
 * path makes next, in its order (the new digram at B's end; the utility
 * of C, or of B's new last symbol).  SEQUITUR(1)'s deferral is decided as
 * resolve() decides it.  Left to the general path: overlapping occurrences
 * and runs of equal symbols around either occurrence, including the ones
 * its deletions at m form for a moment (q next to y, then to after), when
 * join() moves the run's index entry.
 * Without this, a loop whose body is a rule of k symbols made and inlined
 * k - 2 rules per iteration (lua's main loop: a third of all steps went
 * through the general path).  Returns 1 if it acted (deferring counts),
 * 0 if the case does not apply.
 */
static __attribute__((noinline)) int fold_pair(struct seq_builder *b, uint32_t x, uint32_t m)
{
	uint32_t y = b->n[x].next, p = b->n[x].prev, ysym = b->n[y].sym;
	uint32_t xsym = b->n[x].sym, rule = xsym & ~SEQ_RULE_BIT;
	uint32_t moved = b->n[m].next, q = b->n[m].prev, after = b->n[moved].next;

	uint32_t qsym = b->n[q].sym, psym = b->n[p].sym;
	if (m == x || after == x || xsym == ysym || qsym == xsym || qsym == ysym ||
	    qsym == b->n[after].sym || b->n[after].sym == ysym || psym == xsym || psym == ysym)
		return 0;
	if (defer_for_lookahead(b, x))
		return 1; /* what resolve() would do: nothing, this step */
	if ((xsym & SEQ_RULE_BIT) && refcount(b, rule) == 2) {
		/* Extend B by y. */
		demote_whole(b, rule);
		delete_digram(b, m);	 /* (B, y) at m */
		delete_digram(b, moved); /* (y, after) */
		link_nodes(b, m, after);
		link_nodes(b, x, b->cur_root);
		unuse(b, ysym);
		free_node(b, y);
		b->body_symbols--;
		uint32_t last = b->n[rule].prev;
		link_nodes(b, last, moved);
		link_nodes(b, moved, rule);
		if (!seq_node_is_guard(b, after))
			(void)lookup_or_index(b, m); /* B occurs only at m and x: new */
		check(b, last);
		enforce_utility_last(b, rule);
		return 1;
	}
	/* C -> x y. */
	uint32_t g = new_rule(b);
	uint32_t first = new_symbol(b, xsym), second = new_symbol(b, ysym);
	if (b->failed)
		return 1;
	link_nodes(b, g, first);
	link_nodes(b, first, second);
	link_nodes(b, second, g);
	delete_digram(b, q);	 /* (q, x) */
	delete_digram(b, m);	 /* (x, y) */
	delete_digram(b, moved); /* (y, after) */
	delete_digram(b, p);	 /* (p, x) at the end */
	unuse(b, xsym);		 /* the pair at m goes, */
	unuse(b, ysym);
	free_node(b, m);
	free_node(b, moved);
	uint32_t ref = new_symbol(b, SEQ_RULE_BIT | g);
	link_nodes(b, q, ref);
	link_nodes(b, ref, after);
	unuse(b, xsym); /* and the pair at the end */
	unuse(b, ysym);
	(*refs_of(b, g))++;
	b->n[x].sym = SEQ_RULE_BIT | g;
	link_nodes(b, x, b->cur_root);
	free_node(b, y);
	b->body_symbols -= 3;
	/* C is new, so every digram through a reference to it is too. */
	if (!seq_node_is_guard(b, q))
		(void)lookup_or_index(b, q);
	if (!seq_node_is_guard(b, after))
		(void)lookup_or_index(b, ref);
	if (!seq_node_is_guard(b, p))
		(void)lookup_or_index(b, p);
	(void)lookup_or_index(b, first);
	enforce_utility(b, g);
	return 1;
}

/* Rule g was just substituted at the segment's end.  If it ends the
 * cascade, the next step's first digram is (g, l), l the look-ahead: start
 * loading its bucket now, beside the cascade's next lookup — two cache
 * misses in flight instead of one after the other (zlib's and xz's
 * streams 5-10 % faster; the synthetic trace, whose hot buckets stay in
 * cache, the same). */
HOT void prefetch_next_first(const struct seq_builder *b, uint32_t g)
{
	if (b->have_lookahead)
		seq_digram_prefetch(&b->digrams, seq_digram_key(SEQ_RULE_BIT | g, b->lookahead));
}

/*
 * check() for the digram (x, y) at the very end of the current segment,
 * with the common case done inline.  On repetitive input nearly every
 * appended symbol completes the body of an existing rule, whose reference
 * then completes another, and so on up the grammar.  The general path
 * (match -> substitute -> two delete_symbol, insert_after, three joins)
 * spends most of its time re-deriving facts that hold trivially at the
 * end of a segment: y is followed by the guard, neither x nor y owns an
 * index entry, and no run of equal symbols is involved.  Here each such
 * substitution is one index removal, one lookup, and x's node is reused
 * for the rule reference.  Everything else goes through resolve(), and the
 * rules substituted here have their utility enforced afterwards in the
 * same order as the recursive code would (innermost substitution last):
 * the grammar is identical to the general path's, which the tests check.
 * append_terminal() makes the first level's check itself and calls this
 * from the second on, with the cascade's state: base, the utility list's
 * length before the step; maybe_lone (below); depth, the substitutions
 * made so far.  Inlined into it (its only caller): as a call, its
 * prologue and epilogue alone were ~17 instructions a symbol (callgrind).
 */
HOT void check_tail(struct seq_builder *b, uint32_t x, uint32_t base, int maybe_lone,
		    uint32_t depth)
{
	/* maybe_lone: whether some rule may now be used only once.
	 * enforce_utility() only ever acts on such a rule, and between steps
	 * there is none, so when no substitution here left a rule at one use
	 * and the general path did not run, every pending check would find
	 * nothing to do. */
	for (;;) {
		uint32_t y = b->n[x].next, p = b->n[x].prev, m, g;

		if (x == b->cur_root) /* every x here is in the current segment */
			break;
		m = lookup_or_index_last(b, x);
		if (m == SEQ_DIGRAM_NONE)
			break;
		g = entry_rule(b, m); /* g != 0: m lies in rule g, so m != x (x is in the root) */
		/* A run of equal symbols through p needs join()'s care.  (The
		 * calls are on the way out of the loop: a call inside it cost
		 * the loop registers, ~4 instructions a step.) */
		if (!g || b->n[p].sym == b->n[x].sym || b->n[p].sym == b->n[y].sym) {
			list_cascade(b, y, depth); /* before the grammar changes */
			m = entry_node(b, m);
			if (g || !fold_pair(b, x, m))
				resolve(b, x, m);
			maybe_lone = 0; /* listed */
			break;
		}
		/* Substitute rule g for (x, y): p's digram (p, x) goes away
		 * (p is a body node of this segment or its guard). */
		forget_owned_digram(b, p);
		maybe_lone |= unuse_leaves_one(b, b->n[x].sym);
		maybe_lone |= unuse_leaves_one(b, b->n[y].sym);
		(*refs_of(b, g))++;
		b->n[x].sym = SEQ_RULE_BIT | g;
		link_nodes(b, x, b->cur_root);
		free_node(b, y);
		b->body_symbols--;
		depth++;
		prefetch_next_first(b, g);
		x = p;
	}
	if (maybe_lone && !b->failed)
		list_cascade(b, b->n[x].next, depth);
	while (b->nutility > base)
		enforce_utility(b, b->utility[--b->nutility]);
}

/* Append node y (symbol already set) after the segment's last node x. */
HOT void link_at_end(struct seq_builder *b, uint32_t x, uint32_t y)
{
	link_nodes(b, y, b->cur_root);
	link_nodes(b, x, y);
}

/*
 * Append terminal t to the current segment and restore the invariants
 * (check_tail() for the digram it forms, and on up).  The first digram,
 * (x, t) with x the segment's last symbol, is looked up before t has a
 * node: most of the time it is the whole body of a rule, x simply becomes
 * that rule's reference, and t never needs a node (no allocation, linking
 * and freeing: ~25 instructions in every step that folds its symbol at
 * once, 57 % of the synthetic trace's steps, 74 % of zlib's).  Otherwise
 * t gets its node and everything proceeds as check_tail() would: a new
 * digram is indexed lazily, a duplicate check_tail() would not substitute
 * goes to fold_pair()/resolve().  The grammar is the same either way.
 */
HOT void append_terminal(struct seq_builder *b, uint32_t t)
{
	uint32_t x = b->n[b->cur_root].prev, base = b->nutility, y, m, g = 0;

	if (x == b->cur_root) { /* an empty segment: no digram yet */
		link_at_end(b, x, new_symbol(b, t));
		return;
	}
	uint64_t key = seq_digram_key(b->n[x].sym, t);
	uint32_t p = b->n[x].prev;
	m = seq_index_find(b, key);
	if (m != SEQ_DIGRAM_NONE && (g = entry_rule(b, m)) != 0 && b->n[p].sym != b->n[x].sym &&
	    b->n[p].sym != t) {
		/* t is a terminal: no use count to drop; the node it would
		 * have had would be freed at once (body_symbols +1 -1). */
		forget_owned_digram(b, p);
		int maybe_lone = unuse_leaves_one(b, b->n[x].sym);
		(*refs_of(b, g))++;
		b->n[x].sym = SEQ_RULE_BIT | g;
		prefetch_next_first(b, g);
		check_tail(b, p, base, maybe_lone, 1);
		return;
	}
	y = new_symbol(b, t);
	if (b->failed)
		return;
	link_at_end(b, x, y);
	if (m == SEQ_DIGRAM_NONE) {
		index_lazily(b, x, key);
		return;
	}
	/* A duplicate check_tail() would not substitute in place (g is
	 * still m's rule: linking t after x changed no rule). */
	m = entry_node(b, m);
	if (g || !fold_pair(b, x, m))
		resolve(b, x, m);
}

/* Inline the rule referenced at x, which is its only use. */
static __attribute__((noinline)) void expand(struct seq_builder *b, uint32_t x)
{
	uint32_t left = b->n[x].prev, right = b->n[x].next;
	uint32_t g = b->n[x].sym & ~SEQ_RULE_BIT;
	uint32_t first = b->n[g].next, last = b->n[g].prev;

	demote_whole(b, g); /* its body joins another rule */
	/* x is the only occurrence of its code, so neither digram through x
	 * can be half of an overlapping run: plain removal is right. */
	delete_digram(b, left);
	delete_digram(b, x);
	link_nodes(b, left, first);
	link_nodes(b, last, right);
	b->n[x].sym = SEQ_DEAD_SYM;
	free_node(b, x);
	b->body_symbols--;
	delete_rule(b, g);
	/* Two digrams are new; from match() one side is always a guard. */
	if (!seq_node_is_guard(b, left))
		check(b, left);
	else if (!seq_node_is_guard(b, right))
		check(b, last);
}

/* How a step is made (constants where step() is inlined). */
enum step_flags {
	STEP_PREFETCHED = 1, /* the caller has prefetched the slot of (y, l) */
	STEP_GENERAL = 2,    /* no fast paths (seq_builder_general_only) */
};

/* One step: append y to the current segment and restore the invariants;
 * with look-ahead, l is the next input symbol (if known). */
HOT void step(struct seq_builder *b, uint32_t y, int have_l, uint32_t l, unsigned flags)
{
	b->have_lookahead = have_l;
	b->lookahead = l;
	b->deferred = 0;
	/* The next step forms the digram (y, l): its slot is known now, so
	 * its cache miss overlaps this step's work. */
	if (have_l && !(flags & STEP_PREFETCHED))
		seq_digram_prefetch(&b->digrams, seq_digram_key(y, l));
	if (flags & STEP_GENERAL) {
		/* As the reference algorithm does.  Appending at the end:
		 * (tail, guard) was no digram, so there is nothing to
		 * unindex and the links are all that change. */
		uint32_t tail = b->n[b->cur_root].prev, x = new_symbol(b, y);
		link_at_end(b, tail, x);
		check(b, tail);
	} else {
		append_terminal(b, y);
	}
	recycle_dead_guards(b);
	b->have_lookahead = 0;
}

static int add_root(struct seq_builder *b)
{
	if (b->nroots == b->roots_cap && grow_u32(&b->roots, &b->roots_cap, 4) < 0)
		return -1;
	uint32_t g = new_rule(b);
	if (b->failed)
		return -1;
	b->live_rules--; /* roots are not counted as rules */
	b->n[g].aux = ROOT_FLAG;
	b->roots[b->nroots++] = g;
	b->cur_root = g;
	return 0;
}

struct seq_builder *seq_builder_new(enum seq_algorithm algo)
{
	struct seq_builder *b;

	if (algo != SEQ_PLAIN && algo != SEQ_LOOKAHEAD)
		return NULL;
	b = calloc(1, sizeof(*b));
	if (!b)
		return NULL;
	b->algo = algo;
	b->lazy_key = LAZY_NONE;
	b->cap = INITIAL_NODES;
	b->n = malloc(b->cap * sizeof(*b->n));
	if (!b->n || seq_digram_init(&b->digrams, 10) < 0) {
		free(b->n);
		free(b);
		return NULL;
	}
	b->n[0] = (struct seq_node){SEQ_DEAD_SYM, 0, 0, 0};
	b->used = 1;
	if (add_root(b) < 0) {
		seq_builder_free(b);
		return NULL;
	}
	return b;
}

void seq_builder_free(struct seq_builder *b)
{
	if (!b)
		return;
	seq_digram_free(&b->digrams);
	seq_free_growable(b->n, (size_t)b->cap * sizeof(*b->n));
	free(b->roots);
	free(b->utility);
	free(b);
}

/* seq_append(); flags as for step().  Inlined into both callers, so each
 * gets its own copy of the step with the tests folded away. */
HOT int append_one(struct seq_builder *b, uint32_t terminal, unsigned flags)
{
	if (b->failed || terminal >= SEQ_TERMINAL_LIMIT)
		return -1;
	b->input_symbols++;
	if (b->algo == SEQ_PLAIN) {
		step(b, terminal, 0, 0, flags);
	} else {
		if (b->have_pending)
			step(b, b->pending, 1, terminal, flags);
		b->pending = terminal;
		b->have_pending = 1;
	}
	return b->failed ? -1 : 0;
}

int seq_append(struct seq_builder *b, uint32_t terminal)
{
	/* The tests' reference builder goes this way (a load and a branch
	 * here, none in seq_append_many, the path the collector takes). */
	return append_one(b, terminal, b->general_only ? STEP_GENERAL : 0);
}

/* How many symbols ahead seq_append_many prefetches digram slots. */
#define PREFETCH_AHEAD 8

/* Start loading the bucket of (t[i + PREFETCH_AHEAD], the symbol after):
 * see seq_append_many. */
HOT void prefetch_input(struct seq_builder *b, const uint32_t *t, size_t i, size_t n)
{
	if (i + PREFETCH_AHEAD + 1 < n)
		seq_digram_prefetch(
		    &b->digrams, seq_digram_key(t[i + PREFETCH_AHEAD], t[i + PREFETCH_AHEAD + 1]));
}

/* seq_append_many() for SEQUITUR(1) once a symbol is held back: the held
 * symbol stays in a register and each step's look-ahead is simply the next
 * input symbol, instead of append_one()'s per-symbol bookkeeping (11
 * instructions a symbol; zlib's stream 6 % faster, median of 9). */
static int append_many_lookahead(struct seq_builder *b, const uint32_t *t, size_t n)
{
	uint32_t held = b->pending;

	for (size_t i = 0; i < n; i++) {
		uint32_t next = t[i];
		if (next >= SEQ_TERMINAL_LIMIT) {
			b->pending = held;
			return -1;
		}
		prefetch_input(b, t, i, n);
		step(b, held, 1, next, i > PREFETCH_AHEAD ? STEP_PREFETCHED : 0);
		held = next;
		b->input_symbols++;
		if (b->failed) {
			b->pending = held;
			return -1;
		}
	}
	b->pending = held;
	return 0;
}

/*
 * With the input at hand, the slot of the digram (t[i], t[i+1]) can be
 * loaded long before the step that looks it up, which happens whenever
 * t[i] is still the segment's last symbol then — always, unless t[i] was
 * folded into a rule.  On poorly compressible streams (a real program's
 * data-dependent paths: grammars of millions of rules, tables of tens of
 * MiB) nearly every step starts with a miss on that slot; step()'s own
 * prefetch, one symbol ahead, hides only part of it.  Prefetching never
 * changes the grammar.
 */
int seq_append_many(struct seq_builder *b, const uint32_t *terminals, size_t n)
{
	if (b->algo == SEQ_LOOKAHEAD && n && b->have_pending && !b->failed)
		return append_many_lookahead(b, terminals, n);
	for (size_t i = 0; i < n; i++) {
		prefetch_input(b, terminals, i, n);
		if (append_one(b, terminals[i], i > PREFETCH_AHEAD ? STEP_PREFETCHED : 0) < 0)
			return -1;
	}
	return 0;
}

int seq_append_run(struct seq_builder *b, uint32_t terminal, uint64_t count)
{
	for (uint64_t i = 0; i < count; i++)
		if (seq_append(b, terminal) < 0)
			return -1;
	return 0;
}

int seq_finish(struct seq_builder *b)
{
	if (b->failed)
		return -1;
	if (b->have_pending) {
		b->have_pending = 0;
		step(b, b->pending, 0, 0, b->general_only ? STEP_GENERAL : 0);
	}
	return b->failed ? -1 : 0;
}

int seq_append_gap(struct seq_builder *b)
{
	if (seq_finish(b) < 0 || add_root(b) < 0) {
		b->failed = 1;
		return -1;
	}
	return 0;
}

void seq_builder_stats(const struct seq_builder *b, struct seq_stats *st)
{
	memset(st, 0, sizeof(*st));
	st->input_symbols = b->input_symbols;
	st->grammar_symbols = b->body_symbols + (b->have_pending ? 1 : 0);
	st->rules = b->live_rules;
	st->segments = b->nroots;
	st->bytes = sizeof(*b) + (uint64_t)b->cap * sizeof(*b->n) + seq_digram_bytes(&b->digrams) +
		    b->roots_cap * sizeof(*b->roots);
}

int seq_builder_failed(const struct seq_builder *b)
{
	return b->failed;
}
