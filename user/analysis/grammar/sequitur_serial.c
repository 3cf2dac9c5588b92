/* SPDX-License-Identifier: MIT */
/* Grammar <-> bytes: the envelope (magic, version, checksum), version 1,
 * and the choice of version; see sequitur_serial.h for the layouts. */
#include "analysis/grammar/sequitur_serial.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/crc32c.h"
#include "analysis/grammar/sequitur_serial_internal.h"
#include "common/varint.h"

void seq_out_bytes(struct seq_out *o, const void *src, size_t n)
{
	if (o->failed)
		return;
	if (o->n + n > o->cap) {
		size_t cap = o->cap ? o->cap : 4096;
		while (cap < o->n + n)
			cap *= 2;
		uint8_t *bigger = realloc(o->p, cap);
		if (!bigger) {
			o->failed = 1;
			return;
		}
		o->p = bigger;
		o->cap = cap;
	}
	memcpy(o->p + o->n, src, n);
	o->n += n;
}

void seq_out_varint(struct seq_out *o, uint64_t v)
{
	uint8_t b[VARINT_MAX];

	seq_out_bytes(o, b, (size_t)(varint_put(b, v) - b));
}

struct term_use {
	uint32_t value;
	uint64_t uses;
};

static int by_value(const void *a, const void *b)
{
	const struct term_use *x = a, *y = b;
	return (x->value > y->value) - (x->value < y->value);
}

/* Most used first (small codes for common terminals); ties by value. */
static int by_uses(const void *a, const void *b)
{
	const struct term_use *x = a, *y = b;
	if (x->uses != y->uses)
		return x->uses < y->uses ? 1 : -1;
	return (x->value > y->value) - (x->value < y->value);
}

static int find_term(const struct term_use *t, uint32_t n, uint32_t value)
{
	uint32_t lo = 0, hi = n;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (t[mid].value < value)
			lo = mid + 1;
		else
			hi = mid;
	}
	return (int)lo;
}

/* Version 1 body (after magic and version). */
static int serialize_v1_body(const struct seq_grammar *g, struct seq_out *o)
{
	uint32_t nodes = seq_grammar_nodes(g), nsyms = g->start[nodes], nterm = 0;
	struct term_use *terms = malloc((nsyms ? nsyms : 1) * sizeof(*terms));
	uint32_t *code = NULL;

	if (!terms)
		return -1;
	/* Distinct terminals with their number of uses in the bodies. */
	for (uint32_t i = 0; i < nsyms; i++)
		if (!seq_is_rule(g->sym[i]))
			terms[nterm++] = (struct term_use){g->sym[i], 1};
	qsort(terms, nterm, sizeof(*terms), by_value);
	uint32_t d = 0;
	for (uint32_t i = 0; i < nterm; i++) {
		if (d && terms[d - 1].value == terms[i].value)
			terms[d - 1].uses++;
		else
			terms[d++] = terms[i];
	}
	nterm = d;
	qsort(terms, nterm, sizeof(*terms), by_uses);
	/* code[k] = rank of the k-th terminal in value order */
	code = malloc((nterm ? nterm : 1) * sizeof(*code));
	struct term_use *sorted = malloc((nterm ? nterm : 1) * sizeof(*sorted));
	if (!code || !sorted) {
		free(sorted);
		goto fail;
	}
	for (uint32_t r = 0; r < nterm; r++)
		sorted[r] = (struct term_use){terms[r].value, r};
	qsort(sorted, nterm, sizeof(*sorted), by_value);
	for (uint32_t k = 0; k < nterm; k++)
		code[k] = (uint32_t)sorted[k].uses;

	seq_out_varint(o, g->flags & SEQ_GRAMMAR_LOOKAHEAD);
	seq_out_varint(o, nterm);
	for (uint32_t r = 0; r < nterm; r++)
		seq_out_varint(o, terms[r].value);
	seq_out_varint(o, g->nrules);
	seq_out_varint(o, g->nroots);
	for (uint32_t i = 0; i < nodes; i++) {
		uint32_t len = seq_grammar_body_len(g, i), self = i < g->nrules ? i : g->nrules;
		const uint32_t *body = seq_grammar_body(g, i);
		seq_out_varint(o, i < g->nrules ? len - 2 : len);
		for (uint32_t j = 0; j < len; j++) {
			uint32_t s = body[j];
			if (seq_is_rule(s))
				seq_out_varint(o,
					       (uint64_t)nterm + (self - 1 - (s & ~SEQ_RULE_BIT)));
			else
				seq_out_varint(o, code[find_term(sorted, nterm, s)]);
		}
	}
	free(sorted);
	free(terms);
	free(code);
	return o->failed ? -1 : 0;
fail:
	free(terms);
	free(code);
	return -1;
}

int seq_serialize_version(const struct seq_grammar *g, unsigned version, uint8_t **out,
			  size_t *outlen)
{
	struct seq_out o = {0};
	int rc = -1;

	if (version >= 2 && version <= 4) {
		seq_out_bytes(&o, SEQ_SERIAL_MAGIC, 4);
		seq_out_varint(&o, version);
		rc = seq_serialize_v2_body(g, &o, version);
		if (rc == 1) /* not canonical: version 1 can hold any grammar */
			o.n = 0;
	}
	if (version == 1 || rc == 1) {
		seq_out_bytes(&o, SEQ_SERIAL_MAGIC, 4);
		seq_out_varint(&o, 1);
		rc = serialize_v1_body(g, &o);
	}
	if (rc < 0 || o.failed) {
		free(o.p);
		return -1;
	}
	uint32_t crc = wpp_crc32c(0, o.p, o.n);
	uint8_t le[4] = {crc & 0xff, crc >> 8 & 0xff, crc >> 16 & 0xff, crc >> 24};
	seq_out_bytes(&o, le, 4);
	if (o.failed) {
		free(o.p);
		return -1;
	}
	*out = o.p;
	*outlen = o.n;
	return 0;
}

int seq_serialize(const struct seq_grammar *g, uint8_t **out, size_t *outlen)
{
	return seq_serialize_version(g, SEQ_SERIAL_VERSION, out, outlen);
}

uint64_t seq_in_varint(struct seq_in *in, uint64_t max)
{
	uint64_t v = 0;

	for (unsigned shift = 0; shift < 64; shift += 7) {
		if (in->p == in->end) {
			in->bad = 1;
			return 0;
		}
		uint8_t b = *in->p++;
		v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80)) {
			if (v > max)
				in->bad = 1;
			return v;
		}
	}
	in->bad = 1;
	return 0;
}

static int reject(struct seq_grammar *g, char *why, size_t whylen, const char *msg)
{
	seq_grammar_free(g);
	if (why && whylen)
		snprintf(why, whylen, "%s", msg);
	return -1;
}

int seq_deserialize(const uint8_t *buf, size_t len, struct seq_grammar *g, char *why, size_t whylen)
{
	struct seq_in in;
	uint32_t *terms = NULL;

	memset(g, 0, sizeof(*g));
	if (len < 4 + 1 + 4 || memcmp(buf, SEQ_SERIAL_MAGIC, 4) != 0)
		return reject(g, why, whylen, "not a WPP grammar (bad magic or too short)");
	uint32_t stored =
	    buf[len - 4] | buf[len - 3] << 8 | buf[len - 2] << 16 | (uint32_t)buf[len - 1] << 24;
	if (wpp_crc32c(0, buf, len - 4) != stored)
		return reject(g, why, whylen, "grammar checksum mismatch (corrupt data)");
	in = (struct seq_in){buf + 4, buf + len - 4, 0};
	uint64_t version = seq_in_varint(&in, UINT32_MAX);
	if (!in.bad && version >= 2 && version <= 4)
		return seq_deserialize_v2_body(&in, g, why, whylen, (unsigned)version);
	if (version != 1 || in.bad)
		return reject(g, why, whylen, "unsupported grammar version");
	uint32_t flags = (uint32_t)seq_in_varint(&in, SEQ_GRAMMAR_LOOKAHEAD);
	/* Every terminal value, rule and symbol takes at least one byte, so
	 * no count may exceed the bytes left: this bounds every allocation
	 * by the input size. */
	uint32_t nterm = (uint32_t)seq_in_varint(&in, (uint64_t)(in.end - in.p));
	if (in.bad)
		return reject(g, why, whylen, "bad grammar header");
	terms = malloc((nterm ? nterm : 1) * sizeof(*terms));
	if (!terms)
		return reject(g, why, whylen, "out of memory");
	for (uint32_t r = 0; r < nterm; r++)
		terms[r] = (uint32_t)seq_in_varint(&in, SEQ_TERMINAL_LIMIT - 1);
	uint32_t nrules = (uint32_t)seq_in_varint(&in, (uint64_t)(in.end - in.p));
	uint32_t nroots = (uint32_t)seq_in_varint(&in, (uint64_t)(in.end - in.p));
	if (in.bad || (uint64_t)nrules + nroots > (uint64_t)(in.end - in.p) ||
	    (uint64_t)nrules + nroots >= SEQ_RULE_BIT || nroots == 0) {
		free(terms);
		return reject(g, why, whylen, "bad grammar header");
	}
	/* First pass: lengths and codes, to size the arrays exactly. */
	struct seq_in scan = in;
	uint64_t nsyms = 0;
	for (uint64_t i = 0; i < (uint64_t)nrules + nroots && !scan.bad; i++) {
		uint64_t n =
		    seq_in_varint(&scan, (uint64_t)(scan.end - scan.p)) + (i < nrules ? 2 : 0);
		if (n > (uint64_t)(scan.end - scan.p)) {
			scan.bad = 1;
			break;
		}
		nsyms += n;
		for (uint64_t j = 0; j < n && !scan.bad; j++)
			seq_in_varint(&scan, UINT32_MAX);
	}
	if (scan.bad || scan.p != scan.end) {
		free(terms);
		return reject(g, why, whylen, "truncated or malformed grammar body");
	}
	if (seq_grammar_alloc(g, nrules, nroots, nsyms) < 0) {
		free(terms);
		return reject(g, why, whylen, "out of memory");
	}
	g->flags = flags;
	uint32_t pos = 0;
	for (uint32_t i = 0; i < nrules + nroots; i++) {
		uint32_t n = (uint32_t)seq_in_varint(&in, UINT32_MAX) + (i < nrules ? 2 : 0);
		uint32_t self = i < nrules ? i : nrules;
		g->start[i] = pos;
		for (uint32_t j = 0; j < n; j++) {
			uint32_t c = (uint32_t)seq_in_varint(&in, UINT32_MAX);
			if (c < nterm) {
				g->sym[pos++] = terms[c];
			} else if ((uint64_t)c - nterm < self) {
				g->sym[pos++] = SEQ_RULE_BIT | (self - 1 - (c - nterm));
			} else {
				free(terms);
				return reject(g, why, whylen, "rule reference out of range");
			}
		}
	}
	g->start[nrules + nroots] = pos;
	free(terms);
	if (seq_grammar_finish(g, why, whylen) < 0) {
		seq_grammar_free(g);
		return -1;
	}
	return 0;
}
