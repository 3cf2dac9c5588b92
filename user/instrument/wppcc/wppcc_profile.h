/* SPDX-License-Identifier: MIT */
/*
 * wppcc_profile.h — `--wpp-profile=FILE`: the edge profile the pass places
 * increments by (wpp/edge_profile.h).  FILE is an edge profile (from
 * `wpptrace edges`) or a recording: a recording is converted once, by the
 * wpptrace next to wppcc, into a per-user cache keyed by the recording's
 * path, identity, size and modification time, so a project's many compiles
 * share one conversion.  Either way the profile is parsed here first, so a
 * corrupt one stops the build with one error line instead of reaching the
 * plugin.
 */
#ifndef WPPCC_PROFILE_H
#define WPPCC_PROFILE_H

#include <stddef.h>

/* The absolute path of a checked edge profile for given into out; bindir
 * is wppcc's own directory.  0, or -1 with a one-line reason in why. */
int wppcc_profile_resolve(const char *given, const char *bindir, char *out, size_t outlen,
			  char *why, size_t whylen);

#endif
