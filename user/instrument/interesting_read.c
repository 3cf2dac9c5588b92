/* SPDX-License-Identifier: MIT */
/*
 * interesting_read.c — parse interesting-path sets (see interesting_read.h
 * and wpp/interesting.h).  Two passes over every text: the first validates
 * each line and counts, the second stores (id, function) items into arrays
 * of exactly that size; the items of all files are then sorted and merged
 * into per-function id lists.  A crafted file cannot make the reader grow
 * without bound or use half of what it read.
 */
#include "instrument/interesting_read.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "instrument/text_lines.h"
#include "wpp/interesting.h"
#include "wpp/trace_abi.h"

#define MAX_IDS_PER_FN (1u << 24)
#define MAX_TOTAL_IDS  ((size_t)1 << 24)
#define MAX_EDGES      (1u << 24)
#define MAX_FILE_BYTES ((size_t)1 << 30)

/* One interesting path of one function, as some file gave it. */
struct item {
	uint64_t stable_id; /* 0 when by_name */
	uint64_t id, count;
	const char *name, *source; /* source NULL when by_name */
	uint32_t nedges;
	int by_name;
	uint32_t file, line; /* by_name: where it is listed */
};

struct scan_out {
	struct item *items; /* NULL on the counting pass */
	char *names;
	size_t nitems, namebytes;
	uint32_t file; /* the file being scanned */
};

static void put_item(struct scan_out *o, struct item it)
{
	if (o->items)
		o->items[o->nitems] = it;
	o->nitems++;
}

/* Store [s, e) as a name (on the filling pass) and return it. */
static const char *put_name(struct scan_out *o, const char *s, const char *e)
{
	char *name = NULL;
	if (o->names) {
		name = o->names + o->namebytes;
		memcpy(name, s, (size_t)(e - s));
		name[e - s] = 0;
	}
	o->namebytes += (size_t)(e - s) + 1;
	return name;
}

static int is_space(char ch)
{
	return ch == ' ' || ch == '\t' || ch == '\r';
}

/* A recorded set (its magic line already read). */
static int scan_recorded(struct wpp_text_cursor *c, struct scan_out *o)
{
	const char *s, *e, *name = NULL, *source = NULL;
	uint64_t fn_id = 0, prev_id = 0, nedges = 0;
	uint32_t pending = 0, nfns = 0;
	int first = 1; /* the next p line is its function's first */

	while (wpp_text_next_line(c, &s, &e)) {
		if (e - s > WPP_INTERESTING_LINE_MAX)
			return wpp_text_fail(c, "line longer than %d bytes",
					     WPP_INTERESTING_LINE_MAX);
		if (s == e || *s == '#')
			continue;
		if (e - s < 2 || s[1] != ' ' || (*s != 'f' && *s != 'p'))
			return wpp_text_fail(c, "expected 'f ...' or 'p ...'");
		const char *q = s + 2;
		if (*s == 'f') {
			uint64_t id, n;
			if (pending)
				return wpp_text_fail(
				    c, "%u path lines missing before this function", pending);
			const char *sp;
			if (wpp_text_field_u64(&q, e, 1, UINT64_MAX, &id) ||
			    wpp_text_field_u64(&q, e, 0, MAX_EDGES, &nedges) ||
			    wpp_text_field_u64(&q, e, 0, MAX_IDS_PER_FN, &n) || q >= e ||
			    !(sp = memchr(q, ' ', (size_t)(e - q))) || !wpp_text_is_name(q, sp) ||
			    !wpp_text_is_name(sp + 1, e))
				return wpp_text_fail(c, "malformed function line");
			if (nfns && id <= fn_id)
				return wpp_text_fail(c, "functions out of order or repeated");
			if (o->nitems + n > MAX_TOTAL_IDS)
				return wpp_text_fail(c, "more than %zu interesting paths",
						     MAX_TOTAL_IDS);
			name = put_name(o, q, sp);
			source = put_name(o, sp + 1, e);
			fn_id = id;
			pending = (uint32_t)n;
			first = 1;
			nfns++;
		} else {
			uint64_t pid, count;
			if (!pending)
				return wpp_text_fail(c, "a path line outside a function");
			if (wpp_text_field_u64(&q, e, 0, WPP_WIDE_PATH_LIMIT - 1, &pid) ||
			    wpp_text_field_u64(&q, e, 0, UINT64_MAX, &count) || q != e)
				return wpp_text_fail(c, "malformed path line");
			if (!first && pid <= prev_id)
				return wpp_text_fail(c, "path ids out of order or repeated");
			put_item(o, (struct item){fn_id, pid, count, name, source, (uint32_t)nedges,
						  0, 0, 0});
			prev_id = pid;
			first = 0;
			pending--;
		}
	}
	if (pending)
		return wpp_text_fail(c, "the file ends %u path lines early", pending);
	return 0;
}

/* [s, e) is a whole number, maybe negative: meant as a path id, so one
 * out of range is named as such rather than as a malformed line. */
static int is_number(const char *s, const char *e)
{
	if (s < e && *s == '-')
		s++;
	if (s == e || e - s > 64)
		return 0;
	for (; s < e; s++)
		if (*s < '0' || *s > '9')
			return 0;
	return 1;
}

/* A hand-written list: `FUNCTION PATH_ID` lines, any blank separation. */
static int scan_list(struct wpp_text_cursor *c, struct scan_out *o)
{
	const char *s, *e;

	while (wpp_text_next_line(c, &s, &e)) {
		if (e - s > WPP_INTERESTING_LINE_MAX)
			return wpp_text_fail(c, "line longer than %d bytes",
					     WPP_INTERESTING_LINE_MAX);
		while (s < e && is_space(*s))
			s++;
		while (e > s && is_space(e[-1]))
			e--;
		if (s == e || *s == '#')
			continue;
		const char *n_end = s, *q;
		while (n_end < e && !is_space(*n_end))
			n_end++;
		for (q = n_end; q < e && is_space(*q); q++)
			;
		uint64_t pid;
		const char *id = q, *after = q;
		if (q != n_end && wpp_text_is_name(s, n_end) && is_number(id, e) &&
		    (wpp_text_field_u64(&after, e, 0, WPP_WIDE_PATH_LIMIT - 1, &pid) || after != e))
			return wpp_text_fail(c,
					     "path id %.*s of %.*s is out of range: a path id is "
					     "0 to %llu, and below the function's path count",
					     (int)(e - id), id, (int)(n_end - s), s,
					     (unsigned long long)(WPP_WIDE_PATH_LIMIT - 1));
		if (q == n_end || !wpp_text_is_name(s, n_end) ||
		    wpp_text_field_u64(&q, e, 0, WPP_WIDE_PATH_LIMIT - 1, &pid) || q != e)
			return wpp_text_fail(c,
					     "expected 'FUNCTION PATH_ID' (an interesting-path "
					     "list) or the line '%s %d'",
					     WPP_INTERESTING_MAGIC, WPP_INTERESTING_VERSION);
		if (o->nitems + 1 > MAX_TOTAL_IDS)
			return wpp_text_fail(c, "more than %zu interesting paths", MAX_TOTAL_IDS);
		put_item(o, (struct item){0, pid, 0, put_name(o, s, n_end), NULL, 0, 1, o->file,
					  (uint32_t)c->line});
	}
	return 0;
}

/* One file, either form. */
static int scan_text(struct wpp_text_cursor *c, struct scan_out *o)
{
	char head[64];
	const char *s, *e;
	size_t hl = (size_t)snprintf(head, sizeof(head), "%s %d", WPP_INTERESTING_MAGIC,
				     WPP_INTERESTING_VERSION);
	size_t ml = strlen(WPP_INTERESTING_MAGIC);
	struct wpp_text_cursor peek = *c;

	if (!wpp_text_next_line(&peek, &s, &e))
		return 0; /* an empty list */
	if ((size_t)(e - s) == hl && memcmp(s, head, hl) == 0) {
		*c = peek;
		return scan_recorded(c, o);
	}
	if ((size_t)(e - s) > ml && memcmp(s, WPP_INTERESTING_MAGIC, ml) == 0 && s[ml] == ' ') {
		*c = peek;
		return wpp_text_fail(c, "unsupported version (want '%s')", head);
	}
	return scan_list(c, o);
}

static int cmp_item(const void *a, const void *b)
{
	const struct item *x = a, *y = b;
	if (x->by_name != y->by_name)
		return x->by_name - y->by_name;
	if (x->by_name) {
		int r = strcmp(x->name, y->name);
		if (r)
			return r;
	} else if (x->stable_id != y->stable_id) {
		return x->stable_id < y->stable_id ? -1 : 1;
	}
	if (x->id != y->id)
		return x->id < y->id ? -1 : 1;
	/* a listed id's first place comes first */
	if (x->file != y->file)
		return x->file < y->file ? -1 : 1;
	return (x->line > y->line) - (x->line < y->line);
}

static int cmp_name_source(const void *a, const void *b)
{
	const struct wpp_interesting_fn *x = *(const struct wpp_interesting_fn *const *)a;
	const struct wpp_interesting_fn *y = *(const struct wpp_interesting_fn *const *)b;
	int r = strcmp(x->name, y->name);
	return r ? r : strcmp(x->source, y->source);
}

static int same_fn(const struct item *x, const struct item *y)
{
	return x->by_name == y->by_name &&
	       (x->by_name ? strcmp(x->name, y->name) == 0 : x->stable_id == y->stable_id);
}

/* Sorted items to per-function lists.  -1 (why set) when two files
 * disagree about a recorded function, or out of memory. */
static int build(struct wpp_interesting *set, struct item *it, size_t n, char *why, size_t whylen)
{
	size_t nfns = 0, nids = 0;

	qsort(it, n, sizeof(*it), cmp_item);
	for (size_t i = 0; i < n; i++) {
		int new_fn = i == 0 || !same_fn(&it[i - 1], &it[i]);
		if (!new_fn && !it[i].by_name &&
		    (it[i].nedges != it[i - 1].nedges || strcmp(it[i].name, it[i - 1].name) ||
		     strcmp(it[i].source, it[i - 1].source))) {
			snprintf(
			    why, whylen,
			    "function %016llx is %s (%s) with %u edges in one file and %s (%s) "
			    "with %u in another",
			    (unsigned long long)it[i].stable_id, it[i - 1].name, it[i - 1].source,
			    it[i - 1].nedges, it[i].name, it[i].source, it[i].nedges);
			return -1;
		}
		nfns += new_fn;
		nids += new_fn || it[i].id != it[i - 1].id;
	}
	set->fns = calloc(nfns + 1, sizeof(*set->fns));
	set->by_name = calloc(nfns + 1, sizeof(*set->by_name));
	set->id_store = malloc((nids + 1) * sizeof(uint64_t));
	set->count_store = calloc(nids + 1, sizeof(uint64_t));
	set->line_store = calloc(nids + 1, sizeof(uint32_t));
	set->file_store = calloc(nids + 1, sizeof(uint32_t));
	if (!set->fns || !set->by_name || !set->id_store || !set->count_store || !set->line_store ||
	    !set->file_store) {
		snprintf(why, whylen, "out of memory");
		return -1;
	}
	struct wpp_interesting_fn *f = NULL;
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		if (i == 0 || !same_fn(&it[i - 1], &it[i])) {
			f = &set->fns[set->nfns++];
			*f = (struct wpp_interesting_fn){.stable_id = it[i].stable_id,
							 .name = it[i].name,
							 .source = it[i].source,
							 .nedges = it[i].nedges,
							 .by_name = it[i].by_name,
							 .ids = set->id_store + k,
							 .counts = set->count_store + k,
							 .list_lines = set->line_store + k,
							 .list_files = set->file_store + k};
			if (!it[i].by_name)
				set->by_name[set->nrecorded++] = f;
		} else if (it[i].id == it[i - 1].id) {
			uint64_t *cnt = &set->count_store[k - 1];
			*cnt = *cnt > UINT64_MAX - it[i].count ? UINT64_MAX : *cnt + it[i].count;
			f->nlines += it[i].by_name;
			continue;
		}
		set->id_store[k] = it[i].id;
		set->count_store[k] = it[i].count;
		set->line_store[k] = it[i].line;
		set->file_store[k] = it[i].file;
		f->nlines += it[i].by_name;
		k++;
		f->nids++;
	}
	qsort(set->by_name, set->nrecorded, sizeof(*set->by_name), cmp_name_source);
	return 0;
}

int wpp_interesting_parse(struct wpp_interesting *s, const char *const *texts, const size_t *lens,
			  const char *const *names, size_t n, char *why, size_t whylen)
{
	struct scan_out o = {0};
	char detail[256];

	memset(s, 0, sizeof(*s));
	if (n > UINT32_MAX) {
		snprintf(why, whylen, "too many files");
		return -1;
	}
	for (int fill = 0; fill < 2; fill++) {
		if (fill) {
			o.items = malloc((o.nitems + 1) * sizeof(*o.items));
			s->name_store = o.names = malloc(o.namebytes + 1);
			s->files = malloc((n + 1) * sizeof(*s->files));
			if (!o.items || !s->name_store || !s->files) {
				snprintf(why, whylen, "out of memory");
				goto fail;
			}
			o.nitems = o.namebytes = 0;
		}
		for (size_t k = 0; k < n; k++) {
			struct wpp_text_cursor c =
			    wpp_text_cursor(texts[k], lens[k], detail, sizeof(detail));
			/* kept for messages: the caller's names may not outlive s */
			const char *label = put_name(&o, names[k], names[k] + strlen(names[k]));
			if (fill)
				s->files[s->nfiles++] = label;
			o.file = (uint32_t)k;
			if (scan_text(&c, &o)) { /* only the counting pass can fail */
				snprintf(why, whylen, "%s: %s", names[k], detail);
				goto fail;
			}
		}
	}
	if (build(s, o.items, o.nitems, why, whylen))
		goto fail;
	free(o.items);
	return 0;
fail:
	free(o.items);
	wpp_interesting_free(s);
	return -1;
}

int wpp_interesting_load(struct wpp_interesting *s, const char *const *paths, size_t n, char *why,
			 size_t whylen)
{
	char **bufs = calloc(n + 1, sizeof(*bufs));
	size_t *lens = calloc(n + 1, sizeof(*lens));
	char detail[256];
	int rc = -1;

	memset(s, 0, sizeof(*s));
	if (!bufs || !lens) {
		snprintf(why, whylen, "out of memory");
		goto out;
	}
	for (size_t k = 0; k < n; k++)
		if (wpp_text_slurp(paths[k], MAX_FILE_BYTES, &bufs[k], &lens[k], detail,
				   sizeof(detail))) {
			snprintf(why, whylen, "%s: %s", paths[k], detail);
			goto out;
		}
	rc = wpp_interesting_parse(s, (const char *const *)bufs, lens, paths, n, why, whylen);
out:
	for (size_t k = 0; bufs && k < n; k++)
		free(bufs[k]);
	free(bufs);
	free(lens);
	return rc;
}

void wpp_interesting_free(struct wpp_interesting *s)
{
	free(s->fns);
	free(s->by_name);
	free(s->id_store);
	free(s->count_store);
	free(s->line_store);
	free(s->file_store);
	free(s->files);
	free(s->name_store);
	memset(s, 0, sizeof(*s));
}

static const struct wpp_interesting_fn *find_recorded(const struct wpp_interesting *s, uint64_t id)
{
	size_t lo = 0, hi = s->nrecorded;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (s->fns[mid].stable_id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < s->nrecorded && s->fns[lo].stable_id == id ? &s->fns[lo] : NULL;
}

static const struct wpp_interesting_fn *find_listed(const struct wpp_interesting *s,
						    const char *name)
{
	size_t lo = s->nrecorded, hi = s->nfns;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (strcmp(s->fns[mid].name, name) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < s->nfns && strcmp(s->fns[lo].name, name) == 0 ? &s->fns[lo] : NULL;
}

const char *wpp_interesting_source_of(const struct wpp_interesting *s, const char *name)
{
	for (size_t i = 0; i < s->nrecorded; i++)
		if (strcmp(s->by_name[i]->name, name) == 0)
			return s->by_name[i]->source;
	return NULL;
}

const struct wpp_interesting_fn *wpp_interesting_listed(const struct wpp_interesting *s,
							const char *name)
{
	return find_listed(s, name);
}

int wpp_interesting_lookup(const struct wpp_interesting *s, uint64_t stable_id, uint32_t nedges,
			   const char *name, const char *source, uint64_t **ids, uint64_t **counts,
			   size_t *n)
{
	const struct wpp_interesting_fn *r = find_recorded(s, stable_id), *l = find_listed(s, name);
	const struct wpp_interesting_fn key = {.name = name, .source = source}, *kp = &key;
	size_t i = 0, j = 0, k = 0;

	*ids = NULL;
	if (counts)
		*counts = NULL;
	*n = 0;
	if (r && r->nedges != nedges)
		return WPP_INTERESTING_STALE;
	if (!r && s->nrecorded &&
	    bsearch(&kp, s->by_name, s->nrecorded, sizeof(*s->by_name), cmp_name_source))
		return WPP_INTERESTING_STALE;
	if (!r && !l)
		return WPP_INTERESTING_NONE;
	size_t nr = r ? r->nids : 0, nl = l ? l->nids : 0;
	*ids = malloc((nr + nl + 1) * sizeof(uint64_t));
	uint64_t *c = counts ? malloc((nr + nl + 1) * sizeof(uint64_t)) : NULL;
	if (!*ids || (counts && !c)) {
		free(*ids);
		free(c);
		*ids = NULL;
		return -1;
	}
	/* merge two increasing lists, summing the counts of an id in both */
	while (i < nr || j < nl) {
		uint64_t a = i < nr ? r->ids[i] : UINT64_MAX, b = j < nl ? l->ids[j] : UINT64_MAX;
		uint64_t v = a < b ? a : b, x = a == v ? r->counts[i++] : 0;
		if (b == v) {
			uint64_t y = l->counts[j++];
			x = x > UINT64_MAX - y ? UINT64_MAX : x + y;
		}
		if (c)
			c[k] = x;
		(*ids)[k++] = v;
	}
	*n = k;
	if (counts)
		*counts = c;
	return WPP_INTERESTING_FOUND;
}
