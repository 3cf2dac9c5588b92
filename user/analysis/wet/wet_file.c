/* SPDX-License-Identifier: MIT */
/*
 * wet_file.c — a WET's stored form (wet_file.h).  Little-endian fields,
 * in this order:
 *
 *   magic[8] version u32 mem_xthread u32 (saturating)  pid tid gen nnodes u32
 *   nts ngaps mem_unknown shadow_peak u64  sizes[3][WET_NLBL] u64
 *   gaps[ngaps] u64   flow: stream
 *   per node: fid u32 reserved u32 path_id ninst nlost u64 lost[nlost] u64
 *             timestamps: stream
 *             ngroups u32 ndeps u32
 *             per group: nstmts u32 direct u32 ninst switch_at u64,
 *                        pattern stream (switch_at > 0), nstmts unique
 *                        value streams, nstmts direct streams (direct)
 *             per labelled dep: share u32 (an earlier dep's index whose
 *                        labels it shares, or UINT32_MAX and then:)
 *                        nmore u64 more[nmore] u64, its 2 streams
 *   crc32c u32 of everything before it
 *
 * where a stream is its byte length (varint: 7 bits a byte, low first)
 * and its wet_stream_serialize_bare bytes (the string's CRC covers them),
 * or, when its bytes equal an earlier stream's, a 0 length and the
 * ordinal of that stream (varint; streams count from 0 in the order they
 * are stored, references included: wet_dedup.h).
 * Version 1 stored framed streams after a u64 length and edge labels'
 * def instances as they are; version 2 stores a def instance as the
 * distance from the use's instance (wet_build.h); version 3 adds writers
 * in other threads (WET_DEF_XTHREAD rows in `more`, where version 2 said
 * unknown).  wet_file_version tells
 * a caller an older WET (to build again and store) from a damaged one.
 */
#include "analysis/wet/wet_file.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/crc32c.h"
#include "common/varint.h"
#include "analysis/wet/wet_dedup.h"
#include "analysis/wet/wet_node.h"

/* --- writing -------------------------------------------------------------- */

struct out {
	uint8_t *b;
	size_t n, cap;
	int oom;
	struct wet_dedup dd;
};

static void put(struct out *o, const void *p, size_t n)
{
	if (o->oom || n == 0)
		return;
	if (o->n + n > o->cap) {
		size_t nc = o->cap ? o->cap : 4096;
		while (nc < o->n + n)
			nc *= 2;
		uint8_t *b = realloc(o->b, nc);
		if (!b) {
			o->oom = 1;
			return;
		}
		o->b = b;
		o->cap = nc;
	}
	memcpy(o->b + o->n, p, n);
	o->n += n;
}

static void put32(struct out *o, uint32_t v)
{
	put(o, &v, 4);
}

static void put64(struct out *o, uint64_t v)
{
	put(o, &v, 8);
}

static void put_varint(struct out *o, uint64_t v)
{
	uint8_t b[VARINT_MAX];

	put(o, b, (size_t)(varint_put(b, v) - b));
}

static void put_stream(struct out *o, struct wet_stream *s)
{
	uint8_t *bytes = NULL;

	if (o->oom) /* what was written stops short: no offsets to compare at */
		return;
	size_t n = wet_stream_serialize_bare(s, &bytes);
	/* new bytes go right after their length */
	uint64_t same =
	    n ? wet_dedup_offer(&o->dd, o->b, bytes, n, o->n + varint_size(n)) : WET_DEDUP_OOM;

	if (same == WET_DEDUP_OOM) {
		free(bytes);
		o->oom = 1;
		return;
	}
	if (same == WET_DEDUP_NEW) {
		put_varint(o, n);
		put(o, bytes, n);
	} else {
		put_varint(o, 0);
		put_varint(o, same);
	}
	free(bytes);
}

int wet_file_encode(struct wet_thread *t, uint8_t **out, size_t *len)
{
	struct out o = {0};

	put(&o, WET_FILE_MAGIC, 8);
	put32(&o, WET_FILE_VERSION);
	put32(&o, t->mem_xthread > UINT32_MAX ? UINT32_MAX : (uint32_t)t->mem_xthread);
	put32(&o, t->pid);
	put32(&o, t->tid);
	put32(&o, t->gen);
	put32(&o, t->nnodes);
	put64(&o, t->nts);
	put64(&o, t->ngaps);
	put64(&o, t->mem_unknown);
	put64(&o, t->shadow_peak);
	put(&o, &t->sizes, sizeof(t->sizes));
	put(&o, t->gaps, t->ngaps * sizeof(*t->gaps));
	put_stream(&o, t->flow);
	for (uint32_t i = 0; i < t->nnodes; i++) {
		struct wet_node *n = t->nodes[i];
		put32(&o, n->fid);
		put32(&o, 0);
		put64(&o, n->path_id);
		put64(&o, n->ninst);
		put64(&o, n->nlost);
		put(&o, n->lost, n->nlost * sizeof(*n->lost));
		put_stream(&o, n->ts);
		put32(&o, n->ngroups);
		put32(&o, n->ndeps);
		for (uint32_t g = 0; g < n->ngroups; g++) {
			struct wet_t1_group *gr = &n->groups[g];
			put32(&o, gr->nstmts);
			put32(&o, gr->direct != NULL);
			put64(&o, gr->ninst);
			put64(&o, gr->switch_at);
			if (gr->switch_at)
				put_stream(&o, gr->pattern);
			for (uint32_t s = 0; s < gr->nstmts; s++)
				put_stream(&o, gr->uvals[s]);
			for (uint32_t s = 0; gr->direct && s < gr->nstmts; s++)
				put_stream(&o, gr->direct[s]);
		}
		for (uint32_t d = 0; d < n->ndeps; d++) {
			struct wet_dep *dp = &n->deps[d];
			if (dp->local)
				continue;
			put32(&o, dp->share);
			if (dp->share != WET_NO_SHARE)
				continue;
			put64(&o, dp->nmore);
			put(&o, dp->more, dp->nmore * sizeof(*dp->more));
			for (int j = 0; j < WET_DEP_STREAMS; j++)
				put_stream(&o, dp->s[j]);
		}
	}
	put32(&o, o.oom ? 0 : wpp_crc32c(0, o.b, o.n));
	wet_dedup_free(&o.dd);
	if (o.oom) {
		free(o.b);
		return -1;
	}
	*out = o.b;
	*len = o.n;
	return 0;
}

/* --- reading -------------------------------------------------------------- */

uint32_t wet_file_version(const uint8_t *buf, size_t len)
{
	uint32_t crc, version;

	if (len < 16 || (memcpy(&crc, buf + len - 4, 4), crc != wpp_crc32c(0, buf, len - 4)) ||
	    memcmp(buf, WET_FILE_MAGIC, 8))
		return 0;
	memcpy(&version, buf + 8, 4);
	return version;
}

struct in {
	const uint8_t *b;
	size_t n, pos;
	char *err;
	size_t errlen;
	int bad;
	uint64_t stream_bytes; /* of the streams read so far */
	/* per stream read so far (its ordinal): where its bytes are */
	uint64_t *s_off, nstreams, cap_streams;
	uint32_t *s_len;
	int verify;
};

static int fail(struct in *r, const char *why)
{
	if (!r->bad)
		snprintf(r->err, r->errlen, "%s (at byte %zu)", why, r->pos);
	r->bad = 1;
	return -1;
}

static int get(struct in *r, void *p, size_t n)
{
	if (r->bad || n > r->n - r->pos)
		return fail(r, "truncated");
	memcpy(p, r->b + r->pos, n);
	r->pos += n;
	return 0;
}

static uint32_t get32(struct in *r)
{
	uint32_t v = 0;
	get(r, &v, 4);
	return v;
}

static uint64_t get64(struct in *r)
{
	uint64_t v = 0;
	get(r, &v, 8);
	return v;
}

/* An array of n u64 the bytes left can hold, malloc'd. */
static uint64_t *get_array(struct in *r, uint64_t n)
{
	if (r->bad || n > (r->n - r->pos) / 8) {
		fail(r, "an array longer than the data");
		return NULL;
	}
	uint64_t *v = malloc((size_t)n * 8 + 8);
	if (!v) {
		fail(r, "out of memory");
		return NULL;
	}
	get(r, v, (size_t)n * 8);
	return v;
}

static uint64_t get_varint(struct in *r)
{
	uint64_t x = 0;

	for (unsigned shift = 0; shift < 64 && !r->bad; shift += 7) {
		uint8_t b = 0;

		if (get(r, &b, 1) < 0)
			return 0;
		if (shift == 63 && b > 1)
			break;
		x |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80))
			return x;
	}
	fail(r, "a malformed length");
	return 0;
}

/* A stream of exactly count values (UINT64_MAX: any), verified. */
static struct wet_stream *get_stream(struct in *r, uint64_t count, const char *what)
{
	char why[160];
	uint64_t len = get_varint(r), off, at = r->pos;

	if (r->bad)
		return NULL;
	if (r->nstreams == r->cap_streams) {
		uint64_t nc = r->cap_streams ? 2 * r->cap_streams : 1024;
		uint64_t *o = realloc(r->s_off, nc * sizeof(*o));
		if (o)
			r->s_off = o;
		uint32_t *l = o ? realloc(r->s_len, nc * sizeof(*l)) : NULL;
		if (!l) {
			fail(r, "out of memory");
			return NULL;
		}
		r->s_len = l;
		r->cap_streams = nc;
	}
	if (len == 0) { /* the bytes of an earlier stream */
		uint64_t to = get_varint(r);
		if (r->bad || to >= r->nstreams) {
			fail(r, "a stream refers to one not before it");
			return NULL;
		}
		off = r->s_off[to];
		len = r->s_len[to];
	} else {
		if (len > r->n - r->pos || len > UINT32_MAX) {
			fail(r, "a stream longer than the data");
			return NULL;
		}
		off = r->pos;
		r->pos += (size_t)len;
	}
	struct wet_stream *s =
	    r->verify == WET_FILE_LAZY
		? wet_stream_parse_bare_lazy(r->b + off, (size_t)len, why, sizeof(why))
		: wet_stream_parse_bare(r->b + off, (size_t)len, why, sizeof(why));
	if (!s || (r->verify == WET_FILE_VERIFY && wet_stream_verify(s, why, sizeof(why)) < 0)) {
		wet_stream_free(s);
		char msg[256];
		snprintf(msg, sizeof(msg), "%s stream: %s", what, why);
		fail(r, msg);
		return NULL;
	}
	if (count != UINT64_MAX && wet_stream_count(s) != count) {
		wet_stream_free(s);
		fail(r, "a label stream's length is not its node's instance count");
		return NULL;
	}
	r->s_off[r->nstreams] = off;
	r->s_len[r->nstreams++] = (uint32_t)len;
	r->stream_bytes += r->pos - at;
	return s;
}

static int read_group(struct in *r, struct wet_t1_group *g, uint32_t want_nstmts, uint64_t ninst)
{
	uint32_t nstmts = get32(r), direct = get32(r);

	g->ninst = get64(r);
	g->switch_at = get64(r);
	if (r->bad)
		return -1;
	if (nstmts != want_nstmts || direct > 1 || g->ninst != ninst || g->switch_at > ninst ||
	    (!direct && g->switch_at != ninst))
		return fail(r, "a value group disagrees with its node");
	g->uvals = calloc(nstmts, sizeof(*g->uvals));
	g->direct = direct ? calloc(nstmts, sizeof(*g->direct)) : NULL;
	if (!g->uvals || (direct && !g->direct))
		return fail(r, "out of memory");
	g->nstmts = nstmts;
	if (g->switch_at && !(g->pattern = get_stream(r, g->switch_at, "pattern")))
		return -1;
	for (uint32_t s = 0; s < nstmts; s++) {
		g->uvals[s] = get_stream(r, UINT64_MAX, "unique value");
		if (!g->uvals[s])
			return -1;
		if (s && wet_stream_count(g->uvals[s]) != wet_stream_count(g->uvals[0]))
			return fail(r, "a group's unique value streams differ in length");
	}
	for (uint32_t s = 0; direct && s < nstmts; s++)
		if (!(g->direct[s] = get_stream(r, ninst - g->switch_at, "value")))
			return -1;
	return 0;
}

static int read_node(struct in *r, struct wet_thread *t, uint32_t i, wet_fn_of fn_of, void *ctx,
		     struct wet_cdg_cache *cdgs, uint32_t **blocks, uint32_t *cap)
{
	uint32_t fid = get32(r);
	(void)get32(r);
	uint64_t path_id = get64(r), ninst = get64(r), nlost = get64(r);
	const struct wpp_fn *fn = r->bad ? NULL : fn_of(ctx, fid);
	struct wpp_path p;

	if (r->bad)
		return -1;
	if (!fn)
		return fail(r, "a node's function is not in the recording's metadata");
	if (fn->nblocks + 2 > *cap) {
		free(*blocks);
		*cap = fn->nblocks + 2;
		if (!(*blocks = malloc(*cap * sizeof(**blocks))))
			return fail(r, "out of memory");
	}
	if (wpp_path_expand(fn, path_id, *blocks, *cap, &p) < 0)
		return fail(r, "a node's path id is not a path of its function");
	const struct wet_fn_cdg *cdg = fn->wet ? wet_cdg_cache_get(cdgs, fn) : NULL;
	if (fn->wet && !cdg)
		return fail(r, "a function's CFG is malformed");
	struct wet_node *n = wet_node_shell(fn, path_id, &p, cdg);
	if (!n)
		return fail(r, "out of memory");
	t->nodes[i] = n;
	t->nnodes = i + 1;
	n->fid = fid;
	n->ninst = ninst;
	if (ninst == 0 || ninst > t->nts || nlost > ninst)
		return fail(r, "a node's instance count is out of range");
	uint64_t bytes_before = r->stream_bytes, more_bytes = 0;
	if (!(n->lost = get_array(r, nlost)))
		return -1;
	n->nlost = n->cap_lost = nlost;
	for (uint64_t j = 0; j < nlost; j++)
		if ((j && n->lost[j] <= n->lost[j - 1]) || n->lost[j] >= ninst)
			return fail(r, "a node's lost instances are out of order");
	if (!(n->ts = get_stream(r, ninst, "timestamp")))
		return -1;
	uint32_t ngroups = get32(r), ndeps = get32(r);
	if (r->bad)
		return -1;
	if (ngroups != n->ngroups || ndeps != n->ndeps)
		return fail(r, "a node's groups or dependences disagree with its metadata");
	if (ngroups && !(n->groups = calloc(ngroups, sizeof(*n->groups))))
		return fail(r, "out of memory");
	for (uint32_t g = 0; g < ngroups; g++) {
		uint32_t members = 0;
		for (uint32_t sl = 0; sl < n->nslots; sl++)
			members += n->slot_group[sl] == g;
		if (read_group(r, &n->groups[g], members, ninst) < 0)
			return -1;
	}
	for (uint32_t d = 0; d < ndeps; d++) {
		struct wet_dep *dp = &n->deps[d];
		if (dp->local)
			continue;
		uint32_t share = get32(r);
		if (r->bad)
			return -1;
		if (share != WET_NO_SHARE) {
			if (share >= d || n->deps[share].local ||
			    n->deps[share].share != WET_NO_SHARE)
				return fail(r, "a dependence shares the labels of one it cannot");
			dp->share = share;
			for (int j = 0; j < WET_DEP_STREAMS; j++)
				dp->s[j] = n->deps[share].s[j];
			continue;
		}
		uint64_t nmore = get64(r);
		if (r->bad || nmore % 4)
			return fail(r, "a dependence's extra writers are malformed");
		if (!(dp->more = get_array(r, nmore)))
			return -1;
		dp->nmore = dp->cap_more = nmore;
		more_bytes += 8 * nmore;
		for (int j = 0; j < WET_DEP_STREAMS; j++)
			if (!(dp->s[j] = get_stream(r, ninst, "edge label")))
				return -1;
	}
	n->bytes = r->stream_bytes - bytes_before + more_bytes; /* as the builder counts */
	return 0;
}

struct wet_thread *wet_file_decode(const uint8_t *buf, size_t len, wet_fn_of fn_of, void *ctx,
				   int mode, char *err, size_t errlen)
{
	struct in r = {.b = buf, .n = len, .err = err, .errlen = errlen, .verify = mode};
	struct wet_thread *t = calloc(1, sizeof(*t));
	struct wet_cdg_cache cdgs = {0};
	uint32_t *blocks = NULL, cap = 0, crc;
	char magic[8];

	if (!t) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	if (len < 12 || (memcpy(&crc, buf + len - 4, 4), crc != wpp_crc32c(0, buf, len - 4))) {
		fail(&r, "bad checksum");
		goto bad;
	}
	r.n = len - 4;
	get(&r, magic, 8);
	if (r.bad || memcmp(magic, WET_FILE_MAGIC, 8)) {
		fail(&r, "not a stored WET");
		goto bad;
	}
	if (get32(&r) != WET_FILE_VERSION) {
		fail(&r, "a WET version this wpptrace does not read");
		goto bad;
	}
	t->mem_xthread = get32(&r);
	t->pid = get32(&r);
	t->tid = get32(&r);
	t->gen = get32(&r);
	uint32_t nnodes = get32(&r);
	t->nts = get64(&r);
	uint64_t ngaps = get64(&r);
	t->mem_unknown = get64(&r);
	t->shadow_peak = get64(&r);
	get(&r, &t->sizes, sizeof(t->sizes));
	if (r.bad)
		goto bad;
	if (nnodes > (r.n - r.pos) / 32 || (nnodes == 0) != (t->nts == 0)) {
		fail(&r, "a node count the data cannot hold");
		goto bad;
	}
	if (!(t->gaps = get_array(&r, ngaps)))
		goto bad;
	t->ngaps = ngaps;
	for (uint64_t j = 0; j < ngaps; j++)
		if (t->gaps[j] > t->nts || (j && t->gaps[j] < t->gaps[j - 1])) {
			fail(&r, "gaps out of order");
			goto bad;
		}
	if (!(t->flow = get_stream(&r, t->nts, "flow")))
		goto bad;
	t->nodes = calloc((size_t)nnodes + 1, sizeof(*t->nodes));
	if (!t->nodes) {
		fail(&r, "out of memory");
		goto bad;
	}
	uint64_t total = 0;
	for (uint32_t i = 0; i < nnodes; i++) {
		if (read_node(&r, t, i, fn_of, ctx, &cdgs, &blocks, &cap) < 0)
			goto bad;
		total += t->nodes[i]->ninst;
	}
	if (total != t->nts) {
		fail(&r, "the nodes' instances do not add up to the timestamps");
		goto bad;
	}
	if (r.pos != r.n) {
		fail(&r, "data after the WET");
		goto bad;
	}
	free(blocks);
	free(r.s_off);
	free(r.s_len);
	wet_cdg_cache_free(&cdgs);
	return t;
bad:
	free(blocks);
	free(r.s_off);
	free(r.s_len);
	wet_cdg_cache_free(&cdgs);
	wet_thread_free(t);
	return NULL;
}
