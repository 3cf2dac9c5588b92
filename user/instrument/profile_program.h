/* SPDX-License-Identifier: MIT */
/*
 * profile_program.h — was a training profile (--wpp-profile), or a
 * recorded interesting set (--wpp-interesting), recorded from another
 * program?  Issue 27: a profile of program A given to a
 * build of program B matches none of B's functions, and every function
 * came out untrained without a word.
 *
 * The rule, and why it is sound with one translation unit in sight: a
 * function absent from a profile is normal (the training run never called
 * it, or its file was compiled without wppcc), so absence proves nothing.
 * But every program runs its main, so a profile of this program names a
 * main, and that main's source file is the one this build compiles main
 * from.  A profile whose main comes from a file of another name was made
 * by another program (or main moved to another file since: stale either
 * way).  Only the unit defining main asks, so a build says it once.  A
 * profile without a main (a recording attached after main's paths had
 * ended, a library's) or an old one without sources says nothing.  Files
 * are compared by their last path component: the same program compiled
 * from another directory, or named differently (src/lua.c, ./lua.c), is
 * the same program.
 */
#ifndef WPP_INSTRUMENT_PROFILE_PROGRAM_H
#define WPP_INSTRUMENT_PROFILE_PROGRAM_H

#include <stddef.h>

/* 1 when their_main (the source file of the profile's main, as the
 * profile writes it; NULL: none) is another file than source (source_len
 * bytes, the unit's main source as given to the compiler). */
int wpp_profile_other_program(const char *their_main, const char *source, size_t source_len);

#endif
