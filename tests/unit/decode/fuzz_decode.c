/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer driver for the decoder's hostile-input surface.  The first byte
 * picks the target:
 *   even: the rest is a wpp_meta section: walk it, parse every blob, expand
 *         a few path ids of every function;
 *   odd:  the rest is a .wpp file: load it and decode every thread (the
 *         objects its MODULE chunks name are looked up like in real use);
 *         with bit 1 also set, chunk CRCs are recomputed first, so mutations
 *         reach the payload checks instead of dying at the checksum.
 * Build: see tests/unit/decode/module.mk; run: fuzz_decode -max_total_time=60.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "common/crc32c.h"
#include "decode/decoder.h"
#include "common/log.h"
#include "symbolizer/meta_model.h"
#include "decode/path_regen.h"
#include "symbolizer/symbolizer.h"

static void fuzz_meta(const uint8_t *data, size_t size)
{
	uint32_t blocks[256];
	size_t off = 0;

	while (off + sizeof(struct wpp_meta_header) <= size) {
		struct wpp_meta_header h;
		const void *blob;
		size_t bsize;
		char err[256];
		struct wpp_tu *tu;

		memcpy(&h, data + off, sizeof(h));
		if (wpp_meta_find(data + off, size - off, h.tu_hash, &blob, &bsize, err, sizeof(err)) != 1)
			break;
		tu = wpp_meta_parse(blob, bsize, err, sizeof(err));
		if (tu) {
			for (uint32_t i = 0; i < tu->nfuncs; i++) {
				struct wpp_path p;
				for (uint64_t id = 0; id < 16; id++)
					wpp_path_expand(tu->fns + i, id, blocks, 256, &p);
			}
			wpp_tu_free(tu);
		}
		off += (bsize + 7) & ~(size_t)7;
	}
}

static void quiet(void *ctx, const char *msg)
{
	(void)ctx;
	(void)msg;
}

/* Recompute the CRC of every chunk whose header and payload fit. */
static void fix_crcs(uint8_t *buf, size_t size)
{
	size_t off = sizeof(struct wpp_file_header);

	while (off + sizeof(struct wpp_chunk_header) <= size) {
		struct wpp_chunk_header h;
		memcpy(&h, buf + off, sizeof(h));
		if (h.length > size - off - sizeof(h))
			break;
		h.crc32c = wpp_crc32c(0, &h.type, 8);
		h.crc32c = wpp_crc32c(h.crc32c, buf + off + sizeof(h), h.length);
		memcpy(buf + off, &h, sizeof(h));
		off += sizeof(h) + h.length;
	}
}

static void fuzz_wpp(const uint8_t *data, size_t size, int fix)
{
	char path[64];
	int fd = memfd_create("wpp-fuzz", 0);
	struct wpp_trace *t;
	uint8_t *copy = malloc(size ? size : 1);
	ssize_t n;

	if (fd < 0 || !copy) {
		free(copy);
		if (fd >= 0)
			close(fd);
		return;
	}
	memcpy(copy, data, size);
	if (fix)
		fix_crcs(copy, size);
	n = write(fd, copy, size);
	free(copy);
	if (n != (ssize_t)size) {
		close(fd);
		return;
	}
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	/* As the decoder-only commands load (session_open): the
	 * words of compressed batches decoded as the decoder walks them. */
	t = wpp_trace_load_on_demand(path);
	if (t) {
		struct wpp_symbolizer *sym = wpp_sym_new();
		struct wpp_modules *mods;
		wpp_sym_set_reporter(sym, quiet, NULL);
		mods = wpp_modules_new(t, sym);
		for (size_t i = 0; i < t->nthreads; i++) {
			struct wpp_decoder *d = wpp_decoder_open(&t->threads[i], mods, WPP_DECODE_EXPAND);
			struct wpp_event ev;
			/* A REPEAT word may stand for 2^32 events: what matters here is
			 * that decoding stays safe, not how long a hostile count runs. */
			uint64_t budget = UINT64_C(1) << 20;
			while (d && budget-- && wpp_decoder_next(d, &ev))
				;
			wpp_decoder_close(d);
		}
		wpp_modules_free(mods);
		wpp_sym_free(sym);
		wpp_trace_free(t);
	}
	close(fd);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	wpp_verbosity = 0;
	if (size < 1)
		return 0;
	if (data[0] & 1)
		fuzz_wpp(data + 1, size - 1, data[0] & 2);
	else
		fuzz_meta(data + 1, size - 1);
	return 0;
}
