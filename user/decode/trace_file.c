/* SPDX-License-Identifier: MIT */
/*
 * trace_file.c — load a .wpp file: iterate chunks, validate each payload
 * against its fixed struct and its declared tails, group records.
 */
#include "decode/trace_file.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "decode/batch_words.h"
#include "common/log.h"
#include "wpp/trace_abi.h"
#include "common/wppfile.h"
#include "common/wppfile_batch.h"

/* Open-addressing map (pid, generation, tid) -> thread index, used while loading. */
struct thread_map {
	size_t cap;   /* power of two */
	size_t *slot; /* thread index + 1; 0 = empty */
};

static uint64_t thread_hash(uint32_t pid, uint32_t gen, uint32_t tid)
{
	uint64_t h = ((uint64_t)pid << 32 | tid) ^ ((uint64_t)gen * 0x9e3779b97f4a7c15u);
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdu;
	h ^= h >> 33;
	return h;
}

static void *grow(void *arr, size_t *cap, size_t need, size_t elem)
{
	size_t ncap;
	void *n;

	if (need <= *cap)
		return arr;
	ncap = *cap ? *cap * 2 : 16;
	while (ncap < need)
		ncap *= 2;
	n = realloc(arr, ncap * elem);
	if (!n)
		wpp_die("out of memory");
	*cap = ncap;
	return n;
}

struct loader {
	struct wpp_trace *t;
	struct thread_map map;
	size_t threads_cap, procs_cap, modules_cap, info_len, info_cap;
	int warned[WPP_CHUNK_BATCH_Z + 1];
	struct wpp_batch_z_walker walker; /* BATCH_Z chunks */
	uint64_t kept_words;		  /* of the chunk being walked */
	int on_demand;			  /* wpp_trace_load_on_demand() */
};

static void map_rehash(struct loader *ld);

static struct wpp_thread_trace *thread_get(struct loader *ld, uint32_t pid, uint32_t gen,
					   uint32_t tid)
{
	struct wpp_trace *t = ld->t;
	size_t i, mask;

	if ((t->nthreads + 1) * 2 > ld->map.cap)
		map_rehash(ld);
	mask = ld->map.cap - 1;
	for (i = thread_hash(pid, gen, tid) & mask; ld->map.slot[i]; i = (i + 1) & mask) {
		struct wpp_thread_trace *th = &t->threads[ld->map.slot[i] - 1];
		if (th->pid == pid && th->generation == gen && th->tid == tid)
			return th;
	}
	t->threads = grow(t->threads, &ld->threads_cap, t->nthreads + 1, sizeof(*t->threads));
	memset(&t->threads[t->nthreads], 0, sizeof(*t->threads));
	t->threads[t->nthreads].pid = pid;
	t->threads[t->nthreads].generation = gen;
	t->threads[t->nthreads].tid = tid;
	ld->map.slot[i] = ++t->nthreads;
	return &t->threads[t->nthreads - 1];
}

static void map_rehash(struct loader *ld)
{
	size_t ncap = ld->map.cap ? ld->map.cap * 2 : 64, mask = ncap - 1;
	size_t *slot = calloc(ncap, sizeof(*slot));

	if (!slot)
		wpp_die("out of memory");
	for (size_t k = 0; k < ld->t->nthreads; k++) {
		const struct wpp_thread_trace *th = &ld->t->threads[k];
		size_t i = thread_hash(th->pid, th->generation, th->tid) & mask;
		while (slot[i])
			i = (i + 1) & mask;
		slot[i] = k + 1;
	}
	free(ld->map.slot);
	ld->map.slot = slot;
	ld->map.cap = ncap;
}

static const char *chunk_name(unsigned type)
{
	static const char *const names[] = {"?",      "INFO",  "PROCESS", "MODULE",
					    "THREAD", "BATCH", "GAP",	  "END"};
	if (type == WPP_CHUNK_BATCH_Z)
		return "BATCH_Z";
	return type <= WPP_CHUNK_END ? names[type] : "?";
}

static struct wpp_batch_ref *add_batch(struct loader *ld, const struct wpp_chunk_batch *cb,
				       const unsigned char *words, uint64_t file_offset)
{
	struct wpp_thread_trace *th = thread_get(ld, cb->pid, cb->generation, cb->tid);

	th->batches = grow(th->batches, &th->batches_cap, th->nbatches + 1, sizeof(*th->batches));
	th->batches[th->nbatches++] = (struct wpp_batch_ref){.seq = cb->seq,
							     .parent_seq = cb->parent_seq,
							     .parent_off = cb->parent_off,
							     .flags = cb->flags,
							     .time_ns = cb->time_ns,
							     .nwords = cb->nwords,
							     .words = words,
							     .file_offset = file_offset};
	th->nwords += cb->nwords;
	return &th->batches[th->nbatches - 1];
}

/*
 * A compressed batch whose words are lost (its chunk damaged, or words
 * that do not decode) but whose head is intact: its thread gets a gap of
 * exactly its word count where the batch stood (before the next batch
 * after it), as a transport's GAP chunk would say.
 */
static void lose_batch(void *ctx, const struct wpp_chunk_batch *cb, uint64_t offset)
{
	struct loader *ld = ctx;
	struct wpp_trace *t = ld->t;
	struct wpp_thread_trace *th = thread_get(ld, cb->pid, cb->generation, cb->tid);

	if (!t->damaged_batches)
		t->first_damaged_offset = offset;
	th->gaps = grow(th->gaps, &th->gaps_cap, th->ngaps + 1, sizeof(*th->gaps));
	th->gaps[th->ngaps++] = (struct wpp_gap_ref){
	    .after_seq = cb->seq ? cb->seq - 1 : 0, .lost_words = cb->nwords, .lost_batches = 1};
	t->damaged_batches++;
	t->damaged_words += cb->nwords;
}

/* A batch whose words decoded: it refers to its chunk, whose words are
 * kept decoded or (on demand) decoded again when a reader asks. */
static void keep_batch(void *ctx, const struct wpp_chunk_batch *cb, const uint64_t *words,
		       uint64_t offset)
{
	struct loader *ld = ctx;
	struct wpp_packed_chunk *ch = ld->t->packed[ld->t->npacked - 1];
	struct wpp_batch_ref *ref;

	if (ch->kept)
		memcpy(ch->kept + ld->kept_words, words, (size_t)cb->nwords * 8);
	ref = add_batch(
	    ld, cb, ch->kept ? (const unsigned char *)(ch->kept + ld->kept_words) : NULL, offset);
	ref->packed = ch;
	ref->packed_at = (uint32_t)ld->kept_words;
	ld->kept_words += cb->nwords;
}

static const char *load_batch_z(struct loader *ld, const struct wpp_chunk *c)
{
	struct wpp_trace *t = ld->t;
	struct wpp_packed_chunk *ch = calloc(1, sizeof(*ch));
	uint64_t total;
	const char *why;

	if (!ch)
		wpp_die("out of memory");
	*ch = (struct wpp_packed_chunk){.payload = c->payload,
					.length = c->length,
					.file_offset = c->file_offset,
					.cache = t->cache};
	if (!ld->on_demand) { /* the words' room, if the heads are valid */
		struct wpp_chunk_batch_z z;
		if (wpp_batch_z_check(c->payload, c->length, c->length, &z, &total, &why) == 0 &&
		    !(ch->kept = malloc((size_t)total * 8 + 8)))
			wpp_die("out of memory");
	}
	t->packed = grow(t->packed, &t->packed_cap, t->npacked + 1, sizeof(*t->packed));
	t->packed[t->npacked++] = ch;
	ld->kept_words = 0;
	switch (wpp_batch_z_walk(&ld->walker, c, &total, &why)) {
	case WPP_BATCH_Z_DECODED:
		ch->total_words = total;
		return NULL;
	case WPP_BATCH_Z_LOST: /* counted as damage, said once by the session */
		why = NULL;
		break;
	case WPP_BATCH_Z_REJECTED:
		break;
	case WPP_BATCH_Z_NO_MEMORY:
		wpp_die("out of memory");
	}
	free(ch->kept);
	free(t->packed[--t->npacked]);
	return why;
}

/* Returns 0 if accepted, or a reason. */
static const char *load_chunk(struct loader *ld, const struct wpp_chunk *c)
{
	struct wpp_trace *t = ld->t;
	const unsigned char *p = c->payload;

	switch (c->type) {
	case WPP_CHUNK_INFO:
		t->info = grow(t->info, &ld->info_cap, ld->info_len + c->length + 2, 1);
		memcpy(t->info + ld->info_len, p, c->length);
		ld->info_len += c->length;
		if (ld->info_len && t->info[ld->info_len - 1] != '\n')
			t->info[ld->info_len++] = '\n';
		t->info[ld->info_len] = '\0';
		return NULL;
	case WPP_CHUNK_PROCESS: {
		struct wpp_chunk_process cp;
		struct wpp_process_rec *pr;
		if (c->length < sizeof(cp))
			return "short payload";
		memcpy(&cp, p, sizeof(cp));
		if (cp.exe_len == 0 ||
		    (uint64_t)cp.exe_len + cp.cmdline_len > c->length - sizeof(cp) ||
		    p[sizeof(cp) + cp.exe_len - 1] != '\0')
			return "bad exe/cmdline lengths";
		t->procs = grow(t->procs, &ld->procs_cap, t->nprocs + 1, sizeof(*t->procs));
		pr = &t->procs[t->nprocs];
		*pr = (struct wpp_process_rec){.pid = cp.pid,
					       .ppid = cp.ppid,
					       .parent_tid = cp.parent_tid,
					       .flags = cp.flags,
					       .generation = cp.generation,
					       .time_ns = cp.time_ns,
					       .exe = (const char *)p + sizeof(cp)};
		/* The latest image of the parent recorded so far is the one that forked. */
		for (size_t i = 0; i < t->nprocs; i++)
			if (t->procs[i].pid == cp.ppid)
				pr->parent_generation = t->procs[i].generation;
		t->nprocs++;
		return NULL;
	}
	case WPP_CHUNK_MODULE: {
		struct wpp_chunk_module cm;
		if (c->length < sizeof(cm))
			return "short payload";
		memcpy(&cm, p, sizeof(cm));
		if (cm.path_len == 0 || cm.path_len > c->length - sizeof(cm) ||
		    p[sizeof(cm) + cm.path_len - 1] != '\0')
			return "bad object path length";
		if (cm.build_id_len > sizeof(cm.build_id))
			return "bad build-id length";
		if ((uint64_t)cm.fid_base + cm.nfuncs > WPP_FID_UNREGISTERED || cm.fid_base == 0)
			return "fid range out of bounds";
		t->modules =
		    grow(t->modules, &ld->modules_cap, t->nmodules + 1, sizeof(*t->modules));
		t->modules[t->nmodules] =
		    (struct wpp_module_rec){.pid = cm.pid,
					    .generation = cm.generation,
					    .fid_base = cm.fid_base,
					    .nfuncs = cm.nfuncs,
					    .tu_hash = cm.tu_hash,
					    .build_id_len = cm.build_id_len,
					    .path = (const char *)p + sizeof(cm),
					    .load_bias = cm.load_bias,
					    .meta_addr = cm.meta_addr};
		memcpy(t->modules[t->nmodules].build_id, cm.build_id, sizeof(cm.build_id));
		t->nmodules++;
		return NULL;
	}
	case WPP_CHUNK_THREAD: {
		struct wpp_chunk_thread ct;
		struct wpp_thread_trace *th;
		if (c->length < sizeof(ct))
			return "short payload";
		memcpy(&ct, p, sizeof(ct));
		th = thread_get(ld, ct.pid, ct.generation, ct.tid);
		if (ct.event == WPP_THREAD_START)
			th->started = 1;
		else if (ct.event == WPP_THREAD_EXIT)
			th->exited = 1;
		return NULL;
	}
	case WPP_CHUNK_BATCH: {
		struct wpp_chunk_batch cb;
		if (c->length < sizeof(cb))
			return "short payload";
		memcpy(&cb, p, sizeof(cb));
		if ((uint64_t)cb.nwords * 8 != c->length - sizeof(cb))
			return "word count does not match the chunk length";
		add_batch(ld, &cb, p + sizeof(cb), c->file_offset);
		return NULL;
	}
	case WPP_CHUNK_BATCH_Z:
		return load_batch_z(ld, c);
	case WPP_CHUNK_GAP: {
		struct wpp_chunk_gap cg;
		struct wpp_thread_trace *th;
		if (c->length < sizeof(cg))
			return "short payload";
		memcpy(&cg, p, sizeof(cg));
		/* A gap chunk carries no generation: it belongs to the newest image of the pid. */
		uint32_t gen = 0;
		for (size_t i = 0; i < t->nprocs; i++)
			if (t->procs[i].pid == cg.pid)
				gen = t->procs[i].generation;
		th = thread_get(ld, cg.pid, gen, cg.tid);
		th->gaps = grow(th->gaps, &th->gaps_cap, th->ngaps + 1, sizeof(*th->gaps));
		th->gaps[th->ngaps++] = (struct wpp_gap_ref){.after_seq = cg.after_seq,
							     .lost_words = cg.lost_words,
							     .lost_batches = cg.lost_batches};
		return NULL;
	}
	case WPP_CHUNK_END:
		if (c->length < sizeof(t->end))
			return "short payload";
		memcpy(&t->end, p, sizeof(t->end));
		t->has_end = 1;
		return NULL;
	default: /* analysis results (GRAMMAR, ...): read by their own commands */
		break;
	}
	t->unknown_chunks++;
	return NULL;
}

static int thread_cmp(const void *a, const void *b)
{
	const struct wpp_thread_trace *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->generation != y->generation)
		return x->generation < y->generation ? -1 : 1;
	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	return 0;
}

static struct wpp_trace *load(const char *path, int on_demand)
{
	struct loader ld = {.on_demand = on_demand};
	struct wpp_chunk c;
	const char *status;

	ld.t = calloc(1, sizeof(*ld.t));
	if (!ld.t)
		wpp_die("out of memory");
	ld.t->path = strdup(path);
	ld.t->reader = wppr_open(path);
	ld.t->cache = wpp_chunk_cache_new(WPP_CHUNK_CACHE_BYTES);
	if (!ld.t->cache)
		wpp_die("out of memory");
	if (!ld.t->reader || !ld.t->path) {
		wpp_trace_free(ld.t);
		return NULL;
	}
	ld.t->stop_offset = sizeof(struct wpp_file_header);
	ld.walker =
	    (struct wpp_batch_z_walker){.on_batch = keep_batch, .on_lost = lose_batch, .ctx = &ld};
	for (;;) {
		const char *why;
		int got = wpp_batch_z_next(&ld.walker, ld.t->reader, &c);

		if (got == 0)
			break;
		if (got == 2) { /* a damaged BATCH_Z: its batches are gaps now */
			ld.t->nchunks++;
			continue;
		}
		why = load_chunk(&ld, &c);

		ld.t->nchunks++;
		ld.t->stop_offset = c.file_offset + sizeof(struct wpp_chunk_header) + c.length;
		if (why) {
			ld.t->bad_chunks++;
			if (!ld.warned[c.type]++)
				wpp_warn("%s: skipping %s chunk at offset %" PRIu64 ": %s", path,
					 chunk_name(c.type), c.file_offset, why);
		}
	}
	status = wppr_status(ld.t->reader);
	if (status)
		snprintf(ld.t->stop_reason, sizeof(ld.t->stop_reason), "%s", status);
	free(ld.map.slot);
	wpp_batch_z_walker_fini(&ld.walker);
	if (ld.t->nthreads)
		qsort(ld.t->threads, ld.t->nthreads, sizeof(*ld.t->threads), thread_cmp);
	return ld.t;
}

struct wpp_trace *wpp_trace_load(const char *path)
{
	return load(path, 0);
}

struct wpp_trace *wpp_trace_load_on_demand(const char *path)
{
	return load(path, 1);
}

void wpp_trace_free(struct wpp_trace *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->nthreads; i++) {
		free(t->threads[i].batches);
		free(t->threads[i].gaps);
	}
	wpp_chunk_cache_free(t->cache);
	for (size_t i = 0; i < t->npacked; i++) {
		free(t->packed[i]->kept);
		free(t->packed[i]);
	}
	free(t->packed);
	free(t->threads);
	free(t->procs);
	free(t->modules);
	free(t->info);
	wppr_close(t->reader);
	free(t->path);
	free(t);
}

const struct wpp_process_rec *wpp_trace_process(const struct wpp_trace *t, uint32_t pid,
						uint32_t generation)
{
	const struct wpp_process_rec *found = NULL;

	for (size_t i = 0; i < t->nprocs; i++)
		if (t->procs[i].pid == pid && t->procs[i].generation == generation)
			found = &t->procs[i];
	return found;
}
