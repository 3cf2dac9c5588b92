/* SPDX-License-Identifier: MIT */
/*
 * wppcc_convert.h — wppcc options that take a file the pass reads (an edge
 * profile for --wpp-profile, an interesting-path set for
 * --wpp-interesting) also take a recording: it is converted once, by the
 * wpptrace next to wppcc (`wpptrace COMMAND -q run.wpp -o OUT`), into a
 * per-user cache keyed by the recording's path, identity, size and
 * modification time, so a project's many compiles share one conversion.
 * Either way the file is checked here first, so a corrupt one stops the
 * build with one error line instead of reaching the plugin.
 */
#ifndef WPPCC_CONVERT_H
#define WPPCC_CONVERT_H

#include <stddef.h>

struct wppcc_converter {
	const char *option;  /* "--wpp-profile", for messages */
	const char *command; /* the wpptrace command converting a recording */
	/* Parse the file at path; 0, or -1 with a reason in why. */
	int (*check)(const char *path, char *why, size_t whylen);
};

/* The absolute path of a checked file for given (a recording is converted)
 * into out; bindir is wppcc's own directory.  0, or -1 with a one-line
 * reason in why. */
int wppcc_convert_resolve(const struct wppcc_converter *k, const char *given, const char *bindir,
			  char *out, size_t outlen, char *why, size_t whylen);

#endif
