/* SPDX-License-Identifier: MIT */
/*
 * wet_store.c — WET chunks in a recording (wet_store.h): cutting a stored
 * WET into chunk-sized parts after END, and finding a thread's last
 * complete set of parts again, put back together in a buffer no larger
 * than the file (a crafted total length cannot make it allocate more).
 */
#include "cli/wet_store.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/crc32c.h"
#include "analysis/wet/wet_file.h"
#include "common/wppfile.h"

#define PART_BYTES (WPP_CHUNK_MAX_PAYLOAD - sizeof(struct wpp_chunk_wet))

static const struct wpp_fn *fn_of_fid(void *ctx, uint32_t fid)
{
	const struct wpp_fn *fn = NULL;
	const struct wpp_fid_range *range;

	if (wpp_image_resolve(ctx, fid, &fn, &range) != WPP_RESOLVED)
		return NULL;
	return fn;
}

/* A set of parts being put together. */
struct parts {
	uint8_t *buf;
	uint64_t total, have;
	uint32_t next, nparts, crc;
};

int wet_store_load(struct session *s, const struct wpp_thread_trace *th, int mode,
		   struct wet_thread **out, char *err, size_t errlen)
{
	struct parts cur = {0}, done = {0};
	struct wpp_chunk c;
	struct wpp_chunk_wet h;
	struct stat st;
	uint64_t limit = stat(s->trace->path, &st) == 0 ? (uint64_t)st.st_size : 0;

	*out = NULL;
	wppr_rewind(s->trace->reader);
	while (wppr_next(s->trace->reader, &c)) {
		if (c.type != WPP_CHUNK_WET || c.length < sizeof(h))
			continue;
		memcpy(&h, c.payload, sizeof(h));
		if (h.pid != th->pid || h.tid != th->tid || h.generation != th->generation)
			continue;
		uint64_t len = c.length - sizeof(h);
		if (h.part == 0) { /* a new set starts; an unfinished one is dropped */
			free(cur.buf);
			cur = (struct parts){
			    .total = h.total_len, .nparts = h.nparts, .crc = h.blob_crc32c};
			if (h.total_len > limit || h.nparts == 0 ||
			    !(cur.buf = malloc(h.total_len + 1)))
				cur.total = 0, cur.nparts = 0;
		}
		if (!cur.buf || h.part != cur.next || h.nparts != cur.nparts ||
		    h.blob_crc32c != cur.crc || h.total_len != cur.total || h.offset != cur.have ||
		    len > cur.total - cur.have) {
			free(cur.buf);
			cur = (struct parts){0};
			continue;
		}
		memcpy(cur.buf + cur.have, (const uint8_t *)c.payload + sizeof(h), len);
		cur.have += len;
		if (++cur.next == cur.nparts) {
			if (cur.have == cur.total) {
				free(done.buf);
				done = cur;
			} else
				free(cur.buf);
			cur = (struct parts){0};
		}
	}
	free(cur.buf);
	if (!done.buf)
		return 0;
	if (wpp_crc32c(0, done.buf, done.total) != done.crc) {
		snprintf(err, errlen, "its parts do not add up (checksum)");
		free(done.buf);
		return -1;
	}
	uint32_t version = wet_file_version(done.buf, done.total);
	if (version && version < WET_FILE_VERSION) { /* stale, not damaged */
		snprintf(err, errlen, "a WET of format version %u", version);
		free(done.buf);
		return 2;
	}
	*out = wet_file_decode(done.buf, done.total, fn_of_fid,
			       (void *)wpp_modules_image(s->mods, th->pid, th->generation), mode,
			       err, errlen);
	if (*out && mode == WET_FILE_LAZY)
		(*out)->blob = done.buf; /* its streams' bytes */
	else
		free(done.buf);
	return *out ? 1 : -1;
}

int wet_store_save(struct session *s, const char *path, struct wet_thread *t, char *err,
		   size_t errlen)
{
	uint8_t *blob;
	size_t len;

	if (!s->trace->has_end) {
		snprintf(err, errlen, "%s has no END chunk (a recorder may still be writing it)",
			 path);
		return -1;
	}
	if (wet_file_encode(t, &blob, &len) < 0) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	uint64_t nparts = (len + PART_BYTES - 1) / PART_BYTES;
	if (nparts > UINT32_MAX) {
		free(blob);
		snprintf(err, errlen, "the WET is too large to store");
		return -1;
	}
	struct wpp_writer *w = wppw_open_append(path);
	if (!w) {
		free(blob);
		snprintf(err, errlen, "cannot append to %s", path);
		return -1;
	}
	struct wpp_chunk_wet h = {.pid = t->pid,
				  .tid = t->tid,
				  .generation = t->gen,
				  .nparts = (uint32_t)nparts,
				  .blob_crc32c = wpp_crc32c(0, blob, len),
				  .total_len = len};
	int rc = 0;
	for (uint64_t off = 0; rc == 0 && off < len; off += PART_BYTES, h.part++) {
		size_t n = len - off < PART_BYTES ? len - off : PART_BYTES;
		h.offset = off;
		rc = wppw_chunk2(w, WPP_CHUNK_WET, &h, sizeof(h), blob + off, (uint32_t)n);
	}
	free(blob);
	if (wppw_finish(w) < 0 || rc < 0) {
		snprintf(err, errlen, "writing to %s failed", path);
		return -1;
	}
	return 0;
}
