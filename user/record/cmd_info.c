/* SPDX-License-Identifier: MIT */
/*
 * cmd_info.c — `wpptrace info FILE.wpp`: what a recording holds, read
 * straight from its chunks (no metadata, no decoding): how it was made
 * (command, transport and settings), the processes (attached mid-run,
 * forked, exec'd), their threads, the time span, the trace words by kind
 * (path or block records, REPEAT words and the executions they add, other
 * control words) and what was lost.  What each translation unit's words
 * are — path traces, block traces or path counts (-fwpp-mode=count: no
 * order, which wpp, hot, kpaths and script need) — comes from the units'
 * metadata in the recorded objects, when they are still there ("unknown"
 * when not; nothing else here needs them).  A file whose writer died
 * (kill -9) is read up to its last complete chunk and says so.  With counters, their
 * samples per miss class come from the report side's attribution
 * (cost_info.h), which needs the program's metadata.  `--format json`
 * prints the same as one object with "info_version" (INFO_JSON_VERSION:
 * bumped when a key changes meaning or goes away; new keys may appear).
 * Lives with the recorder because it reports what the recorder wrote.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "costs/cost_info.h"
#include "common/json_out.h"
#include "common/log.h"
#include "common/options.h"
#include "decode/session.h"
#include "symbolizer/symbolizer.h"
#include "decode/trace_words.h"
#include "record/summary_text.h"
#include "wpp/trace_abi.h"
#include "common/wppfile.h"
#include "common/wppfile_batch.h"

#define INFO_JSON_VERSION 1

struct info_thread {
	uint32_t pid, tid, generation;
	int exited;
	uint64_t batches, words, lost_words, lost_batches;
	struct wpp_word_counts kinds;
};

struct info_proc {
	struct wpp_chunk_process p;
	char exe[256];
	char cmd[256];
	uint32_t modules;
};

/* A MODULE record: one translation unit of an object in one image. */
struct info_module {
	uint32_t pid, generation;
	uint64_t tu_hash;
	uint8_t build_id[20];
	uint32_t build_id_len;
	char *path;			   /* the object */
	const struct wpp_tu *tu;	   /* its metadata; NULL when unreadable */
	int first_in_file, first_in_image; /* the first module of its unit */
};

/* What a unit's words are, by its metadata's mode. */
enum unit_holds { HOLDS_PATHS, HOLDS_BLOCKS, HOLDS_COUNTS, HOLDS_UNKNOWN, NHOLDS };
static const char *const holds_text[NHOLDS] = {"path traces", "block traces", "path counts",
					       "unknown (no metadata)"};
static const char *const holds_json[NHOLDS] = {"paths", "blocks", "counts", NULL}; /* NULL: null */
/* Units named per kind before ", ...". */
#define UNITS_NAMED 3

struct holds {
	uint64_t n[NHOLDS];			/* units */
	uint32_t named[NHOLDS];			/* distinct names kept */
	const char *names[NHOLDS][UNITS_NAMED]; /* the first ones */
};

struct info {
	char settings[4096];
	struct info_proc *procs;
	size_t nprocs, cap_procs;
	struct info_thread *threads;
	size_t nthreads, cap_threads;
	uint64_t first_ns, last_ns;
	uint64_t batches, words, lost_words, lost_batches, gaps, modules, chunks;
	uint64_t salvaged; /* batches copied from a thread that ended unflushed */
	struct wpp_word_counts kinds;
	uint32_t counters;
	struct info_module *mods;
	size_t nmods, cap_mods;
	struct wpp_symbolizer *sym; /* owns the units' metadata */
	size_t *by_image;	    /* module indexes by (pid, image), then index */
	int have_end;
	struct wpp_chunk_end end;
	/* Storage: bytes of BATCH and BATCH_Z chunks, how many were coded,
	 * and coded batches whose words were lost (damaged or undecodable). */
	uint64_t batch_bytes, packed_batches, damaged_batches, damaged_words;
	struct wpp_batch_z_walker walker; /* BATCH_Z chunks */
};

static void *grow(void *arr, size_t *cap, size_t n, size_t size)
{
	if (n < *cap)
		return arr;
	size_t ncap = *cap ? *cap * 2 : 16;
	void *g = realloc(arr, ncap * size);
	if (!g)
		wpp_die("out of memory");
	*cap = ncap;
	return g;
}

static void see_time(struct info *in, uint64_t t)
{
	if (!t)
		return;
	if (!in->first_ns || t < in->first_ns)
		in->first_ns = t;
	if (t > in->last_ns)
		in->last_ns = t;
}

/* The latest image of pid at generation gen (or any, gen == UINT32_MAX). */
static struct info_thread *thread_of(struct info *in, uint32_t pid, uint32_t tid, uint32_t gen)
{
	for (size_t i = in->nthreads; i-- > 0;) {
		struct info_thread *t = &in->threads[i];
		if (t->pid == pid && t->tid == tid && (gen == UINT32_MAX || t->generation == gen))
			return t;
	}
	in->threads = grow(in->threads, &in->cap_threads, in->nthreads, sizeof(*in->threads));
	struct info_thread *t = &in->threads[in->nthreads++];
	memset(t, 0, sizeof(*t));
	t->pid = pid;
	t->tid = tid;
	t->generation = gen == UINT32_MAX ? 0 : gen;
	return t;
}

/* Printable copy of a NUL-separated argv, cut to fit. */
static void cmdline_text(char *out, size_t size, const char *args, uint32_t len)
{
	size_t n = 0;
	for (uint32_t i = 0; i < len && n + 1 < size; i++)
		out[n++] = args[i] ? args[i] : ' ';
	while (n > 0 && out[n - 1] == ' ')
		n--;
	out[n] = 0;
}

static void on_process(struct info *in, const struct wpp_chunk *ch)
{
	struct wpp_chunk_process p;
	if (ch->length < sizeof(p))
		return;
	memcpy(&p, ch->payload, sizeof(p));
	const char *tail = (const char *)ch->payload + sizeof(p);
	uint64_t room = ch->length - sizeof(p);
	in->procs = grow(in->procs, &in->cap_procs, in->nprocs, sizeof(*in->procs));
	struct info_proc *ip = &in->procs[in->nprocs++];
	memset(ip, 0, sizeof(*ip));
	ip->p = p;
	if (p.exe_len && p.exe_len <= room)
		snprintf(ip->exe, sizeof(ip->exe), "%.*s", (int)p.exe_len, tail);
	if (p.exe_len <= room && p.cmdline_len <= room - p.exe_len)
		cmdline_text(ip->cmd, sizeof(ip->cmd), tail + p.exe_len, p.cmdline_len);
	see_time(in, p.time_ns);
}

static void on_module(struct info *in, const struct wpp_chunk_module *m, const char *tail,
		      uint64_t room)
{
	in->mods = grow(in->mods, &in->cap_mods, in->nmods, sizeof(*in->mods));
	struct info_module *im = &in->mods[in->nmods];
	size_t len = m->path_len <= room ? strnlen(tail, m->path_len) : 0;
	if (!(im->path = strndup(tail, len)))
		wpp_die("out of memory");
	im->pid = m->pid;
	im->generation = m->generation;
	im->tu_hash = m->tu_hash;
	im->build_id_len = m->build_id_len <= sizeof(m->build_id) ? m->build_id_len : 0;
	memcpy(im->build_id, m->build_id, sizeof(im->build_id));
	im->tu = NULL;
	in->nmods++;
}

static void quiet(void *ctx, const char *msg)
{
	(void)ctx;
	(void)msg;
}

static enum unit_holds holds_of(const struct wpp_tu *tu)
{
	if (!tu)
		return HOLDS_UNKNOWN;
	switch (tu->mode) {
	case WPP_MODE_PATHS:
	case WPP_MODE_WET: /* paths in order, values beside them */
		return HOLDS_PATHS;
	case WPP_MODE_BLOCKS:
		return HOLDS_BLOCKS;
	case WPP_MODE_COUNTS:
	case WPP_MODE_PPP: /* counted too, only in other arrays */
	case WPP_MODE_TPP: /* counters of a plan (meta_tpp.h) */
		return HOLDS_COUNTS;
	}
	return HOLDS_UNKNOWN;
}

static const char *unit_name(const struct info_module *m)
{
	return m->tu && m->tu->source && *m->tu->source ? m->tu->source
	       : m->path[0]				? m->path
							: "?";
}

/* One unit: the same metadata (or, unreadable, the same object path) and
 * hash.  An order, so that units are found by sorting: a crafted file's
 * many MODULE records cost n log n, not n^2. */
static int unit_cmp(const struct info_module *a, const struct info_module *b)
{
	uintptr_t x = (uintptr_t)a->tu, y = (uintptr_t)b->tu;

	if (a->tu_hash != b->tu_hash)
		return a->tu_hash < b->tu_hash ? -1 : 1;
	if (x != y)
		return x < y ? -1 : 1;
	return a->tu ? 0 : strcmp(a->path, b->path);
}

static int image_cmp(const struct info_module *a, const struct info_module *b)
{
	if (a->pid != b->pid)
		return a->pid < b->pid ? -1 : 1;
	return (a->generation > b->generation) - (a->generation < b->generation);
}

/* qsort_r orders of module indexes (ctx: the modules); ties by index, so
 * the first of equals is the first recorded. */
static int by_unit(const void *a, const void *b, void *ctx)
{
	const struct info_module *m = ctx;
	size_t i = *(const size_t *)a, j = *(const size_t *)b;
	int r = unit_cmp(&m[i], &m[j]);
	return r ? r : (i > j) - (i < j);
}

static int by_image_unit(const void *a, const void *b, void *ctx)
{
	const struct info_module *m = ctx;
	size_t i = *(const size_t *)a, j = *(const size_t *)b;
	int r = image_cmp(&m[i], &m[j]);
	return r ? r : by_unit(a, b, ctx);
}

static int by_image(const void *a, const void *b, void *ctx)
{
	const struct info_module *m = ctx;
	size_t i = *(const size_t *)a, j = *(const size_t *)b;
	int r = image_cmp(&m[i], &m[j]);
	return r ? r : (i > j) - (i < j);
}

/* Mark each unit's first module in the file and in its image, and keep the
 * modules by image (in recorded order within one) for per-process lines. */
static void mark_units(struct info *in)
{
	size_t n = in->nmods, *idx = malloc((n + 1) * sizeof(*idx));
	struct info_module *m = in->mods;

	if (!idx)
		wpp_die("out of memory");
	for (size_t k = 0; k < n; k++)
		idx[k] = k;
	qsort_r(idx, n, sizeof(*idx), by_unit, m);
	for (size_t k = 0; k < n; k++)
		m[idx[k]].first_in_file = k == 0 || unit_cmp(&m[idx[k - 1]], &m[idx[k]]) != 0;
	qsort_r(idx, n, sizeof(*idx), by_image_unit, m);
	for (size_t k = 0; k < n; k++)
		m[idx[k]].first_in_image = k == 0 || image_cmp(&m[idx[k - 1]], &m[idx[k]]) != 0 ||
					   unit_cmp(&m[idx[k - 1]], &m[idx[k]]) != 0;
	qsort_r(idx, n, sizeof(*idx), by_image, m);
	in->by_image = idx;
}

/* Each unit's metadata, read without a word: a unit whose object is gone
 * or rebuilt is "unknown", and the rest of info does not need it. */
static void resolve_units(struct info *in)
{
	if (!in->nmods)
		return;
	if ((in->sym = wpp_sym_new())) { /* else every unit is "unknown" */
		wpp_sym_set_reporter(in->sym, quiet, NULL);
		for (size_t i = 0; i < in->nmods; i++) {
			struct info_module *m = &in->mods[i];
			if (m->path[0])
				m->tu = wpp_sym_tu(in->sym, m->path, m->build_id, m->build_id_len,
						   m->tu_hash);
		}
	}
	mark_units(in);
}

/* The first unit of img (NULL: of the file) at or after position *k of
 * the walk (module indexes, or by_image positions), or NULL at its end. */
static const struct info_module *next_unit(const struct info *in,
					   const struct wpp_chunk_process *img, size_t *k)
{
	if (!img) {
		for (; *k < in->nmods; ++*k)
			if (in->mods[*k].first_in_file)
				return &in->mods[(*k)++];
		return NULL;
	}
	if (*k == 0) { /* the image's first position */
		size_t lo = 0, hi = in->nmods;
		struct info_module key = {.pid = img->pid, .generation = img->generation};
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;
			if (image_cmp(&in->mods[in->by_image[mid]], &key) < 0)
				lo = mid + 1;
			else
				hi = mid;
		}
		*k = lo;
	}
	for (; *k < in->nmods; ++*k) {
		const struct info_module *m = &in->mods[in->by_image[*k]];
		if (m->pid != img->pid || m->generation != img->generation)
			break;
		if (m->first_in_image) {
			++*k;
			return m;
		}
	}
	*k = in->nmods; /* the image's modules are behind */
	return NULL;
}

/* The units of img (NULL: of the file), by what they hold. */
static void count_holds(const struct info *in, const struct wpp_chunk_process *img, struct holds *h)
{
	const struct info_module *m;
	size_t k = 0;

	memset(h, 0, sizeof(*h));
	while ((m = next_unit(in, img, &k))) {
		enum unit_holds kind = holds_of(m->tu);
		const char *name = unit_name(m);
		uint32_t j = 0;
		/* units of one object without metadata share its name: once */
		while (j < h->named[kind] && strcmp(h->names[kind][j], name) != 0)
			j++;
		if (j == h->named[kind] && j < UNITS_NAMED)
			h->names[kind][h->named[kind]++] = name;
		h->n[kind]++;
	}
}

/* "path traces (2 units: a.c, b.c), path counts (1 unit: c.c)"; 0 if none. */
static int print_holds(const struct holds *h)
{
	int any = 0;
	for (int k = 0; k < NHOLDS; k++) {
		if (!h->n[k])
			continue;
		printf("%s%s (%" PRIu64 " unit%s: ", any++ ? ", " : "", holds_text[k], h->n[k],
		       h->n[k] == 1 ? "" : "s");
		for (uint32_t j = 0; j < h->named[k]; j++)
			printf("%s%s", j ? ", " : "", h->names[k][j]);
		printf("%s)", h->n[k] > h->named[k] && h->named[k] == UNITS_NAMED ? ", ..." : "");
	}
	if (any)
		printf("\n");
	return any;
}

/* The units of img as JSON objects {source, object, holds}. */
static void json_units(struct json_out *j, const struct info *in,
		       const struct wpp_chunk_process *img)
{
	const struct info_module *m;
	size_t k = 0;

	json_array(j, "units");
	while ((m = next_unit(in, img, &k))) {
		json_object(j, NULL);
		json_string(j, "source", m->tu && m->tu->source ? m->tu->source : NULL);
		json_string(j, "object", m->path);
		json_string(j, "holds", holds_json[holds_of(m->tu)]);
		json_close(j);
	}
	json_close(j);
}

static void add_kinds(struct wpp_word_counts *to, const struct wpp_word_counts *k)
{
	to->records += k->records;
	to->repeats += k->repeats;
	to->repetitions += k->repetitions;
	to->control += k->control;
	to->malformed += k->malformed;
	to->values += k->values;
}

static void count_batch(struct info *in, const struct wpp_chunk_batch *b,
			const unsigned char *words, uint64_t nwords)
{
	struct info_thread *it = thread_of(in, b->pid, b->tid, b->generation);
	struct wpp_word_counts k = {0};

	wpp_words_count(words, nwords, &k);
	add_kinds(&it->kinds, &k);
	add_kinds(&in->kinds, &k);
	it->batches++;
	it->words += b->nwords;
	in->batches++;
	in->words += b->nwords;
	if (b->flags & WPP_BATCH_SALVAGED)
		in->salvaged++;
	see_time(in, b->time_ns);
}

/* A compressed batch whose words are gone: its head says whose and how many. */
static void lose_batch(void *ctx, const struct wpp_chunk_batch *b, uint64_t chunk_offset)
{
	struct info *in = ctx;
	struct info_thread *it = thread_of(in, b->pid, b->tid, b->generation);

	(void)chunk_offset;
	it->lost_words += b->nwords;
	it->lost_batches++;
	in->lost_words += b->nwords;
	in->lost_batches++;
	in->damaged_batches++;
	in->damaged_words += b->nwords;
}

static void count_packed_batch(void *ctx, const struct wpp_chunk_batch *b, const uint64_t *words,
			       uint64_t chunk_offset)
{
	struct info *in = ctx;

	(void)chunk_offset;
	count_batch(in, b, (const unsigned char *)words, b->nwords);
	in->packed_batches++;
}

static void on_chunk(struct info *in, const struct wpp_chunk *ch)
{
	in->chunks++;
	switch (ch->type) {
	case WPP_CHUNK_INFO: {
		size_t n = strlen(in->settings);
		snprintf(in->settings + n, sizeof(in->settings) - n, "%.*s", (int)ch->length,
			 (const char *)ch->payload);
		break;
	}
	case WPP_CHUNK_PROCESS:
		on_process(in, ch);
		break;
	case WPP_CHUNK_MODULE: {
		struct wpp_chunk_module m;
		if (ch->length < sizeof(m))
			break;
		memcpy(&m, ch->payload, sizeof(m));
		in->modules++;
		on_module(in, &m, (const char *)ch->payload + sizeof(m), ch->length - sizeof(m));
		for (size_t i = in->nprocs; i-- > 0;)
			if (in->procs[i].p.pid == m.pid &&
			    in->procs[i].p.generation == m.generation) {
				in->procs[i].modules++;
				break;
			}
		break;
	}
	case WPP_CHUNK_THREAD: {
		struct wpp_chunk_thread t;
		if (ch->length < sizeof(t))
			break;
		memcpy(&t, ch->payload, sizeof(t));
		struct info_thread *it = thread_of(in, t.pid, t.tid, t.generation);
		if (t.event == WPP_THREAD_EXIT)
			it->exited = 1;
		see_time(in, t.time_ns);
		break;
	}
	case WPP_CHUNK_BATCH: {
		struct wpp_chunk_batch b;
		if (ch->length < sizeof(b))
			break;
		memcpy(&b, ch->payload, sizeof(b));
		uint64_t present = (ch->length - sizeof(b)) / 8;
		in->batch_bytes += sizeof(struct wpp_chunk_header) + ch->length;
		count_batch(in, &b, (const unsigned char *)ch->payload + sizeof(b),
			    b.nwords < present ? b.nwords : present);
		break;
	}
	case WPP_CHUNK_BATCH_Z: {
		const char *why;
		switch (wpp_batch_z_walk(&in->walker, ch, NULL, &why)) {
		case WPP_BATCH_Z_DECODED:
		case WPP_BATCH_Z_LOST:
			in->batch_bytes += sizeof(struct wpp_chunk_header) + ch->length;
			break;
		case WPP_BATCH_Z_REJECTED:
			break;
		case WPP_BATCH_Z_NO_MEMORY:
			wpp_die("out of memory");
		}
		break;
	}
	case WPP_CHUNK_GAP: {
		struct wpp_chunk_gap g;
		if (ch->length < sizeof(g))
			break;
		memcpy(&g, ch->payload, sizeof(g));
		struct info_thread *it = thread_of(in, g.pid, g.tid, UINT32_MAX);
		it->lost_words += g.lost_words;
		it->lost_batches += g.lost_batches;
		in->lost_words += g.lost_words;
		in->lost_batches += g.lost_batches;
		in->gaps++;
		break;
	}
	case WPP_CHUNK_COUNTERS: {
		struct wpp_chunk_counters c;
		if (ch->length >= sizeof(c)) {
			memcpy(&c, ch->payload, sizeof(c));
			in->counters += c.ncounters;
		}
		break;
	}
	case WPP_CHUNK_END:
		if (ch->length >= sizeof(in->end)) {
			memcpy(&in->end, ch->payload, sizeof(in->end));
			in->have_end = 1;
		}
		break;
	default: /* analysis results and later chunk types: not summarised here */
		break;
	}
}

/* value of key in the INFO text, or NULL */
static const char *setting(const struct info *in, const char *key, char *buf, size_t size)
{
	size_t klen = strlen(key);
	for (const char *p = in->settings; *p;) {
		size_t len = strcspn(p, "\n");
		if (len > klen && strncmp(p, key, klen) == 0 && p[klen] == '=') {
			snprintf(buf, size, "%.*s", (int)(len - klen - 1), p + klen + 1);
			return buf;
		}
		p += len + (p[len] == '\n');
	}
	return NULL;
}

/* Path executions in p's stream of counts read from its memory (0: none). */
static uint64_t memory_counts(const struct info *in, const struct wpp_chunk_process *p)
{
	for (size_t i = 0; i < in->nthreads; i++) {
		const struct info_thread *t = &in->threads[i];
		if (t->pid == p->pid && t->generation == p->generation &&
		    t->tid == WPP_TID_MEMORY_COUNTS)
			return t->kinds.records + t->kinds.repetitions;
	}
	return 0;
}

/* The per-image sums of the threads of p (its stream of counts read from
 * memory included, but not counted as a thread). */
static struct info_thread proc_sums(const struct info *in, const struct wpp_chunk_process *p,
				    uint64_t *threads)
{
	struct info_thread sum = {0};
	*threads = 0;
	for (size_t i = 0; i < in->nthreads; i++) {
		const struct info_thread *t = &in->threads[i];
		if (t->pid != p->pid || t->generation != p->generation)
			continue;
		*threads += t->tid != WPP_TID_MEMORY_COUNTS;
		sum.batches += t->batches;
		sum.words += t->words;
		sum.lost_words += t->lost_words;
		add_kinds(&sum.kinds, &t->kinds);
	}
	return sum;
}

static void print_proc(const struct info *in, const struct info_proc *ip)
{
	const struct wpp_chunk_process *p = &ip->p;
	uint64_t threads;
	struct info_thread sum = proc_sums(in, p, &threads);
	printf("  pid %u", p->pid);
	if (p->generation)
		printf(" (image %u)", p->generation);
	printf("  ppid %u  %s\n", p->ppid, ip->exe[0] ? ip->exe : "?");
	if (ip->cmd[0])
		printf("    command   %s\n", ip->cmd);
	/* A forked child runs its parent's code: readers take the parent's
	 * modules for it (module_map.c), registered again or not (BPF does
	 * not, shm does), so a count of 0 is no lack. */
	printf("    threads %" PRIu64 ", modules %u%s, batches %" PRIu64 ", words %" PRIu64
	       ", records %" PRIu64 " (+%" PRIu64 " repeated)",
	       threads, ip->modules,
	       p->flags & WPP_PROC_FORKED ? " of its own (and its parent's, from the fork)" : "",
	       sum.batches, sum.words, sum.kinds.records, sum.kinds.repetitions);
	if (sum.lost_words)
		printf(", lost %" PRIu64 " words", sum.lost_words);
	printf("\n");
	uint64_t read = memory_counts(in, p);
	if (read)
		printf("    counts    %" PRIu64 " path executions record read from its memory "
		       "(thread id 0)\n",
		       read);
	struct holds h;
	count_holds(in, p, &h);
	if (h.n[0] + h.n[1] + h.n[2] + h.n[3]) {
		printf("    holds     ");
		print_holds(&h);
	}
	/* Counts are each thread's whole life, not the attach's window
	 * (docs/design.md, "Counts of attached processes are read at
	 * detach"): say so where a reader would take them for the window. */
	if (p->flags & WPP_PROC_ATTACHED)
		printf("    tracing began mid-run (attached)%s\n",
		       read || h.n[HOLDS_COUNTS]
			   ? "; its counts are each thread's since the thread "
			     "started, before the attach too"
			   : "");
	if (p->flags & WPP_PROC_FORKED)
		printf("    forked by pid %u (thread %u)\n", p->ppid, p->parent_tid);
	if (p->flags & WPP_PROC_EXECED)
		printf("    exec'd a new image\n");
}

static double span_s(const struct info *in)
{
	return in->last_ns > in->first_ns ? (double)(in->last_ns - in->first_ns) / 1e9 : 0.0;
}

static size_t threads_running(const struct info *in)
{
	size_t running = 0;
	for (size_t i = 0; i < in->nthreads; i++)
		running += !in->threads[i].exited && in->threads[i].tid != WPP_TID_MEMORY_COUNTS;
	return running;
}

/* Streams of counts record read from processes' memory (not threads). */
static size_t memory_count_streams(const struct info *in)
{
	size_t n = 0;
	for (size_t i = 0; i < in->nthreads; i++)
		n += in->threads[i].tid == WPP_TID_MEMORY_COUNTS;
	return n;
}

static void print_info(const char *path, const struct info *in, const char *status)
{
	char buf[1024];
	printf("file        %s\n", path);
	if (status)
		printf("status      incomplete: %s; read up to the last complete chunk\n", status);
	else
		printf("status      complete\n");
	printf("transport   %s\n", setting(in, "transport", buf, sizeof(buf)) ?: "unknown");
	for (const char *p = in->settings; *p;) {
		size_t len = strcspn(p, "\n");
		if (len && strncmp(p, "transport=", 10) != 0 && strncmp(p, "command=", 8) != 0)
			printf("            %.*s\n", (int)len, p);
		p += len + (p[len] == '\n');
	}
	printf("command     %s\n", setting(in, "command", buf, sizeof(buf)) ?: "unknown");
	if (span_s(in) > 0)
		printf("time span   %.6f s\n", span_s(in));
	else
		printf("time span   0 s\n");
	printf("processes   %zu\n", in->nprocs);
	for (size_t i = 0; i < in->nprocs; i++)
		print_proc(in, &in->procs[i]);
	size_t streams = memory_count_streams(in);
	printf("threads     %zu (%zu without an exit record)\n", in->nthreads - streams,
	       threads_running(in));
	if (streams)
		printf("            and %zu stream%s of path counts record read from process "
		       "memory (thread id 0, no thread)\n",
		       streams, streams == 1 ? "" : "s");
	printf("modules     %" PRIu64 "\n", in->modules);
	struct holds h;
	count_holds(in, NULL, &h);
	if (h.n[0] + h.n[1] + h.n[2] + h.n[3]) {
		printf("holds       ");
		print_holds(&h);
	}
	if (h.n[HOLDS_COUNTS])
		printf("            path counts (-fwpp-mode=count) have no order: wpp, hot, kpaths "
		       "and script refuse this recording\n");
	printf("batches     %" PRIu64, in->batches);
	if (in->salvaged)
		printf(" (%" PRIu64 " salvaged from threads that ended with words unpublished)",
		       in->salvaged);
	printf("\n");
	printf("words       %" PRIu64 " trace words (64-bit)\n", in->words);
	printf("records     %" PRIu64 " path or block records; %" PRIu64
	       " REPEAT words add %" PRIu64 " executions; %" PRIu64 " other control words\n",
	       in->kinds.records, in->kinds.repeats, in->kinds.repetitions, in->kinds.control);
	if (in->kinds.malformed)
		printf("            %" PRIu64 " malformed items (the decoder skips them)\n",
		       in->kinds.malformed);
	if (in->kinds.values)
		printf("            %" PRIu64
		       " WET value slots (values and addresses, -fwpp-mode=wet)\n",
		       in->kinds.values);
	printf("lost        %" PRIu64 " words in %" PRIu64 " batches (%" PRIu64 " gaps)\n",
	       in->lost_words, in->lost_batches, in->gaps);
	/* A loss the recorder could not size (record_bpf.c). */
	if (setting(in, "salvage.unreadable", buf, sizeof(buf)))
		printf("            and what %s thread or buffer level states the salvage "
		       "could not read held unpublished (how many words is unknown, maybe "
		       "none)\n",
		       buf);
	/* Batches of threads the BPF thread table had no room for. */
	if (setting(in, "lost.no_thread_slot", buf, sizeof(buf)))
		printf("            and %s of threads the thread table had no room for "
		       "(--max-threads)\n",
		       buf);
	if (in->damaged_batches)
		printf("            of which %" PRIu64 " words in %" PRIu64
		       " damaged compressed batches\n",
		       in->damaged_words, in->damaged_batches);
	printf("stored      %" PRIu64 " bytes of batches (%" PRIu64 " of %" PRIu64 " compressed)",
	       in->batch_bytes, in->packed_batches, in->batches);
	char per[64];
	summary_per_record(per, sizeof(per), in->batch_bytes,
			   in->kinds.records + in->kinds.repetitions);
	printf("%s\n", per);
}

static void json_kinds(struct json_out *j, const struct wpp_word_counts *k)
{
	json_u64(j, "records", k->records);
	json_u64(j, "repeat_words", k->repeats);
	json_u64(j, "repeated_executions", k->repetitions);
	json_u64(j, "other_control_words", k->control);
	json_u64(j, "malformed_items", k->malformed);
}

/* The document, open, up to its last member, "counters", which the
 * counters' room writes (cost_info.h). */
static void print_info_json(struct json_out *j, const char *path, const struct info *in,
			    const char *status)
{
	char key[1024], value[1024];
	struct holds h;

	json_object(j, NULL);
	json_i64(j, "info_version", INFO_JSON_VERSION);
	json_string(j, "file", path);
	json_bool(j, "complete", !status);
	json_string(j, "incomplete_reason", status);
	json_object(j, "settings");
	for (const char *p = in->settings; *p;) {
		size_t len = strcspn(p, "\n");
		const char *eq = memchr(p, '=', len);
		if (eq) {
			snprintf(key, sizeof(key), "%.*s", (int)(eq - p), p);
			snprintf(value, sizeof(value), "%.*s", (int)(len - (size_t)(eq - p) - 1),
				 eq + 1);
			json_string(j, key, value);
		}
		p += len + (p[len] == '\n');
	}
	json_close(j);
	json_double(j, "time_span_s", "%.6f", span_s(in));
	json_array(j, "processes");
	for (size_t i = 0; i < in->nprocs; i++) {
		const struct info_proc *ip = &in->procs[i];
		const struct wpp_chunk_process *p = &ip->p;
		uint64_t threads;
		struct info_thread sum = proc_sums(in, p, &threads);
		json_object(j, NULL);
		json_u64(j, "pid", p->pid);
		json_u64(j, "image", p->generation);
		json_u64(j, "ppid", p->ppid);
		json_string(j, "exe", ip->exe);
		json_string(j, "command", ip->cmd);
		json_u64(j, "threads", threads);
		json_u64(j, "counts_read_from_memory", memory_counts(in, p));
		json_u64(j, "modules", ip->modules);
		json_u64(j, "batches", sum.batches);
		json_u64(j, "words", sum.words);
		json_kinds(j, &sum.kinds);
		json_units(j, in, p);
		json_u64(j, "lost_words", sum.lost_words);
		json_bool(j, "attached", p->flags & WPP_PROC_ATTACHED);
		json_bool(j, "forked", p->flags & WPP_PROC_FORKED);
		json_bool(j, "execed", p->flags & WPP_PROC_EXECED);
		json_close(j);
	}
	json_close(j);
	json_u64(j, "threads", in->nthreads - memory_count_streams(in));
	json_u64(j, "threads_without_exit", threads_running(in));
	json_u64(j, "memory_count_streams", memory_count_streams(in));
	json_u64(j, "modules", in->modules);
	json_u64(j, "batches", in->batches);
	json_u64(j, "salvaged_batches", in->salvaged);
	json_u64(j, "words", in->words);
	json_kinds(j, &in->kinds);
	count_holds(in, NULL, &h);
	json_object(j, "holds");
	json_u64(j, "paths", h.n[HOLDS_PATHS]);
	json_u64(j, "blocks", h.n[HOLDS_BLOCKS]);
	json_u64(j, "counts", h.n[HOLDS_COUNTS]);
	json_u64(j, "unknown", h.n[HOLDS_UNKNOWN]);
	json_close(j);
	json_u64(j, "lost_words", in->lost_words);
	json_u64(j, "lost_batches", in->lost_batches);
	json_u64(j, "gaps", in->gaps);
	json_u64(j, "damaged_batches", in->damaged_batches);
	json_u64(j, "damaged_words", in->damaged_words);
	json_u64(j, "batch_bytes", in->batch_bytes);
	json_u64(j, "compressed_batches", in->packed_batches);
}

static const struct opt_command info_cmd = {
    .name = "info",
    OPT_OPERANDS("one .wpp file", 1, 1),
    .usage = "info [options] FILE.wpp",
    .about = "What a recording holds: processes, threads, time span, words and records,\n"
	     "lost data, counters and the transport; a file that ends early is described\n"
	     "(status incomplete) as far as it goes.\n"};

int cmd_info(int argc, char **argv)
{
	const char *file;
	struct json_out j;
	int json = 0, rc, first;
	struct opt table[] = {
	    OPT_FORMAT(&json, opt_text_json),
	    OPT_END_,
	};

	if ((rc = opts_parse(&info_cmd, table, argc, argv, &first)) != 0)
		return rc > 0 ? 0 : 2;
	file = argv[first];
	struct wpp_reader *r = wppr_open(file);
	if (!r)
		return 1;
	struct info in;
	struct wpp_chunk ch;
	int got;
	memset(&in, 0, sizeof(in));
	in.walker = (struct wpp_batch_z_walker){
	    .on_batch = count_packed_batch, .on_lost = lose_batch, .ctx = &in};
	while ((got = wpp_batch_z_next(&in.walker, r, &ch)) != 0)
		if (got == 1) /* (2: a damaged BATCH_Z, its losses counted) */
			on_chunk(&in, &ch);
	const char *status = wppr_status(r);
	resolve_units(&in);
	json_init(&j, stdout, 0);
	if (json)
		print_info_json(&j, file, &in, status);
	else
		print_info(file, &in, status);
	wppr_close(r);
	wpp_batch_z_walker_fini(&in.walker);
	free(in.procs);
	free(in.threads);
	for (size_t i = 0; i < in.nmods; i++)
		free(in.mods[i].path);
	free(in.mods);
	free(in.by_image);
	wpp_sym_free(in.sym);
	rc = 0;
	/* Counters: attributed by the report side (needs the metadata). */
	if (in.counters) {
		struct session s;
		int loaded;
		fflush(stdout);
		loaded = session_open_optional(&s, file) == 0;
		rc = cost_info_print(stdout, json ? &j : NULL, loaded ? s.trace : NULL,
				     loaded ? s.mods : NULL) < 0;
		if (loaded)
			session_close(&s);
	} else if (json) {
		json_array(&j, "counters");
		json_close(&j);
	}
	if (json) {
		json_close(&j);
		json_raw(&j, "\n");
	}
	return rc;
}
