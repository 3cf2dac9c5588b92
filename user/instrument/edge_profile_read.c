/* SPDX-License-Identifier: MIT */
/*
 * edge_profile_read.c — parse and apply an edge profile (see
 * edge_profile_read.h and wpp/edge_profile.h).  Two passes over the text:
 * the first validates every line and counts, the second fills arrays of
 * exactly that size, so a crafted file cannot make the reader grow
 * without bound or use half of what it read.
 */
#include "edge_profile_read.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "text_lines.h"
#include "wpp/edge_profile.h"
#include "wpp/meta_format.h"

#define MAX_EDGES_PER_FN (1u << 24)
#define MAX_TOTAL_EDGES	 (UINT64_C(1) << 28)

static int cmp_name(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* One pass over the text: validate; with fill, store too. */
static int scan(struct wpp_edge_prof *p, struct wpp_text_cursor *c, int fill, size_t *nfns,
		uint64_t *nedges, size_t *namebytes)
{
	const char *s, *e;
	size_t fi = 0, nb = 0;
	uint64_t ei = 0, prev_id = 0;
	uint32_t pending = 0; /* edge lines still owed to the last f */

	if (!wpp_text_next_line(c, &s, &e))
		return wpp_text_fail(c, "empty file, not an edge profile");
	char head[64];
	snprintf(head, sizeof(head), "%s %d", WPP_EDGE_PROFILE_MAGIC, WPP_EDGE_PROFILE_VERSION);
	if ((size_t)(e - s) != strlen(head) || memcmp(s, head, strlen(head)) != 0)
		return wpp_text_fail(c, "not an edge profile (want '%s'; made by wpptrace edges)",
				     head);
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
			if (!wpp_text_is_name(q, e))
				return wpp_text_fail(c, "malformed function name");
			if (fill) {
				char *name = p->name_store + nb;
				memcpy(name, q, (size_t)(e - q));
				name[e - q] = 0;
				p->fns[fi] = (struct wpp_edge_prof_fn){id, name, (uint32_t)n,
								       p->edge_store + ei};
				p->names[fi] = name;
			}
			nb += (size_t)(e - q) + 1;
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
	p->names = malloc((nfns + 1) * sizeof(*p->names));
	p->edge_store = malloc(((size_t)nedges + 1) * sizeof(*p->edge_store));
	p->name_store = malloc(namebytes + 1);
	if (!p->fns || !p->names || !p->edge_store || !p->name_store) {
		wpp_edge_prof_free(p);
		c.line = 0;
		return wpp_text_fail(&c, "out of memory");
	}
	c = wpp_text_cursor(text, len, why, whylen);
	scan(p, &c, 1, &nfns, &nedges, &namebytes); /* validated above */
	p->nfns = nfns;
	qsort(p->names, nfns, sizeof(*p->names), cmp_name);
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
	free(p->names);
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

int wpp_edge_prof_has_name(const struct wpp_edge_prof *p, const char *name)
{
	return p->nfns && bsearch(&name, p->names, p->nfns, sizeof(*p->names), cmp_name) != NULL;
}

int wpp_edge_prof_apply(const struct wpp_edge_prof_fn *f, const struct wpp_dag *d, double *w)
{
	uint32_t *order;
	double max_static = 0;
	int rc = 1;

	if (f->nedges != d->nedges)
		return 1;
	if (!(order = wpp_dag_meta_order(d)))
		return -1;
	for (uint32_t k = 0; k < f->nedges; k++) {
		const struct wpp_dag_edge *de = &d->edges[order[k]];
		const struct wpp_edge_prof_edge *pe = &f->edges[k];
		if (de->src != pe->src || de->dst != pe->dst || de->kind != pe->kind)
			goto out;
	}
	for (uint32_t e = 0; e < d->nedges; e++)
		if (w[e] > max_static)
			max_static = w[e];
	/* Counts decide; the static estimate, scaled below one execution,
	 * only orders edges of equal count. */
	for (uint32_t k = 0; k < f->nedges; k++)
		w[order[k]] = (double)f->edges[k].count +
			      (max_static > 0 ? 0.5 * w[order[k]] / max_static : 0);
	rc = 0;
out:
	free(order);
	return rc;
}
