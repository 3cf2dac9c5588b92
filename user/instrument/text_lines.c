/* SPDX-License-Identifier: MIT */
/* text_lines.c — bounded reading of untrusted text files (see text_lines.h). */
#include "instrument/text_lines.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct wpp_text_cursor wpp_text_cursor(const char *text, size_t len, char *why, size_t whylen)
{
	return (struct wpp_text_cursor){text, text + len, 0, why, whylen};
}

int wpp_text_fail(struct wpp_text_cursor *c, const char *fmt, ...)
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

int wpp_text_next_line(struct wpp_text_cursor *c, const char **s, const char **e)
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

int wpp_text_field_u64(const char **pp, const char *e, int hex, uint64_t max, uint64_t *out)
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

int wpp_text_is_name(const char *s, const char *e)
{
	if (s >= e)
		return 0;
	for (; s < e; s++)
		if ((unsigned char)*s < 0x21 || *s == 0x7f)
			return 0;
	return 1;
}

int wpp_text_slurp(const char *path, size_t max, char **buf, size_t *len, char *why, size_t whylen)
{
	FILE *f = fopen(path, "re");
	size_t n = 0, cap = 0;
	char *b = NULL;

	*buf = NULL;
	*len = 0;
	if (!f) {
		snprintf(why, whylen, "%s", strerror(errno));
		return -1;
	}
	for (;;) {
		if (n == cap) {
			size_t ncap = cap ? cap * 2 : 1 << 16;
			char *nb;
			if (cap > max) {
				snprintf(why, whylen, "larger than %zu bytes", max);
				goto fail;
			}
			if (!(nb = realloc(b, ncap + 1))) {
				snprintf(why, whylen, "out of memory");
				goto fail;
			}
			b = nb;
			cap = ncap;
		}
		size_t got = fread(b + n, 1, cap - n, f);
		n += got;
		if (got == 0)
			break;
	}
	if (ferror(f)) {
		snprintf(why, whylen, "read error");
		goto fail;
	}
	if (n > max) {
		snprintf(why, whylen, "larger than %zu bytes", max);
		goto fail;
	}
	fclose(f);
	b[n] = 0;
	*buf = b;
	*len = n;
	return 0;
fail:
	free(b);
	fclose(f);
	return -1;
}
