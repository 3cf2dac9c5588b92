/* SPDX-License-Identifier: MIT */
/*
 * wpp_thread_report.h — what `wpptrace wpp` prints of one thread's grammar:
 * the stream's and the grammar's sizes, the rules covering most of the
 * stream, the most frequent paths, and the answers to the SEQ queries
 * (--freq, --context, --order), as text or JSON (docs/cli.md, wpp).  The
 * SEQ options are parsed here too, before any file is read, and checked
 * after the last thread for paths that named nothing.
 */
#ifndef WPP_CLI_WPP_THREAD_REPORT_H
#define WPP_CLI_WPP_THREAD_REPORT_H

#include <stddef.h>
#include <stdint.h>

#include "common/json_out.h"
#include "collect/thread_grammar.h"

/* One element of a SEQ option, parsed before any file is read: "pN"
 * (terminal N as printed) or "FUNCTION:PATHID". */
struct path_spec {
	const char *text; /* as the user typed it (within struct spec_list's copy) */
	int by_number;
	unsigned long long number; /* N, or PATHID */
	size_t fn_len;		   /* FUNCTION is text[0 .. fn_len) */
	int matched;		   /* named a path in some reported thread */
};

struct spec_list {
	char *copy; /* the option's text, split at the commas */
	struct path_spec *v;
	uint32_t n;
};

/* Resolved: the spec names nothing in this thread. */
#define SPEC_NONE UINT32_MAX

/* Syntax only: 0, or -1 after one error line naming the option (--OPT). */
int parse_spec_list(const char *opt, const char *text, struct spec_list *l);
void spec_list_free(struct spec_list *l);
/* After every thread: a spec that named nothing anywhere is most likely a
 * typo; 0, or WPP_EXIT_USAGE after one error line. */
int unmatched_specs(const struct spec_list *l, const char *opt);

/* What the command line asks of each thread's report. */
struct wpp_queries {
	long max_rules;				  /* rules and paths listed */
	long context_len;			  /* --context-len */
	struct spec_list *freq, *context, *order; /* parsed SEQ options, or NULL */
	struct json_out *json;			  /* the document; NULL: text on stdout */
};

/* One thread (a raw grammar: info NULL); origin says where its grammar
 * came from.  0, or WPP_EXIT_USAGE after one error line (a SEQ path that is
 * ambiguous in this thread), before anything of the thread is printed. */
int wpp_thread_report(const struct wpp_queries *q, const struct wpp_thread_grammar *tg,
		      const struct terminal_info *info, const char *origin);

#endif
