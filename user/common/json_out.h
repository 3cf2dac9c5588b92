/* SPDX-License-Identifier: MIT */
/*
 * json_out.h — the JSON the commands print: quoted strings, and a small
 * streaming writer that puts the commas and the key quoting in one place.
 *
 * The writer keeps, per open object or array, whether a member was written
 * yet, so callers say what they write (a key, a number, a nested array)
 * and never where the commas go.  Two spacings exist because the commands'
 * documented outputs use both: compact ("a":1,"b":2 — paths, kpaths,
 * script, info) and spaced ("a": 1, "b": 2 — wpp, hot); an array may also
 * put each element on its own line (json_open_lines).  Values the writer
 * does not know (a report module's own JSON) follow json_key().
 */
#ifndef WPP_COMMON_JSON_OUT_H
#define WPP_COMMON_JSON_OUT_H

#include <stdint.h>
#include <stdio.h>

/* Write s as a JSON string literal (escaping quotes, backslashes, control
 * bytes; other bytes pass through, so UTF-8 stays UTF-8). */
void json_str(FILE *f, const char *s);

#define JSON_MAX_DEPTH 16

struct json_level {
	char close;	   /* '}' or ']' */
	char empty;	   /* no member yet */
	const char *comma; /* between members */
	const char *lead;  /* before every member */
	const char *next;  /* json_next_comma's, once (NULL: comma) */
};

struct json_out {
	FILE *f;
	const char *comma, *colon; /* "," ":" (compact) or ", " ": " (spaced) */
	int depth;		   /* open objects and arrays */
	struct json_level level[JSON_MAX_DEPTH];
};

/* A writer to f; spaced: ", " and ": " instead of "," and ":". */
void json_init(struct json_out *j, FILE *f, int spaced);

/* Members: key is the member's name inside an object, NULL inside an
 * array (or for the document itself). */
void json_key(struct json_out *j, const char *key); /* then write the value to j->f */
void json_string(struct json_out *j, const char *key, const char *s); /* NULL: null */
void json_u64(struct json_out *j, const char *key, uint64_t v);
void json_i64(struct json_out *j, const char *key, int64_t v);
void json_bool(struct json_out *j, const char *key, int v);
void json_null(struct json_out *j, const char *key);
/* A number as printf's fmt writes it ("%.6f", "%.0f"). */
void json_double(struct json_out *j, const char *key, const char *fmt, double v);

void json_object(struct json_out *j, const char *key);
void json_array(struct json_out *j, const char *key);
/* An array whose members each start with lead ("\n  ") and are separated
 * by comma (",") instead of the writer's own. */
void json_array_lines(struct json_out *j, const char *key, const char *comma, const char *lead);
/* The next member of the innermost object or array follows this instead
 * of the usual comma (",\n   ": a list that starts a line). */
void json_next_comma(struct json_out *j, const char *comma);
/* Continue an object whose '{' and first members were written elsewhere
 * (a document written in two parts, its head last: the report page's
 * data): the next member gets a comma, and json_close writes the '}'. */
void json_object_continued(struct json_out *j);
/* Close the innermost object or array. */
void json_close(struct json_out *j);
/* Text written as it is, outside the member bookkeeping (a newline after
 * the document, a layout break). */
void json_raw(struct json_out *j, const char *text);

#endif
