/* SPDX-License-Identifier: MIT */
/*
 * wppcc_interesting.h — `--wpp-interesting=FILE[,FILE...]`: the paths
 * preferential path profiling numbers compactly (wpp/interesting.h).
 * Each FILE is a recording (converted through `wpptrace interesting` into
 * the cache, wppcc_convert.h), a recorded set, or a hand-written
 * `FUNCTION PATH_ID` list; the union is checked here, so a corrupt file
 * stops the build with one error line before the plugin runs.
 */
#ifndef WPPCC_INTERESTING_H
#define WPPCC_INTERESTING_H

#include <stddef.h>

#include "instrument/interesting_read.h"

/* The checked files' absolute paths, one per line, into out (what the
 * pass reads from WPP_INTERESTING), and their union into *set (the
 * caller frees it; wppcc_listed.h looks at its hand-written entries);
 * bindir is wppcc's own directory.  0, or -1 with a one-line reason in
 * why (*set then empty). */
int wppcc_interesting_resolve(const char *given, const char *bindir, char *out, size_t outlen,
			      struct wpp_interesting *set, char *why, size_t whylen);

#endif
