/* SPDX-License-Identifier: MIT */
/*
 * sequitur_check.c — verify a builder's invariants from scratch (tests).
 * Slow on purpose: it recomputes everything from the node array and
 * compares with what the algorithm maintains incrementally.
 */
#include "analysis/grammar/sequitur_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

struct occ {
	uint64_t key;
	uint32_t node, next;
};

static int cmp_occ(const void *a, const void *b)
{
	const struct occ *x = a, *y = b;

	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return x->node < y->node ? -1 : x->node > y->node;
}

static int bad(char *why, size_t whylen, const char *fmt, ...)
{
	va_list ap;

	if (why && whylen) {
		va_start(ap, fmt);
		vsnprintf(why, whylen, fmt, ap);
		va_end(ap);
	}
	return -1;
}

int seq_builder_check(const struct seq_builder *b, char *why, size_t whylen)
{
	uint32_t *refs = calloc(b->used, sizeof(*refs));
	struct occ *occ = malloc((b->used + 1) * sizeof(*occ));
	uint64_t nocc = 0, body = 0;
	uint32_t rules = 0, deferred_node = 0;
	int rc = -1;

	if (!refs || !occ) {
		rc = bad(why, whylen, "out of memory");
		goto out;
	}
	if (b->deferred && b->have_pending) {
		uint32_t last = b->n[b->cur_root].prev;
		deferred_node = b->n[last].prev;
	}
	for (uint32_t g = 1; g < b->used; g++) {
		if (!seq_node_is_guard(b, g))
			continue;
		int root = (b->n[g].aux & ROOT_FLAG) != 0;
		uint32_t len = 0;
		rules += !root;
		for (uint32_t i = b->n[g].next; i != g; i = b->n[i].next) {
			if (b->n[b->n[i].next].prev != i || i >= b->used || ++len > b->used) {
				rc = bad(why, whylen, "broken links in rule %u", g);
				goto out;
			}
			uint32_t s = b->n[i].sym;
			if (s == SEQ_DEAD_SYM) {
				rc = bad(why, whylen, "dead node %u in rule %u", i, g);
				goto out;
			}
			if (s & SEQ_RULE_BIT) {
				uint32_t r = s & ~SEQ_RULE_BIT;
				if (r >= b->used || !seq_node_is_guard(b, r)) {
					rc = bad(why, whylen, "reference to dead rule %u", r);
					goto out;
				}
				refs[r]++;
			}
			uint32_t nx = b->n[i].next;
			if (nx != g && i != deferred_node)
				occ[nocc++] = (struct occ){seq_digram_key(s, b->n[nx].sym), i, nx};
		}
		body += len;
		if (!root && len < 2) {
			rc = bad(why, whylen, "rule %u has %u symbols", g, len);
			goto out;
		}
	}
	for (uint32_t g = 1; g < b->used; g++) {
		if (!seq_node_is_guard(b, g))
			continue;
		int root = (b->n[g].aux & ROOT_FLAG) != 0;
		if ((b->n[g].aux & REFS_MASK) != refs[g]) {
			rc = bad(why, whylen, "rule %u: count %u, really %u", g,
				 b->n[g].aux & REFS_MASK, refs[g]);
			goto out;
		}
		if (root ? refs[g] != 0 : refs[g] < 2) {
			rc = bad(why, whylen, "rule utility: rule %u used %u times", g, refs[g]);
			goto out;
		}
	}
	if (rules != b->live_rules || body != b->body_symbols) {
		rc = bad(why, whylen, "counters: rules %u/%u symbols %llu/%llu", rules,
			 b->live_rules, (unsigned long long)body,
			 (unsigned long long)b->body_symbols);
		goto out;
	}
	qsort(occ, nocc, sizeof(*occ), cmp_occ);
	uint32_t groups = 0;
	for (uint64_t i = 0; i < nocc;) {
		uint64_t j = i;
		while (j < nocc && occ[j].key == occ[i].key)
			j++;
		groups++;
		/* Two occurrences are allowed only when they overlap. */
		if (j - i > 2 || (j - i == 2 && occ[i].next != occ[i + 1].node &&
				  occ[i + 1].next != occ[i].node)) {
			rc = bad(why, whylen, "digram %llx occurs %llu times",
				 (unsigned long long)occ[i].key, (unsigned long long)(j - i));
			goto out;
		}
		uint32_t value = seq_index_find(b, occ[i].key), held = value;
		int found = 0;
		if (value != SEQ_DIGRAM_NONE && (value & SEQ_DIGRAM_WHOLE)) {
			/* A value naming rule g promises that the digram is
			 * g's whole body (sequitur.c, "values that name a
			 * rule"). */
			uint32_t g = value & ~SEQ_DIGRAM_WHOLE;
			if (g >= b->used || !seq_node_is_guard(b, g) || (b->n[g].aux & ROOT_FLAG) ||
			    b->n[b->n[b->n[g].next].next].next != g) {
				rc = bad(why, whylen,
					 "digram %llx: value names rule %u, not its body",
					 (unsigned long long)occ[i].key, g);
				goto out;
			}
			held = b->n[g].next;
		}
		for (uint64_t k = i; k < j; k++) {
			found |= occ[k].node == held;
			/* The owner bit must say exactly which one is indexed. */
			if (!(b->n[occ[k].node].aux & DIGRAM_OWNER) != (occ[k].node != held)) {
				rc = bad(why, whylen, "owner bit of node %u is wrong", occ[k].node);
				goto out;
			}
		}
		if (!found) {
			rc = bad(why, whylen, "digram %llx not indexed at an occurrence",
				 (unsigned long long)occ[i].key);
			goto out;
		}
		i = j;
	}
	if (groups != seq_index_count(b)) {
		rc = bad(why, whylen, "index holds %u digrams, grammar has %u", seq_index_count(b),
			 groups);
		goto out;
	}
	if (seq_digram_check(&b->digrams, why, whylen) < 0)
		goto out;
	rc = 0;
out:
	free(refs);
	free(occ);
	return rc;
}

int seq_digram_check(const struct seq_digram_index *idx, char *why, size_t whylen)
{
	uint64_t nb = (uint64_t)idx->mask + 1, used = 0;
	uint32_t *passed = calloc(nb, sizeof(*passed));
	int rc = -1;

	if (!passed) {
		bad(why, whylen, "out of memory");
		return -1;
	}
	for (uint32_t b = 0; b <= idx->mask; b++) {
		for (unsigned j = 0; j < SEQ_DIGRAM_LANES; j++) {
			uint32_t tag = idx->buckets[b].tag[j], node = idx->buckets[b].node[j];
			if (!tag != !node || (tag && !(tag & 1))) {
				bad(why, whylen, "digram bucket %u lane %u: tag %#x, node %u", b, j,
				    tag, node);
				goto out;
			}
			if (!tag)
				continue;
			used++;
			for (uint32_t c = seq_digram_home(idx, tag); c != b;
			     c = seq_digram_next(idx, c))
				passed[c]++;
		}
	}
	if (used != idx->count) {
		bad(why, whylen, "digram table holds %llu entries, its count says %u",
		    (unsigned long long)used, idx->count);
		goto out;
	}
	/* Lookups stop at a zero count: it must be exact below the sticky
	 * value, and never zero while an entry went past. */
	for (uint32_t b = 0; b <= idx->mask; b++)
		if (idx->overflow[b] != SEQ_DIGRAM_STICKY && idx->overflow[b] != passed[b]) {
			bad(why, whylen, "digram bucket %u: overflow count %u, %u entries passed",
			    b, idx->overflow[b], passed[b]);
			goto out;
		}
	rc = 0;
out:
	free(passed);
	return rc;
}
