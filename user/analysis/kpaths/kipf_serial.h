/* SPDX-License-Identifier: MIT */
/*
 * kipf_serial.h — k-IPF <-> WPP_CHUNK_KIPF chunks (layout in wpp/wpp_file.h).
 *
 * Writing: the forest (sorted) in preorder, cut into chunks of at most
 * max_payload bytes; each later chunk repeats the label path down to its
 * first node's parent, so every chunk is checked on its own.
 *
 * Reading treats payloads as hostile: sizes must add up exactly, depths
 * must follow preorder, k in range, fids non-zero, counts positive,
 * siblings strictly increasing (so no duplicate k-path), parts contiguous
 * from 0 with a context equal to the path the previous part ended on, and
 * no child counting more than its parent (pruned forests too: kipf.h).
 * Any violation rejects the chunk with a one-line reason.
 */
#ifndef WPP_KIPF_SERIAL_H
#define WPP_KIPF_SERIAL_H

#include <stddef.h>
#include <stdint.h>

#include "analysis/kpaths/kipf.h"
#include "wpp/wpp_file.h"

/* The per-activation view (kipf.h `activation`) is flagged WPP_KIPF_ACTIVATION
 * (wpp/wpp_file.h); readers before it reject such chunks (unknown flag) and
 * rebuild the forest from the trace. */

/* Receives one chunk payload; returns 0 or -errno. */
typedef int (*kipf_emit_fn)(void *ctx, const void *payload, uint32_t len);

#define KIPF_CHUNK_MIN_PAYLOAD                                                                     \
	(sizeof(struct wpp_chunk_kipf) + WPP_KIPF_MAX_K * sizeof(struct wpp_kipf_label) +          \
	 sizeof(struct wpp_kipf_node))

/* f must be sorted (kipf_sort).  max_payload >= KIPF_CHUNK_MIN_PAYLOAD.
 * 0, or -errno (from emit or -ENOMEM). */
int kipf_write_chunks(const struct kipf *f, uint32_t pid, uint32_t tid, uint32_t generation,
		      uint32_t max_payload, kipf_emit_fn emit, void *ctx);

/* One thread's stored forest while its parts are read. */
struct kipf_stored {
	uint32_t pid, generation, tid;
	struct kipf *ipf;
	uint32_t next_part;
	int complete; /* the LAST part was read */
	int pruned;
	int bad;		       /* a part was rejected: do not use */
	uint32_t path[WPP_KIPF_MAX_K]; /* rightmost path of what was read */
	unsigned path_len;
};

struct kipf_store {
	struct kipf_stored *threads;
	size_t n, cap;
};

/* Validate one chunk payload and add it to its thread's forest.  0, or -1
 * with a one-line reason in err; a rejected part marks its thread bad (its
 * forest is incomplete and must not be used). */
int kipf_store_add(struct kipf_store *st, const void *payload, uint32_t len, char *err,
		   size_t errlen);
/* The thread's entry, or NULL. */
struct kipf_stored *kipf_store_find(struct kipf_store *st, uint32_t pid, uint32_t generation,
				    uint32_t tid);
void kipf_store_free(struct kipf_store *st);

#endif
