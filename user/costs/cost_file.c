/* SPDX-License-Identifier: MIT */
/*
 * cost_file.c — the counter chunks of a .wpp file (COUNTERS, SAMPLES,
 * COUNTS), validated: hostile input, so every length is checked and every
 * counter index must name a described counter.
 */
#include "costs/costs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "common/wppfile.h"

static int append(void **arr, size_t *n, size_t *cap, size_t elem, const void *src, size_t count)
{
	if (*n + count > *cap) {
		size_t ncap = *cap ? *cap : 1024;
		while (ncap < *n + count)
			ncap *= 2;
		void *g = realloc(*arr, ncap * elem);
		if (!g)
			return -1;
		*arr = g;
		*cap = ncap;
	}
	memcpy((char *)*arr + *n * elem, src, count * elem);
	*n += count;
	return 0;
}

/* The SAMPLE_REGS chunk c describes the samples [first, last) of the
 * SAMPLES chunk right before it: one entry per sample with
 * WPP_SAMPLE_REGS, in order.  0, 1 malformed (the samples keep no
 * registers), -1 out of memory. */
static int load_regs(struct cost_data *out, const struct wpp_chunk *c, size_t first, size_t last,
		     size_t *rcap)
{
	struct wpp_chunk_sample_regs h;
	size_t want = 0;
	if (c->length < sizeof(h))
		return 1;
	memcpy(&h, c->payload, sizeof(h));
	for (size_t i = first; i < last; i++)
		want += (out->samples[i].flags & WPP_SAMPLE_REGS) != 0;
	if (h.arch != WPP_REGS_X86_64 || h.nsamples != want ||
	    c->length != sizeof(h) + (uint64_t)h.nsamples * sizeof(struct wpp_sample_regs))
		return 1;
	size_t base = out->nregs;
	if (append((void **)&out->regs, &out->nregs, rcap, sizeof(struct wpp_sample_regs),
		   (const char *)c->payload + sizeof(h), h.nsamples))
		return -1;
	for (size_t i = first, k = base; i < last; i++)
		if (out->samples[i].flags & WPP_SAMPLE_REGS)
			out->regs_at[i] = (uint32_t)k++;
	return 0;
}

int cost_load(struct wpp_trace *t, struct cost_data *out)
{
	struct wpp_chunk c;
	size_t scap = 0, ccap = 0, rcap = 0, icap = 0, nat = 0;
	size_t chunk_first = 0, chunk_last = 0; /* the last SAMPLES chunk's samples */
	int regs_open = 0;			/* that chunk may still get its SAMPLE_REGS */

	memset(out, 0, sizeof(*out));
	wppr_rewind(t->reader);
	while (wppr_next(t->reader, &c) == 1) {
		if (c.type == WPP_CHUNK_SAMPLE_REGS) {
			int rc = regs_open ? load_regs(out, &c, chunk_first, chunk_last, &rcap) : 1;
			if (rc < 0)
				goto oom;
			out->bad_chunks += rc;
			regs_open = 0;
			continue;
		}
		regs_open = 0;
		if (c.type == WPP_CHUNK_COUNTERS) {
			struct wpp_chunk_counters h;
			if (c.length < sizeof(h) || out->counters) {
				out->bad_chunks++;
				continue;
			}
			memcpy(&h, c.payload, sizeof(h));
			if (h.ncounters == 0 || h.ncounters > 64 ||
			    c.length != sizeof(h) + (uint64_t)h.ncounters *
							sizeof(struct wpp_counter_desc)) {
				out->bad_chunks++;
				continue;
			}
			out->counters = malloc(h.ncounters * sizeof(*out->counters));
			if (!out->counters)
				goto oom;
			memcpy(out->counters, (const char *)c.payload + sizeof(h),
			       h.ncounters * sizeof(*out->counters));
			/* Names go into text and JSON as they are: keep them plain. */
			for (uint32_t i = 0; i < h.ncounters; i++) {
				char *nm = out->counters[i].name;
				nm[WPP_COUNTER_NAME_MAX - 1] = 0;
				for (char *q = nm; *q; q++)
					if (*q <= ' ' || *q > '~' || *q == '"' || *q == '\\')
						*q = '?';
			}
			out->ncounters = h.ncounters;
		} else if (c.type == WPP_CHUNK_SAMPLES) {
			struct wpp_chunk_samples h;
			if (c.length < sizeof(h)) {
				out->bad_chunks++;
				continue;
			}
			memcpy(&h, c.payload, sizeof(h));
			if (c.length !=
			    sizeof(h) + (uint64_t)h.nsamples * sizeof(struct wpp_sample)) {
				out->bad_chunks++;
				continue;
			}
			chunk_first = out->nsamples;
			if (append((void **)&out->samples, &out->nsamples, &scap,
				   sizeof(struct wpp_sample), (const char *)c.payload + sizeof(h),
				   h.nsamples))
				goto oom;
			chunk_last = out->nsamples;
			regs_open = 1;
			/* No registers until its SAMPLE_REGS chunk says so. */
			static const uint32_t none = UINT32_MAX;
			for (size_t i = chunk_first; i < chunk_last; i++)
				if (append((void **)&out->regs_at, &nat, &icap, sizeof(uint32_t),
					   &none, 1))
					goto oom;
		} else if (c.type == WPP_CHUNK_COUNTS) {
			struct wpp_chunk_counts h;
			if (c.length < sizeof(h)) {
				out->bad_chunks++;
				continue;
			}
			memcpy(&h, c.payload, sizeof(h));
			if (c.length !=
			    sizeof(h) + (uint64_t)h.ncounts * sizeof(struct wpp_count)) {
				out->bad_chunks++;
				continue;
			}
			if (append((void **)&out->counts, &out->ncounts, &ccap,
				   sizeof(struct wpp_count), (const char *)c.payload + sizeof(h),
				   h.ncounts))
				goto oom;
		}
	}
	/* Records naming a counter the table does not have are dropped. */
	size_t k = 0, dropped = 0;
	for (size_t i = 0; i < out->nsamples; i++) {
		/* A flag without its registers (chunk missing or malformed). */
		if (out->regs_at[i] == UINT32_MAX)
			out->samples[i].flags &= ~(uint32_t)WPP_SAMPLE_REGS;
		if (out->samples[i].counter < out->ncounters) {
			out->regs_at[k] = out->regs_at[i];
			out->samples[k++] = out->samples[i];
		}
	}
	dropped += out->nsamples - k;
	out->nsamples = k;
	k = 0;
	for (size_t i = 0; i < out->ncounts; i++)
		if (out->counts[i].counter < out->ncounters)
			out->counts[k++] = out->counts[i];
	dropped += out->ncounts - k;
	out->ncounts = k;
	out->bad_chunks += dropped;
	if (out->bad_chunks)
		wpp_warn("%s: %llu malformed counter records skipped", t->path,
			 (unsigned long long)out->bad_chunks);
	return 0;
oom:
	wpp_err("out of memory");
	cost_data_free(out);
	return -1;
}

void cost_data_free(struct cost_data *cd)
{
	free(cd->counters);
	free(cd->samples);
	free(cd->regs);
	free(cd->regs_at);
	free(cd->counts);
	memset(cd, 0, sizeof(*cd));
}
