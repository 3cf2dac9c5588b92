/* SPDX-License-Identifier: MIT */
/*
 * cmd_wpp.c — `wpptrace wpp`: each thread's whole program path as a
 * grammar (the chunked builder's or SEQUITUR(1)'s, docs/sequitur.md): its size against the path
 * stream, the biggest rules, node frequencies, and the DAG queries
 * (frequency of a path sequence, what ran before/after it) answered on the
 * DAG without expanding it.  `--from-raw` builds a grammar from a raw
 * stream of 32-bit symbols instead, to compare with other compressors.
 *
 * The grammar is the one `record` stored (WPP_CHUNK_GRAMMAR) or, for files
 * without one, rebuilt from the batches by the same code.  What is printed
 * of each thread is wpp_thread_report.c's; this file reads the command
 * line, walks the threads and writes files (--from-raw, --raw-out, --store).
 */
#include <errno.h>
#include <limits.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/commands.h"
#include "common/cpu_clock.h"
#include "common/json_out.h"
#include "common/in_file.h"
#include "common/log.h"
#include "common/options.h"
#include "common/out_file.h"
#include "analysis/grammar/sequitur_chunked.h"
#include "analysis/grammar/sequitur_serial.h"
#include "decode/session.h"
#include "collect/thread_grammar.h"
#include "cli/wpp_thread_report.h"
#include "common/wppfile.h"

struct wpp_opts {
	struct thread_filter filter;
	int json, expand, rebuild, store;
	long max_rules, context_len;
	struct spec_list *freq, *context, *order; /* parsed SEQ options, or NULL */
	const char *from_raw, *output;
	const char *raw_out;
	long raw_max;		   /* --raw-max: symbols written at most (0: all) */
	int grammar_algo;	   /* --grammar-builder: for grammars built here */
	struct json_out *json_out; /* --format json: the document */
};

/* ---- --expand ---- */

static int emit_expanded(void *ctx, const uint32_t *syms, size_t n)
{
	const struct wpp_thread_grammar *tg = ctx;
	for (size_t i = 0; i < n; i++) {
		if (tg->hdr.nterminals)
			printf("%" PRIu32 " %" PRIu64 "\n", tg->terms[syms[i]].fid,
			       tg->terms[syms[i]].path_id);
		else
			printf("0 %" PRIu32 "\n", syms[i]);
	}
	return 0;
}

/* `--expand`: the stream the grammar stands for, one "fid path" line per
 * path and "gap" between segments (used by the end-to-end tests). */
static int expand_thread(const struct wpp_thread_grammar *tg)
{
	printf("thread %" PRIu32 " %" PRIu32 " %" PRIu32 "\n", tg->hdr.pid, tg->hdr.tid,
	       tg->hdr.generation);
	for (uint32_t k = 0; k < tg->g.nroots; k++) {
		if (k)
			printf("gap\n");
		if (seq_grammar_expand_root(&tg->g, k, emit_expanded, (void *)tg) != 0)
			return -1;
	}
	return 0;
}

/* ---- --from-raw ---- */

/* Is `out` the same file as `in` (also through a link)?  Writing it would
 * truncate the input while it is read. */
static int same_file(const char *in, const char *out)
{
	struct stat a, b;

	return stat(in, &a) == 0 && stat(out, &b) == 0 && a.st_dev == b.st_dev &&
	       a.st_ino == b.st_ino;
}

static int from_raw(const struct wpp_opts *o)
{
	/* Read twice (a first pass decides the numbering): a regular file only. */
	struct stat in_st;
	int fd = in_file_open(o->from_raw, "wpp", &in_st);
	FILE *in = fd >= 0 ? fdopen(fd, "rb") : NULL;
	int chunked = o->grammar_algo == SEQ_CHUNKED;
	struct seq_builder *b = chunked ? NULL : seq_builder_new(o->grammar_algo);
	struct seqc_builder *cb = chunked ? seqc_builder_new(NULL) : NULL;
	uint32_t buf[4096], *map_val = NULL, map_n = 0, map_cap = 0;
	uint64_t n = 0;
	size_t got;
	int remap = 0;

	if (!in) {
		if (fd >= 0) {
			wpp_err("wpp: cannot open %s: %s", o->from_raw, strerror(errno));
			close(fd);
		}
		seq_builder_free(b);
		seqc_builder_free(cb);
		return WPP_EXIT_ERROR;
	}
	if (same_file(o->from_raw, o->output)) {
		wpp_err("wpp: -o %s is the input itself", o->output);
		fclose(in);
		seq_builder_free(b);
		seqc_builder_free(cb);
		return WPP_EXIT_USAGE;
	}
	if (!b && !cb)
		wpp_die("out of memory");
	/* Symbols below 2^31 - 1 are terminals as they are; if any is not,
	 * every symbol is renumbered densely in first-appearance order and the
	 * table is stored (a first pass finds out). */
	while ((got = fread(buf, 4, 4096, in)) > 0)
		for (size_t i = 0; i < got; i++)
			remap |= buf[i] >= SEQ_TERMINAL_LIMIT;
	if (ferror(in) || fseek(in, 0, SEEK_END) < 0) {
		wpp_err("wpp: cannot read %s", o->from_raw);
		fclose(in);
		seq_builder_free(b);
		seqc_builder_free(cb);
		return WPP_EXIT_ERROR;
	}
	/* An empty stream is a stream (its grammar is empty); a torn last
	 * symbol means the file is not what it claims. */
	long bytes = ftell(in);
	if (bytes % 4) {
		wpp_err("wpp: %s: %ld bytes is not a whole number of 32-bit symbols", o->from_raw,
			bytes);
		fclose(in);
		seq_builder_free(b);
		seqc_builder_free(cb);
		return WPP_EXIT_ERROR;
	}
	rewind(in);
	/* Dense remap: open addressing over values, sized as it grows. */
	uint32_t *slot_val = NULL, *slot_id = NULL, mask = 0;
	double t0 = process_cpu_seconds();
	while ((got = fread(buf, 4, 4096, in)) > 0) {
		for (size_t i = 0; remap && i < got; i++) {
			uint32_t v = buf[i], k;
			if ((map_n + 1) * 2 > mask) {
				uint32_t cap = mask ? (mask + 1) * 2 : 1024;
				uint32_t *nv = malloc(cap * sizeof(*nv)),
					 *ni = malloc(cap * sizeof(*ni));
				if (!nv || !ni)
					wpp_die("out of memory");
				memset(ni, 0xff, cap * sizeof(*ni));
				for (uint32_t s = 0; mask && s <= mask; s++) {
					if (slot_id[s] == UINT32_MAX)
						continue;
					for (k = (slot_val[s] * 0x9e3779b1u) & (cap - 1);
					     ni[k] != UINT32_MAX; k = (k + 1) & (cap - 1))
						;
					nv[k] = slot_val[s];
					ni[k] = slot_id[s];
				}
				free(slot_val);
				free(slot_id);
				slot_val = nv;
				slot_id = ni;
				mask = cap - 1;
			}
			for (k = (v * 0x9e3779b1u) & mask;
			     slot_id[k] != UINT32_MAX && slot_val[k] != v; k = (k + 1) & mask)
				;
			if (slot_id[k] == UINT32_MAX) {
				if (map_n == map_cap &&
				    !(map_val = realloc(map_val,
							(map_cap = map_cap ? 2 * map_cap : 1024) *
							    sizeof(*map_val))))
					wpp_die("out of memory");
				slot_val[k] = v;
				slot_id[k] = map_n;
				map_val[map_n++] = v;
			}
			buf[i] = slot_id[k];
		}
		if ((cb ? seqc_append_many(cb, buf, got) : seq_append_many(b, buf, got)) < 0)
			wpp_die("out of memory building the grammar");
		n += got;
	}
	fclose(in);
	free(slot_val);
	free(slot_id);
	struct wpp_thread_grammar tg = {0};
	if (cb ? seqc_export(cb, &tg.g) < 0 : seq_finish(b) < 0 || seq_export(b, &tg.g) < 0)
		wpp_die("out of memory building the grammar");
	double cpu = process_cpu_seconds() - t0;
	seq_builder_free(b);
	seqc_builder_free(cb);

	tg.hdr = (struct wpp_chunk_grammar){.flags = WPP_GRAMMAR_RAW,
					    .nsymbols = n,
					    .nterminals = remap ? map_n : 0,
					    .segments = 1};
	tg.terms = calloc(map_n ? map_n : 1, sizeof(*tg.terms));
	if (!tg.terms)
		wpp_die("out of memory");
	for (uint32_t i = 0; remap && i < map_n; i++)
		tg.terms[i] = (struct wpp_grammar_terminal){0, 0, map_val[i]};
	free(map_val);
	uint8_t *payload;
	size_t len;
	if (wpp_grammar_chunk_encode(&tg, &payload, &len) < 0)
		wpp_die("out of memory");
	int rc = WPP_EXIT_OK;
	if (len > WPP_CHUNK_MAX_PAYLOAD) {
		wpp_err("wpp: the grammar (%zu bytes) exceeds the largest chunk (%u bytes)", len,
			WPP_CHUNK_MAX_PAYLOAD);
		rc = WPP_EXIT_ERROR;
	} else {
		struct wpp_writer *w = wppw_open(o->output);
		struct wpp_chunk_end end = {0};
		if (!w || wppw_chunk(w, WPP_CHUNK_GRAMMAR, payload, (uint32_t)len) < 0 ||
		    wppw_close(w, &end) < 0) {
			if (w)
				wpp_err("wpp: writing %s failed", o->output);
			rc = WPP_EXIT_ERROR;
		}
	}
	if (rc == WPP_EXIT_OK) {
		uint64_t glen =
		    len - sizeof(tg.hdr) - (size_t)tg.hdr.nterminals * sizeof(*tg.terms);
		printf("input           %" PRIu64 " symbols (%" PRIu64 " bytes), %s\n", n, n * 4,
		       remap ? "renumbered densely (values >= 2^31-1 present)"
			     : "used as they are");
		printf("grammar         %" PRIu32 " rules, %" PRIu32 " symbols (%s)\n", tg.g.nrules,
		       tg.g.start[seq_grammar_nodes(&tg.g)], grammar_builder_name(tg.g.flags));
		printf("serialized      %" PRIu64
		       " bytes grammar + %zu bytes symbol table = %zu bytes "
		       "chunk payload\n",
		       glen, (size_t)tg.hdr.nterminals * sizeof(*tg.terms), len);
		printf("construction    %.3f s CPU, %.2f million symbols/s\n", cpu,
		       cpu > 0 ? n / cpu / 1e6 : 0.0);
		printf("written         %s\n", o->output);
	}
	free(payload);
	wpp_thread_grammar_free(&tg);
	return rc;
}

/* ---- --raw-out ---- */

/* Writes terminals as little-endian u32 words.  A write error is kept
 * (reported once at the end), not returned: the tap's failure would be
 * indistinguishable from running out of memory. */
struct raw_writer {
	FILE *f;
	int write_errno;
	uint64_t gaps;
	uint64_t written, max; /* max 0: no limit */
};

static int raw_write_terminals(void *ctx, const uint32_t *terminals, size_t n)
{
	struct raw_writer *w = ctx;
	uint8_t buf[4096];
	size_t k = 0;

	if (w->max && n > w->max - w->written)
		n = (size_t)(w->max - w->written);
	w->written += n;
	for (size_t i = 0; i < n && !w->write_errno; i++) {
		for (int b = 0; b < 4; b++)
			buf[k++] = (uint8_t)(terminals[i] >> (8 * b));
		if (k == sizeof(buf) || i + 1 == n) {
			if (fwrite(buf, 1, k, w->f) != k)
				w->write_errno = errno ? errno : EIO;
			k = 0;
		}
	}
	return 0;
}

static void raw_gap(void *ctx)
{
	((struct raw_writer *)ctx)->gaps++;
}

/* `--raw-out FILE`: one thread's path stream, read from its batches (no
 * grammar is built), as the dense terminals the grammar is built over —
 * `wpptrace wpp --from-raw FILE` gives that grammar back, and other
 * compressors can be run on the same bytes.  A raw stream has no gap
 * marker: segments are joined, and said so. */
static int export_raw(const struct wpp_opts *o, const struct wpp_thread_trace *th)
{
	struct raw_writer w = {.max = (uint64_t)o->raw_max};
	struct path_terminal_tap tap = {.out = raw_write_terminals, .gap = raw_gap, .ctx = &w};
	struct wpp_thread_grammar tg;
	struct out_file of;

	if (out_file_create(&of, o->raw_out, "wpp") < 0)
		return WPP_EXIT_ERROR;
	if (!(w.f = out_file_stdio(&of, "wpp")) || thread_stream_export(th, &tap, &tg) < 0) {
		out_file_discard(&of);
		return WPP_EXIT_ERROR;
	}
	if (w.write_errno) {
		wpp_err("wpp: writing %s failed: %s", o->raw_out, strerror(w.write_errno));
		out_file_discard(&of);
		wpp_thread_grammar_free(&tg);
		return WPP_EXIT_ERROR;
	}
	if (out_file_commit(&of, "wpp") < 0) {
		wpp_thread_grammar_free(&tg);
		return WPP_EXIT_ERROR;
	}
	char part[64] = "";
	if (w.written < tg.hdr.nsymbols)
		snprintf(part, sizeof(part), "the first %" PRIu64 " of ", w.written);
	wpp_info("wpp: thread %" PRIu32 ": %s%" PRIu64 " symbols (%" PRIu32
		 " distinct paths, numbered as wpp prints them: pN is N) written to %s%s",
		 th->tid, part, tg.hdr.nsymbols, tg.hdr.nterminals, o->raw_out,
		 w.gaps ? "; its segments are joined (the raw format has no gaps)" : "");
	wpp_thread_grammar_free(&tg);
	return WPP_EXIT_OK;
}

/* --store: a grammar built from the batches goes into the file as a
 * GRAMMAR chunk after the END chunk, so later analyses read it instead of
 * building it again (readers take a thread's last GRAMMAR chunk wherever
 * it is).  *w is opened at the first one.  0, or -1 after an error line. */
static int store_grammar(const char *path, const struct wpp_thread_grammar *tg,
			 struct wpp_writer **w, uint32_t *stored)
{
	uint8_t *payload = NULL;
	size_t len = 0;

	if (wpp_grammar_chunk_encode(tg, &payload, &len) < 0)
		wpp_die("out of memory");
	if (len > WPP_CHUNK_MAX_PAYLOAD) {
		wpp_warn("wpp: thread %" PRIu32 ": its grammar (%zu bytes) is larger than a chunk; "
			 "not stored",
			 tg->hdr.tid, len);
		free(payload);
		return 0;
	}
	if (!*w && !(*w = wppw_open_append(path))) {
		free(payload);
		return -1;
	}
	int err = wppw_chunk(*w, WPP_CHUNK_GRAMMAR, payload, (uint32_t)len);
	free(payload);
	if (err)
		return -1;
	(*stored)++;
	return 0;
}

struct raw_report {
	const struct wpp_opts *o;
};

/* What o asks of each thread's report. */
static struct wpp_queries queries(const struct wpp_opts *o)
{
	return (struct wpp_queries){o->max_rules, o->context_len, o->freq,
				    o->context,	  o->order,	  o->json ? o->json_out : NULL};
}

static int report_raw_grammar(void *ctx, const struct wpp_thread_grammar *tg, uint32_t index)
{
	(void)index; /* the writer places the commas between them */
	const struct wpp_opts *o = ((struct raw_report *)ctx)->o;

	if (o->expand)
		return expand_thread(tg) < 0 ? WPP_EXIT_ERROR : WPP_EXIT_OK;
	struct wpp_queries q = queries(o);
	return wpp_thread_report(&q, tg, NULL, "from raw symbols");
}

/* {"file": ..., "threads": [ — each thread on a line of its own
 * (lead: the first one too). */
static void json_document(const struct wpp_opts *o, const char *path, int lead)
{
	json_object(o->json_out, NULL);
	json_string(o->json_out, "file", path);
	json_array_lines(o->json_out, "threads", ",\n  ", "");
	if (lead)
		json_raw(o->json_out, "\n  ");
}

static void json_end(const struct wpp_opts *o)
{
	json_close(o->json_out);
	json_close(o->json_out);
	json_raw(o->json_out, "\n");
}

/* A file written by --from-raw: no threads, raw GRAMMAR chunks.
 * integrity: the file's exit status so far (its line already printed). */
static int report_raw_file(const struct wpp_opts *o, struct wpp_trace *t, int integrity)
{
	struct raw_report ctx = {o};
	uint32_t n;

	if (o->json)
		json_document(o, t->path, 0);
	int rc = thread_grammar_for_each_raw(t, report_raw_grammar, &ctx, &n);
	if (rc < 0)
		rc = WPP_EXIT_ERROR;
	if (o->json)
		json_end(o);
	if (!n && integrity == WPP_EXIT_OK)
		wpp_warn("%s: no threads and no grammars", t->path);
	return rc != WPP_EXIT_OK ? rc : integrity;
}

/* --raw-out needs exactly one thread: the filter picks it. */
static int raw_out_one(const struct wpp_opts *o, struct session *s, const char *path)
{
	const struct wpp_thread_trace *one = NULL;
	size_t n = 0;

	if (o->store || o->expand || o->json || o->freq || o->context || o->order || o->rebuild) {
		wpp_err("wpp: --raw-out takes no other output option");
		return WPP_EXIT_USAGE;
	}
	for (size_t i = 0; i < s->trace->nthreads; i++)
		if (thread_selected(&o->filter, &s->trace->threads[i]) && n++ == 0)
			one = &s->trace->threads[i];
	if (n != 1) {
		wpp_err(
		    "wpp: --raw-out writes one thread; %zu in %s match (choose with --pid, --tid "
		    "and, for a thread that exec()ed, --gen)",
		    n, path);
		return WPP_EXIT_USAGE;
	}
	return export_raw(o, one);
}

/* Everything after the options: one .wpp file's report. */
static int wpp_report_file(struct wpp_opts *o, const char *path)
{
	int rc;

	struct session s;
	if ((rc = session_open(&s, path)))
		return rc;
	rc = s.exit_status;
	/* A --from-raw file has grammars but no threads (nor modules). */
	if (s.trace->nthreads == 0) {
		rc = report_raw_file(o, s.trace, rc);
		session_close(&s);
		return rc;
	}
	if (session_refuse_counts(&s, "wpp", path, &o->filter)) {
		session_close(&s);
		return WPP_EXIT_ERROR;
	}
	if (o->store && !s.trace->has_end) {
		/* a recorder may still be writing it, at its own offset */
		wpp_err("wpp: --store needs a finished recording; %s has no END chunk", path);
		session_close(&s);
		return WPP_EXIT_ERROR;
	}
	if (o->raw_max && !o->raw_out) {
		wpp_err("wpp: --raw-max goes with --raw-out");
		session_close(&s);
		return WPP_EXIT_USAGE;
	}
	if (o->raw_out) {
		rc = raw_out_one(o, &s, path);
		session_close(&s);
		return rc;
	}
	struct wpp_writer *store_to = NULL;
	uint32_t stored = 0;
	struct grammar_builds builds = {0};
	if (o->json && !o->expand)
		json_document(o, path, 1);
	int any = 0;
	for (size_t i = 0; i < s.trace->nthreads; i++) {
		const struct wpp_thread_trace *th = &s.trace->threads[i];
		struct wpp_thread_grammar tg;
		enum grammar_origin origin = GRAMMAR_REBUILT;
		int err;

		if (!thread_selected(&o->filter, th))
			continue;
		any = 1;
		err = o->rebuild ? thread_grammar_rebuild(th, &tg)
				 : thread_grammar_load(s.trace, th, &tg, &origin, &builds);
		if (err < 0) {
			rc = WPP_EXIT_ERROR;
			break;
		}
		if (o->store && (o->rebuild || origin == GRAMMAR_REBUILT) &&
		    store_grammar(path, &tg, &store_to, &stored) < 0) {
			rc = WPP_EXIT_ERROR;
			wpp_thread_grammar_free(&tg);
			break;
		}
		if (o->expand) {
			if (expand_thread(&tg) < 0)
				wpp_die("out of memory");
		} else {
			struct terminal_info *info =
			    calloc(tg.hdr.nterminals ? tg.hdr.nterminals : 1, sizeof(*info));
			if (!info || thread_grammar_describe(&tg, s.mods, info) < 0)
				wpp_die("out of memory");
			static const char *const origins[] = {
			    [GRAMMAR_RECORDED] = "recorded online",
			    [GRAMMAR_STORED] = "stored from the batches",
			    [GRAMMAR_REBUILT] = "rebuilt from the batches"};
			struct wpp_queries q = queries(o);
			err = wpp_thread_report(&q, &tg, info, origins[origin]);
			free(info);
			if (err) {
				rc = err;
				wpp_thread_grammar_free(&tg);
				break;
			}
		}
		wpp_thread_grammar_free(&tg);
	}
	if (o->json && !o->expand)
		json_end(o);
	if (!any && rc != WPP_EXIT_ERROR)
		rc = no_thread_selected("wpp", path, &o->filter, rc);
	if (!o->store)
		thread_grammar_suggest_store("wpp", path, &builds);
	if (store_to && wppw_finish(store_to) < 0)
		rc = WPP_EXIT_ERROR;
	if (o->store && rc == WPP_EXIT_OK)
		wpp_info("wpp: stored %" PRIu32 " grammar%s in %s", stored, stored == 1 ? "" : "s",
			 path);
	session_close(&s);
	return rc;
}

static const struct opt_command wpp_cmd = {
    .name = "wpp",
    .usage = "wpp run.wpp [options]\n"
	     "wpp --from-raw trace.u32 -o g.wpp [--grammar-builder chunked|sequitur]\n"
	     "wpp run.wpp [--pid P] [--tid T] [--gen G] --raw-out trace.u32 [--raw-max N]",
    .about =
	"Per thread: the grammar of its path stream (chunked SEQUITUR(1); recorded online by\n"
	"record, or rebuilt from the batches): input length, rules, grammar size and\n"
	"ratio, serialized size, the rules covering most of the stream, path\n"
	"frequencies.  SEQ is a comma-separated list of paths, each pN (as printed in a\n"
	"thread's paths table: each thread numbers its own, so use --tid with it) or\n"
	"FUNCTION:PATHID (the same path in every thread).\n"
	"A recording of -fwpp-mode=count code holds counts, not order: refused in one line.\n"};

/* --grammar-builder: how grammars built here are built */
static int set_builder(const struct opt *self, const char *arg)
{
	return grammar_builder_parse("wpp", arg, self->ctx);
}

/* How many options were given that --from-raw does not take. */
static unsigned from_raw_others(const struct opt *table)
{
	unsigned n = 0;

	for (const struct opt *t = table; t->type != OPT_END; t++)
		if (t->long_name && strcmp(t->long_name, "from-raw") &&
		    strcmp(t->long_name, "output") && strcmp(t->long_name, "grammar-builder"))
			n += t->given;
	return n;
}

int cmd_wpp(int argc, char **argv)
{
	struct wpp_opts o = {.filter = THREAD_FILTER_ANY,
			     .max_rules = 20,
			     .context_len = 1,
			     .grammar_algo = SEQ_CHUNKED};
	const char *freq = NULL, *context = NULL, *order = NULL;
	int rc = WPP_EXIT_OK, first;
	struct json_out json_out;
	struct opt table[] = {
	    OPTS_THREADS(o.filter),
	    OPT_FORMAT(&o.json, opt_text_json),
	    OPT_COUNT_('n', "max-rules", "N", "rules and paths listed", &o.max_rules, 0, LONG_MAX,
		       OPT_SHOW_DEFAULT),
	    OPT_STRING_(0, "freq", "SEQ", "how often SEQ ran (consecutively)", &freq),
	    OPT_STRING_(0, "context", "SEQ", "what ran K paths before and after SEQ, with counts",
			&context),
	    OPT_COUNT_(0, "context-len", "K", "with --context: K (1..64)", &o.context_len, 1, 64,
		       OPT_SHOW_DEFAULT),
	    OPT_STRING_(0, "order", "SEQ",
			"where each path first and last ran, and which ran\n"
			"before which (at most 16 paths)",
			&order),
	    OPT_FLAG_(0, "expand", "print the expanded stream (\"fid path\" lines, \"gap\")",
		      &o.expand),
	    OPT_FLAG_(0, "rebuild", "ignore a recorded grammar, rebuild from the batches",
		      &o.rebuild),
	    OPT_FLAG_(0, "store",
		      "keep the grammars built from the batches in the file\n"
		      "(GRAMMAR chunks after its END), so later wpp/hot runs read them",
		      &o.store),
	    OPT_CALL_(0, "grammar-builder", "chunked|sequitur",
		      "how grammars built here are built: chunked (default:\n"
		      "runs and chunks around SEQUITUR(1)) or sequitur (one-level\n"
		      "SEQUITUR(1)); the stream they stand for is the same",
		      set_builder, &o.grammar_algo, 0),
	    OPT_STRING_(0, "from-raw", "F",
			"with -o OUT: the grammar of a raw stream of little-endian\n"
			"32-bit symbols",
			&o.from_raw),
	    OPT_OUTPUT(&o.output, "with --from-raw: the file to write"),
	    OPT_STRING_(0, "raw-out", "F",
			"write one thread's path stream as such a stream (pN as N),\n"
			"read from the batches without building a grammar",
			&o.raw_out),
	    OPT_COUNT_(0, "raw-max", "N", "with --raw-out: only the first N symbols", &o.raw_max, 1,
		       LONG_MAX, 0),
	    OPT_END_,
	};

	if ((rc = opts_parse(&wpp_cmd, table, argc, argv, &first)) != 0)
		return rc > 0 ? WPP_EXIT_OK : WPP_EXIT_USAGE;
	json_init(&json_out, stdout, 1);
	o.json_out = &json_out;
	int others = (int)from_raw_others(table),
	    max_rules_set = (int)opt_given(table, "max-rules");
	int context_len_set = (int)opt_given(table, "context-len");
	thread_grammar_set_builder(o.grammar_algo);
	if (o.from_raw) {
		if (!o.output || first != argc || others) {
			wpp_err("wpp: --from-raw FILE needs -o OUT.wpp and no other file or option "
				"(ask wpp OUT.wpp afterwards)");
			return WPP_EXIT_USAGE;
		}
		return from_raw(&o);
	}
	if (o.output) {
		wpp_err("wpp: -o goes with --from-raw (the report goes to standard output)");
		return WPP_EXIT_USAGE;
	}
	if (o.expand && (o.json || freq || context || order || max_rules_set)) {
		wpp_err("wpp: --expand prints the stream alone; it takes no --format json, "
			"--max-rules, --freq, --context or --order");
		return WPP_EXIT_USAGE;
	}
	if (first != argc - 1) {
		wpp_err("wpp: expected one .wpp file (try wpptrace help wpp)");
		return WPP_EXIT_USAGE;
	}
	if (context_len_set && !context) {
		wpp_err("wpp: --context-len goes with --context");
		return WPP_EXIT_USAGE;
	}
	if (o.raw_out && same_file(argv[first], o.raw_out)) {
		wpp_err("wpp: --raw-out %s is the recording itself", o.raw_out);
		return WPP_EXIT_USAGE;
	}
	/* The SEQ options' syntax is checked before anything is printed. */
	struct spec_list lists[3];
	const char *texts[3] = {freq, context, order}, *names[3] = {"freq", "context", "order"};
	struct spec_list **slots[3] = {&o.freq, &o.context, &o.order};
	for (int i = 0; i < 3; i++) {
		if (!texts[i])
			continue;
		if (parse_spec_list(names[i], texts[i], &lists[i]) < 0) {
			while (i-- > 0)
				if (*slots[i])
					spec_list_free(*slots[i]);
			return WPP_EXIT_USAGE;
		}
		*slots[i] = &lists[i];
	}
	if (o.order && o.order->n > 16) {
		wpp_err("wpp: --order takes at most 16 paths");
		rc = WPP_EXIT_USAGE;
	} else {
		rc = wpp_report_file(&o, argv[first]);
	}
	for (int i = 0; i < 3; i++)
		if (*slots[i]) {
			if (rc == WPP_EXIT_OK || rc == WPP_EXIT_INCOMPLETE) {
				int bad = unmatched_specs(*slots[i], names[i]);
				rc = bad ? bad : rc;
			}
			spec_list_free(*slots[i]);
		}
	return rc;
}
