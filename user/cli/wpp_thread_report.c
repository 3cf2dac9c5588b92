/* SPDX-License-Identifier: MIT */
/*
 * wpp_thread_report.c — `wpptrace wpp`'s report of one thread's grammar
 * (wpp_thread_report.h): the SEQ options' paths parsed and resolved, the
 * thread worked out first (model_build: ranked rules and paths, terminal
 * counts, --freq/--context/--order answered on the DAG without expanding
 * it), then printed as text (thread_text) or JSON (thread_json).
 */
#include "cli/wpp_thread_report.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "common/log.h"
#include "collect/sequitur_online.h"
#include "analysis/grammar/sequitur_serial.h"
#include "analysis/grammar/wppdag.h"

/* ---- naming and parsing path sequences ---- */

/* How a thread's terminals are named and described. */
struct names {
	const struct wpp_thread_grammar *tg;
	const struct terminal_info *info; /* NULL for raw grammars */
	const uint32_t *raw_vals;	  /* a raw grammar without a table: its values, sorted */
	uint32_t nraw;
};

/* Syntax only: 0, or -1 after one error line naming the option. */
int parse_spec_list(const char *opt, const char *text, struct spec_list *l)
{
	*l = (struct spec_list){0};
	l->copy = strdup(text);
	l->v = calloc(strlen(text) / 2 + 1, sizeof(*l->v)); /* elements are >= 2 chars + ',' */
	if (!l->copy || !l->v)
		wpp_die("out of memory");
	for (char *tok = l->copy, *next; tok; tok = next) {
		struct path_spec *sp = &l->v[l->n];
		char *end, *colon;
		if ((next = strchr(tok, ',')))
			*next++ = '\0';
		sp->text = tok;
		for (const char *q = tok; *q; q++)
			if ((unsigned char)*q < 0x20 || *q == 0x7f)
				goto bad;
		colon = strrchr(tok, ':');
		errno = 0;
		if (tok[0] == 'p' && !colon) {
			sp->by_number = 1;
			sp->number = strtoull(tok + 1, &end, 10);
			if (errno || end == tok + 1 || *end || tok[1] == '-' || tok[1] == '+')
				goto bad;
		} else {
			if (!colon || colon == tok)
				goto bad;
			sp->fn_len = (size_t)(colon - tok);
			sp->number = strtoull(colon + 1, &end, 10);
			if (errno || end == colon + 1 || *end || colon[1] == '-' || colon[1] == '+')
				goto bad;
		}
		l->n++;
		continue;
	bad:
		for (char *q = tok; *q; q++) /* the error stays one line */
			if ((unsigned char)*q < 0x20 || *q == 0x7f)
				*q = '?';
		wpp_err("wpp: --%s: '%s' is not a path (pN or FUNCTION:PATHID, comma-separated)",
			opt, tok);
		free(l->copy);
		free(l->v);
		return -1;
	}
	return 0;
}

void spec_list_free(struct spec_list *l)
{
	free(l->copy);
	free(l->v);
}

/* The terminal a spec names in this thread (its value in the grammar's
 * bodies), or SPEC_NONE.  -1 after an error line when FUNCTION:PATHID is
 * ambiguous (static functions of one name in several files). */
static int resolve_spec(const struct names *nm, const char *opt, struct path_spec *sp,
			uint32_t *out)
{
	uint32_t nterm = nm->tg->hdr.nterminals, hits = 0;

	*out = SPEC_NONE;
	if (sp->by_number) {
		/* raw grammars without a table: the values themselves */
		int known = nm->raw_vals
				? sp->number < SEQ_TERMINAL_LIMIT &&
				      seq_grammar_terminal_rank(nm->raw_vals, nm->nraw,
								(uint32_t)sp->number) < nm->nraw
				: sp->number < nterm;
		if (known)
			*out = (uint32_t)sp->number;
	}
	for (uint32_t i = 0; !sp->by_number && nm->info && i < nterm; i++) {
		const struct terminal_info *ti = &nm->info[i];
		if (ti->fn && nm->tg->terms[i].path_id == sp->number &&
		    strlen(ti->fn->name) == sp->fn_len &&
		    !strncmp(ti->fn->name, sp->text, sp->fn_len) && hits++ == 0)
			*out = i;
	}
	if (hits > 1) {
		wpp_err("wpp: --%s: '%s' names %" PRIu32 " paths of thread %" PRIu32
			" (functions of one name in several files); name one as pN",
			opt, sp->text, hits, nm->tg->hdr.tid);
		return -1;
	}
	sp->matched |= *out != SPEC_NONE;
	return 0;
}

/* Every spec of l resolved in this thread into a malloc'd *seq; -1 after
 * an error line. */
static int resolve_specs(const struct names *nm, const char *opt, struct spec_list *l,
			 uint32_t **seq)
{
	*seq = malloc(l->n * sizeof(**seq));
	if (!*seq)
		wpp_die("out of memory");
	for (uint32_t i = 0; i < l->n; i++)
		if (resolve_spec(nm, opt, &l->v[i], &(*seq)[i]) < 0) {
			free(*seq);
			return -1;
		}
	return 0;
}

/* After every thread: a spec that named nothing anywhere is most likely a
 * typo; 0, or WPP_EXIT_USAGE after one error line. */
int unmatched_specs(const struct spec_list *l, const char *opt)
{
	for (uint32_t i = 0; i < l->n; i++)
		if (!l->v[i].matched) {
			wpp_err("wpp: --%s: '%s' names no path of any reported thread", opt,
				l->v[i].text);
			return WPP_EXIT_USAGE;
		}
	return 0;
}

/* ---- per-thread report: the model, then text or JSON ---- */

/* Position of terminal t in vals (sorted), or t itself without vals. */
static uint32_t terminal_index(const uint32_t *vals, uint32_t n, uint32_t t)
{
	if (!vals)
		return t;
	return seq_grammar_terminal_rank(vals, n, t);
}

struct rank {
	uint32_t node;
	uint64_t key;
};

static int by_key_desc(const void *a, const void *b)
{
	const struct rank *x = a, *y = b;
	if (x->key != y->key)
		return x->key > y->key ? -1 : 1;
	return x->node < y->node ? -1 : x->node > y->node;
}

static int all_known(const uint32_t *seq, uint32_t m)
{
	for (uint32_t i = 0; i < m; i++)
		if (seq[i] == SPEC_NONE)
			return 0;
	return 1;
}

/* Why a SEQ matched nothing in this thread, for its line: a pN the thread
 * does not have says that pN numbers each thread's own paths (its table),
 * since a pN copied from another thread's table is the usual mistake. */
static const char *why_unknown(const struct spec_list *l, const uint32_t *seq)
{
	for (uint32_t i = 0; i < l->n; i++)
		if (seq[i] == SPEC_NONE && l->v[i].by_number)
			return "not a path of this thread: pN numbers each thread's own paths, as "
			       "its table shows; FUNCTION:PATHID names a path in every thread";
	return "a path of it never ran in this thread";
}

/* --order: one named path's first and last run (positions in the
 * thread's path stream, from 0, segments one after another). */
struct order_row {
	uint64_t first, last, count;
	int ran; /* 0: never ran in this thread */
	int dup; /* named earlier in the list (p1,p1, or pN and its FUNCTION:PATHID) */
};

/* What wpp reports of one thread, worked out before anything is printed. */
struct thread_model {
	const struct wpp_thread_grammar *tg;
	const char *origin;
	struct names nm;
	struct wppdag d;
	/* A raw grammar without a table (--from-raw, values used as they are)
	 * names its terminals by value: raw_vals holds them, increasing. */
	uint32_t nterm, nsyms, *raw_vals;
	size_t serlen;
	double ratio;
	struct rank *rules; /* by how much of the stream they cover (frequency x length) */
	uint32_t rules_shown;
	uint64_t *tcount;   /* per terminal: executions */
	struct rank *paths; /* by frequency */
	uint32_t paths_shown;
	uint32_t *freq_seq, *context_seq, *order_seq; /* the SEQ options resolved */
	uint64_t freq;
	struct wppdag_context *contexts[2]; /* before, after */
	size_t ncontexts[2];
	struct order_row *order;
};

static void model_free(struct thread_model *m)
{
	free(m->rules);
	free(m->tcount);
	free(m->paths);
	free(m->freq_seq);
	free(m->context_seq);
	free(m->order_seq);
	for (int side = 0; side < 2; side++)
		if (m->contexts[side])
			wppdag_contexts_free(m->contexts[side], m->ncontexts[side]);
	free(m->order);
	free(m->raw_vals);
	wppdag_free(&m->d);
}

/* Rules by how much of the stream they cover; terminals by frequency
 * (each body occurrence counts its node's frequency). */
static void rank_rules_and_paths(const struct wpp_queries *o, struct thread_model *m)
{
	const struct seq_grammar *g = &m->tg->g;
	uint32_t nodes = seq_grammar_nodes(g), nterm = m->nterm;

	m->rules = malloc((g->nrules ? g->nrules : 1) * sizeof(*m->rules));
	m->tcount = calloc(nterm ? nterm : 1, sizeof(*m->tcount));
	m->paths = malloc((nterm ? nterm : 1) * sizeof(*m->paths));
	if (!m->rules || !m->tcount || !m->paths)
		wpp_die("out of memory");
	for (uint32_t r = 0; r < g->nrules; r++) {
		unsigned __int128 cover = (unsigned __int128)m->d.freq[r] * g->exp_len[r];
		m->rules[r] = (struct rank){r, cover > UINT64_MAX ? UINT64_MAX : (uint64_t)cover};
	}
	qsort(m->rules, g->nrules, sizeof(*m->rules), by_key_desc);
	m->rules_shown = (uint64_t)o->max_rules < g->nrules ? (uint32_t)o->max_rules : g->nrules;
	for (uint32_t v = 0; v < nodes; v++)
		for (uint32_t j = g->start[v]; j < g->start[v + 1]; j++) {
			uint32_t t = g->sym[j];
			if (!seq_is_rule(t) && (t = terminal_index(m->raw_vals, nterm, t)) < nterm)
				m->tcount[t] += m->d.freq[v];
		}
	for (uint32_t t = 0; t < nterm; t++)
		m->paths[t] = (struct rank){t, m->tcount[t]};
	qsort(m->paths, nterm, sizeof(*m->paths), by_key_desc);
	m->paths_shown = (uint64_t)o->max_rules < nterm ? (uint32_t)o->max_rules : nterm;
}

/* --order: where each path first and last ran, and so (Larus' "p executes
 * before q") whether p's first run precedes q's last. */
static void order_rows(const struct spec_list *l, struct thread_model *m)
{
	const uint32_t *seq = m->order_seq;
	struct order_row *rows = calloc(l->n, sizeof(*rows));

	if (!rows)
		wpp_die("out of memory");
	for (uint32_t i = 0; i < l->n; i++)
		for (uint32_t j = 0; j < i && !rows[i].dup; j++)
			rows[i].dup = seq[i] != SPEC_NONE ? seq[j] == seq[i]
							  : seq[j] == SPEC_NONE &&
								!strcmp(l->v[i].text, l->v[j].text);
	for (uint32_t i = 0; i < l->n; i++) {
		if (seq[i] != SPEC_NONE && (rows[i].ran = wppdag_first_last(
						&m->d, seq[i], &rows[i].first, &rows[i].last)) < 0)
			wpp_die("out of memory");
		if (rows[i].ran)
			rows[i].count = m->tcount[terminal_index(m->raw_vals, m->nterm, seq[i])];
	}
	m->order = rows;
}

/* The queries (--freq, --context, --order), their paths resolved in this
 * thread.  0, or WPP_EXIT_USAGE after one error line. */
static int run_queries(const struct wpp_queries *o, struct thread_model *m)
{
	if (o->freq) {
		int failed = 0;
		if (resolve_specs(&m->nm, "freq", o->freq, &m->freq_seq) < 0)
			return WPP_EXIT_USAGE;
		if (all_known(m->freq_seq, o->freq->n))
			m->freq =
			    wppdag_sequence_frequency(&m->d, m->freq_seq, o->freq->n, &failed);
		if (failed)
			wpp_die("out of memory");
	}
	if (o->context) {
		if (resolve_specs(&m->nm, "context", o->context, &m->context_seq) < 0)
			return WPP_EXIT_USAGE;
		for (int side = 0; side < 2 && all_known(m->context_seq, o->context->n); side++)
			if (wppdag_contexts(&m->d, m->context_seq, o->context->n,
					    (uint32_t)o->context_len,
					    side ? WPPDAG_AFTER : WPPDAG_BEFORE, &m->contexts[side],
					    &m->ncontexts[side]) < 0)
				wpp_die("out of memory");
	}
	if (o->order) {
		if (resolve_specs(&m->nm, "order", o->order, &m->order_seq) < 0)
			return WPP_EXIT_USAGE;
		order_rows(o->order, m);
	}
	return 0;
}

/* 0, or WPP_EXIT_USAGE after one error line (a SEQ that is ambiguous here). */
static int model_build(const struct wpp_queries *o, const struct wpp_thread_grammar *tg,
		       const struct terminal_info *info, const char *origin, struct thread_model *m)
{
	const struct seq_grammar *g = &tg->g;
	uint8_t *ser;

	*m = (struct thread_model){.tg = tg, .origin = origin, .nterm = tg->hdr.nterminals};
	if (!m->nterm && seq_grammar_terminals(g, &m->raw_vals, &m->nterm) < 0)
		wpp_die("out of memory");
	m->nm = (struct names){tg, info, m->raw_vals, m->nterm};
	if (wppdag_init(&m->d, g) < 0 || seq_serialize(g, &ser, &m->serlen) < 0)
		wpp_die("out of memory");
	free(ser);
	m->nsyms = g->start[seq_grammar_nodes(g)];
	m->ratio = m->nsyms ? (double)tg->hdr.nsymbols / m->nsyms : 0;
	rank_rules_and_paths(o, m);
	return run_queries(o, m);
}

/* How wpp names a grammar symbol: pN, RN, <start>, <end>. */
static const char *sym_name(uint32_t s, char *buf, size_t len)
{
	if (s == WPPDAG_PAD_START)
		return "<start>";
	if (s == WPPDAG_PAD_END)
		return "<end>";
	if (seq_is_rule(s))
		snprintf(buf, len, "R%" PRIu32, s & ~SEQ_RULE_BIT);
	else
		snprintf(buf, len, "p%" PRIu32, s);
	return buf;
}

/* A resolved path: as wpp names it, or as typed when it names nothing in
 * this thread. */
static const char *spec_name(const struct path_spec *sp, uint32_t sym, char *buf, size_t len)
{
	return sym == SPEC_NONE ? sp->text : sym_name(sym, buf, len);
}

/* ---- text ---- */

static void text_syms(FILE *out, const uint32_t *s, uint32_t n, const char *first_sep)
{
	char buf[24];

	for (uint32_t i = 0; i < n; i++)
		fprintf(out, "%s%s", i ? " " : first_sep, sym_name(s[i], buf, sizeof(buf)));
}

static void text_specs(FILE *out, const struct spec_list *l, const uint32_t *seq)
{
	char buf[24];

	for (uint32_t i = 0; i < l->n; i++)
		fprintf(out, "%s%s", i ? " " : "", spec_name(&l->v[i], seq[i], buf, sizeof(buf)));
}

static void text_terminal(FILE *out, const struct names *nm, uint32_t t)
{
	char where[PATH_MAX + 32];
	const struct wpp_grammar_terminal *term = &nm->tg->terms[t];
	const struct terminal_info *ti = nm->info ? &nm->info[t] : NULL;

	if (nm->tg->hdr.flags & WPP_GRAMMAR_RAW) /* renumbered: the value it stands for */
		fprintf(out, "raw symbol %" PRIu64, term->path_id);
	else if (ti && ti->fn)
		fprintf(out, "%s %s %" PRIu64 "  %s  insns %" PRIu64 "%s", ti->fn->name,
			ti->is_block ? "block" : "path", term->path_id,
			terminal_where(ti, where, sizeof(where)), ti->insns,
			ti->valid ? "" : "  (not a path of its function)");
	else
		fprintf(out, "fid %" PRIu32 " path %" PRIu64 " (unknown function)", term->fid,
			term->path_id);
}

static void text_contexts(FILE *out, const struct thread_model *m, uint32_t k)
{
	for (int side = 0; side < 2; side++) {
		const struct wppdag_context *c = m->contexts[side];
		size_t n = m->ncontexts[side];
		fprintf(out, "    %s:\n", side ? "after" : "before");
		for (size_t i = 0; i < n && i < 20; i++) {
			fprintf(out, "    %12" PRIu64 "  ", c[i].count);
			text_syms(out, c[i].syms, k, "");
			fputc('\n', out);
		}
		if (n > 20)
			fprintf(out, "    (%zu more)\n", n - 20);
	}
}

static void text_order(FILE *out, const struct spec_list *l, const struct thread_model *m)
{
	const uint32_t *seq = m->order_seq;
	char a[24], b[24];

	fputs("  order (positions in the path stream, from 0)\n", out);
	for (uint32_t i = 0; i < l->n; i++) {
		const struct order_row *r = &m->order[i];
		if (r->dup)
			continue;
		fprintf(out, "    %s", spec_name(&l->v[i], seq[i], a, sizeof(a)));
		if (r->ran)
			fprintf(out,
				"  ran %" PRIu64 " time%s, first at %" PRIu64 ", last at %" PRIu64
				"\n",
				r->count, r->count == 1 ? "" : "s", r->first, r->last);
		else
			fputs("  never ran in this thread\n", out);
	}
	for (uint32_t i = 0; i < l->n; i++)
		for (uint32_t j = 0; j < l->n; j++) {
			const struct order_row *p = &m->order[i], *q = &m->order[j];
			if (i == j || p->dup || q->dup)
				continue;
			fprintf(out, "    %s%s%s\n", spec_name(&l->v[i], seq[i], a, sizeof(a)),
				p->ran && q->ran && p->first < q->last ? " ran before "
								       : " never ran before ",
				spec_name(&l->v[j], seq[j], b, sizeof(b)));
		}
}

static void thread_text(FILE *out, const struct wpp_queries *o, const struct thread_model *m)
{
	const struct wpp_thread_grammar *tg = m->tg;
	const struct seq_grammar *g = &tg->g;

	fprintf(out, "thread %" PRIu32 " (pid %" PRIu32 ", generation %" PRIu32 "), grammar %s\n",
		tg->hdr.tid, tg->hdr.pid, tg->hdr.generation, m->origin);
	fprintf(out,
		"  path stream    %" PRIu64 " paths, %" PRIu32 " distinct, %" PRIu32 " segment%s\n",
		tg->hdr.nsymbols, m->nterm, tg->hdr.segments, tg->hdr.segments == 1 ? "" : "s");
	fprintf(out,
		"  grammar        %" PRIu32 " rules, %" PRIu32
		" symbols on right-hand sides (%.1f paths per symbol)\n",
		g->nrules, m->nsyms, m->ratio);
	fprintf(out, "  serialized     %zu bytes (%.2f bits per path)\n", m->serlen,
		tg->hdr.nsymbols ? m->serlen * 8.0 / tg->hdr.nsymbols : 0.0);
	fprintf(out, "  built by       %s\n", grammar_builder_name(g->flags));
	if (tg->hdr.skipped_words)
		fprintf(out, "  skipped        %" PRIu64 " malformed words\n",
			tg->hdr.skipped_words);
	if (m->rules_shown)
		fprintf(out,
			"  rules (%" PRIu32 " of %" PRIu32
			", by frequency x length)\n    %8s %12s %10s  body\n",
			m->rules_shown, g->nrules, "rule", "frequency", "length");
	for (uint32_t i = 0; i < m->rules_shown; i++) {
		uint32_t r = m->rules[i].node, n = seq_grammar_body_len(g, r);
		fprintf(out, "    R%-7" PRIu32 " %12" PRIu64 " %10" PRIu64 " ", r, m->d.freq[r],
			g->exp_len[r]);
		text_syms(out, seq_grammar_body(g, r), n < 12 ? n : 12, " ");
		if (n > 12)
			fprintf(out, " ... (%" PRIu32 " symbols)", n);
		fputc('\n', out);
	}
	if (m->paths_shown)
		fprintf(out, "  paths (%" PRIu32 " of %" PRIu32 ", by frequency)\n", m->paths_shown,
			m->nterm);
	for (uint32_t i = 0; i < m->paths_shown; i++) {
		uint32_t t = m->paths[i].node, value = m->raw_vals ? m->raw_vals[t] : t;
		fprintf(out, "    p%-7" PRIu32 " %12" PRIu64 "  %s", value, m->tcount[t],
			m->raw_vals ? "raw symbol" : "");
		if (!m->raw_vals)
			text_terminal(out, &m->nm, t);
		fputc('\n', out);
	}
	if (o->freq) {
		fputs("  frequency of ", out);
		text_specs(out, o->freq, m->freq_seq);
		if (all_known(m->freq_seq, o->freq->n))
			fprintf(out, ": %" PRIu64 "\n", m->freq);
		else
			fprintf(out, ": %" PRIu64 " (%s)\n", m->freq,
				why_unknown(o->freq, m->freq_seq));
	}
	if (o->context) {
		int known = all_known(m->context_seq, o->context->n);
		fputs("  context of ", out);
		text_specs(out, o->context, m->context_seq);
		fprintf(out, " (%ld path%s each side, <start>/<end> = segment boundary)%s%s\n",
			o->context_len, o->context_len == 1 ? "" : "s", known ? "" : ": ",
			known ? "" : why_unknown(o->context, m->context_seq));
		if (known)
			text_contexts(out, m, (uint32_t)o->context_len);
	}
	if (o->order)
		text_order(out, o->order, m);
	fputc('\n', out);
}

/* ---- JSON (docs/cli.md, wpp) ---- */

static void json_syms(struct json_out *j, const char *key, const uint32_t *s, uint32_t n)
{
	char buf[24];

	json_array(j, key);
	for (uint32_t i = 0; i < n; i++)
		json_string(j, NULL, sym_name(s[i], buf, sizeof(buf)));
	json_close(j);
}

static void json_specs(struct json_out *j, const struct spec_list *l, const uint32_t *seq)
{
	char buf[24];

	json_array(j, "paths");
	for (uint32_t i = 0; i < l->n; i++)
		json_string(j, NULL, spec_name(&l->v[i], seq[i], buf, sizeof(buf)));
	json_close(j);
}

/* The members of a "paths_shown" entry that describe terminal t. */
static void json_terminal(struct json_out *j, const struct names *nm, uint32_t t)
{
	const struct wpp_grammar_terminal *term = &nm->tg->terms[t];
	const struct terminal_info *ti = nm->info ? &nm->info[t] : NULL;

	json_u64(j, "fid", term->fid);
	json_u64(j, "path", term->path_id);
	if (!ti || !ti->fn) {
		json_null(j, "function");
		return;
	}
	json_string(j, "function", ti->fn->name);
	json_string(j, "file", ti->file ? ti->file : "");
	json_u64(j, "line_min", ti->line_min);
	json_u64(j, "line_max", ti->line_max);
	json_u64(j, "insns", ti->insns);
	json_bool(j, "valid", ti->valid);
}

static void json_contexts(struct json_out *j, const struct thread_model *m, uint32_t k)
{
	for (int side = 0; side < 2; side++) {
		const struct wppdag_context *c = m->contexts[side];
		json_array(j, side ? "after" : "before");
		for (size_t i = 0; i < m->ncontexts[side] && i < 20; i++) {
			json_object(j, NULL);
			json_u64(j, "count", c[i].count);
			json_syms(j, "paths", c[i].syms, k);
			json_close(j);
		}
		json_close(j);
	}
}

static void json_order(struct json_out *j, const struct spec_list *l, const struct thread_model *m)
{
	const uint32_t *seq = m->order_seq;
	char a[24], b[24];

	json_object(j, "order");
	json_array(j, "paths");
	for (uint32_t i = 0; i < l->n; i++) {
		const struct order_row *r = &m->order[i];
		if (r->dup)
			continue;
		json_object(j, NULL);
		json_string(j, "path", spec_name(&l->v[i], seq[i], a, sizeof(a)));
		json_u64(j, "count", r->count);
		if (r->ran) {
			json_u64(j, "first", r->first);
			json_u64(j, "last", r->last);
		} else {
			json_null(j, "first");
			json_null(j, "last");
		}
		json_close(j);
	}
	json_close(j);
	json_array(j, "before");
	for (uint32_t i = 0; i < l->n; i++)
		for (uint32_t k = 0; k < l->n; k++) {
			const struct order_row *p = &m->order[i], *q = &m->order[k];
			if (i == k || p->dup || q->dup)
				continue;
			json_object(j, NULL);
			json_string(j, "path", spec_name(&l->v[i], seq[i], a, sizeof(a)));
			json_string(j, "then", spec_name(&l->v[k], seq[k], b, sizeof(b)));
			json_bool(j, "ran_before", p->ran && q->ran && p->first < q->last);
			json_close(j);
		}
	json_close(j);
	json_close(j);
}

/* An entry of "threads"; its lists each start a line. */
static void thread_json(struct json_out *j, const struct wpp_queries *o,
			const struct thread_model *m)
{
	const struct wpp_thread_grammar *tg = m->tg;
	const struct seq_grammar *g = &tg->g;
	char name[24];

	json_object(j, NULL);
	json_u64(j, "pid", tg->hdr.pid);
	json_u64(j, "tid", tg->hdr.tid);
	json_u64(j, "gen", tg->hdr.generation);
	json_string(j, "grammar", m->origin);
	json_u64(j, "paths", tg->hdr.nsymbols);
	json_u64(j, "segments", tg->hdr.segments);
	json_u64(j, "distinct_paths", m->nterm);
	json_u64(j, "rules", g->nrules);
	json_u64(j, "grammar_symbols", m->nsyms);
	json_double(j, "ratio", "%.3f", m->ratio);
	json_u64(j, "serialized_bytes", m->serlen);
	json_string(j, "builder", grammar_builder_name(g->flags));
	json_u64(j, "skipped_words", tg->hdr.skipped_words);
	json_next_comma(j, ",\n   ");
	json_array(j, "rules_shown");
	for (uint32_t i = 0; i < m->rules_shown; i++) {
		uint32_t r = m->rules[i].node;
		json_object(j, NULL);
		snprintf(name, sizeof(name), "R%" PRIu32, r);
		json_string(j, "rule", name);
		json_u64(j, "frequency", m->d.freq[r]);
		json_u64(j, "length", g->exp_len[r]);
		json_syms(j, "body", seq_grammar_body(g, r), seq_grammar_body_len(g, r));
		json_close(j);
	}
	json_close(j);
	json_next_comma(j, ",\n   ");
	json_array(j, "paths_shown");
	for (uint32_t i = 0; i < m->paths_shown; i++) {
		uint32_t t = m->paths[i].node;
		json_object(j, NULL);
		snprintf(name, sizeof(name), "p%" PRIu32, m->raw_vals ? m->raw_vals[t] : t);
		json_string(j, "terminal", name);
		json_u64(j, "frequency", m->tcount[t]);
		if (m->raw_vals)
			json_null(j, "function");
		else
			json_terminal(j, &m->nm, t);
		json_close(j);
	}
	json_close(j);
	if (o->freq) {
		json_next_comma(j, ",\n   ");
		json_object(j, "frequency_of");
		json_specs(j, o->freq, m->freq_seq);
		json_u64(j, "count", m->freq);
		json_close(j);
	}
	if (o->context) {
		json_next_comma(j, ",\n   ");
		json_object(j, "context_of");
		json_specs(j, o->context, m->context_seq);
		json_i64(j, "k", o->context_len);
		json_contexts(j, m, (uint32_t)o->context_len);
		json_close(j);
	}
	if (o->order) {
		json_next_comma(j, ",\n   ");
		json_order(j, o->order, m);
	}
	json_close(j);
}

int wpp_thread_report(const struct wpp_queries *o, const struct wpp_thread_grammar *tg,
		      const struct terminal_info *info, const char *origin)
{
	struct thread_model m;
	int rc = model_build(o, tg, info, origin, &m);

	if (rc == 0 && o->json)
		thread_json(o->json, o, &m);
	else if (rc == 0)
		thread_text(stdout, o, &m);
	model_free(&m);
	return rc;
}
