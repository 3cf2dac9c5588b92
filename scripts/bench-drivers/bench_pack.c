/* SPDX-License-Identifier: MIT */
/*
 * bench_pack.c — what packing loop iterations at the probe would save the
 * collector (issue 23, "fewer words from the program"), before any pass
 * change.  It reads raw recordings (`record --compress=none`) with their
 * metadata, finds the path records that end at a loop back edge, and
 * rewrites each thread's word stream as a packing pass would have written
 * it: consecutive back-edge records of one loop (or one function) go into
 * an accumulator of b bits per record, b = ceil(log2(paths ending at that
 * loop's back edges)), flushed as a pack when full, before any other
 * record of the thread (a call, a return, another loop's record) and
 * before a REPEAT word.  Then it codes the original and the packed streams
 * with word_codec as the collector does (64 Ki-word units per thread) and
 * prints words, path records, bytes per record and M path records per CPU
 * second for each.
 *
 *   bench_pack [--reps R] [--budget B] [--only V,V...] FILE.wpp
 *
 * The coders run R rounds over the variants in turn (--only: these), so
 * the variants' timings interleave; the first round also pays the streams'
 * page faults.
 *
 * Variants (each a stream):
 *   orig     the recording's words, rebuilt from the decoder's events
 *            (checked against the file's word count: the oracle that the
 *            rebuilding is exact)
 *   loop2    per loop (back edges into one header), two-word packs: a
 *            control word (fid, count) and a payload word (mark bit, loop
 *            index, ids); a lone record stays a record
 *   func2    per function (all its back-edge paths numbered together),
 *            two-word packs
 *   loop1    per loop, one-word packs: a record word of a fid marked in
 *            an unused fid range, 40 bits of count, loop index and ids
 *   loop2r, loop1r  the same with b = bits of the loop's id range (largest
 *            less smallest Ball-Larus id ending at its back edges, plus
 *            one) and the ids less the smallest: what a pass can pack
 *            without a second numbering or a table
 * Dense ids are given in order of first appearance: the coder sees only
 * which words are equal, so any one-to-one numbering codes the same.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/path_records.h"
#include "common/word_codec.h"
#include "decode/decoder.h"
#include "decode/session.h"
#include "wpp/meta_format.h"
#include "wpp/trace_abi.h"

#define UNIT_WORDS (64u * 1024u)
#define CTRL_PACK  5u

static double cpu_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static unsigned bits_for(unsigned __int128 n)
{
	unsigned b = 0;
	while (((unsigned __int128)1 << b) < n)
		b++;
	return b;
}

/* Per function: which back-edge exits go to which loop, and b. */
struct fn_info {
	const struct wpp_fn *fn;
	uint32_t nloops;
	uint32_t *edge_loop;  /* [nedges]: loop index of a BACK_EXIT edge, or UINT32_MAX */
	unsigned *loop_bits;  /* [nloops] */
	unsigned *range_bits; /* [nloops]: bits of (max id - min id + 1) over the loop */
	uint64_t *range_base; /* [nloops]: the smallest id ending at the loop */
	unsigned fn_bits;     /* all back-edge paths together */
	uint64_t records;     /* back-edge records seen */
	unsigned max_bits, max_range_bits; /* over its loops' records */
	char *name;			   /* a copy: the session closes first */
	uint32_t fid;
	unsigned loop_idx_bits;
};

static struct fn_info *fninfo;
static size_t nfninfo, capfninfo;

static struct fn_info *info_of(const struct wpp_fn *fn)
{
	for (size_t i = 0; i < nfninfo; i++)
		if (fninfo[i].fn == fn)
			return &fninfo[i];
	if (nfninfo == capfninfo) {
		capfninfo = capfninfo ? capfninfo * 2 : 256;
		fninfo = realloc(fninfo, capfninfo * sizeof(*fninfo));
	}
	struct fn_info *fi = &fninfo[nfninfo++];
	*fi = (struct fn_info){0};
	fi->name = strdup(fn->name ? fn->name : "?");
	uint32_t nn = fn->nblocks + 2, entry = WPP_DAG_ENTRY(fn);
	/* paths from ENTRY to each node: a DFS postorder, then forward */
	uint32_t *order = malloc(nn * sizeof(*order)), *stack = malloc(nn * 2 * sizeof(*stack));
	uint8_t *seen = calloc(nn, 1);
	unsigned __int128 *from = calloc(nn, sizeof(*from)), total = 0;
	/* the smallest and largest sum of vals from ENTRY to each node */
	unsigned __int128 *minp = calloc(nn, sizeof(*minp)), *maxp = calloc(nn, sizeof(*maxp));
	uint32_t norder = 0, sp = 0;
	stack[sp++] = entry;
	stack[sp++] = 0;
	seen[entry] = 1;
	while (sp) {
		uint32_t v = stack[sp - 2], k = stack[sp - 1];
		uint32_t e = fn->out_first[v] + k;
		if (e < fn->out_first[v + 1]) {
			stack[sp - 1]++;
			uint32_t d = fn->edges[e].dst;
			if (d < nn && !seen[d]) {
				seen[d] = 1;
				stack[sp++] = d;
				stack[sp++] = 0;
			}
		} else {
			order[norder++] = v;
			sp -= 2;
		}
	}
	from[entry] = 1;
	unsigned __int128 cap = (unsigned __int128)1 << 100;
	for (uint32_t i = norder; i-- > 0;) {
		uint32_t v = order[i];
		for (uint32_t e = fn->out_first[v]; e < fn->out_first[v + 1]; e++) {
			uint32_t d = fn->edges[e].dst;
			if (d < nn) {
				unsigned __int128 lo = minp[v] + fn->edges[e].val,
						  hi = maxp[v] + fn->edges[e].val;
				if (!from[d] || lo < minp[d])
					minp[d] = lo;
				if (!from[d] || hi > maxp[d])
					maxp[d] = hi;
				from[d] += from[v];
				if (from[d] > cap)
					from[d] = cap;
			}
		}
	}
	fi->fn = fn;
	fi->edge_loop = malloc((fn->nedges + 1) * sizeof(uint32_t));
	uint32_t *headers = malloc((fn->nedges + 1) * sizeof(uint32_t));
	unsigned __int128 *lcount = calloc(fn->nedges + 1, sizeof(*lcount));
	unsigned __int128 *lmin = calloc(fn->nedges + 1, sizeof(*lmin));
	unsigned __int128 *lmax = calloc(fn->nedges + 1, sizeof(*lmax));
	fi->nloops = 0;
	for (uint32_t e = 0; e < fn->nedges; e++) {
		fi->edge_loop[e] = UINT32_MAX;
		if (fn->edges[e].kind != WPP_EDGE_BACK_EXIT)
			continue;
		uint32_t h = fn->edges[e].cfg_dst, l;
		for (l = 0; l < fi->nloops && headers[l] != h; l++)
			;
		if (l == fi->nloops)
			headers[fi->nloops++] = h;
		fi->edge_loop[e] = l;
		unsigned __int128 lo = minp[fn->edges[e].src] + fn->edges[e].val,
				  hi = maxp[fn->edges[e].src] + fn->edges[e].val;
		if (!lcount[l] || lo < lmin[l])
			lmin[l] = lo;
		if (!lcount[l] || hi > lmax[l])
			lmax[l] = hi;
		lcount[l] += from[fn->edges[e].src];
		total += from[fn->edges[e].src];
	}
	fi->loop_bits = malloc((fi->nloops + 1) * sizeof(unsigned));
	fi->range_bits = malloc((fi->nloops + 1) * sizeof(unsigned));
	fi->range_base = malloc((fi->nloops + 1) * sizeof(uint64_t));
	for (uint32_t l = 0; l < fi->nloops; l++) {
		fi->loop_bits[l] = bits_for(lcount[l]);
		fi->range_bits[l] = bits_for(lmax[l] - lmin[l] + 1);
		fi->range_base[l] = (uint64_t)lmin[l];
	}
	fi->fn_bits = bits_for(total);
	fi->loop_idx_bits = bits_for(fi->nloops);
	free(order);
	free(stack);
	free(seen);
	free(from);
	free(headers);
	free(lcount);
	free(lmin);
	free(lmax);
	free(minp);
	free(maxp);
	return fi;
}

/* (fn, id) -> loop index of its back-edge end (or -1), and dense ids. */
struct key {
	const struct wpp_fn *fn;
	uint64_t id;
	int32_t loop;
	uint32_t dense_loop, dense_fn;
	uint32_t used;
};
static struct key *keys;
static size_t keycap, nkeys;

static uint64_t hash_key(const struct wpp_fn *fn, uint64_t id)
{
	uint64_t h =
	    ((uint64_t)(uintptr_t)fn ^ (id * 0x9e3779b97f4a7c15ull)) * 0xff51afd7ed558ccdull;
	return h ^ (h >> 31);
}

/* dense counters per (fn, loop) and per fn */
struct dense_ctr {
	const struct wpp_fn *fn;
	int32_t loop;
	uint32_t next;
	uint64_t *ids; /* [next]: the Ball-Larus id of each dense id */
};
static struct dense_ctr *ctrs;
static size_t nctrs;

static struct dense_ctr *dense_of(const struct wpp_fn *fn, int32_t loop)
{
	for (size_t i = 0; i < nctrs; i++)
		if (ctrs[i].fn == fn && ctrs[i].loop == loop)
			return &ctrs[i];
	ctrs = realloc(ctrs, (nctrs + 1) * sizeof(*ctrs));
	ctrs[nctrs] = (struct dense_ctr){fn, loop, 0, NULL};
	return &ctrs[nctrs++];
}

static uint32_t next_dense(const struct wpp_fn *fn, int32_t loop, uint64_t id)
{
	struct dense_ctr *c = dense_of(fn, loop);
	c->ids = realloc(c->ids, (c->next + 1) * sizeof(*c->ids));
	c->ids[c->next] = id;
	return c->next++;
}

static struct key *lookup(const struct wpp_fn *fn, uint64_t id)
{
	if (nkeys * 2 >= keycap) {
		size_t ncap = keycap ? keycap * 2 : 1 << 16;
		struct key *nk = calloc(ncap, sizeof(*nk));
		for (size_t i = 0; i < keycap; i++)
			if (keys[i].used) {
				size_t j = hash_key(keys[i].fn, keys[i].id) & (ncap - 1);
				while (nk[j].used)
					j = (j + 1) & (ncap - 1);
				nk[j] = keys[i];
			}
		free(keys);
		keys = nk;
		keycap = ncap;
	}
	size_t j = hash_key(fn, id) & (keycap - 1);
	while (keys[j].used) {
		if (keys[j].fn == fn && keys[j].id == id)
			return &keys[j];
		j = (j + 1) & (keycap - 1);
	}
	struct key *k = &keys[j];
	*k = (struct key){.fn = fn, .id = id, .loop = -1, .used = 1};
	nkeys++;
	if (!(fn->flags & WPP_FUNC_WIDE)) {
		uint32_t blocks[fn->nblocks + 2];
		struct wpp_path p;
		if (wpp_path_expand(fn, id, blocks, fn->nblocks + 2, &p) == 0 &&
		    p.end == WPP_END_BACK_EDGE) {
			struct fn_info *fi = info_of(fn);
			k->loop = (int32_t)fi->edge_loop[p.exit_edge];
			k->dense_loop = next_dense(fn, k->loop, id);
			k->dense_fn = next_dense(fn, -1, id);
		}
	}
	return k;
}

/* A growing word stream. */
struct stream {
	uint64_t *w;
	size_t n, cap;
	uint64_t packs, packed; /* packs written, records in them */
	uint64_t bits;		/* sum of b over packed records */
};

static void put(struct stream *s, uint64_t w)
{
	if (s->n == s->cap) {
		s->cap = s->cap ? s->cap * 2 : 1 << 20;
		s->w = realloc(s->w, s->cap * 8);
	}
	s->w[s->n++] = w;
}

enum variant { ORIG, LOOP2, FUNC2, LOOP1, LOOP2R, LOOP1R, LOOP1X, LOOP1XR, LOOP1Q, LOOP1QR, NV };
_Static_assert(NV <= 16, "why_packs holds 16 variants");
static const char *const vname[NV] = {"orig",	"loop2",  "func2",   "loop1",  "loop2r",
				      "loop1r", "loop1x", "loop1xr", "loop1q", "loop1qr"};
/* one-word packs; run bits per entry (X: none, repeats are entries) */
static int one_word(enum variant v)
{
	return v == LOOP1 || v == LOOP1R || v >= LOOP1X;
}
static unsigned run_bits(enum variant v)
{
	return v == LOOP1Q || v == LOOP1QR ? 2 : 0;
}
static int absorbs_repeats(enum variant v)
{
	return v >= LOOP1X;
}
static int uses_range(enum variant v)
{
	return v == LOOP2R || v == LOOP1R || v == LOOP1XR || v == LOOP1QR;
}

/* The pending pack of one variant. */
struct pend {
	uint32_t fid, group, count, cap, b, lbits;
	uint64_t acc, first_word, last_d, last_word;
	unsigned last_run, last_lbits;
	int active;
};

/* Why packs of each variant ended, with records in them. */
enum why { W_FULL, W_OTHER_LOOP, W_SAME_FN, W_OTHER_FN, W_REPEAT, W_END, NW };
static const char *const wname[NW] = {"full", "other-loop", "same-fn", "other-fn", "repeat", "end"};
static uint64_t why_packs[16][NW], why_recs[16][NW]; /* [variant] */
static enum why cur_why;

static void flush(struct stream *s, struct pend *p, enum variant v)
{
	if (!p->active)
		return;
	why_packs[v][cur_why]++;
	why_recs[v][cur_why] += p->count;
	if (p->count == 1 && p->last_run <= 1) {
		put(s, p->first_word); /* a lone record stays a record */
	} else {
		if (one_word(v)) {
			uint64_t payload = ((uint64_t)p->count << 34) |
					   ((uint64_t)p->group << (34 - p->lbits)) | p->acc;
			put(s, wpp_make_word(WPP_FID_CONTROL | 0xc00000u | p->fid, payload));
		} else {
			put(s, wpp_make_ctrl((enum wpp_ctrl_op)CTRL_PACK, p->fid | p->count << 24));
			put(s, WPP_WIDE_ID_MARK | ((uint64_t)p->group << (63 - p->lbits)) | p->acc);
		}
		s->packs++;
		s->packed += p->count;
		s->bits += (uint64_t)p->count * p->b;
	}
	p->active = 0;
}

/* A back-edge record of (fid, group) with dense id d, b bits, lbits of group. */
static void pack(struct stream *s, struct pend *p, enum variant v, uint32_t fid, uint32_t group,
		 uint64_t d, unsigned b, unsigned lbits, uint64_t word)
{
	unsigned room = one_word(v) ? 34 : 63;
	if (p->active && (p->fid != fid || p->group != group || p->count == p->cap)) {
		cur_why = p->count == p->cap && p->fid == fid && p->group == group ? W_FULL
			  : p->fid == fid					   ? W_OTHER_LOOP
										   : W_OTHER_FN;
		flush(s, p, v);
	}
	if (!p->active) {
		unsigned cap = room > lbits ? (b ? (room - lbits) / b : 63) : 0;
		if (cap > 63)
			cap = 63;
		if (cap < 2) {
			put(s, word);
			return;
		}
		*p = (struct pend){.fid = fid,
				   .group = group,
				   .cap = cap,
				   .b = b,
				   .lbits = lbits,
				   .first_word = word,
				   .active = 1};
	}
	p->acc = (p->acc << b) | d;
	p->count++;
}

/* A REPEAT of n after a record that went into p (absorbing variants):
 * the repetitions are more entries (X), or raise the last entry's run
 * count while it has room (Q, run_bits r: the entry is d << r | run - 1). */
static void pack_repeats(struct stream *s, struct pend *p, enum variant v, uint64_t n)
{
	unsigned r = run_bits(v), maxrun = 1u << r;
	uint32_t fid = p->fid, group = p->group;
	unsigned b = p->b, lbits = p->last_lbits;
	uint64_t d = p->last_d, word = p->last_word;
	while (n) {
		if (r && p->active && p->last_run < maxrun) {
			uint64_t add = maxrun - p->last_run < n ? maxrun - p->last_run : n;
			p->acc += add;
			p->last_run += (unsigned)add;
			n -= add;
			continue;
		}
		cur_why = W_FULL;
		pack(s, p, v, fid, group, d << r, b, lbits, word);
		p->last_d = d;
		p->last_word = word;
		p->last_run = 1;
		p->last_lbits = lbits;
		n--;
	}
}

static struct stream streams[NV];
static uint32_t *fid_fi; /* [fid]: index + 1 of its fn_info (one process) */

/* The round trip: every stream expanded back into path records must be
 * the original's, record for record — the oracle that a pack as counted
 * here holds what it stands for (and that no two packs share a word). */
struct rec {
	uint64_t fid, id;
};
static struct rec *ref;
static size_t nref, capref, cmp_at;
static uint64_t mismatches;

static void emit(int build, uint32_t fid, uint64_t id, uint64_t times)
{
	for (; times; times--) {
		if (build) {
			if (nref == capref) {
				capref = capref ? capref * 2 : 1 << 20;
				ref = realloc(ref, capref * sizeof(*ref));
			}
			ref[nref++] = (struct rec){fid, id};
		} else {
			if (cmp_at >= nref || ref[cmp_at].fid != fid || ref[cmp_at].id != id)
				mismatches++;
			cmp_at++;
		}
	}
}

static uint64_t mask_of(unsigned b)
{
	return b >= 64 ? ~UINT64_C(0) : (UINT64_C(1) << b) - 1;
}

/* Expand one pack of fid (count entries in payload's low `room` bits, the
 * loop index in its top bits); the last record is left in *lf, *li. */
static int expand_pack(int build, enum variant v, uint32_t fid, unsigned count, uint64_t payload,
		       unsigned room, uint32_t *lf, uint64_t *li)
{
	if (!fid_fi || !fid_fi[fid] || !count)
		return -1;
	const struct fn_info *fi = &fninfo[fid_fi[fid] - 1];
	unsigned lbits = v == FUNC2 ? 0 : fi->loop_idx_bits, r = run_bits(v);
	uint32_t group = lbits ? (uint32_t)((payload >> (room - lbits)) & mask_of(lbits)) : 0;
	if (v != FUNC2 && group >= fi->nloops)
		return -1;
	unsigned b = (v == FUNC2      ? fi->fn_bits
		      : uses_range(v) ? fi->range_bits[group]
				      : fi->loop_bits[group]) +
		     r;
	const struct dense_ctr *dc = dense_of(fi->fn, v == FUNC2 ? -1 : (int32_t)group);
	for (unsigned e = 0; e < count; e++) {
		uint64_t ent = (payload >> ((count - 1 - e) * b)) & mask_of(b), d = ent >> r, id;
		if (uses_range(v))
			id = d + fi->range_base[group];
		else if (d < dc->next)
			id = dc->ids[d];
		else
			return -1;
		emit(build, fid, id, (ent & mask_of(r)) + 1);
		*lf = fid;
		*li = id;
	}
	return 0;
}

/* 0, or -1 where the stream does not parse. */
static int expand(const struct stream *s, enum variant v, int build)
{
	uint32_t lf = 0;
	uint64_t li = 0;
	int have = 0;
	for (size_t i = 0; i < s->n; i++) {
		uint64_t w = s->w[i];
		uint32_t fid = wpp_word_fid(w);
		if (fid == WPP_FID_CONTROL) {
			uint32_t op = wpp_ctrl_op(w), arg = wpp_ctrl_operand(w);
			if (op == WPP_CTRL_REPEAT && have) {
				emit(build, lf, li, arg);
			} else if (op == WPP_CTRL_WIDE_PATH && i + 1 < s->n) {
				lf = arg;
				li = s->w[++i] & ~WPP_WIDE_ID_MARK;
				have = 1;
				emit(build, lf, li, 1);
			} else if (op == CTRL_PACK && i + 1 < s->n && !one_word(v)) {
				if (expand_pack(build, v, arg & 0xffffffu, arg >> 24,
						s->w[++i] & ~WPP_WIDE_ID_MARK, 63, &lf, &li))
					return -1;
				have = 1;
			} else {
				return -1;
			}
		} else if ((fid & 0xc00000u) == 0xc00000u && fid != WPP_FID_UNREGISTERED &&
			   one_word(v)) {
			uint64_t pl = wpp_word_payload(w);
			if (expand_pack(build, v, fid & 0x3fffffu, (unsigned)(pl >> 34), pl, 34,
					&lf, &li))
				return -1;
			have = 1;
		} else {
			lf = fid;
			li = wpp_word_payload(w);
			have = 1;
			emit(build, lf, li, 1);
		}
	}
	return 0;
}
static uint64_t path_records, written_records, backedge_records, file_words;
static uint64_t hist_b[65], hist_rb[65];

static void thread_streams(struct session *se, const struct wpp_thread_trace *th)
{
	struct wpp_decoder *d = wpp_decoder_open(th, se->mods, WPP_DECODE_RUNS);
	struct wpp_event ev;
	struct pend pend[NV] = {{0}};

	file_words += th->nwords;
	while (wpp_decoder_next(d, &ev)) {
		uint64_t words[2];
		int nw = 0;
		struct key *k = NULL;
		if (ev.kind == WPP_EV_PATH && ev.repeat == 0) {
			path_records++;
			written_records++;
			if (ev.fn->flags & WPP_FUNC_WIDE) {
				words[nw++] = wpp_make_ctrl(WPP_CTRL_WIDE_PATH, ev.fid);
				words[nw++] = WPP_WIDE_ID_MARK | ev.value;
			} else {
				words[nw++] = wpp_make_word(ev.fid, ev.value);
				k = lookup(ev.fn, ev.value);
			}
		} else if (ev.kind == WPP_EV_PATH) {
			path_records += ev.times;
			if (ev.times > WPP_REPEAT_MAX) {
				fprintf(stderr, "bench_pack: a run of %llu\n",
					(unsigned long long)ev.times);
				exit(1);
			}
			words[nw++] = wpp_make_ctrl(WPP_CTRL_REPEAT, (uint32_t)ev.times);
		} else {
			fprintf(stderr, "bench_pack: event kind %d in thread %u\n", ev.kind,
				th->tid);
			continue;
		}
		put(&streams[ORIG], words[0]);
		if (nw > 1)
			put(&streams[ORIG], words[1]);
		if (k && k->loop >= 0) {
			struct fn_info *fi = info_of(ev.fn);
			backedge_records++;
			fi->records++;
			fi->fid = ev.fid;
			if (!fid_fi)
				fid_fi = calloc((size_t)1 << WPP_FID_BITS, sizeof(*fid_fi));
			fid_fi[ev.fid] = (uint32_t)(fi - fninfo) + 1;
			if (fi->loop_bits[k->loop] > fi->max_bits)
				fi->max_bits = fi->loop_bits[k->loop];
			if (fi->range_bits[k->loop] > fi->max_range_bits)
				fi->max_range_bits = fi->range_bits[k->loop];
			hist_b[fi->loop_bits[k->loop]]++;
			hist_rb[fi->range_bits[k->loop]]++;
			for (int v = 1; v < NV; v++) {
				int rg = uses_range((enum variant)v);
				unsigned r = run_bits((enum variant)v);
				uint32_t group = v == FUNC2 ? 0 : (uint32_t)k->loop;
				uint64_t dd = v == FUNC2 ? k->dense_fn
					      : rg	 ? ev.value - fi->range_base[k->loop]
							 : k->dense_loop;
				unsigned b = v == FUNC2 ? fi->fn_bits
					     : rg	? fi->range_bits[k->loop]
							: fi->loop_bits[k->loop];
				unsigned lb = v == FUNC2 ? 0 : fi->loop_idx_bits;
				pack(&streams[v], &pend[v], (enum variant)v, ev.fid, group, dd << r,
				     b + r, lb, words[0]);
				pend[v].last_d = dd;
				pend[v].last_word = words[0];
				pend[v].last_run = 1;
				pend[v].last_lbits = lb;
			}
			continue;
		}
		for (int v = 1; v < NV; v++) {
			if (ev.kind == WPP_EV_PATH && ev.repeat &&
			    absorbs_repeats((enum variant)v) && pend[v].active) {
				pack_repeats(&streams[v], &pend[v], (enum variant)v, ev.times);
				continue;
			}
			cur_why = nw && words[0] >> 32 == wpp_make_ctrl(WPP_CTRL_REPEAT, 0) >> 32
				      ? W_REPEAT
				  : pend[v].fid == ev.fid ? W_SAME_FN
							  : W_OTHER_FN;
			flush(&streams[v], &pend[v], (enum variant)v);
			for (int i = 0; i < nw; i++)
				put(&streams[v], words[i]);
		}
	}
	cur_why = W_END;
	for (int v = 1; v < NV; v++)
		flush(&streams[v], &pend[v], (enum variant)v);
	wpp_decoder_close(d);
}

/* Is name one of the comma-separated list's items? */
static int listed(const char *list, const char *name)
{
	size_t n = strlen(name);
	for (const char *p = list; p;) {
		const char *c = strchr(p, ',');
		size_t len = c ? (size_t)(c - p) : strlen(p);
		if (len == n && !strncmp(p, name, n))
			return 1;
		p = c ? c + 1 : NULL;
	}
	return 0;
}

int main(int argc, char **argv)
{
	uint32_t reps = 3;
	double budget = 0.4;
	const char *only = NULL;
	int i = 1;

	for (; i < argc && argv[i][0] == '-'; i++) {
		if (!strcmp(argv[i], "--reps") && i + 1 < argc)
			reps = (uint32_t)atoi(argv[++i]);
		else if (!strcmp(argv[i], "--budget") && i + 1 < argc)
			budget = atof(argv[++i]);
		else if (!strcmp(argv[i], "--only") && i + 1 < argc)
			only = argv[++i];
		else {
			fprintf(stderr, "usage: bench_pack [--reps R] [--budget B] [--only V,V...] "
					"FILE.wpp\n");
			return 2;
		}
	}
	if (argc - i != 1) {
		/* one recording: the caches are keyed by its functions' models */
		fprintf(stderr, "bench_pack: one FILE.wpp\n");
		return 2;
	}
	struct session se;
	int rc = session_open(&se, argv[i]);
	if (rc)
		return rc;
	/* Thread streams are joined one after another and coded in units of
	 * UNIT_WORDS, so with several threads a unit may hold the end of one
	 * and the start of the next (the recordings measured have one). */
	for (size_t t = 0; t < se.trace->nthreads; t++)
		thread_streams(&se, &se.trace->threads[t]);
	session_close(&se);
	printf("file words %llu, rebuilt %llu; path records %llu (written %llu), back-edge "
	       "records %llu (%.1f %% of written)\n",
	       (unsigned long long)file_words, (unsigned long long)streams[ORIG].n,
	       (unsigned long long)path_records, (unsigned long long)written_records,
	       (unsigned long long)backedge_records,
	       100.0 * (double)backedge_records / (double)written_records);
	printf("b of back-edge records (per loop):");
	for (int b = 0; b <= 64; b++)
		if (hist_b[b])
			printf(" %d:%.1f%%", b,
			       100.0 * (double)hist_b[b] / (double)backedge_records);
	printf("\nfunctions with the most back-edge records (share, widest b dense / range):");
	for (int top = 0; top < 5; top++) {
		struct fn_info *best = NULL;
		for (size_t f = 0; f < nfninfo; f++)
			if (fninfo[f].records && (!best || fninfo[f].records > best->records))
				best = &fninfo[f];
		if (!best)
			break;
		printf(" %s %.1f%% %u/%u;", best->name,
		       100.0 * (double)best->records / (double)backedge_records, best->max_bits,
		       best->max_range_bits);
		best->records = 0;
	}
	printf("\nb of back-edge records (id range):");
	for (int b = 0; b <= 64; b++)
		if (hist_rb[b])
			printf(" %d:%.1f%%", b,
			       100.0 * (double)hist_rb[b] / (double)backedge_records);
	printf("\n");

	for (int v = 1; v < NV; v++) {
		printf("%s packs ended by (packs, records):", vname[v]);
		for (int w = 0; w < NW; w++)
			printf(" %s %llu %llu;", wname[w], (unsigned long long)why_packs[v][w],
			       (unsigned long long)why_recs[v][w]);
		printf("\n");
	}

	struct wc_encoder *enc = wc_encoder_new(1), *fast = wc_encoder_new(1);
	if (expand(&streams[ORIG], ORIG, 1) || nref != path_records) {
		fprintf(stderr, "bench_pack: the rebuilt stream expands to %zu records, not %llu\n",
			nref, (unsigned long long)path_records);
		return 1;
	}
	printf("round trip (records expanded back, against the original's):");
	for (int v = 1; v < NV; v++) {
		mismatches = 0;
		cmp_at = 0;
		int bad = expand(&streams[v], (enum variant)v, 0) || cmp_at != nref || mismatches;
		printf(" %s %s;", vname[v], bad ? "DIFFERS" : "same");
		if (bad)
			rc = 1;
	}
	printf("\n");
	free(ref);

	/* Token bytes (the token stage's output, what zstd reads): exact, where
	 * the timings below move with the machine's load. */
	unsigned char *tok = malloc(wc_tokens_bound(UNIT_WORDS));
	printf("%-7s %12s %8s %8s %8s %9s\n", "stream", "words", "w/rec", "packs", "rec/pk",
	       "tokB/rec");
	for (int v = 0; v < NV; v++) {
		const struct stream *s = &streams[v];
		uint64_t tb = 0;
		if (only && !listed(only, vname[v]))
			continue;
		for (size_t o = 0; o < s->n; o += UNIT_WORDS)
			tb += wc_tokens_encode(
			    s->w + o, (uint32_t)(s->n - o < UNIT_WORDS ? s->n - o : UNIT_WORDS),
			    tok);
		printf("%-7s %12zu %8.4f %8llu %8.2f %9.4f\n", vname[v], s->n,
		       (double)s->n / (double)path_records, (unsigned long long)s->packs,
		       s->packs ? (double)s->packed / (double)s->packs : 0.0,
		       (double)tb / (double)path_records);
	}
	free(tok);
	printf("%-7s %9s %9s %9s %9s\n", "stream", "codecB/r", "codecMr/s", "fastB/r", "fastMr/s");
	for (uint32_t r = 0; r < reps; r++)
		for (int v = 0; v < NV; v++) {
			const struct stream *s = &streams[v];
			if (only && !listed(only, vname[v]))
				continue;
			double best[2];
			uint64_t bytes[2] = {0, 0};
			for (int m = 0; m < 2; m++) {
				uint64_t recs = 0;
				double t0 = cpu_now();
				for (size_t o = 0; o < s->n; o += UNIT_WORDS) {
					uint32_t n = (uint32_t)(s->n - o < UNIT_WORDS ? s->n - o
										      : UNIT_WORDS);
					size_t len;
					uint32_t codec;
					if (m == 0) {
						wc_encode(enc, s->w + o, n, &len, &codec);
					} else {
						/* the budget of the records so far,
						 * in proportion: a packed stream's
						 * PACK words are not counted */
						recs = (uint64_t)((double)path_records *
								  (double)(o + n) / (double)s->n);
						wc_begin(fast);
						wc_add(fast, s->w + o, n);
						wc_finish_within(fast,
								 (int64_t)(budget * (double)recs) -
								     (int64_t)bytes[m],
								 &len, &codec);
					}
					bytes[m] += len;
				}
				best[m] = cpu_now() - t0;
			}
			printf("%-7s %9.4f %9.1f %9.4f %9.1f\n", vname[v],
			       (double)bytes[0] / (double)path_records,
			       (double)path_records / best[0] / 1e6,
			       (double)bytes[1] / (double)path_records,
			       (double)path_records / best[1] / 1e6);
		}
	return rc;
}
