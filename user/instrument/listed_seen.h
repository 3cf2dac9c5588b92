/* SPDX-License-Identifier: MIT */
/*
 * listed_seen.h — how the pass tells wppcc which functions of a
 * hand-written interesting-path list (wpp/interesting.h) a build compiled.
 * A translation unit sees only its own functions, so only wppcc, around
 * the whole clang run, can say that a listed name matched none (misspelt,
 * or inlined away): it opens a report file, passes its descriptor in
 * WPP_LISTED_SEEN_FD (set or cleared by wppcc itself, never inherited),
 * and reads it when clang is done.
 *
 * Each unit compiled with the list appends, in one write (the file is
 * O_APPEND), the line WPP_LISTED_SEEN_UNIT and then one line per listed
 * name it compiled.  No unit line: the pass never ran (nothing to say).
 */
#ifndef WPP_INSTRUMENT_LISTED_SEEN_H
#define WPP_INSTRUMENT_LISTED_SEEN_H

#define WPP_LISTED_SEEN_FD_ENV "WPP_LISTED_SEEN_FD"
#define WPP_LISTED_SEEN_UNIT   "#unit"

#endif
