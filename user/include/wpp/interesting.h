/* SPDX-License-Identifier: MIT */
/*
 * wpp/interesting.h — the interesting-path set of preferential path
 * profiling (PPP): per function, the Ball-Larus ids of the paths a
 * recording executed (`wpptrace interesting`), read back by the pass
 * (`wppcc --wpp-interesting=FILE`) to number those paths compactly and by
 * `--wpp-stats` to report how compactly (docs/instrumentation.md,
 * "Interesting paths").
 *
 * Text, one record per line, fields separated by one space:
 *
 *   wpp-interesting 1                      first line: magic and version
 *   # ...                                  comment (ignored)
 *   f STABLE_ID NEDGES NPATHS NAME SOURCE  a function: its stable id (16 hex
 *                                          digits, meta_format.h), its DAG's
 *                                          edge count, how many p lines
 *                                          follow, its linkage name, its
 *                                          translation unit's main source
 *                                          file as given to the compiler
 *                                          (bytes <= 0x20 and 0x7f in
 *                                          either written as '?')
 *   p PATH_ID COUNT                        NPATHS such lines follow each f,
 *                                          by increasing Ball-Larus id; COUNT
 *                                          is how often the recordings
 *                                          executed it (0 if unknown)
 *
 * Functions appear once each, by increasing stable id.  The stable id
 * hashes the function's name, source file and CFG shape, so an entry
 * applies to a build exactly when the id and the edge count match; a
 * function whose name and source file are present under another id
 * changed since the set was recorded and falls back to plain Ball-Larus
 * numbering.  (The name alone would not do: static functions of one name
 * live in many files.)
 *
 * A hand-written list is accepted too: any file not starting with the
 * magic line is read as lines `FUNCTION PATH_ID` (linkage name, decimal
 * Ball-Larus id as `wpptrace paths` prints it), comments and blank lines
 * allowed.  Such entries name the function only: they apply to whatever
 * build of it is compiled, and ids beyond its path count are an error.
 *
 * Readers treat either form as untrusted: every number is range-checked,
 * every line bounded.
 */
#ifndef WPP_INTERESTING_H
#define WPP_INTERESTING_H

#define WPP_INTERESTING_MAGIC	"wpp-interesting"
#define WPP_INTERESTING_VERSION 1
/* Longest line a reader accepts (names included). */
#define WPP_INTERESTING_LINE_MAX 4096

#endif
