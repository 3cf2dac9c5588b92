/* SPDX-License-Identifier: MIT */
/* The JSON writer (json_out.h): commas, keys and escaping in one place. */
#include "common/json_out.h"

#include <inttypes.h>
#include <stdlib.h>

void json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p == '"' || *p == '\\')
			fprintf(f, "\\%c", *p);
		else if (*p == '\n')
			fputs("\\n", f);
		else if (*p == '\t')
			fputs("\\t", f);
		else if (*p < 0x20 || *p == 0x7f)
			fprintf(f, "\\u%04x", *p);
		else
			fputc(*p, f);
	}
	fputc('"', f);
}

void json_init(struct json_out *j, FILE *f, int spaced)
{
	*j = (struct json_out){.f = f, .comma = spaced ? ", " : ",", .colon = spaced ? ": " : ":"};
}

void json_key(struct json_out *j, const char *key)
{
	if (j->depth > 0) {
		struct json_level *l = &j->level[j->depth - 1];
		if (!l->empty)
			fputs(l->next ? l->next : l->comma, j->f);
		l->next = NULL;
		fputs(l->lead, j->f);
		l->empty = 0;
	}
	if (key) {
		json_str(j->f, key);
		fputs(j->colon, j->f);
	}
}

void json_string(struct json_out *j, const char *key, const char *s)
{
	json_key(j, key);
	if (s)
		json_str(j->f, s);
	else
		fputs("null", j->f);
}

void json_u64(struct json_out *j, const char *key, uint64_t v)
{
	json_key(j, key);
	fprintf(j->f, "%" PRIu64, v);
}

void json_i64(struct json_out *j, const char *key, int64_t v)
{
	json_key(j, key);
	fprintf(j->f, "%" PRId64, v);
}

void json_bool(struct json_out *j, const char *key, int v)
{
	json_key(j, key);
	fputs(v ? "true" : "false", j->f);
}

void json_null(struct json_out *j, const char *key)
{
	json_key(j, key);
	fputs("null", j->f);
}

void json_double(struct json_out *j, const char *key, const char *fmt, double v)
{
	json_key(j, key);
	fprintf(j->f, fmt, v);
}

static void open_level(struct json_out *j, const char *key, char open, const char *comma,
		       const char *lead)
{
	json_key(j, key);
	if (j->depth == JSON_MAX_DEPTH)
		abort(); /* the nesting is the code's, never the input's: a caller's bug */
	fputc(open, j->f);
	j->level[j->depth++] = (struct json_level){open == '{' ? '}' : ']', 1, comma, lead, NULL};
}

void json_object(struct json_out *j, const char *key)
{
	open_level(j, key, '{', j->comma, "");
}

void json_object_continued(struct json_out *j)
{
	if (j->depth == JSON_MAX_DEPTH)
		abort(); /* as open_level */
	j->level[j->depth++] = (struct json_level){'}', 0, j->comma, "", NULL};
}

void json_array(struct json_out *j, const char *key)
{
	open_level(j, key, '[', j->comma, "");
}

void json_array_lines(struct json_out *j, const char *key, const char *comma, const char *lead)
{
	open_level(j, key, '[', comma, lead);
}

void json_next_comma(struct json_out *j, const char *comma)
{
	if (j->depth > 0)
		j->level[j->depth - 1].next = comma;
}

void json_close(struct json_out *j)
{
	if (j->depth == 0)
		abort(); /* closed more than it opened: a caller's bug */
	fputc(j->level[--j->depth].close, j->f);
}

void json_raw(struct json_out *j, const char *text)
{
	fputs(text, j->f);
}
