/* SPDX-License-Identifier: MIT */
/*
 * wpp/edge_profile.h — the edge profile file: how often each edge of each
 * function's path DAG was taken in a recording (`wpptrace edges`), read
 * back by the pass (`wppcc --wpp-profile=FILE`) to place increments on the
 * edges that ran least (docs/instrumentation.md, "Profile-guided
 * placement").
 *
 * Text, one record per line, fields separated by one space:
 *
 *   wpp-edge-profile 2                      first line: magic and version
 *   # ...                                   comment (ignored)
 *   f STABLE_ID NEDGES NAME SOURCE          a function: its stable id (16 hex
 *                                           digits, meta_format.h), its DAG's
 *                                           edge count, its linkage name, its
 *                                           translation unit's main source
 *                                           file as given to the compiler
 *                                           (bytes <= 0x20 and 0x7f in
 *                                           either written as '?')
 *   e SRC DST KIND COUNT CHORD              NEDGES such lines follow each f,
 *                                           in metadata edge order (by source
 *                                           node, then Ball-Larus value): DAG
 *                                           nodes, enum wpp_edge_kind, times
 *                                           taken, 1 if the recorded build put
 *                                           code on it (inc != 0), else 0
 *
 * Functions appear once each, by increasing stable id.  The stable id
 * hashes the function's name, source file and CFG shape, so a profile
 * entry applies to a build exactly when the ids match and the edges agree;
 * a function whose name and source file are present under another id
 * changed since the profile was recorded.  (The name alone would not do:
 * static functions of one name live in many files.)
 *
 * Version 1 is version 2 without the SOURCE field; readers still accept
 * it, and there a function whose name alone is present under another id
 * counts as changed.  Readers treat the file as untrusted: every number
 * is range-checked, every line bounded.
 */
#ifndef WPP_EDGE_PROFILE_H
#define WPP_EDGE_PROFILE_H

#define WPP_EDGE_PROFILE_MAGIC	 "wpp-edge-profile"
#define WPP_EDGE_PROFILE_VERSION 2
/* The oldest version readers accept (no SOURCE field). */
#define WPP_EDGE_PROFILE_VERSION_MIN 1
/* Longest line a reader accepts (names included). */
#define WPP_EDGE_PROFILE_LINE_MAX 4096

#endif
