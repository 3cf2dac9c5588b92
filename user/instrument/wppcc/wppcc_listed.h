/* SPDX-License-Identifier: MIT */
/*
 * wppcc_listed.h — names of hand-written interesting-path lists
 * (--wpp-interesting, wpp/interesting.h) that no function of the build
 * has: a misspelt name, or a function inlined away, would otherwise be
 * ignored without a word.  Only the whole build can tell, so wppcc runs
 * clang as a child instead of becoming it, with a report file each
 * translation unit adds the listed names it compiled to (listed_seen.h),
 * and says in one warning line how many list lines named none, and the
 * first of them.  "The build" is one wppcc run: a project compiled file
 * by file with one list hears, from each compile, of the names the other
 * files define (the line says that may be why).  Builds without a
 * hand-written list exec clang as ever.
 */
#ifndef WPPCC_LISTED_H
#define WPPCC_LISTED_H

#include "instrument/interesting_read.h"

/*
 * Run clang (path, argv with argv[0]) to completion with the report file;
 * after a successful build, the warning.  Returns the status wppcc exits
 * with (clang's; a signal that ended clang ends wppcc the same way), or
 * -1 when the report file cannot be made (nothing ran: the caller execs
 * clang itself).
 */
int wppcc_listed_run(const char *clang, char **argv, const struct wpp_interesting *set);

#endif
