/* SPDX-License-Identifier: MIT */
/*
 * opt_error.h — one clean line for a command-line option getopt_long
 * rejected, the same wording in every `wpptrace` command (the report
 * commands and `record`): docs/cli.md promises one "wpptrace: " line and
 * exit 2 for a bad command line.
 */
#ifndef WPP_OPT_ERROR_H
#define WPP_OPT_ERROR_H

#include <getopt.h>

/* One line for an option getopt_long rejected (call it with opterr = 0
 * and an optstring that starts with ':' (after a '+', if any), so that a
 * missing value comes back as ':'; c is what getopt_long returned,
 * longopts its table):
 *   "CMD: unknown option '--bogus' (try wpptrace help CMD)"
 *   "CMD: '--m' is ambiguous (--min-len, --max-len, ...)"
 *   "CMD: --min-len needs a value"
 *   "CMD: --expand takes no value"
 * Returns 2, the exit status of a bad command line (WPP_EXIT_USAGE). */
int bad_option(const char *cmd, int c, char **argv, const struct option *longopts);

#endif
