/* SPDX-License-Identifier: MIT */
/*
 * edge_profile_read.c — parse and apply an edge profile (see
 * edge_profile_read.h and wpp/edge_profile.h).  Two passes over the text:
 * the first validates every line and counts, the second fills arrays of
 * exactly that size, so a crafted file cannot make the reader grow
 * without bound or use half of what it read.
 */
#include "instrument/edge_profile_read.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "instrument/text_lines.h"
#include "wpp/edge_profile.h"
#include "wpp/meta_format.h"

#define MAX_EDGES_PER_FN (1u << 24)
#define MAX_TOTAL_EDGES	 (UINT64_C(1) << 28)

/* By name, then source (NULL, from a version 1 file, first). */
static int cmp_name_source(const void *a, const void *b)
{
	const struct wpp_edge_prof_fn *x = *(const struct wpp_edge_prof_fn *const *)a;
	const struct wpp_edge_prof_fn *y = *(const struct wpp_edge_prof_fn *const *)b;
	int r = strcmp(x->name, y->name);
	if (r || !x->source || !y->source)
		return r ? r : (y->source == NULL) - (x->source == NULL);
	return strcmp(x->source, y->source);
}

/* The file's version from its first line [s, e): 1 or 2, or -1 (why set). */
static int read_version(struct wpp_text_cursor *c, const char *s, const char *e)
{
	size_t ml = strlen(WPP_EDGE_PROFILE_MAGIC);
	char head[64];

	snprintf(head, sizeof(head), "%s %d", WPP_EDGE_PROFILE_MAGIC, WPP_EDGE_PROFILE_VERSION);
	if ((size_t)(e - s) != ml + 2 || memcmp(s, WPP_EDGE_PROFILE_MAGIC, ml) != 0 ||
	    s[ml] != ' ') {
		if ((size_t)(e - s) > ml && memcmp(s, WPP_EDGE_PROFILE_MAGIC, ml) == 0 &&
		    s[ml] == ' ')
			return wpp_text_fail(c, "unsupported edge profile version (want '%s')",
					     head);
		return wpp_text_fail(c, "not an edge profile (want '%s'; made by wpptrace edges)",
				     head);
	}
	int v = s[ml + 1] - '0';
	if (v < WPP_EDGE_PROFILE_VERSION_MIN || v > WPP_EDGE_PROFILE_VERSION)
		return wpp_text_fail(c, "unsupported edge profile version (want '%s')", head);
	return v;
}

/* Store [s, e) as a name (with fill) and return it; *nb counts the bytes. */
static const char *put_name(struct wpp_edge_prof *p, int fill, size_t *nb, const char *s,
			    const char *e)
{
	char *name = NULL;
	if (fill) {
		name = p->name_store + *nb;
		memcpy(name, s, (size_t)(e - s));
		name[e - s] = 0;
	}
	*nb += (size_t)(e - s) + 1;
	return name;
}

/* One pass over the text: validate; with fill, store too. */
static int scan(struct wpp_edge_prof *p, struct wpp_text_cursor *c, int fill, size_t *nfns,
		uint64_t *nedges, size_t *namebytes)
{
	const char *s, *e;
	size_t fi = 0, nb = 0;
	uint64_t ei = 0, prev_id = 0;
	uint32_t pending = 0; /* edge lines still owed to the last f */
	int version;

	if (!wpp_text_next_line(c, &s, &e))
		return wpp_text_fail(c, "empty file, not an edge profile");
	if ((version = read_version(c, s, e)) < 0)
		return -1;
	while (wpp_text_next_line(c, &s, &e)) {
		if (e - s > WPP_EDGE_PROFILE_LINE_MAX)
			return wpp_text_fail(c, "line longer than %d bytes",
					     WPP_EDGE_PROFILE_LINE_MAX);
		if (s == e || *s == '#')
			continue;
		if (e - s < 2 || s[1] != ' ')
			return wpp_text_fail(c, "expected 'f ...' or 'e ...'");
		const char *q = s + 2;
		if (*s == 'f') {
			uint64_t id, n;
			if (pending)
				return wpp_text_fail(
				    c, "%u edge lines missing before this function", pending);
			if (wpp_text_field_u64(&q, e, 1, UINT64_MAX, &id) ||
			    wpp_text_field_u64(&q, e, 0, MAX_EDGES_PER_FN, &n) || q >= e)
				return wpp_text_fail(c, "malformed function line");
			if (fi && id <= prev_id)
				return wpp_text_fail(c, "functions out of order or repeated");
			if (ei + n > MAX_TOTAL_EDGES)
				return wpp_text_fail(c, "too many edges");
			/* version 1: NAME to the end; 2: NAME SOURCE */
			const char *name_end = version == 1 ? e : memchr(q, ' ', (size_t)(e - q));
			if (!name_end || !wpp_text_is_name(q, name_end) ||
			    (version > 1 && !wpp_text_is_name(name_end + 1, e)))
				return wpp_text_fail(c, "malformed function name%s",
						     version > 1 ? " or source file" : "");
			const char *name = put_name(p, fill, &nb, q, name_end);
			const char *source =
			    version > 1 ? put_name(p, fill, &nb, name_end + 1, e) : NULL;
			if (fill) {
				p->fns[fi] = (struct wpp_edge_prof_fn){
				    id, name, source, (uint32_t)n, p->edge_store + ei};
				p->by_name[fi] = &p->fns[fi];
			}
			prev_id = id;
			pending = (uint32_t)n;
			fi++;
		} else if (*s == 'e') {
			uint64_t src, dst, kind, count, chord;
			if (!pending)
				return wpp_text_fail(c, "an edge line outside a function");
			if (wpp_text_field_u64(&q, e, 0, UINT32_MAX - 1, &src) ||
			    wpp_text_field_u64(&q, e, 0, UINT32_MAX - 1, &dst) ||
			    wpp_text_field_u64(&q, e, 0, WPP_EDGE_CUT_ENTRY, &kind) ||
			    wpp_text_field_u64(&q, e, 0, UINT64_MAX, &count) ||
			    wpp_text_field_u64(&q, e, 0, 1, &chord) || q != e)
				return wpp_text_fail(c, "malformed edge line");
			if (fill)
				p->edge_store[ei] = (struct wpp_edge_prof_edge){
				    (uint32_t)src, (uint32_t)dst, (uint32_t)kind, count};
			ei++;
			pending--;
		} else {
			return wpp_text_fail(c, "expected 'f ...' or 'e ...'");
		}
	}
	if (pending)
		return wpp_text_fail(c, "the file ends %u edge lines early", pending);
	*nfns = fi;
	*nedges = ei;
	*namebytes = nb;
	return 0;
}

int wpp_edge_prof_parse(struct wpp_edge_prof *p, const char *text, size_t len, char *why,
			size_t whylen)
{
	struct wpp_text_cursor c = wpp_text_cursor(text, len, why, whylen);
	size_t nfns, namebytes;
	uint64_t nedges;

	memset(p, 0, sizeof(*p));
	if (scan(p, &c, 0, &nfns, &nedges, &namebytes))
		return -1;
	p->fns = malloc((nfns + 1) * sizeof(*p->fns));
	p->by_name = malloc((nfns + 1) * sizeof(*p->by_name));
	p->edge_store = malloc(((size_t)nedges + 1) * sizeof(*p->edge_store));
	p->name_store = malloc(namebytes + 1);
	if (!p->fns || !p->by_name || !p->edge_store || !p->name_store) {
		wpp_edge_prof_free(p);
		c.line = 0;
		return wpp_text_fail(&c, "out of memory");
	}
	c = wpp_text_cursor(text, len, why, whylen);
	scan(p, &c, 1, &nfns, &nedges, &namebytes); /* validated above */
	p->nfns = nfns;
	qsort(p->by_name, nfns, sizeof(*p->by_name), cmp_name_source);
	return 0;
}

int wpp_edge_prof_load(struct wpp_edge_prof *p, const char *path, char *why, size_t whylen)
{
	char *buf;
	size_t len;
	int rc;

	memset(p, 0, sizeof(*p));
	/* bounded: the largest profile the limits allow */
	if (wpp_text_slurp(path, (size_t)1 << 35, &buf, &len, why, whylen))
		return -1;
	rc = wpp_edge_prof_parse(p, buf, len, why, whylen);
	free(buf);
	return rc;
}

void wpp_edge_prof_free(struct wpp_edge_prof *p)
{
	free(p->fns);
	free(p->by_name);
	free(p->edge_store);
	free(p->name_store);
	memset(p, 0, sizeof(*p));
}

const struct wpp_edge_prof_fn *wpp_edge_prof_find(const struct wpp_edge_prof *p, uint64_t stable_id)
{
	size_t lo = 0, hi = p->nfns;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (p->fns[mid].stable_id < stable_id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < p->nfns && p->fns[lo].stable_id == stable_id ? &p->fns[lo] : NULL;
}

/* source (len bytes, as given to the compiler) is written as field: the
 * bytes a reader would split at or stop on read as '?' (wpp/edge_profile.h). */
static int same_source_field(const char *field, const char *source, size_t len)
{
	for (size_t i = 0; i < len; i++, field++) {
		unsigned char ch = (unsigned char)source[i];
		if (*field != (ch <= ' ' || ch == 0x7f ? '?' : (char)ch))
			return 0;
	}
	return *field == 0;
}

/* Index in by_name of the first function called name (nfns: none). */
static size_t first_named(const struct wpp_edge_prof *p, const char *name)
{
	size_t lo = 0, hi = p->nfns;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (strcmp(p->by_name[mid]->name, name) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < p->nfns && strcmp(p->by_name[lo]->name, name) == 0 ? lo : p->nfns;
}

const char *wpp_edge_prof_source_of(const struct wpp_edge_prof *p, const char *name)
{
	size_t at = first_named(p, name);
	return at < p->nfns ? p->by_name[at]->source : NULL;
}

int wpp_edge_prof_has_name(const struct wpp_edge_prof *p, const char *name, const char *source,
			   size_t source_len)
{
	size_t lo = first_named(p, name);
	for (; lo < p->nfns && strcmp(p->by_name[lo]->name, name) == 0; lo++)
		if (!p->by_name[lo]->source ||
		    same_source_field(p->by_name[lo]->source, source, source_len))
			return 1;
	return 0;
}

/* The meta order of d when f's edges are d's, one for one; NULL with *rc
 * 1 (another build of the function) or -1 (out of memory). */
static uint32_t *matching_order(const struct wpp_edge_prof_fn *f, const struct wpp_dag *d, int *rc)
{
	uint32_t *order;

	*rc = 1;
	if (f->nedges != d->nedges)
		return NULL;
	if (!(order = wpp_dag_meta_order(d))) {
		*rc = -1;
		return NULL;
	}
	for (uint32_t k = 0; k < f->nedges; k++) {
		const struct wpp_dag_edge *de = &d->edges[order[k]];
		const struct wpp_edge_prof_edge *pe = &f->edges[k];
		if (de->src != pe->src || de->dst != pe->dst || de->kind != pe->kind) {
			free(order);
			return NULL;
		}
	}
	*rc = 0;
	return order;
}

int wpp_edge_prof_apply(const struct wpp_edge_prof_fn *f, const struct wpp_dag *d, double *w)
{
	double max_static = 0;
	int rc;
	uint32_t *order = matching_order(f, d, &rc);

	if (!order)
		return rc;
	for (uint32_t e = 0; e < d->nedges; e++)
		if (w[e] > max_static)
			max_static = w[e];
	/* Counts decide; the static estimate, scaled below one execution,
	 * only orders edges of equal count. */
	for (uint32_t k = 0; k < f->nedges; k++)
		w[order[k]] = (double)f->edges[k].count +
			      (max_static > 0 ? 0.5 * w[order[k]] / max_static : 0);
	free(order);
	return 0;
}

int wpp_edge_prof_counts(const struct wpp_edge_prof_fn *f, const struct wpp_dag *d, uint64_t *train)
{
	int rc;
	uint32_t *order = matching_order(f, d, &rc);

	if (!order)
		return rc;
	for (uint32_t k = 0; k < f->nedges; k++)
		train[order[k]] = f->edges[k].count;
	free(order);
	return 0;
}
