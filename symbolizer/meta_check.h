/* SPDX-License-Identifier: MIT */
/*
 * meta_check.h — the two checks every metadata parser (meta_parse.c,
 * meta_wet_parse.c, meta_tpp_parse.c) applies to hostile bytes: does a
 * table lie inside its region, and say why not in the caller's buffer.
 */
#ifndef WPP_SYMBOLIZER_META_CHECK_H
#define WPP_SYMBOLIZER_META_CHECK_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

/* Is [off, off + count * elem) inside a region of size bytes?  Callers
 * bound count below 2^32 and elem to a small struct, so the product
 * cannot wrap. */
static inline int wpp_meta_fits(uint64_t off, uint64_t count, uint64_t elem, uint64_t size)
{
	return off <= size && count * elem <= size - off;
}

/* Format why into err (when err and errlen are given); returns -1. */
int wpp_meta_fail(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* The same with a va_list, for parsers whose failures return another type. */
void wpp_meta_failv(char *err, size_t errlen, const char *fmt, va_list ap)
    __attribute__((format(printf, 3, 0)));

#endif
