/* SPDX-License-Identifier: MIT */
/*
 * report_html.c — `wpptrace report --html`: report_page.html (style and
 * script, embedded in the binary at build time) with the page's data put in
 * place of its data marker.
 *
 * The data is compact JSON made for the page, not the `--format json`
 * report: every string (function and file names, objects, path texts,
 * kinds, programs) is stored once in the table "S" and rows are arrays that
 * refer to it by index.  A report of 100k paths of one function repeats the
 * same few names and path texts 100k times; stored once, a row is ~40
 * bytes instead of ~550, and the page parses in a fraction of the time.
 * The row layouts are listed where they are written and at the top of the
 * page's script, which must read them the same way.
 *
 * Hot subpaths and the counter columns need the trace itself, which the
 * profile does not keep, so the page opens the trace file again (see
 * page_extras below) and matches what it finds to the profile's rows by
 * identity (object, TU, function, path id), never by pointer.
 *
 * Inside a <script> element the only dangerous sequence is "</", so every
 * '<' of the data becomes \u003c (it can only occur inside JSON strings,
 * where that escape means the same).
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "costs/costs.h"
#include "analysis/grammar/hotsub.h"
#include "common/json_out.h"
#include "common/log.h"
#include "report/path_text.h"
#include "report/report_html.h"
#include "decode/session.h"
#include "collect/thread_grammar.h"

/* The page, with a NUL after it (see the .incbin below). */
extern const char rpt_page_html[];

__asm__(".section .rodata\n"
	".global rpt_page_html\n"
	".type rpt_page_html, @object\n"
	"rpt_page_html:\n"
	".incbin \"user/report/report_page.html\"\n"
	".byte 0\n"
	".previous\n");

#define DATA_MARKER "/*WPP_DATA*/"

/* Hot subpaths on the page: minimal hot subpaths (hotsub.h) of length
 * 2..SUB_MAX_LEN costing at least SUB_MIN_COST_PCT % of their thread's IR
 * instructions, the costliest SUB_PER_THREAD of each thread; threads are
 * analysed until SUB_WORD_BUDGET trace words (grammar construction is
 * linear in them, ~5-10M words/s: a few seconds at most), the rest is
 * named as skipped. */
#define SUB_MIN_LEN	 2
#define SUB_MAX_LEN	 8
#define SUB_MIN_COST_PCT 1
#define SUB_PER_THREAD	 200
#define SUB_WORD_BUDGET	 (16u << 20)

/* ---- string table ---- */

static uint64_t str_hash(const char *s)
{
	uint64_t h = 1469598103934665603ull; /* FNV-1a */
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return h;
}

static void strtab_grow(struct html_strtab *t)
{
	size_t nslot = t->nslot ? t->nslot * 2 : 1024;
	uint32_t *slot = calloc(nslot, sizeof(*slot));
	if (!slot)
		wpp_die("out of memory");
	for (size_t i = 0; i < t->n; i++) {
		size_t k = str_hash(t->s[i]) & (nslot - 1);
		while (slot[k])
			k = (k + 1) & (nslot - 1);
		slot[k] = (uint32_t)i + 1;
	}
	free(t->slot);
	t->slot = slot;
	t->nslot = nslot;
}

uint32_t html_str(struct html_strtab *t, const char *s)
{
	if (!s)
		s = "";
	if (2 * (t->n + 1) > t->nslot)
		strtab_grow(t);
	size_t k = str_hash(s) & (t->nslot - 1);
	for (; t->slot[k]; k = (k + 1) & (t->nslot - 1))
		if (strcmp(t->s[t->slot[k] - 1], s) == 0)
			return t->slot[k] - 1;
	if (t->n == t->cap) {
		t->cap = t->cap ? 2 * t->cap : 1024;
		if (!(t->s = realloc(t->s, t->cap * sizeof(*t->s))))
			wpp_die("out of memory");
	}
	if (!(t->s[t->n] = strdup(s)))
		wpp_die("out of memory");
	t->slot[k] = (uint32_t)t->n + 1;
	return (uint32_t)t->n++;
}

/* The member "S": the strings, 16 to a line. */
static void strtab_write(struct json_out *j, const struct html_strtab *t)
{
	json_array(j, "S");
	for (size_t i = 0; i < t->n; i++) {
		if (i && i % 16 == 0)
			json_next_comma(j, ",\n");
		json_string(j, NULL, t->s[i]);
	}
	json_close(j);
}

void html_strtab_free(struct html_strtab *t)
{
	for (size_t i = 0; i < t->n; i++)
		free(t->s[i]);
	free(t->s);
	free(t->slot);
	*t = (struct html_strtab){0};
}

uint32_t html_path_text(struct html_strtab *t, const struct rpt_path *r, int spans)
{
	struct strbuf text = {0};
	if (spans)
		rpt_spans(r, 0, &text);
	else
		rpt_path_text(r, &text);
	uint32_t i = html_str(t, text.s);
	sb_free(&text);
	return i;
}

/* ---- the page ---- */

static void emit_escaped(FILE *out, const char *data, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		if (data[i] == '<')
			fputs("\\u003c", out);
		else
			fputc(data[i], out);
	}
}

void html_emit_page(FILE *out, const char *kind, const char *file, const struct html_strtab *st,
		    const char *body, size_t len)
{
	const char *mark = strstr(rpt_page_html, DATA_MARKER);
	char *head = NULL;
	size_t hlen = 0;
	FILE *mem = open_memstream(&head, &hlen);
	struct json_out j;

	if (!mark || !mem)
		wpp_die("report: HTML template broken or out of memory");
	/* The string table goes first so the page can resolve rows as it
	 * reads them; the object stays open: the body continues it. */
	json_init(&j, mem, 0);
	json_object(&j, NULL);
	json_string(&j, "kind", kind);
	json_string(&j, "file", file);
	strtab_write(&j, st);
	if (fclose(mem) != 0)
		wpp_die("out of memory");
	fwrite(rpt_page_html, 1, (size_t)(mark - rpt_page_html), out);
	emit_escaped(out, head, hlen);
	emit_escaped(out, body, len);
	fputc('\n', out);
	fputs(mark + strlen(DATA_MARKER), out);
	free(head);
}

/* ---- counters: per-row sums of the attributed samples ---- */

/* One attributed sample, keyed the way rows are identified across sessions. */
struct hit_key {
	const char *object;
	uint64_t tu_hash;
	uint32_t local, pid, gen;
	int is_block;
	uint64_t id, weight;
};

struct page_counter {
	char name[WPP_COUNTER_NAME_MAX];
	char note[512];
	struct cost_attribution attr;
	struct cost_tally tally;
	struct hit_key *keys; /* sorted by hit_order */
	size_t nkeys;
};

struct page_extras {
	struct session s;
	int open;
	int thread_filtered; /* the profile covers only some threads of a process */
	struct cost_data cd;
	struct page_counter *counters;
	uint32_t ncounters;
};

static int fn_key_cmp(const struct hit_key *a, const char *object, uint64_t tu_hash, uint32_t local)
{
	int c = strcmp(a->object, object);
	if (c)
		return c;
	if (a->tu_hash != tu_hash)
		return a->tu_hash < tu_hash ? -1 : 1;
	return a->local < local ? -1 : a->local > local;
}

static int hit_order(const void *x, const void *y)
{
	const struct hit_key *a = x, *b = y;
	int c = fn_key_cmp(a, b->object, b->tu_hash, b->local);
	if (c)
		return c;
	if (a->is_block != b->is_block)
		return a->is_block - b->is_block;
	return a->id < b->id ? -1 : a->id > b->id;
}

static int image_selected(const struct rpt_profile *p, uint32_t pid, uint32_t gen)
{
	size_t lo = 0, hi = p->nimages;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		const struct rpt_image *im = &p->images[mid];
		if (im->pid == pid && im->gen == gen)
			return 1;
		if (im->pid < pid || (im->pid == pid && im->gen < gen))
			lo = mid + 1;
		else
			hi = mid;
	}
	return 0;
}

static void counter_keys(struct page_extras *x, const struct rpt_profile *p, struct page_counter *c)
{
	c->keys = calloc(c->attr.nhits + 1, sizeof(*c->keys));
	if (!c->keys)
		wpp_die("out of memory");
	for (size_t i = 0; i < c->attr.nhits; i++) {
		const struct cost_hit *h = &c->attr.hits[i];
		const struct wpp_image_map *im;
		const struct wpp_fid_range *range;
		const struct wpp_fn *fn;
		if (!h->fn || !image_selected(p, h->pid, h->gen))
			continue;
		im = wpp_modules_image(x->s.mods, h->pid, h->gen);
		if (wpp_image_resolve(im, h->fid, &fn, &range) != WPP_RESOLVED)
			continue;
		c->keys[c->nkeys++] = (struct hit_key){
		    range->module->path, fn->tu->tu_hash, fn->local_index, h->pid, h->gen,
		    h->is_block,	 h->value,	  h->weight};
	}
	if (c->nkeys)
		qsort(c->keys, c->nkeys, sizeof(*c->keys), hit_order);
}

/* Events and samples of the keys matching (object, function[, path]). */
static void counter_sum(const struct page_counter *c, const char *object, const struct wpp_fn *fn,
			const struct rpt_path *path, uint64_t *events, uint64_t *samples)
{
	size_t lo = 0, hi = c->nkeys;
	struct hit_key want = {object, fn->tu->tu_hash,		  fn->local_index,     0,
			       0,      path ? path->is_block : 0, path ? path->id : 0, 0};

	*events = *samples = 0;
	while (lo < hi) { /* first key >= the function (and path) */
		size_t mid = (lo + hi) / 2;
		int cmp = path ? hit_order(&c->keys[mid], &want)
			       : fn_key_cmp(&c->keys[mid], object, want.tu_hash, want.local);
		if (cmp < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < c->nkeys; lo++) {
		const struct hit_key *k = &c->keys[lo];
		if (path ? hit_order(k, &want) != 0
			 : fn_key_cmp(k, object, want.tu_hash, want.local) != 0)
			break;
		*events += k->weight;
		++*samples;
	}
}

static void write_counter_cols(struct json_out *j, const struct page_extras *x, const char *object,
			       const struct wpp_fn *fn, const struct rpt_path *path)
{
	for (uint32_t i = 0; i < x->ncounters; i++) {
		uint64_t e, s;
		counter_sum(&x->counters[i], object, fn, path, &e, &s);
		json_u64(j, NULL, e);
		json_u64(j, NULL, s);
	}
}

/* The trace again, for what the profile does not keep.  Without it the
 * page still has its main tables; the reason is on the page. */
static void extras_open(struct page_extras *x, const struct rpt_profile *p, char *why, size_t len)
{
	*x = (struct page_extras){0};
	if (session_open(&x->s, p->file) != 0) {
		snprintf(why, len, "the trace could not be read again");
		return;
	}
	x->open = 1;
	/* A --tid selection leaves a process with fewer threads than the file
	 * has; subpaths and counters of the other threads must not count. */
	for (size_t i = 0; i < p->nimages; i++) {
		uint32_t n = 0;
		for (size_t k = 0; k < x->s.trace->nthreads; k++)
			n += x->s.trace->threads[k].pid == p->images[i].pid &&
			     x->s.trace->threads[k].generation == p->images[i].gen &&
			     x->s.trace->threads[k].tid != WPP_TID_MEMORY_COUNTS;
		if (n != p->images[i].nthreads)
			x->thread_filtered = 1;
	}
	if (x->thread_filtered) {
		snprintf(why, len, "not computed for a --tid selection (whole processes only)");
		return;
	}
	if (cost_load(x->s.trace, &x->cd) < 0)
		wpp_die("out of memory");
	if (!x->cd.ncounters)
		return;
	x->counters = calloc(x->cd.ncounters, sizeof(*x->counters));
	if (!x->counters)
		wpp_die("out of memory");
	for (uint32_t i = 0; i < x->cd.ncounters; i++) {
		struct page_counter *c = &x->counters[x->ncounters];
		if (cost_attribute(x->s.trace, x->s.mods, &x->cd, i, -1, -1, &c->attr) < 0)
			wpp_die("out of memory");
		if (!c->attr.samples) { /* counting-mode only: nothing per path */
			cost_attribution_free(&c->attr);
			continue;
		}
		snprintf(c->name, sizeof(c->name), "%s", x->cd.counters[i].name);
		cost_summary(c->note, sizeof(c->note), &x->cd, &c->attr);
		cost_tally_of(&x->cd, &c->attr, &c->tally);
		counter_keys(x, p, c);
		x->ncounters++;
	}
}

static void extras_close(struct page_extras *x)
{
	for (uint32_t i = 0; i < x->ncounters; i++) {
		cost_attribution_free(&x->counters[i].attr);
		free(x->counters[i].keys);
	}
	free(x->counters);
	if (x->open) {
		cost_data_free(&x->cd);
		session_close(&x->s);
	}
}

/* ---- hot subpaths ---- */

/* "pick #5 (many_paths.c:9-13)": how a subpath names each path it runs through. */
static uint32_t terminal_name(struct html_strtab *t, const struct wpp_grammar_terminal *term,
			      const struct terminal_info *ti)
{
	char buf[512];
	const char *file = ti->file && ti->file[0] ? strrchr(ti->file, '/') : NULL;

	file = file ? file + 1 : ti->file && ti->file[0] ? ti->file : "?";
	if (!ti->fn)
		snprintf(buf, sizeof(buf), "fid %" PRIu32 " #%" PRIu64, term->fid, term->path_id);
	else if (ti->line_min && ti->line_min != ti->line_max)
		snprintf(buf, sizeof(buf), "%s %s%" PRIu64 " (%s:%" PRIu32 "-%" PRIu32 ")",
			 ti->fn->name, ti->is_block ? "b" : "#", term->path_id, file, ti->line_min,
			 ti->line_max);
	else
		snprintf(buf, sizeof(buf), "%s %s%" PRIu64 " (%s:%" PRIu32 ")", ti->fn->name,
			 ti->is_block ? "b" : "#", term->path_id, file, ti->line_min);
	return html_str(t, buf);
}

/* Rows [pid, tid, occurrences, IR insns, length, [terminal names], counter
 * events...] of one thread; returns how many. */
static size_t thread_subpaths(struct json_out *j, struct html_strtab *st,
			      const struct page_extras *x, const struct wpp_thread_grammar *tg,
			      const struct terminal_info *info)
{
	uint32_t nterm = tg->hdr.nterminals;
	uint64_t *cost = calloc(nterm + 1, sizeof(*cost)), total = 0;
	uint64_t **ccost = calloc(x->ncounters + 1, sizeof(*ccost));
	uint64_t *freq = calloc(nterm + 1, sizeof(uint64_t));
	int *is_block = calloc(nterm + 1, sizeof(int));
	struct hotsub_result r = {0};
	struct wppdag d;

	if (!cost || !ccost || !freq || !is_block || wppdag_init(&d, &tg->g) < 0)
		wpp_die("out of memory");
	if (wppdag_terminal_frequencies(&d, freq, nterm) < 0)
		wpp_die("out of memory");
	for (uint32_t t = 0; t < nterm; t++) {
		cost[t] = info[t].insns;
		is_block[t] = info[t].is_block;
		total += freq[t] * cost[t];
	}
	/* Counter events per execution of each path in this thread (costs.h). */
	for (uint32_t c = 0; c < x->ncounters; c++)
		if (!(ccost[c] = calloc(nterm + 1, sizeof(uint64_t))) ||
		    cost_per_terminal(&x->counters[c].attr, tg->hdr.pid, tg->hdr.generation,
				      tg->hdr.tid, tg->terms, is_block, freq, nterm, ccost[c]) < 0)
			wpp_die("out of memory");
	uint64_t min_cost = total / (100 / SUB_MIN_COST_PCT);
	struct hotsub_params hp = {SUB_MIN_LEN, SUB_MAX_LEN, min_cost ? min_cost : 1, cost, nterm};
	if (hotsub_find(&d, &hp, &r) < 0)
		wpp_die("out of memory finding hot subpaths");
	hotsub_sort_by_cost(&r);
	size_t shown = r.n < SUB_PER_THREAD ? r.n : SUB_PER_THREAD;
	for (size_t i = 0; i < shown; i++) {
		const struct hotsub_path *h = &r.paths[i];
		json_array(j, NULL);
		json_u64(j, NULL, tg->hdr.pid);
		json_u64(j, NULL, tg->hdr.tid);
		json_u64(j, NULL, h->occurrences);
		json_u64(j, NULL, h->cost);
		json_u64(j, NULL, h->len);
		json_array(j, NULL);
		for (uint32_t k = 0; k < h->len; k++)
			json_u64(j, NULL,
				 terminal_name(st, &tg->terms[h->syms[k]], &info[h->syms[k]]));
		json_close(j);
		for (uint32_t c = 0; c < x->ncounters; c++) {
			uint64_t per = 0;
			for (uint32_t k = 0; k < h->len; k++)
				per += ccost[c][h->syms[k]];
			json_u64(j, NULL, per * h->occurrences);
		}
		json_close(j);
	}
	for (uint32_t c = 0; c < x->ncounters; c++)
		free(ccost[c]);
	free(ccost);
	hotsub_result_free(&r);
	wppdag_free(&d);
	free(is_block);
	free(freq);
	free(cost);
	return shown;
}

static void write_subpaths(struct json_out *j, struct html_strtab *st, const struct rpt_profile *p,
			   const struct page_extras *x, const char *why)
{
	uint64_t budget = SUB_WORD_BUDGET, words = 0, skipped_words = 0;
	size_t threads = 0, skipped = 0, rows = 0;
	char note[512];

	json_array_lines(j, "subpaths", ",", "\n");
	for (size_t i = 0; x->open && !x->thread_filtered && i < x->s.trace->nthreads; i++) {
		const struct wpp_thread_trace *th = &x->s.trace->threads[i];
		struct wpp_thread_grammar tg;
		enum grammar_origin origin;

		if (!image_selected(p, th->pid, th->generation) || !th->nwords)
			continue;
		if (th->nwords > budget) {
			skipped++;
			skipped_words += th->nwords;
			continue;
		}
		if (thread_grammar_load(x->s.trace, th, &tg, &origin, NULL) < 0) {
			skipped++;
			continue;
		}
		struct terminal_info *info = calloc(tg.hdr.nterminals + 1, sizeof(*info));
		if (!info || thread_grammar_describe(&tg, x->s.mods, info) < 0)
			wpp_die("out of memory");
		rows += thread_subpaths(j, st, x, &tg, info);
		free(info);
		wpp_thread_grammar_free(&tg);
		budget -= th->nwords;
		words += th->nwords;
		threads++;
	}
	json_raw(j, "\n");
	json_close(j);
	if (why)
		snprintf(note, sizeof(note), "Hot subpaths: %s.", why);
	else
		snprintf(note, sizeof(note),
			 "Minimal hot subpaths of %zu thread%s (%" PRIu64
			 " trace words): sequences of %d..%d paths "
			 "costing at least %d%% of their thread's IR instructions, the costliest "
			 "%d per thread "
			 "(%zu shown)%s",
			 threads, threads == 1 ? "" : "s", words, SUB_MIN_LEN, SUB_MAX_LEN,
			 SUB_MIN_COST_PCT, SUB_PER_THREAD, rows, skipped ? "; " : ".");
	if (!why && skipped)
		snprintf(note + strlen(note), sizeof(note) - strlen(note),
			 "%zu thread%s (%" PRIu64
			 " words) not analysed: over the page's %u-word budget or "
			 "unreadable (wpptrace hot analyses them).",
			 skipped, skipped == 1 ? "" : "s", skipped_words, SUB_WORD_BUDGET);
	json_string(j, "subpaths_note", note);
}

/* ---- the main tables ---- */

/* One table of the page, rows in the layouts below (report_page.html reads them):
 *   functions  [count, cost, paths, name, file, line, object, counter events, samples...]
 *   paths      [count, cost, function, spans ("t.c:4-9 + u.h:3"), line_min, line_max, id,
 *               kind, text, processes, is_block, counter events, samples...]
 *   processes  [count, cost, paths, pid, gen, threads, program, hottest function or -1] */
static void write_rows(struct json_out *j, struct html_strtab *st, const struct rpt_profile *p,
		       const struct rpt_options *o, const struct page_extras *x, enum rpt_by by)
{
	static const char *const names[] = {"paths", "functions", "processes"};
	struct rpt_row *rows;
	size_t n = rpt_rows(p, by, o->sort, &rows);
	char kinds[16];

	json_array_lines(j, names[by], ",", "\n");
	for (size_t i = 0; i < n; i++) {
		const struct rpt_row *r = &rows[i];
		const struct rpt_path *q = r->path;
		json_array(j, NULL);
		json_u64(j, NULL, r->count);
		json_u64(j, NULL, r->cost);
		switch (by) {
		case RPT_BY_FUNCTION:
			json_u64(j, NULL, r->distinct);
			json_u64(j, NULL, html_str(st, r->fn->name));
			json_u64(j, NULL, html_str(st, r->fn->file));
			json_u64(j, NULL, r->fn->line);
			json_u64(j, NULL, html_str(st, r->object));
			write_counter_cols(j, x, r->object, r->fn, NULL);
			break;
		case RPT_BY_PATH:
			json_u64(j, NULL, html_str(st, q->fn->name));
			json_u64(j, NULL, html_path_text(st, q, 1));
			json_u64(j, NULL, q->line_min);
			json_u64(j, NULL, q->line_max);
			json_u64(j, NULL, q->id);
			json_u64(j, NULL, html_str(st, rpt_kinds(q, kinds, sizeof(kinds))));
			json_u64(j, NULL, html_path_text(st, q, 0));
			json_u64(j, NULL, r->nimages);
			json_i64(j, NULL, q->is_block);
			write_counter_cols(j, x, r->object, r->fn, q);
			break;
		case RPT_BY_PROCESS:
			json_u64(j, NULL, r->distinct);
			json_u64(j, NULL, r->image->pid);
			json_u64(j, NULL, r->image->gen);
			json_u64(j, NULL, r->image->nthreads);
			json_u64(j, NULL, html_str(st, r->image->exe));
			json_i64(j, NULL,
				 r->image->hottest ? (int64_t)html_str(st, r->image->hottest->name)
						   : -1);
			break;
		}
		json_close(j);
	}
	json_raw(j, "\n");
	json_close(j);
	free(rows);
}

static void write_counters(struct json_out *j, const struct page_extras *x)
{
	json_array(j, "counters");
	for (uint32_t i = 0; i < x->ncounters; i++) {
		const struct page_counter *c = &x->counters[i];
		json_object(j, NULL);
		json_string(j, "name", c->name);
		json_u64(j, "samples", c->attr.samples);
		json_u64(j, "events", c->attr.weight);
		json_string(j, "note", c->note);
		cost_tally_json(j, "cost_samples", &c->tally);
		json_close(j);
	}
	json_close(j);
}

void rpt_print_html(FILE *out, const struct rpt_profile *p, const struct rpt_options *o)
{
	struct html_strtab st = {0};
	struct page_extras x;
	char why[160] = "";
	char *body = NULL;
	size_t blen = 0;
	FILE *mem = open_memstream(&body, &blen);
	struct json_out j;

	if (!mem)
		wpp_die("out of memory");
	extras_open(&x, p, why, sizeof(why));
	json_init(&j, mem, 0);
	json_object_continued(&j); /* after the head's members (html_emit_page) */
	json_string(&j, "cost_unit", p->cost_unit);
	json_bool(&j, "cost_estimated", p->cost_estimated);
	rpt_json_totals(&j, p);
	write_counters(&j, &x);
	for (enum rpt_by by = RPT_BY_PATH; by <= RPT_BY_PROCESS; by++)
		write_rows(&j, &st, p, o, &x, by);
	write_subpaths(&j, &st, p, &x, why[0] ? why : NULL);
	json_close(&j);
	if (fclose(mem) != 0)
		wpp_die("out of memory");
	extras_close(&x);
	html_emit_page(out, "report", p->file, &st, body, blen);
	free(body);
	html_strtab_free(&st);
}
