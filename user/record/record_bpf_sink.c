/* SPDX-License-Identifier: MIT */
#include "record/record_bpf_sink.h"

#include <string.h>

#include "record/record_live_counts.h"
#include "record/record_online.h"
#include "wpp/wpp_file.h"

static void keep(struct record_sink *rs, int err)
{
	/* After a write error the file is abandoned; the run goes on. */
	if (err < 0)
		rs->failed = 1;
}

static void sink_process(void *ctx, const struct bc_process *p)
{
	struct record_sink *rs = ctx;
	if (rs->live_counts)
		record_live_counts_process(rs->live_counts, p);
	if (rs->failed || p->event != BC_PROCESS_NEW)
		return; /* the file knows exits from the THREAD chunks */
	struct wpp_chunk_process c = p->proc;
	uint32_t exe_len = (uint32_t)strlen(p->exe) + 1;
	c.exe_len = exe_len;
	rs->processes++;
	struct wpp_writer *w = rs->w;
	/* header + exe + NUL + cmdline: three pieces, two calls would tear. */
	char tail[4096 + 4096];
	uint32_t cmd_len = p->proc.cmdline_len;
	if (exe_len > 4096)
		exe_len = 4096;
	if (cmd_len > sizeof(tail) - exe_len)
		cmd_len = (uint32_t)(sizeof(tail) - exe_len);
	memcpy(tail, p->exe, exe_len - 1);
	tail[exe_len - 1] = 0;
	memcpy(tail + exe_len, p->cmdline, cmd_len);
	c.exe_len = exe_len;
	c.cmdline_len = cmd_len;
	keep(rs, wppw_chunk2(w, WPP_CHUNK_PROCESS, &c, sizeof(c), tail, exe_len + cmd_len));
	record_online_process(rs, &c);
}

static void sink_thread(void *ctx, const struct wpp_chunk_thread *t)
{
	record_sink_thread(ctx, t);
}

static void sink_module(void *ctx, const struct wpp_chunk_module *m, const char *path)
{
	struct record_sink *rs = ctx;
	if (rs->live_counts)
		record_live_counts_module(rs->live_counts, m->pid, m->generation);
	if (rs->failed)
		return;
	struct wpp_chunk_module c = *m;
	c.path_len = (uint32_t)strlen(path) + 1;
	rs->modules++;
	keep(rs, wppw_chunk2(rs->w, WPP_CHUNK_MODULE, &c, sizeof(c), path, c.path_len));
	record_online_module(rs, &c, path);
}

static void sink_batch(void *ctx, const struct wpp_chunk_batch *b, const uint64_t *words)
{
	struct record_sink *rs = ctx;
	if (rs->live_counts)
		record_live_counts_batch(rs->live_counts, b);
	record_sink_batch(ctx, b, words);
}

static void sink_gap(void *ctx, const struct wpp_chunk_gap *g)
{
	record_sink_gap(ctx, g);
}

static void sink_flush(void *ctx)
{
	record_sink_flush(ctx);
}

struct bc_callbacks record_bpf_sink(struct record_sink *rs)
{
	struct bc_callbacks cb = {
	    .ctx = rs,
	    .process = sink_process,
	    .thread = sink_thread,
	    .module = sink_module,
	    .batch = sink_batch,
	    .gap = sink_gap,
	    .flush = sink_flush,
	};
	return cb;
}
