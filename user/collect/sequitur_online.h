/* SPDX-License-Identifier: MIT */
/*
 * sequitur_online.h — one thread's whole program path grammar, built from
 * raw trace words as they arrive (online inside the collector, or offline
 * from a recorded file through the same assembler).
 *
 * Words are read as wpp/trace_abi.h defines them: a one-word record or a
 * two-word wide record names (fid, path id); each distinct pair becomes a
 * dense terminal (first appearance order) fed to the grammar builder
 * (path_grammar_new: the chunked one or SEQUITUR(1)); zero and PAD
 * words are skipped; malformed records (a wide record cut short or without
 * its mark bit, an unknown control word, a gap marker without its count)
 * are skipped and counted, exactly as the decoder reports them as CORRUPT;
 * a gap (a GAP control word, or thread_gap from the assembler) ends the
 * grammar's current segment and starts a new one.
 *
 * WPP_CTRL_REPEAT n appends the terminal of the record just before it at
 * the same signal depth n more times (several in a row add up); that record
 * may have come in an earlier call.  "Just before" skips zero and PAD words
 * (they carry nothing) and REPEAT words; there is none at the stream's
 * start, after any other control word (malformed or unknown words, a
 * REPEAT of 0 — itself one skipped word), after a gap of either kind
 * (which forgets every depth), and at a depth just entered from a lower
 * one (a new signal handler run).  Then the n instances are counted in
 * skipped_words.  The words are read by the one raw-word reader shared with
 * the decoder and the k-path consumer (user/decode/trace_words.h).
 *
 * At close the grammar is stored as a WPP_CHUNK_GRAMMAR chunk
 * (wpp/wpp_file.h): fixed header, the terminal table, the serialized
 * grammar (sequitur_serial.h).
 */
#ifndef WPP_SEQUITUR_ONLINE_H
#define WPP_SEQUITUR_ONLINE_H

#include <stddef.h>
#include <stdint.h>

#include "collect/online.h"
#include "analysis/grammar/sequitur.h"
#include "wpp/wpp_file.h"

/* A finished thread grammar with its terminal table. */
struct wpp_thread_grammar {
	struct wpp_chunk_grammar hdr;	    /* pid, tid, generation, counts */
	struct wpp_grammar_terminal *terms; /* terms[i] is terminal i */
	struct seq_grammar g;
};
void wpp_thread_grammar_free(struct wpp_thread_grammar *tg);

struct path_grammar;

struct path_grammar *path_grammar_new(enum seq_algorithm algo);

/* A terminal tap: the same reading of the words and the same terminal
 * numbering, but no grammar.  The dense terminals go to out() in stream
 * order (a run of n copies as n terminals), a gap of either kind to gap();
 * out() returns 0, or -1 to fail the thread.  For exporting a thread's
 * path stream as raw symbols (`wpptrace wpp --raw-out`): such a stream
 * given to `--from-raw` is the input the grammar was built from.  A tap's
 * export (path_grammar_export) gives the header and the terminal table
 * and an empty grammar (no nodes). */
struct path_terminal_tap {
	int (*out)(void *ctx, const uint32_t *terminals, size_t n);
	void (*gap)(void *ctx);
	void *ctx;
};
struct path_grammar *path_grammar_new_tap(const struct path_terminal_tap *tap);
/* Words in execution order; a two-word record is never split across calls.
 * _at gives the words' signal depth (0 = main stream; what REPEAT refers
 * to is kept per depth); path_grammar_words is depth 0. */
int path_grammar_words(struct path_grammar *pg, const uint64_t *words, size_t n);
int path_grammar_words_at(struct path_grammar *pg, const uint64_t *words, size_t n, uint32_t depth);
int path_grammar_gap(struct path_grammar *pg);
/* Finish and export (pg stays owned by the caller).  0 or -1 (no memory). */
int path_grammar_export(struct path_grammar *pg, const struct wpp_thread_key *key,
			struct wpp_thread_grammar *out);
/* The SEQUITUR(1) builder (for statistics); NULL for a tap or a chunked
 * grammar. */
const struct seq_builder *path_grammar_builder(const struct path_grammar *pg);
void path_grammar_free(struct path_grammar *pg);

/* --grammar-builder NAME for command cmd: "chunked" (SEQ_CHUNKED, the
 * default everywhere) or "sequitur" (SEQ_LOOKAHEAD, one-level
 * SEQUITUR(1)) into *algo (an enum seq_algorithm); 0, or -1 after one
 * error line. */
int grammar_builder_parse(const char *cmd, const char *name, int *algo);
/* The name of a stored grammar's builder, from its flags. */
const char *grammar_builder_name(uint32_t seq_grammar_flags);

/* Chunk payload <-> grammar.  encode: malloc'd buffer; 0 or -1.
 * decode treats payload as hostile: 0, or -1 with a reason in why. */
int wpp_grammar_chunk_encode(const struct wpp_thread_grammar *tg, uint8_t **buf, size_t *len);
int wpp_grammar_chunk_decode(const void *payload, size_t len, struct wpp_thread_grammar *out,
			     char *why, size_t whylen);

/* The online consumer (online.h).  With capture set, a closed thread's
 * grammar is handed to it (ownership moves) instead of being written; with
 * emit_to set (a consumer on o's worker thread), its chunk is passed to
 * wpp_online_emit(emit_to) instead of being written to the file.  A chunk
 * larger than WPP_CHUNK_MAX_PAYLOAD is not stored and not an error (readers
 * rebuild the grammar from the batches). */
struct wpp_grammar_cfg {
	enum seq_algorithm algo;
	const struct path_terminal_tap *tap; /* set: threads get taps, not builders */
	void (*capture)(void *ctx, struct wpp_thread_grammar *tg);
	void *ctx;
	struct wpp_online *emit_to;
	int failed;	    /* set when a thread's grammar could not be built/written */
	uint64_t oversized; /* grammars too large for a chunk (not stored) */
};
struct wpp_online_consumer wpp_grammar_consumer(struct wpp_grammar_cfg *cfg);

#endif
