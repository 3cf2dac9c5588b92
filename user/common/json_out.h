/* SPDX-License-Identifier: MIT */
/* json_out.h — the little JSON the report commands need: quoted strings. */
#ifndef WPP_CLI_JSON_OUT_H
#define WPP_CLI_JSON_OUT_H

#include <stdio.h>

/* Write s as a JSON string literal (escaping quotes, backslashes, control
 * bytes; other bytes pass through, so UTF-8 stays UTF-8). */
void json_str(FILE *f, const char *s);

#endif
