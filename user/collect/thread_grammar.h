/* SPDX-License-Identifier: MIT */
/*
 * thread_grammar.h — a recorded thread's path grammar, however the file was
 * recorded: the WPP_CHUNK_GRAMMAR chunk written online by `record` when
 * there is one, else built now from the thread's batches and gaps through
 * the same online assembler and grammar consumer (so the result is the
 * same either way), and what each terminal means in source terms.  A
 * GRAMMAR chunk after the END chunk (stored by `wpptrace wpp --store`)
 * counts like one the recorder wrote.
 */
#ifndef WPP_COLLECT_THREAD_GRAMMAR_H
#define WPP_COLLECT_THREAD_GRAMMAR_H

#include <stdint.h>

#include "decode/module_map.h"
#include "collect/sequitur_online.h"
#include "decode/trace_file.h"

/* RECORDED: written by record, online; STORED: built from the batches
 * later and kept in the file by `wpptrace wpp --store` (after its END
 * chunk); REBUILT: built from the batches now. */
enum grammar_origin { GRAMMAR_RECORDED, GRAMMAR_STORED, GRAMMAR_REBUILT };

/* The grammars a command had to build from the batches, and the CPU
 * seconds that took (thread_grammar_load adds to it). */
struct grammar_builds {
	uint32_t n;
	double cpu_seconds;
};

/* 0, or -1 after printing one error line (corrupt chunk: with
 * allow_rebuild the grammar is rebuilt from the batches instead, with a
 * warning).  *origin says where it came from; a grammar built from the
 * batches is counted in *builds (may be NULL). */
int thread_grammar_load(struct wpp_trace *t, const struct wpp_thread_trace *th,
			struct wpp_thread_grammar *out, enum grammar_origin *origin,
			struct grammar_builds *builds);

/* When the builds took long enough to matter: one info line saying that
 * `wpptrace wpp --store PATH` keeps them in the file. */
void thread_grammar_suggest_store(const char *cmd, const char *path,
				  const struct grammar_builds *builds);

/* Which builder the grammars built from batches use: SEQ_CHUNKED (the
 * default) or SEQ_LOOKAHEAD (`--grammar-builder sequitur`).  A setting of
 * the command (one per process), as the recorder's is per recording. */
void thread_grammar_set_builder(enum seq_algorithm algo);

/* Build from the batches only (ignoring any recorded chunk). */
int thread_grammar_rebuild(const struct wpp_thread_trace *th, struct wpp_thread_grammar *out);

/* A file written by `wpp --from-raw` holds no threads, only raw GRAMMAR
 * chunks (WPP_GRAMMAR_RAW).  fn is called with each, decoded, in file
 * order, index counting from 1 (fn NULL: only count them, without
 * decoding); a non-zero return from fn stops the walk and is returned.
 * A chunk that does not decode: one error line, -1.  *n: chunks visited. */
typedef int (*raw_grammar_fn)(void *ctx, const struct wpp_thread_grammar *tg, uint32_t index);
int thread_grammar_for_each_raw(struct wpp_trace *t, raw_grammar_fn fn, void *ctx, uint32_t *n);

/* The thread's path stream as the grammar would see it, read from the
 * batches through the same assembler and word reader: the terminals go to
 * tap (sequitur_online.h); *out gets the header (symbol, segment and
 * skipped-word counts) and the terminal table, and no grammar.  Failures
 * as for thread_grammar_rebuild; a tap's own failure (its out() returned
 * -1) is reported by the tap. */
int thread_stream_export(const struct wpp_thread_trace *th, const struct path_terminal_tap *tap,
			 struct wpp_thread_grammar *out);

/* What terminal i stands for: the function, the static instructions of
 * the path (sum of its blocks' ninsns), its blocks and source line span.
 * fn is NULL when the fid cannot be resolved; valid is 0 when the path id
 * does not expand (then insns = 0). */
struct terminal_info {
	const struct wpp_fn *fn;
	int valid;
	int is_block;
	uint64_t insns;
	uint32_t nblocks;
	const char *file;
	uint32_t line_min, line_max;
};
/* info[] gets tg->hdr.nterminals entries; 0 or -1 (no memory). */
int thread_grammar_describe(const struct wpp_thread_grammar *tg, struct wpp_modules *mods,
			    struct terminal_info *info);
/* "FILE:LO-HI", or "FILE:?" for a path without a line (no debug
 * location), into buf; returns buf. */
const char *terminal_where(const struct terminal_info *ti, char *buf, size_t size);

#endif
