/* SPDX-License-Identifier: MIT */
/*
 * edge_profile_read.c — parse and apply an edge profile (see
 * edge_profile_read.h and wpp/edge_profile.h).  Two passes over the text:
 * the first validates every line and counts, the second fills arrays of
 * exactly that size, so a crafted file cannot make the reader grow
 * without bound or use half of what it read.
 */
#include "edge_profile_read.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wpp/edge_profile.h"
#include "wpp/meta_format.h"

#define MAX_EDGES_PER_FN (1u << 24)
#define MAX_TOTAL_EDGES	 (UINT64_C(1) << 28)

struct cursor {
	const char *p, *end;
	size_t line;
	char *why;
	size_t whylen;
};

static int failf(struct cursor *c, const char *fmt, ...)
{
	va_list ap;
	int n = 0;
	if (!c->why || !c->whylen)
		return -1;
	if (c->line)
		n = snprintf(c->why, c->whylen, "line %zu: ", c->line);
	if (n >= 0 && (size_t)n < c->whylen) {
		va_start(ap, fmt);
		vsnprintf(c->why + n, c->whylen - (size_t)n, fmt, ap);
		va_end(ap);
	}
	return -1;
}

/* The next line (without its newline) into [*s, *e); 0 at the end. */
static int next_line(struct cursor *c, const char **s, const char **e)
{
	if (c->p >= c->end)
		return 0;
	const char *nl = memchr(c->p, '\n', (size_t)(c->end - c->p));
	*s = c->p;
	*e = nl ? nl : c->end;
	c->p = nl ? nl + 1 : c->end;
	c->line++;
	return 1;
}

/* An unsigned decimal (or, with hex, exactly 16 hex digits) field ending
 * at a space or the line's end. */
static int field_u64(const char **pp, const char *e, int hex, uint64_t max, uint64_t *out)
{
	const char *p = *pp;
	uint64_t v = 0;
	int digits = 0;
	for (; p < e && *p != ' '; p++, digits++) {
		unsigned d;
		if (*p >= '0' && *p <= '9')
			d = (unsigned)(*p - '0');
		else if (hex && *p >= 'a' && *p <= 'f')
			d = (unsigned)(*p - 'a' + 10);
		else
			return -1;
		if (hex)
			v = v << 4 | d;
		else if (v > (UINT64_MAX - d) / 10)
			return -1;
		else
			v = v * 10 + d;
	}
	if (!digits || (hex && digits != 16) || (!hex && digits > 20) || v > max)
		return -1;
	if (p < e)
		p++; /* the separating space */
	*pp = p;
	*out = v;
	return 0;
}

static int cmp_name(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* One pass over the text: validate; with fill, store too. */
static int scan(struct wpp_edge_prof *p, struct cursor *c, int fill, size_t *nfns, uint64_t *nedges,
		size_t *namebytes)
{
	const char *s, *e;
	size_t fi = 0, nb = 0;
	uint64_t ei = 0, prev_id = 0;
	uint32_t pending = 0; /* edge lines still owed to the last f */

	if (!next_line(c, &s, &e))
		return failf(c, "empty file, not an edge profile");
	char head[64];
	snprintf(head, sizeof(head), "%s %d", WPP_EDGE_PROFILE_MAGIC, WPP_EDGE_PROFILE_VERSION);
	if ((size_t)(e - s) != strlen(head) || memcmp(s, head, strlen(head)) != 0)
		return failf(c, "not an edge profile (want '%s'; made by wpptrace edges)", head);
	while (next_line(c, &s, &e)) {
		if (e - s > WPP_EDGE_PROFILE_LINE_MAX)
			return failf(c, "line longer than %d bytes", WPP_EDGE_PROFILE_LINE_MAX);
		if (s == e || *s == '#')
			continue;
		if (e - s < 2 || s[1] != ' ')
			return failf(c, "expected 'f ...' or 'e ...'");
		const char *q = s + 2;
		if (*s == 'f') {
			uint64_t id, n;
			if (pending)
				return failf(c, "%u edge lines missing before this function",
					     pending);
			if (field_u64(&q, e, 1, UINT64_MAX, &id) ||
			    field_u64(&q, e, 0, MAX_EDGES_PER_FN, &n) || q >= e)
				return failf(c, "malformed function line");
			if (fi && id <= prev_id)
				return failf(c, "functions out of order or repeated");
			if (ei + n > MAX_TOTAL_EDGES)
				return failf(c, "too many edges");
			for (const char *r = q; r < e; r++)
				if (*r == ' ' || (unsigned char)*r < 0x21 || *r == 0x7f)
					return failf(c, "malformed function name");
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
				return failf(c, "an edge line outside a function");
			if (field_u64(&q, e, 0, UINT32_MAX - 1, &src) ||
			    field_u64(&q, e, 0, UINT32_MAX - 1, &dst) ||
			    field_u64(&q, e, 0, WPP_EDGE_CUT_ENTRY, &kind) ||
			    field_u64(&q, e, 0, UINT64_MAX, &count) ||
			    field_u64(&q, e, 0, 1, &chord) || q != e)
				return failf(c, "malformed edge line");
			if (fill)
				p->edge_store[ei] = (struct wpp_edge_prof_edge){
				    (uint32_t)src, (uint32_t)dst, (uint32_t)kind, count};
			ei++;
			pending--;
		} else {
			return failf(c, "expected 'f ...' or 'e ...'");
		}
	}
	if (pending)
		return failf(c, "the file ends %u edge lines early", pending);
	*nfns = fi;
	*nedges = ei;
	*namebytes = nb;
	return 0;
}

int wpp_edge_prof_parse(struct wpp_edge_prof *p, const char *text, size_t len, char *why,
			size_t whylen)
{
	struct cursor c = {text, text + len, 0, why, whylen};
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
		return failf(&c, "out of memory");
	}
	c = (struct cursor){text, text + len, 0, why, whylen};
	scan(p, &c, 1, &nfns, &nedges, &namebytes); /* validated above */
	p->nfns = nfns;
	qsort(p->names, nfns, sizeof(*p->names), cmp_name);
	return 0;
}

int wpp_edge_prof_load(struct wpp_edge_prof *p, const char *path, char *why, size_t whylen)
{
	FILE *f = fopen(path, "re");
	char *buf = NULL;
	size_t len = 0, cap = 0;
	int rc = -1;

	memset(p, 0, sizeof(*p));
	if (!f) {
		snprintf(why, whylen, "%s", strerror(errno));
		return -1;
	}
	for (;;) {
		if (len == cap) {
			/* bounded: the largest profile the limits allow */
			if (cap > ((size_t)1 << 34)) {
				snprintf(why, whylen, "file too large for an edge profile");
				goto out;
			}
			char *nb = realloc(buf, cap ? cap * 2 : 1 << 16);
			if (!nb) {
				snprintf(why, whylen, "out of memory");
				goto out;
			}
			buf = nb;
			cap = cap ? cap * 2 : 1 << 16;
		}
		size_t got = fread(buf + len, 1, cap - len, f);
		len += got;
		if (got == 0)
			break;
	}
	if (ferror(f)) {
		snprintf(why, whylen, "read error");
		goto out;
	}
	rc = wpp_edge_prof_parse(p, buf, len, why, whylen);
out:
	free(buf);
	fclose(f);
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
