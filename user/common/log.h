/* SPDX-License-Identifier: MIT */
/*
 * log.h — how wpptrace speaks: every message goes to stderr, prefixed with
 * "wpptrace: ", one line each.  wpp_die() is for the CLI layer only; library
 * code returns errors (negative errno or -1 with a message already printed).
 */
#ifndef WPP_LOG_H
#define WPP_LOG_H

#include <stdarg.h>

void wpp_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void wpp_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void wpp_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
_Noreturn void wpp_die(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Set by -q / -v; info is printed at verbosity >= 1 (default 1). */
extern int wpp_verbosity;

#endif
