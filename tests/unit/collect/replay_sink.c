/* SPDX-License-Identifier: MIT */
/*
 * replay_sink.c — `replay_sink in.wpp out.wpp`: copy a recorded file chunk
 * by chunk while feeding its BATCH, GAP and THREAD-exit chunks, in file
 * (= arrival) order, to the online assembler with the grammar consumer,
 * exactly as `wpptrace record`'s sink does (the same calls at the same
 * points, the grammar consumer on the assembler's worker thread); the
 * grammars land in out.wpp as GRAMMAR chunks before END.  Lets tests/e2e/wpp-*.sh check online grammars end to end on any
 * recording, whatever the recorder.  As a compressing recorder does, the
 * worker gets BATCH_Z chunks as they are (heads and packed words) and
 * decodes them itself, and raw batches as words.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collect/online.h"
#include "collect/sequitur_online.h"
#include "common/wppfile.h"
#include "common/wppfile_batch.h"

int main(int argc, char **argv)
{
	struct wpp_grammar_cfg gcfg = {.algo = SEQ_LOOKAHEAD};
	struct wpp_online_consumer gc;
	struct wpp_chunk c;
	struct wpp_chunk_end end = {0};
	uint64_t *words = NULL;
	int rc = 0;

	if (argc != 3) {
		fprintf(stderr, "usage: replay_sink in.wpp out.wpp\n");
		return 2;
	}
	struct wpp_reader *r = wppr_open(argv[1]);
	struct wpp_writer *w = r ? wppw_open(argv[2]) : NULL;
	/* As record_online.c sets it up: the grammar on the worker thread. */
	struct wpp_online *o = wpp_online_new(NULL, 0);
	if (!r || !w || !o)
		return 1;
	gcfg.emit_to = o;
	gc = wpp_grammar_consumer(&gcfg);
	if (wpp_online_add_worker(o, &gc, 1, UINT64_C(256) << 20) < 0)
		return 1;
	wpp_online_set_worker_packed(o);
	while (rc == 0 && wppr_next(r, &c)) {
		if (c.type == WPP_CHUNK_END) {
			memcpy(&end, c.payload, sizeof(end));
			continue;
		}
		if (c.type == WPP_CHUNK_GRAMMAR)
			continue; /* replaced by ours */
		rc = wppw_chunk(w, c.type, c.payload, c.length);
		if (c.type == WPP_CHUNK_BATCH) {
			struct wpp_chunk_batch b;
			memcpy(&b, c.payload, sizeof(b));
			words = realloc(words, (b.nwords ? b.nwords : 1) * 8);
			memcpy(words, (const char *)c.payload + sizeof(b), (size_t)b.nwords * 8);
			wpp_online_batch(o, &b, words);
			wpp_online_worker_batch(o, &b, words);
		} else if (c.type == WPP_CHUNK_BATCH_Z) {
			struct wpp_chunk_batch_z z;
			uint64_t total;
			const char *why;
			if (wpp_batch_z_check(c.payload, c.length, c.length, &z, &total, &why) < 0) {
				fprintf(stderr, "replay_sink: BATCH_Z: %s\n", why);
				return 1;
			}
			uint32_t heads = (uint32_t)(sizeof(z) + z.nbatches * sizeof(struct wpp_chunk_batch));
			if (wppw_set_version(w, WPP_FILE_VERSION_BATCH_Z) < 0)
				return 1;
			wpp_online_worker_packed(o, c.payload, heads, (const char *)c.payload + heads,
						 z.packed_len);
		} else if (c.type == WPP_CHUNK_GAP) {
			struct wpp_chunk_gap g;
			memcpy(&g, c.payload, sizeof(g));
			wpp_online_gap(o, &g);
		} else if (c.type == WPP_CHUNK_THREAD) {
			struct wpp_chunk_thread t;
			memcpy(&t, c.payload, sizeof(t));
			if (t.event == WPP_THREAD_EXIT)
				rc = wpp_online_thread_exit(
				    o, &(struct wpp_thread_key){t.pid, t.tid, t.generation}, w);
		}
	}
	if (rc == 0)
		rc = wpp_online_finish(o, w);
	uint64_t peak = 0;
	if (wpp_online_worker_status(o, &peak) != 0)
		rc = -1; /* the test wants every grammar */
	const struct wpp_online_stats *st = wpp_online_stats(o);
	fprintf(stderr,
		"replay_sink: %llu batches, %llu words delivered, %llu late, %llu duplicate, %llu "
		"forced\n",
		(unsigned long long)st->batches, (unsigned long long)st->words_delivered,
		(unsigned long long)st->late_batches, (unsigned long long)st->duplicate_batches,
		(unsigned long long)st->forced_pieces);
	wpp_online_free(o);
	free(words);
	wppr_close(r);
	if (rc || gcfg.failed || wppw_close(w, &end) < 0) {
		fprintf(stderr, "replay_sink: failed (%d)\n", rc);
		return 1;
	}
	return 0;
}
