/* SPDX-License-Identifier: MIT */
/*
 * report_html.c — `wpptrace report --html`: report_page.html (style and
 * script, embedded in the binary at build time) with the JSON report put in
 * place of its data marker.  Inside a <script> element the only dangerous
 * sequence is "</", so every '<' of the JSON becomes \u003c (it can only
 * occur inside JSON strings, where that escape means the same).
 */
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "report_out.h"

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

void rpt_print_html(FILE *out, const struct rpt_profile *p, const struct rpt_options *o)
{
	const char *mark = strstr(rpt_page_html, DATA_MARKER);
	char *json = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&json, &len);

	if (!mark || !mem)
		wpp_die("report: HTML template broken or out of memory");
	rpt_print_json(mem, p, o);
	if (fclose(mem) != 0)
		wpp_die("out of memory");
	fwrite(rpt_page_html, 1, (size_t)(mark - rpt_page_html), out);
	for (size_t i = 0; i < len; i++) {
		if (json[i] == '<')
			fputs("\\u003c", out);
		else
			fputc(json[i], out);
	}
	fputs(mark + strlen(DATA_MARKER), out);
	free(json);
}
