/* SPDX-License-Identifier: MIT */
/* A thread's path grammar from raw trace words; see sequitur_online.h. */
#include "collect/sequitur_online.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "common/wppfile.h"
#include "decode/trace_words.h"
#include "analysis/grammar/sequitur_chunked.h"
#include "analysis/grammar/sequitur_serial.h"
#include "wpp/trace_abi.h"

/* (fid, path id) -> dense terminal: open addressing, never iterated (the
 * table in first-appearance order is what gets stored). */
struct term_slot {
	uint64_t id;
	uint32_t fid; /* 0 = empty (fid 0 is the control fid, never a record) */
	uint32_t dense;
};

struct path_grammar {
	/* One of the two builders (SEQ_CHUNKED: cb), none for a tap. */
	struct seq_builder *b;
	struct seqc_builder *cb;
	struct path_terminal_tap tap;
	struct term_slot *slots;
	uint32_t mask, nterms;
	struct wpp_grammar_terminal *terms; /* in dense order */
	uint32_t terms_cap;
	uint64_t nsymbols, skipped;
	uint32_t segments;
	int failed;
	/* The word reader (trace_words.h): REPEAT state per signal depth. */
	struct wpp_words words;
	/* Terminals not yet handed to the builder: it gets them in batches
	 * (seq_append_many prefetches the digram slots of symbols ahead).
	 * Flushed before anything else touches the builder and at the end of
	 * every call. */
	uint32_t pending[1024];
	uint32_t npending;
};

#define NO_RECORD UINT32_MAX

static struct wpp_words_sink grammar_word_sink(struct path_grammar *pg);

static uint32_t hash_key(uint32_t fid, uint64_t id, uint32_t mask)
{
	uint64_t h = (id ^ ((uint64_t)fid << 40) ^ fid) * 0x9e3779b97f4a7c15ull;
	return (uint32_t)(h >> 32) & mask;
}

static int grow_terms(struct path_grammar *pg)
{
	uint32_t cap = (pg->mask + 1) * 2;
	struct term_slot *slots = calloc(cap, sizeof(*slots));
	struct wpp_grammar_terminal *terms = realloc(pg->terms, (size_t)cap / 2 * sizeof(*terms));

	if (!slots || !terms) {
		free(slots);
		if (terms)
			pg->terms = terms;
		return -1;
	}
	pg->terms = terms;
	pg->terms_cap = cap / 2;
	for (uint32_t i = 0; i < pg->nterms; i++) {
		uint32_t k = hash_key(terms[i].fid, terms[i].path_id, cap - 1);
		while (slots[k].fid)
			k = (k + 1) & (cap - 1);
		slots[k] = (struct term_slot){terms[i].path_id, terms[i].fid, i};
	}
	free(pg->slots);
	pg->slots = slots;
	pg->mask = cap - 1;
	return 0;
}

/* With tap NULL, a grammar builder for algo. */
static struct path_grammar *new_path_grammar(enum seq_algorithm algo,
					     const struct path_terminal_tap *tap)
{
	struct path_grammar *pg = calloc(1, sizeof(*pg));

	if (!pg)
		return NULL;
	pg->mask = 255;
	pg->slots = calloc(pg->mask + 1, sizeof(*pg->slots));
	pg->terms_cap = (pg->mask + 1) / 2;
	pg->terms = malloc(pg->terms_cap * sizeof(*pg->terms));
	if (tap)
		pg->tap = *tap;
	else if (algo == SEQ_CHUNKED)
		pg->cb = seqc_builder_new(NULL);
	else
		pg->b = seq_builder_new(algo);
	pg->segments = 1;
	wpp_words_init(&pg->words, grammar_word_sink(pg));
	if (!pg->slots || !pg->terms || (!tap && !pg->b && !pg->cb)) {
		path_grammar_free(pg);
		return NULL;
	}
	return pg;
}

struct path_grammar *path_grammar_new(enum seq_algorithm algo)
{
	return new_path_grammar(algo, NULL);
}

struct path_grammar *path_grammar_new_tap(const struct path_terminal_tap *tap)
{
	return new_path_grammar(SEQ_LOOKAHEAD, tap);
}

void path_grammar_free(struct path_grammar *pg)
{
	if (!pg)
		return;
	seq_builder_free(pg->b);
	seqc_builder_free(pg->cb);
	free(pg->slots);
	free(pg->terms);
	free(pg);
}

const struct seq_builder *path_grammar_builder(const struct path_grammar *pg)
{
	return pg->b;
}

static int builder_append(struct path_grammar *pg, const uint32_t *t, size_t n)
{
	if (pg->cb)
		return seqc_append_many(pg->cb, t, n);
	if (pg->b)
		return seq_append_many(pg->b, t, n);
	return pg->tap.out(pg->tap.ctx, t, n);
}

static void flush_pending(struct path_grammar *pg)
{
	if (pg->npending && !pg->failed && builder_append(pg, pg->pending, pg->npending) < 0)
		pg->failed = 1;
	pg->npending = 0;
}

static void append_terminal(struct path_grammar *pg, uint32_t t)
{
	if (pg->npending == sizeof(pg->pending) / sizeof(pg->pending[0]))
		flush_pending(pg);
	pg->pending[pg->npending++] = t;
	pg->nsymbols++;
}

/* The terminal of the record (fid, id), added to the table when new, or
 * NO_RECORD on failure. */
static uint32_t terminal_of(struct path_grammar *pg, uint32_t fid, uint64_t id)
{
	uint32_t k = hash_key(fid, id, pg->mask), t;

	for (; pg->slots[k].fid; k = (k + 1) & pg->mask)
		if (pg->slots[k].fid == fid && pg->slots[k].id == id)
			return pg->slots[k].dense;
	if (pg->nterms >= SEQ_TERMINAL_LIMIT - 1) {
		pg->failed = 1;
		return NO_RECORD;
	}
	/* Keep the load at or below 1/2. */
	if (pg->nterms + 1 > pg->terms_cap) {
		if (grow_terms(pg) < 0) {
			pg->failed = 1;
			return NO_RECORD;
		}
		k = hash_key(fid, id, pg->mask);
		while (pg->slots[k].fid)
			k = (k + 1) & pg->mask;
	}
	t = pg->nterms++;
	pg->slots[k] = (struct term_slot){id, fid, t};
	pg->terms[t] = (struct wpp_grammar_terminal){fid, 0, id};
	return t;
}

/* times >= 1 instances of terminal t: the builders take a run whole (the
 * chunked one in O(1)); a tap gets them one by one. */
static void append_times(struct path_grammar *pg, uint32_t t, uint64_t times)
{
	append_terminal(pg, t);
	if (times == 1)
		return;
	if (!pg->b && !pg->cb) {
		for (uint64_t i = 1; i < times && !pg->failed; i++)
			append_terminal(pg, t);
		return;
	}
	flush_pending(pg);
	pg->nsymbols += times - 1;
	if ((pg->cb ? seqc_append_run(pg->cb, t, times - 1) : seq_append_run(pg->b, t, times - 1)) <
	    0)
		pg->failed = 1;
}

/* ---- the word reader's sink (trace_words.h) ---- */

static int g_records(void *ctx, uint32_t fid, uint64_t id, uint64_t times, uint64_t first_repeat)
{
	struct path_grammar *pg = ctx;
	uint32_t t = terminal_of(pg, fid, id);

	(void)first_repeat;
	if (t != NO_RECORD)
		append_times(pg, t, times);
	return pg->failed ? -1 : 0;
}

static void g_gap(void *ctx, uint64_t lost_words)
{
	struct path_grammar *pg = ctx;

	(void)lost_words;
	flush_pending(pg);
	if (pg->cb) {
		if (seqc_append_gap(pg->cb) < 0)
			pg->failed = 1;
	} else if (!pg->b) {
		pg->tap.gap(pg->tap.ctx);
	} else if (seq_append_gap(pg->b) < 0) {
		pg->failed = 1;
	}
	pg->segments++;
}

/* Malformed words and unattributable repetitions are skipped and counted
 * (the decoder reports them as CORRUPT and UNATTRIBUTED events). */
static void g_malformed(void *ctx, const char *why, uint32_t nwords)
{
	struct path_grammar *pg = ctx;

	(void)why;
	pg->skipped += nwords;
}

static void g_unattributable(void *ctx, uint64_t n)
{
	struct path_grammar *pg = ctx;
	pg->skipped += n;
}

static struct wpp_words_sink grammar_word_sink(struct path_grammar *pg)
{
	return (struct wpp_words_sink){.records = g_records,
				       .gap = g_gap,
				       .malformed = g_malformed,
				       .unattributable = g_unattributable,
				       .ctx = pg};
}

int path_grammar_gap(struct path_grammar *pg)
{
	wpp_words_gap(&pg->words, UINT64_MAX); /* count unknown here */
	return pg->failed ? -1 : 0;
}

int path_grammar_words(struct path_grammar *pg, const uint64_t *words, size_t n)
{
	return path_grammar_words_at(pg, words, n, 0);
}

/*
 * The words of one call.  The two items that make nearly all of a trace
 * are read here: a one-word record, and a REPEAT of the record before it
 * (its terminal known without a second lookup).  This is what the reader (trace_words.h)
 * does for them, its state (the depth's last record and its repetitions)
 * kept the same way; every other word goes to the reader itself, one item
 * at a time, so the two agree on every input.  Issue 23: the reader's
 * item-and-callback per word was a large part of the grammar worker's
 * cost.
 */
static void read_words(struct path_grammar *pg, const uint64_t *w, size_t n, uint32_t depth)
{
	struct wpp_words *r = &pg->words;
	struct wpp_words_last *last;
	uint32_t t = NO_RECORD; /* the terminal of *last, once looked up */
	size_t i = 0;

	if (depth >= WPP_WORDS_DEPTHS) {
		wpp_words_feed(r, w, n, depth);
		return;
	}
	last = &r->last[depth];
	while (i < n && !pg->failed) {
		uint64_t x = w[i];
		if (depth == r->depth && wpp_word_fid(x) != WPP_FID_CONTROL &&
		    !wpp_wet_is_value_word(x)) {
			wpp_words_remember(last, wpp_word_fid(x), wpp_word_payload(x));
			t = terminal_of(pg, wpp_word_fid(x), wpp_word_payload(x));
			if (t != NO_RECORD)
				append_terminal(pg, t);
			i++;
		} else if (depth == r->depth && (x >> 32) == WPP_CTRL_REPEAT && (uint32_t)x &&
			   last->valid) {
			if (t == NO_RECORD)
				t = terminal_of(pg, last->fid, last->value);
			last->repeats += (uint32_t)x;
			if (t != NO_RECORD)
				append_times(pg, t, (uint32_t)x);
			i++;
		} else {
			int taken = wpp_words_feed_one(r, w + i, n - i, depth);
			if (taken < 0)
				return;
			i += (size_t)taken;
			t = NO_RECORD; /* the reader may have changed *last */
		}
	}
}

int path_grammar_words_at(struct path_grammar *pg, const uint64_t *words, size_t n, uint32_t depth)
{
	read_words(pg, words, n, depth);
	flush_pending(pg);
	return pg->failed ? -1 : 0;
}

int path_grammar_export(struct path_grammar *pg, const struct wpp_thread_key *key,
			struct wpp_thread_grammar *out)
{
	memset(out, 0, sizeof(*out));
	flush_pending(pg);
	if (pg->failed || (pg->b && (seq_finish(pg->b) < 0 || seq_export(pg->b, &out->g) < 0)) ||
	    (pg->cb && seqc_export(pg->cb, &out->g) < 0))
		return -1;
	out->terms = malloc((pg->nterms ? pg->nterms : 1) * sizeof(*out->terms));
	if (!out->terms) {
		seq_grammar_free(&out->g);
		return -1;
	}
	memcpy(out->terms, pg->terms, pg->nterms * sizeof(*out->terms));
	out->hdr = (struct wpp_chunk_grammar){.pid = key->pid,
					      .tid = key->tid,
					      .generation = key->generation,
					      .nsymbols = pg->nsymbols,
					      .nterminals = pg->nterms,
					      .segments = pg->segments,
					      .skipped_words = pg->skipped};
	return 0;
}

int grammar_builder_parse(const char *cmd, const char *name, int *algo)
{
	if (!strcmp(name, "chunked"))
		*algo = SEQ_CHUNKED;
	else if (!strcmp(name, "sequitur"))
		*algo = SEQ_LOOKAHEAD;
	else {
		wpp_err("%s: --grammar-builder takes chunked or sequitur, not '%s'", cmd, name);
		return -1;
	}
	return 0;
}

const char *grammar_builder_name(uint32_t flags)
{
	if (flags & SEQ_GRAMMAR_CHUNKED)
		return "chunked";
	return flags & SEQ_GRAMMAR_LOOKAHEAD ? "SEQUITUR(1)" : "SEQUITUR";
}

void wpp_thread_grammar_free(struct wpp_thread_grammar *tg)
{
	free(tg->terms);
	seq_grammar_free(&tg->g);
	memset(tg, 0, sizeof(*tg));
}

int wpp_grammar_chunk_encode(const struct wpp_thread_grammar *tg, uint8_t **buf, size_t *len)
{
	uint8_t *ser, *p;
	size_t serlen, tab = (size_t)tg->hdr.nterminals * sizeof(*tg->terms);
	struct wpp_chunk_grammar h = tg->hdr;

	if (seq_serialize(&tg->g, &ser, &serlen) < 0)
		return -1;
	h.grammar_len = serlen;
	if (tg->g.flags & SEQ_GRAMMAR_CHUNKED) /* the serialized flags cannot say it */
		h.flags |= WPP_GRAMMAR_CHUNKED;
	*len = sizeof(h) + tab + serlen;
	p = *buf = malloc(*len);
	if (!p) {
		free(ser);
		return -1;
	}
	memcpy(p, &h, sizeof(h));
	memcpy(p + sizeof(h), tg->terms, tab);
	memcpy(p + sizeof(h) + tab, ser, serlen);
	free(ser);
	return 0;
}

static int bad(char *why, size_t whylen, const char *msg)
{
	if (why && whylen)
		snprintf(why, whylen, "%s", msg);
	return -1;
}

int wpp_grammar_chunk_decode(const void *payload, size_t len, struct wpp_thread_grammar *out,
			     char *why, size_t whylen)
{
	const uint8_t *p = payload;
	char inner[160];
	size_t tab;

	memset(out, 0, sizeof(*out));
	if (len < sizeof(out->hdr))
		return bad(why, whylen, "grammar chunk shorter than its header");
	memcpy(&out->hdr, p, sizeof(out->hdr));
	tab = (size_t)out->hdr.nterminals * sizeof(*out->terms);
	if (tab > len - sizeof(out->hdr) || out->hdr.grammar_len != len - sizeof(out->hdr) - tab)
		return bad(why, whylen, "grammar chunk lengths do not add up");
	out->terms = malloc(tab ? tab : 1);
	if (!out->terms)
		return bad(why, whylen, "out of memory");
	memcpy(out->terms, p + sizeof(out->hdr), tab);
	if (seq_deserialize(p + sizeof(out->hdr) + tab, out->hdr.grammar_len, &out->g, inner,
			    sizeof(inner)) < 0) {
		free(out->terms);
		out->terms = NULL;
		if (why && whylen)
			snprintf(why, whylen, "%s", inner);
		return -1;
	}
	if (out->hdr.flags & WPP_GRAMMAR_CHUNKED)
		out->g.flags |= SEQ_GRAMMAR_CHUNKED;
	/* Every terminal must have a table entry (raw grammars may have none:
	 * their terminals are the raw values). */
	if (out->hdr.nterminals || !(out->hdr.flags & WPP_GRAMMAR_RAW)) {
		for (uint32_t i = 0; i < out->g.start[seq_grammar_nodes(&out->g)]; i++) {
			uint32_t s = out->g.sym[i];
			if (!seq_is_rule(s) && s >= out->hdr.nterminals) {
				wpp_thread_grammar_free(out);
				return bad(why, whylen, "grammar terminal without a table entry");
			}
		}
	}
	if (seq_grammar_total_len(&out->g) != out->hdr.nsymbols ||
	    out->g.nroots != out->hdr.segments) {
		wpp_thread_grammar_free(out);
		return bad(why, whylen, "grammar does not match its header counts");
	}
	return 0;
}

/* ---- the online consumer ---- */

struct consumer_state {
	struct wpp_grammar_cfg *cfg;
	struct path_grammar *pg;
};

static void *c_open(void *cfg_, const struct wpp_thread_key *key)
{
	struct wpp_grammar_cfg *cfg = cfg_;
	struct consumer_state *s = calloc(1, sizeof(*s));

	(void)key;
	if (!s ||
	    !(s->pg = cfg->tap ? path_grammar_new_tap(cfg->tap) : path_grammar_new(cfg->algo))) {
		free(s);
		cfg->failed = 1;
		return NULL;
	}
	s->cfg = cfg;
	return s;
}

static void c_words(void *state, const uint64_t *words, size_t n, uint32_t depth)
{
	struct consumer_state *s = state;
	path_grammar_words_at(s->pg, words, n, depth);
}

static void c_words_depth0(void *state, const uint64_t *words, size_t n)
{
	c_words(state, words, n, 0);
}

static void c_gap(void *state, uint64_t lost)
{
	struct consumer_state *s = state;
	(void)lost;
	path_grammar_gap(s->pg);
}

static int c_close(void *state, struct wpp_writer *w, const struct wpp_thread_key *key)
{
	struct consumer_state *s = state;
	struct wpp_thread_grammar tg;
	uint8_t *buf = NULL;
	size_t len = 0;
	int rc = 0;

	if (path_grammar_export(s->pg, key, &tg) < 0) {
		s->cfg->failed = 1;
		rc = -ENOMEM;
	} else if (s->cfg->capture) {
		s->cfg->capture(s->cfg->ctx, &tg); /* takes ownership */
	} else if (!s->cfg->tap && (w || s->cfg->emit_to)) {
		if (wpp_grammar_chunk_encode(&tg, &buf, &len) < 0) {
			s->cfg->failed = 1;
			rc = -ENOMEM;
		} else if (len > WPP_CHUNK_MAX_PAYLOAD) {
			/* Not an error: readers rebuild the grammar from the
			 * batches, which are all in the file. */
			s->cfg->oversized++;
		} else if (s->cfg->emit_to) {
			wpp_online_emit(s->cfg->emit_to, WPP_CHUNK_GRAMMAR, buf, (uint32_t)len);
			buf = NULL;
		} else if ((rc = wppw_chunk(w, WPP_CHUNK_GRAMMAR, buf, (uint32_t)len)) < 0) {
			s->cfg->failed = 1;
		}
		free(buf);
		wpp_thread_grammar_free(&tg);
	} else {
		wpp_thread_grammar_free(&tg);
	}
	path_grammar_free(s->pg);
	free(s);
	return rc;
}

struct wpp_online_consumer wpp_grammar_consumer(struct wpp_grammar_cfg *cfg)
{
	return (struct wpp_online_consumer){.name = "grammar",
					    .thread_open = c_open,
					    .thread_words = c_words_depth0,
					    .thread_gap = c_gap,
					    .thread_close = c_close,
					    .cfg = cfg,
					    .thread_words_at = c_words};
}
