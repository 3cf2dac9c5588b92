/* SPDX-License-Identifier: MIT */
/*
 * report_html.h — what the HTML renderings (report_html.c: the report page;
 * report_diff.c: the diff page) share: the string table of the page's data
 * and the page itself (user/report/report_page.html, embedded in the
 * binary).
 *
 * Page data is one JSON object.  Every string is stored once in its "S"
 * array and rows refer to strings by index (html_str), so names and path
 * texts repeated over 100k rows cost 100k small integers, not 100k copies.
 * "kind" says which page to draw ("report" or "diff").
 */
#ifndef WPP_REPORT_REPORT_HTML_H
#define WPP_REPORT_REPORT_HTML_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "report/report_out.h"

struct html_strtab {
	char **s;
	size_t n, cap;
	uint32_t *slot; /* open addressing: index + 1, 0 = empty */
	size_t nslot;
};

/* Index of s in the table (added on first use; NULL is ""). */
uint32_t html_str(struct html_strtab *t, const char *s);
/* Index of the path's text (path_text.h), or with spans set of its line
 * spans per file (rpt_spans). */
uint32_t html_path_text(struct html_strtab *t, const struct rpt_path *r, int spans);
void html_strtab_free(struct html_strtab *t);

/* The page; its data is {"kind":KIND,"file":FILE,"S":[strings],BODY}
 * where body[0..len) holds the remaining members and the closing brace,
 * written by a JSON writer that continued the object
 * (json_object_continued) and closed it; made safe inside the page's
 * <script> element. */
void html_emit_page(FILE *out, const char *kind, const char *file, const struct html_strtab *st,
		    const char *body, size_t len);

/* `report A --diff B --html`: the diff as a page (report_diff.c). */
void rpt_print_diff_html(FILE *out, const struct rpt_profile *a, const struct rpt_profile *b,
			 const struct rpt_options *o);

#endif
