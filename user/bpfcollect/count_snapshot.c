/* SPDX-License-Identifier: MIT */
/* count_snapshot.c — live path counters from /proc/PID/mem (see
 * count_snapshot.h). */
#include "bpfcollect/count_snapshot.h"

#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "wpp/trace_abi.h"
#include "runtime/rt_count_pages.h"
#include "runtime/wpp_registry.h"
#include "common/array_grow.h"

#define MAX_BLOCKS (1u << 16)
#define MAX_ARRAYS (1u << 16)
#define MAX_FUNCS  (1u << 24)
#define MAX_SLOTS  WPP_COUNT_TU_MAX_SLOTS
#define MAX_HASH   (UINT64_C(1) << 26)
#define CHUNK	   8192 /* counters read per pread */

static int read_at(int fd, void *buf, size_t n, uint64_t addr)
{
	ssize_t got = pread(fd, buf, n, (off_t)addr);
	if (got == (ssize_t)n)
		return 0;
	return got < 0 && errno != EIO && errno != EFAULT ? -errno : -EPROTO;
}

static int add(struct count_snapshot *s, uint32_t fid, uint64_t id, uint64_t count)
{
	if (ARRAY_GROW(s->s, s->cap, s->n + 1, 1024))
		return -ENOMEM;
	s->s[s->n++] = (struct count_sample){fid, id, count, s->tid_now};
	return 0;
}

/* A PPP unit's slot tables (trace_abi.h, "Preferential path counting"):
 * tabs[f] is NULL for a function that counts by Ball-Larus id, else
 * [first[f + 1] - first[f]] Ball-Larus ids, one per PPP slot.  (Per
 * function: the unit's other functions may own up to 2^29 slots each.) */
/* The slots of function f's range before its path cache (cached[f]: log2
 * of its pairs, 0 none), or UINT64_MAX when the cache does not fit the
 * range (never so from the pass: a hostile layout). */
static uint64_t before_cache(const uint64_t *first, const uint8_t *cached, uint32_t f)
{
	uint64_t n = first[f + 1] - first[f];
	if (!cached || !cached[f])
		return n;
	uint64_t c = cached[f] < 40 ? UINT64_C(2) << cached[f] : UINT64_MAX;
	return c <= n ? n - c : UINT64_MAX;
}

static int read_ppp_tables(int fd, const struct wpp_count_desc *d, const uint64_t *first,
			   const uint8_t *cached, uint64_t ***out)
{
	uint64_t *addrs = malloc(((size_t)d->nfuncs + 1) * sizeof(*addrs));
	uint64_t **tabs = calloc((size_t)d->nfuncs + 1, sizeof(*tabs));
	int err = -ENOMEM;

	if (!addrs || !tabs)
		goto out;
	if ((err = read_at(fd, addrs, (size_t)d->nfuncs * sizeof(*addrs),
			   (uint64_t)(uintptr_t)d->ppp_slots)))
		goto out;
	for (uint32_t f = 0; f < d->nfuncs; f++) {
		uint64_t n = before_cache(first, cached, f);
		if (!addrs[f] || !n)
			continue;
		/* the pass bounds an interval by WPP_PPP_MAX_INTERVAL */
		if (n > WPP_PPP_MAX_INTERVAL) {
			err = -EPROTO;
			goto out;
		}
		if (!(tabs[f] = malloc(n * sizeof(*tabs[f])))) {
			err = -ENOMEM;
			goto out;
		}
		if ((err = read_at(fd, tabs[f], n * sizeof(*tabs[f]), addrs[f])))
			goto out;
	}
	*out = tabs;
	tabs = NULL;
	err = 0;
out:
	for (uint32_t f = 0; tabs && f < d->nfuncs; f++)
		free(tabs[f]);
	free(tabs);
	free(addrs);
	return err;
}

static void free_ppp_tables(uint64_t **tabs, uint32_t nfuncs)
{
	for (uint32_t f = 0; tabs && f < nfuncs; f++)
		free(tabs[f]);
	free(tabs);
}

/* Where to read next from slot `at` (address addr) of an array of
 * nslots: *skip slots of pages the process never wrote (pages NULL: none),
 * then a run of at most CHUNK counters on written pages (0: none left). */
static uint64_t touched_run(struct rt_count_pages *pages, uint64_t addr, uint64_t at,
			    uint64_t nslots, uint64_t *skip)
{
	uint64_t want = nslots - at < CHUNK ? nslots - at : CHUNK;
	*skip = 0;
	if (!pages || pages->fd < 0)
		return want;
	uint64_t end = addr + (nslots - at) * 8;
	if (end < addr)
		return want; /* hostile: read_at fails on it */
	uint64_t from = rt_count_pages_next(pages, addr, end);
	*skip = (from - addr) / 8;
	if (*skip >= nslots - at) {
		*skip = nslots - at;
		return 0;
	}
	/* the run ends at the first page not written */
	uint64_t n = 0, page = UINT64_C(1) << pages->page_shift;
	uint64_t room = nslots - at - *skip < CHUNK ? nslots - at - *skip : CHUNK;
	uint64_t next = from;
	while (n < room && rt_count_pages_next(pages, next, next + 1) == next) {
		uint64_t to_page = (page - next % page + 7) / 8;
		n += to_page;
		next += to_page * 8;
	}
	return n < room ? n : room;
}

/* One thread's array of one TU.  A large array is read only over the
 * pages its thread wrote (pages: the process's pagemap): reading the
 * others through /proc/PID/mem would map them in the process, and take
 * seconds over a function's 4 GiB range. */
static int read_array(int fd, struct rt_count_pages *pages, const struct wpp_count_array_ref *a,
		      struct count_snapshot *s)
{
	struct wpp_count_desc d = {0};
	uint64_t fid_base, *first = NULL, *buf = NULL, **tabs = NULL;
	uint8_t *cached = NULL;
	int err;

	/* a counting unit's descriptor ends before ppp_slots */
	if ((err = read_at(fd, &d, WPP_COUNT_DESC_V1_SIZE, a->desc)))
		return err;
	if ((d.abi_version != WPP_ABI_VERSION && d.abi_version != WPP_COUNT_DESC_PPP &&
	     d.abi_version != WPP_COUNT_DESC_CACHED) ||
	    d.nfuncs > MAX_FUNCS || d.nslots > MAX_SLOTS)
		return -EPROTO;
	int v2 = d.abi_version != WPP_ABI_VERSION;
	if (v2 && (err = read_at(fd, &d.ppp_slots, sizeof(d.ppp_slots),
				 a->desc + WPP_COUNT_DESC_V1_SIZE)))
		return err;
	if (d.abi_version == WPP_COUNT_DESC_CACHED &&
	    (err = read_at(fd, &d.cached, sizeof(d.cached), a->desc + WPP_COUNT_DESC_V2_SIZE)))
		return err;
	if ((err = read_at(fd, &fid_base, sizeof(fid_base), (uint64_t)(uintptr_t)d.fid_base_slot)))
		return err;
	first = malloc(((size_t)d.nfuncs + 1) * sizeof(*first));
	buf = malloc(CHUNK * sizeof(*buf));
	cached = d.cached ? calloc((size_t)d.nfuncs + 1, 1) : NULL;
	if (!first || !buf || (d.cached && !cached)) {
		err = -ENOMEM;
		goto out;
	}
	if ((err = read_at(fd, first, ((size_t)d.nfuncs + 1) * sizeof(*first),
			   (uint64_t)(uintptr_t)d.first)))
		goto out;
	for (uint32_t f = 0; f < d.nfuncs; f++)
		if (first[f] > first[f + 1] || first[f + 1] > d.nslots) {
			err = -EPROTO;
			goto out;
		}
	if (cached && (err = read_at(fd, cached, d.nfuncs, (uint64_t)(uintptr_t)d.cached)))
		goto out;
	for (uint32_t f = 0; cached && f < d.nfuncs; f++)
		if (before_cache(first, cached, f) == UINT64_MAX) {
			err = -EPROTO;
			goto out;
		}
	if (v2 && d.ppp_slots && (err = read_ppp_tables(fd, &d, first, cached, &tabs)))
		goto out;
	uint32_t fid0 = wpp_word_fid(fid_base);
	uint32_t f = 0;
	int sparse = d.nslots * 8 >= RT_COUNT_PAGES_MIN_BYTES;
	for (uint64_t at = 0, n, skip; at < d.nslots; at += n) {
		n = touched_run(sparse ? pages : NULL, a->base + at * 8, at, d.nslots, &skip);
		at += skip;
		if (!n)
			continue;
		if ((err = read_at(fd, buf, n * 8, a->base + at * 8)))
			goto out;
		for (uint64_t k = 0; k < n; k++) {
			if (!buf[k])
				continue;
			uint64_t slot = at + k;
			while (f < d.nfuncs && first[f + 1] <= slot)
				f++;
			if (f == d.nfuncs) /* cannot happen: first[nfuncs] == nslots here */
				break;
			uint32_t fid = fid0 == WPP_FID_UNREGISTERED ? fid0 : fid0 + f;
			uint64_t rel = slot - first[f], id;
			uint64_t plain = before_cache(first, cached, f);
			if (rel >= plain) {
				/* the path cache: keys (id + 1), then their
				 * counts, a count's key npairs slots back, read
				 * where a count is */
				uint64_t npairs = (uint64_t)1 << cached[f];
				if (rel - plain < npairs)
					continue; /* a key */
				if (k >= npairs)
					id = buf[k - npairs];
				else if ((err = read_at(fd, &id, 8, a->base + (slot - npairs) * 8)))
					goto out;
				if (!id--)
					continue;
			} else {
				id = tabs && tabs[f] ? tabs[f][rel] : rel;
			}
			if (id > WPP_WIDE_PATH_LIMIT - 1)
				continue; /* a hole (never counted into) or garbage */
			if ((err = add(s, fid, id, buf[k])))
				goto out;
		}
	}
out:
	free(first);
	free(buf);
	free(cached);
	free_ppp_tables(tabs, d.nfuncs);
	return err;
}

static int read_hash(int fd, const struct wpp_count_block *b, struct count_snapshot *s)
{
	struct wpp_count_hash_entry buf[512];
	if (b->hash_cap > MAX_HASH || (b->hash_cap & (b->hash_cap - 1)))
		return -EPROTO;
	for (uint64_t at = 0; at < b->hash_cap; at += 512) {
		uint64_t n = b->hash_cap - at < 512 ? b->hash_cap - at : 512;
		int err = read_at(fd, buf, n * sizeof(*buf), b->hash + at * sizeof(*buf));
		if (err)
			return err;
		for (uint64_t k = 0; k < n; k++)
			if (buf[k].fidw && buf[k].count &&
			    (err = add(s, wpp_word_fid(buf[k].fidw), buf[k].id, buf[k].count)))
				return err;
	}
	return 0;
}

static int read_block(int fd, struct rt_count_pages *pages, const struct wpp_count_block *b,
		      struct count_snapshot *s)
{
	struct wpp_count_array_ref *a;
	int err = 0;

	if (b->narrays > b->cap || b->narrays > MAX_ARRAYS)
		return -EPROTO;
	if (b->narrays) {
		if (!(a = malloc(b->narrays * sizeof(*a))))
			return -ENOMEM;
		err = read_at(fd, a, b->narrays * sizeof(*a), b->arrays);
		for (uint32_t i = 0; !err && i < b->narrays; i++)
			err = read_array(fd, pages, &a[i], s);
		free(a);
	}
	if (!err && b->busy)
		s->hashes_busy++; /* its owner is moving entries: next time */
	else if (!err && b->hash_cap)
		err = read_hash(fd, b, s);
	return err;
}

static int by_path(const void *x, const void *y)
{
	const struct count_sample *a = x, *b = y;
	if (a->tid != b->tid)
		return a->tid < b->tid ? -1 : 1;
	if (a->fid != b->fid)
		return a->fid < b->fid ? -1 : 1;
	return a->id < b->id ? -1 : a->id > b->id;
}

/* Sorted, one sample per path (threads summed). */
static void merge(struct count_snapshot *s)
{
	size_t out = 0;
	if (!s->n)
		return;
	qsort(s->s, s->n, sizeof(*s->s), by_path);
	for (size_t i = 1; i < s->n; i++) {
		if (by_path(&s->s[i], &s->s[out]) == 0)
			s->s[out].count += s->s[i].count;
		else
			s->s[++out] = s->s[i];
	}
	s->n = out + 1;
}

/* Did the block's thread drain while it was read (wpp_registry.h,
 * `drains`)?  Its counters were then taken by an exchange meanwhile, each
 * either read here or gone into its stream, not both, unless the stream is
 * still being collected: the caller decides (count_snapshot.h). */
static int note_drain(int fd, const struct wpp_count_block *b, uint64_t at,
		      struct count_snapshot *out)
{
	uint64_t drains;
	int err =
	    read_at(fd, &drains, sizeof(drains), at + offsetof(struct wpp_count_block, drains));
	if (!err && (drains != b->drains || (drains & 1)))
		out->threads_draining++;
	return err;
}

/* One pass over the block list. */
static int read_all(int fd, struct rt_count_pages *pages, uint64_t counts, int by_thread,
		    struct count_snapshot *out)
{
	uint64_t at;
	int err = read_at(fd, &at, sizeof(at), counts);
	for (uint32_t k = 0; !err && at; k++) {
		struct wpp_count_block b;
		if (k == MAX_BLOCKS) {
			err = -EPROTO; /* a list that does not end */
			break;
		}
		if ((err = read_at(fd, &b, sizeof(b), at)))
			break;
		if (b.state == WPP_COUNT_LIVE) {
			out->threads++;
			out->tid_now = by_thread ? b.tid : 0;
			err = read_block(fd, pages, &b, out);
			if (!err)
				err = note_drain(fd, &b, at, out);
		}
		at = b.next;
	}
	return err;
}

/* A block whose thread is growing its array list or hash while we read
 * can look inconsistent (a new size with the old address): read again. */
#define TRIES 5

static int read_snapshot(pid_t pid, uint64_t counts, int by_thread, struct count_snapshot *out)
{
	char path[64];
	int fd, err = -EPROTO;

	memset(out, 0, sizeof(*out));
	if (!counts)
		return -ENOENT;
	snprintf(path, sizeof(path), "/proc/%d/mem", (int)pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return errno == ENOENT ? -ESRCH : -errno;
	/* without a readable pagemap every page is read, as before */
	struct rt_count_pages *pages = malloc(sizeof(*pages));
	if (pages) {
		snprintf(path, sizeof(path), "/proc/%d/pagemap", (int)pid);
		rt_count_pages_open(pages, path);
	}
	for (int t = 0; t < TRIES && err == -EPROTO; t++) {
		count_snapshot_free(out);
		memset(out, 0, sizeof(*out));
		if (pages)
			rt_count_pages_forget(pages); /* pages written since */
		err = read_all(fd, pages, counts, by_thread, out);
	}
	if (pages)
		rt_count_pages_close(pages);
	free(pages);
	close(fd);
	if (err) {
		count_snapshot_free(out);
		return err;
	}
	merge(out);
	return 0;
}

int count_snapshot_read(pid_t pid, uint64_t counts, struct count_snapshot *out)
{
	return read_snapshot(pid, counts, 0, out);
}

int count_snapshot_read_threads(pid_t pid, uint64_t counts, struct count_snapshot *out)
{
	return read_snapshot(pid, counts, 1, out);
}

void count_snapshot_free(struct count_snapshot *s)
{
	free(s->s);
	s->s = NULL;
	s->n = s->cap = 0;
}

int count_snapshot_delta(const struct count_snapshot *before, const struct count_snapshot *after,
			 struct count_snapshot *delta)
{
	size_t i = 0;
	memset(delta, 0, sizeof(*delta));
	delta->threads = after->threads;
	delta->hashes_busy = after->hashes_busy;
	delta->threads_draining = after->threads_draining;
	for (size_t j = 0; j < after->n; j++) {
		const struct count_sample *a = &after->s[j];
		while (i < before->n && by_path(&before->s[i], a) < 0)
			i++;
		uint64_t was =
		    i < before->n && by_path(&before->s[i], a) == 0 ? before->s[i].count : 0;
		uint64_t d = a->count >= was ? a->count - was : a->count;
		if (d && add(delta, a->fid, a->id, d)) {
			count_snapshot_free(delta);
			return -ENOMEM;
		}
	}
	return 0;
}
