/* SPDX-License-Identifier: MIT */
/*
 * kipf_build.c — offline k-IPF construction and stored-forest loading.
 */
#include "kipf_build.h"

#include <inttypes.h>

#include "log.h"
#include "wpp/trace_abi.h"
#include "wppfile.h"

int kipf_build_thread(struct kipf *f, const struct wpp_thread_trace *th, struct wpp_modules *mods,
		      uint64_t max_nodes)
{
	struct kslab *s = kslab_new(f->k, max_nodes);
	struct wpp_decoder *d;
	struct wpp_event ev;
	int rc = 0;

	if (!s) {
		wpp_err("k-paths: cannot build a k-slab forest (k %u, %" PRIu64 " nodes)", f->k,
			max_nodes);
		return -1;
	}
	d = wpp_decoder_open(th, mods, 0);
	if (!d) {
		kslab_free(s);
		return -1;
	}
	while (rc == 0 && wpp_decoder_next(d, &ev)) {
		switch (ev.kind) {
		case WPP_EV_PATH:
		case WPP_EV_BLOCK:
			rc = kslab_item(s, ev.fid, ev.value);
			break;
		case WPP_EV_UNATTRIBUTED:
			/* A known fid without metadata is still one function's
			 * path; an unregistered one is anybody's. */
			if (ev.fid != 0 && ev.fid != WPP_FID_UNREGISTERED)
				rc = kslab_item(s, ev.fid, ev.value);
			else
				kslab_mark(s);
			break;
		case WPP_EV_GAP:
		case WPP_EV_CORRUPT:
			kslab_mark(s);
			break;
		}
	}
	wpp_decoder_close(d);
	if (rc == 0)
		rc = kipf_add_kslab(f, s);
	if (rc < 0)
		wpp_err("k-paths: out of memory building the forest of thread %u", th->tid);
	kslab_free(s);
	return rc;
}

unsigned kipf_store_load(struct kipf_store *st, const struct wpp_trace *t)
{
	struct wpp_chunk c;
	unsigned bad = 0;
	char err[160];

	wppr_rewind(t->reader);
	while (wppr_next(t->reader, &c) == 1) {
		if (c.type != WPP_CHUNK_KIPF)
			continue;
		if (kipf_store_add(st, c.payload, c.length, err, sizeof(err)) < 0) {
			wpp_warn("%s: k-IPF chunk at offset %" PRIu64 " rejected: %s", t->path,
				 c.file_offset, err);
			bad++;
		}
	}
	return bad;
}
