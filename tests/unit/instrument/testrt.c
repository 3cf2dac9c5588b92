/* SPDX-License-Identifier: MIT */
/*
 * testrt.c — test double of libwpprt for the instrument tests (never
 * shipped).  Defines the trace_abi.h symbols and dumps, to the file named
 * by $WPP_TEST_OUT, every registered TU ('M' record: fid base + metadata
 * blob) and every flushed batch of words ('W' record).  Single-threaded
 * test programs only.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wpp/trace_abi.h"

#define BUF_WORDS (1u << 16)

static uint64_t scratch[4];
/* The ABI's TLS pair: the cursor, then the limit at WPP_LIMIT_OFFSET. */
__thread uint64_t *__wpp_cursor[2] = {scratch, scratch};
#define CURSOR (__wpp_cursor[0])
#define LIMIT (__wpp_cursor[WPP_LIMIT_OFFSET / sizeof(uint64_t *)])
static uint64_t *buf;
static FILE *out;
static uint32_t next_fid = 1;

static FILE *out_file(void)
{
	if (!out) {
		const char *p = getenv("WPP_TEST_OUT");
		out = fopen(p ? p : "/dev/null", "wb");
		if (!out)
			abort();
	}
	return out;
}

static void write_words(const uint64_t *w, uint64_t n)
{
	if (!n)
		return;
	fputc('W', out_file());
	fwrite(&n, 8, 1, out);
	fwrite(w, 8, n, out);
}

/* preserve_most, as instrumented code calls it (trace_abi.h). */
__attribute__((preserve_most)) void __wpp_flush(void)
{
	if (!buf) {
		buf = calloc(BUF_WORDS + 4, 8);
		uint64_t n = (uint64_t)(CURSOR - scratch);
		memcpy(buf, scratch, n * 8);
		CURSOR = buf + n;
		LIMIT = buf + BUF_WORDS;
		return;
	}
	write_words(buf, (uint64_t)(CURSOR - buf));
	CURSOR = buf;
}

void __wpp_flush_all(void)
{
	if (buf) {
		write_words(buf, (uint64_t)(CURSOR - buf));
		CURSOR = buf;
	}
	fflush(out_file());
}

void __wpp_register_tu(struct wpp_tu_desc *d)
{
	uint32_t base = next_fid;
	next_fid += d->nfuncs;
	*d->fid_base_slot = (uint64_t)base << WPP_FID_SHIFT;
	fputc('M', out_file());
	fwrite(&base, 4, 1, out);
	fwrite(&d->meta_size, 8, 1, out);
	fwrite(d->meta, 1, d->meta_size, out);
}

__attribute__((destructor)) static void at_exit(void) { __wpp_flush_all(); }
