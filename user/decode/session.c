/* SPDX-License-Identifier: MIT */
#include "decode/session.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/exit_status.h"
#include "common/log.h"

struct reports {
	char **msgs;
	size_t n;
};

static void collect_report(void *ctx, const char *msg)
{
	struct reports *r = ctx;
	char **n = realloc(r->msgs, (r->n + 1) * sizeof(*n));

	if (!n || !(n[r->n] = strdup(msg)))
		wpp_die("out of memory");
	r->msgs = n;
	r->n++;
}

static void check_integrity(struct session *s)
{
	const struct wpp_trace *t = s->trace;

	/* Damaged compressed batches cost their own words, as gaps: a torn
	 * last chunk is the "no END" case below; damage inside the file is
	 * corruption, said once. */
	if (t->damaged_batches && (!t->stop_reason[0] || strncmp(t->stop_reason, "no END", 6))) {
		wpp_err("%s: corrupt: %" PRIu64
			" compressed batches damaged (first at offset %" PRIu64 "); their %" PRIu64
			" words are decoded as gaps",
			t->path, t->damaged_batches, t->first_damaged_offset, t->damaged_words);
		s->exit_status = WPP_EXIT_ERROR;
	}
	if (!t->stop_reason[0])
		return;
	if (!strncmp(t->stop_reason, "no END chunk", 12)) {
		wpp_warn(
		    "%s: no END chunk (the recording did not finish cleanly); decoding all %" PRIu64
		    " chunks",
		    t->path, t->nchunks);
		s->exit_status = WPP_EXIT_INCOMPLETE;
	} else if (!strncmp(t->stop_reason, "truncated", 9)) {
		wpp_warn("%s: %s; decoding the %" PRIu64 " intact chunks before it", t->path,
			 t->stop_reason, t->nchunks);
		s->exit_status = WPP_EXIT_INCOMPLETE;
	} else {
		wpp_err("%s: corrupt: %s; only the %" PRIu64 " chunks before it are decoded",
			t->path, t->stop_reason, t->nchunks);
		s->exit_status = WPP_EXIT_ERROR;
	}
}

/* metadata_optional: a trace nobody can decode is said as a warning (the
 * caller goes on without attribution) rather than an error.  Batches are
 * loaded on demand (session.h). */
static int open_session(struct session *s, const char *path, int metadata_optional)
{
	struct reports rep = {0};
	uint64_t words = 0;
	size_t usable = 0;
	int rc = 0;

	*s = (struct session){0};
	s->trace = wpp_trace_load_on_demand(path);
	if (!s->trace)
		return WPP_EXIT_ERROR;
	check_integrity(s);
	s->sym = wpp_sym_new();
	if (!s->sym)
		wpp_die("out of memory");
	s->mods = wpp_modules_new(s->trace, s->sym);

	/* Resolve every module up front so that a trace nobody can decode gets
	 * one error line instead of a warning per object. */
	wpp_sym_set_reporter(s->sym, collect_report, &rep);
	for (size_t i = 0; i < s->trace->nmodules; i++) {
		const struct wpp_module_rec *m = &s->trace->modules[i];
		usable +=
		    wpp_sym_tu(s->sym, m->path, m->build_id, m->build_id_len, m->tu_hash) != NULL;
	}
	wpp_sym_set_reporter(s->sym, NULL, NULL);
	for (size_t i = 0; i < s->trace->nthreads; i++)
		words += s->trace->threads[i].nwords;
	if (words && usable == 0) {
		void (*say)(const char *, ...) = metadata_optional ? wpp_warn : wpp_err;
		if (rep.n)
			say("%s: no usable path metadata: %s", path, rep.msgs[0]);
		else
			say("%s: %" PRIu64 " trace words but no MODULE records (was the program "
			    "built with wppcc?)",
			    path, words);
		rc = WPP_EXIT_ERROR;
	} else {
		for (size_t i = 0; i < rep.n; i++)
			wpp_warn("%s; %s", rep.msgs[i], WPP_SYM_UNATTRIBUTED);
	}
	for (size_t i = 0; i < rep.n; i++)
		free(rep.msgs[i]);
	free(rep.msgs);
	if (rc)
		session_close(s);
	return rc;
}

int session_open(struct session *s, const char *path)
{
	return open_session(s, path, 0);
}

int session_open_optional(struct session *s, const char *path)
{
	return open_session(s, path, 1);
}

const struct wpp_tu *session_find_tu(struct session *s, const struct thread_filter *f,
				     int (*pred)(const struct wpp_tu *))
{
	const struct wpp_thread_trace *last = NULL; /* the image looked at last */

	for (size_t i = 0; i < s->trace->nthreads; i++) {
		const struct wpp_thread_trace *th = &s->trace->threads[i];
		if ((f && !thread_selected(f, th)) ||
		    (last && th->pid == last->pid && th->generation == last->generation))
			continue; /* threads are sorted: one look per image */
		last = th;
		const struct wpp_image_map *im =
		    wpp_modules_image(s->mods, th->pid, th->generation);
		for (size_t r = 0; r < im->nranges; r++) {
			const struct wpp_tu *tu = im->ranges[r].tu;
			if (tu && pred(tu))
				return tu;
		}
	}
	return NULL;
}

static int counted(const struct wpp_tu *tu)
{
	return wpp_meta_mode_counts(tu->mode);
}

int session_refuse_counts(struct session *s, const char *cmd, const char *path,
			  const struct thread_filter *f)
{
	const struct wpp_tu *tu = session_find_tu(s, f, counted);
	if (!tu)
		return 0;
	wpp_err("%s: %s: %s was built with -fwpp-mode=%s: its paths were counted, not recorded "
		"in order, which %s needs (paths, report, annotate, cfg, export, edges and "
		"interesting read counts)",
		cmd, path, tu->source[0] ? tu->source : "a module",
		tu->mode == WPP_MODE_PPP   ? "ppp"
		: tu->mode == WPP_MODE_TPP ? "tpp"
					   : "count",
		cmd);
	return WPP_EXIT_ERROR;
}

void session_close(struct session *s)
{
	wpp_modules_free(s->mods);
	wpp_sym_free(s->sym);
	wpp_trace_free(s->trace);
	s->mods = NULL;
	s->sym = NULL;
	s->trace = NULL;
}

int thread_selected(const struct thread_filter *f, const struct wpp_thread_trace *th)
{
	/* Compared as long: a value past 2^32 matches nothing (a cast would
	 * have wrapped it onto a real id). */
	return (f->pid < 0 || f->pid == (long)th->pid) && (f->tid < 0 || f->tid == (long)th->tid) &&
	       (f->gen < 0 || f->gen == (long)th->generation);
}

int session_open_ordered(struct session *s, const char *cmd, const char *path,
			 const struct thread_filter *f)
{
	int rc = session_open(s, path);

	if (rc)
		return rc;
	if (session_refuse_counts(s, cmd, path, f)) {
		session_close(s);
		return WPP_EXIT_ERROR;
	}
	return 0;
}

long session_each_thread(struct session *s, const struct thread_filter *f, FILE *between,
			 int (*fn)(void *ctx, struct session *s, const struct wpp_thread_trace *th),
			 void *ctx)
{
	long listed = 0;

	for (size_t i = 0; i < s->trace->nthreads; i++) {
		const struct wpp_thread_trace *th = &s->trace->threads[i];
		if (!thread_selected(f, th))
			continue;
		if (between && listed)
			fputc('\n', between);
		if (fn(ctx, s, th) < 0)
			return -1;
		listed++;
	}
	return listed;
}

struct wpp_decoder *session_listing_decoder(struct session *s, const struct wpp_thread_trace *th,
					    FILE *heading)
{
	struct wpp_decoder *d = wpp_decoder_open(th, s->mods, WPP_DECODE_EXPAND);

	if (d && heading)
		fprintf(heading, "== pid %" PRIu32 " tid %" PRIu32 "%s ==\n", th->pid, th->tid,
			th->generation ? " (after exec)" : "");
	return d;
}

void thread_filter_text(const struct thread_filter *f, char *what, size_t len)
{
	size_t n = 0;

	what[0] = 0;
	if (f->pid >= 0)
		n += (size_t)snprintf(what + n, len - n, " --pid %ld", f->pid);
	if (f->tid >= 0 && n < len)
		n += (size_t)snprintf(what + n, len - n, " --tid %ld", f->tid);
	if (f->gen >= 0 && n < len)
		snprintf(what + n, len - n, " --gen %ld", f->gen);
}

int no_thread_selected(const char *cmd, const char *path, const struct thread_filter *f,
		       int exit_status)
{
	char what[96];

	thread_filter_text(f, what, sizeof(what));
	if (what[0]) {
		wpp_err("%s: no thread in %s matches%s (`wpptrace info %s` lists them)", cmd, path,
			what, path);
		return WPP_EXIT_USAGE;
	}
	if (exit_status == WPP_EXIT_OK) /* else the file's damage was said */
		wpp_warn("%s: %s holds no threads", cmd, path);
	return exit_status;
}

long parse_count(const char *s)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < 0)
		return -1;
	return v;
}

int parse_count_opt(const char *cmd, const char *name, const char *arg, long *out)
{
	long v = parse_count(arg);

	if (v < 0) {
		wpp_err("%s: --%s needs a number, not '%s'", cmd, name, arg);
		return -1;
	}
	*out = v;
	return 0;
}

void block_position(const struct wpp_fn *fn, uint32_t block, const char **file, uint32_t *line)
{
	const struct wpp_meta_line *l = wpp_fn_block_line(fn, block);

	*file = fn->file;
	*line = 0;
	if (l) {
		const char *f = wpp_tu_str(fn->tu, l->file_str);
		if (f[0])
			*file = f;
		*line = l->line;
	}
}
