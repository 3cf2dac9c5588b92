/* SPDX-License-Identifier: MIT */
/*
 * text_lines.h — the line-oriented text files the pass reads (edge
 * profiles, interesting-path sets) come from users and other builds, so
 * they are untrusted: this is the shared, bounded way to read them.  A
 * whole file is read into memory up to a size limit; lines are walked
 * with their numbers so every error names the line it is on; numeric
 * fields are range-checked without strtoull's leniency (no sign, no
 * spaces, no overflow).  LLVM-independent.
 */
#ifndef WPP_INSTRUMENT_TEXT_LINES_H
#define WPP_INSTRUMENT_TEXT_LINES_H

#include <stddef.h>
#include <stdint.h>

struct wpp_text_cursor {
	const char *p, *end;
	size_t line; /* of the line last returned; 0 before the first */
	char *why;
	size_t whylen;
};

/* A cursor over [text, text + len) reporting into why. */
struct wpp_text_cursor wpp_text_cursor(const char *text, size_t len, char *why, size_t whylen);

/* Writes "line N: " (when a line was read) and the message into the
 * cursor's why; returns -1 so callers can `return wpp_text_fail(...)`. */
int wpp_text_fail(struct wpp_text_cursor *c, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* The next line (without its newline) into [*s, *e); 0 at the end. */
int wpp_text_next_line(struct wpp_text_cursor *c, const char **s, const char **e);

/* An unsigned decimal (or, with hex, exactly 16 lowercase hex digits)
 * field at *pp ending at a space or e, at most max; *pp moves past it and
 * one separating space.  0, or -1 when malformed or out of range. */
int wpp_text_field_u64(const char **pp, const char *e, int hex, uint64_t max, uint64_t *out);

/* 1 if [s, e) is a usable name field: non-empty, no space, control or
 * DEL byte. */
int wpp_text_is_name(const char *s, const char *e);

/* The whole file at path into a malloc'd buffer (*len bytes, plus a NUL
 * not counted), refusing files over max bytes.  0, or -1 with why (the
 * I/O error, or "larger than ..."). */
int wpp_text_slurp(const char *path, size_t max, char **buf, size_t *len, char *why, size_t whylen);

#endif
