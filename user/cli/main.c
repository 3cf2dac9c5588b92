/* SPDX-License-Identifier: MIT */
/*
 * main.c — bin/wpptrace: global options and subcommand dispatch.
 */
#include <stdio.h>
#include <string.h>

#include "cli/commands.h"
#include "common/in_file.h"
#include "common/log.h"

#ifndef WPP_VERSION
#define WPP_VERSION "0.1.0"
#endif

/* Each command's options, usage and help are its own (a table in its
 * cmd_*.c, options.h): `wpptrace help CMD` runs `CMD --help`. */
struct command {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *summary;
};

static const struct command commands[] = {
    {"record", cmd_record, "run a program built with wppcc and record its paths"},
    {"script", cmd_script, "print every executed path, in order, per thread"},
    {"info", cmd_info,
     "what a recording holds: processes, threads, time span, words and records, lost, counters, "
     "transport"},
    {"paths", cmd_paths, "acyclic path profile: counts per function and path"},
    {"wpp", cmd_wpp, "whole program path: each thread's grammar, rules, DAG queries"},
    {"hot", cmd_hot, "minimal hot subpaths, as functions and source lines"},
    {"report", cmd_report, "path profile report: paths, functions, processes; HTML; diff"},
    {"annotate", cmd_annotate, "a function's source with per-line and per-branch counts"},
    {"cfg", cmd_cfg, "a function's CFG with counts and hot paths (dot / SVG)"},
    {"export", cmd_export, "export paths for other profilers (pprof)"},
    {"edges", cmd_edges, "edge profile for profile-guided placement (wppcc --wpp-profile)"},
    {"interesting", cmd_interesting, "interesting paths for PPP (wppcc --wpp-interesting)"},
    {"residual", cmd_residual, "executed paths outside a PPP build's interesting sets"},
    {"tpp-quality", cmd_tpp_quality, "a TPP run's profile against a full one (AoDF)"},
    {"top", cmd_top, "live: hottest paths of running instrumented processes, refreshed"},
    {"kpaths", cmd_kpaths, "hottest k-paths: runs of up to k consecutive acyclic paths"},
    {"wet", cmd_wet, "whole execution traces of a wet build: the values and addresses"},
};

#define NCOMMANDS (sizeof(commands) / sizeof(commands[0]))

static const struct command *find(const char *name)
{
	for (size_t i = 0; i < NCOMMANDS; i++)
		if (strcmp(commands[i].name, name) == 0)
			return &commands[i];
	return NULL;
}

static void usage(FILE *out)
{
	fprintf(out, "usage: wpptrace [-q|-v] COMMAND [ARGS...]\n"
		     "       wpptrace help COMMAND | --help | --version\n\ncommands:\n");
	int width = 0;
	for (size_t i = 0; i < NCOMMANDS; i++)
		if ((int)strlen(commands[i].name) > width)
			width = (int)strlen(commands[i].name);
	for (size_t i = 0; i < NCOMMANDS; i++)
		fprintf(out, "  %-*s %s\n", width, commands[i].name, commands[i].summary);
	fprintf(out, "\nSee docs/cli.md for details.\n");
}

/* Every command writes its report to stdout; a full disk or a closed pipe
 * is said here, once, instead of in each command: rc becomes 1 (the
 * report is not whole). */
static int finish(const struct command *c, int rc)
{
	if (fflush(stdout) != 0 || ferror(stdout)) {
		wpp_err("%s: writing the output failed", c->name);
		return WPP_EXIT_ERROR;
	}
	return rc;
}

int main(int argc, char **argv)
{
	const struct command *c;
	int i = 1;

	in_file_guard_inputs(); /* no -o may replace the command's own input */

	for (; i < argc && argv[i][0] == '-'; i++) {
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			usage(stdout);
			return WPP_EXIT_OK;
		} else if (!strcmp(argv[i], "--version")) {
			printf("wpptrace %s\n", WPP_VERSION);
			return WPP_EXIT_OK;
		} else if (!strcmp(argv[i], "-q")) {
			wpp_verbosity = 0;
		} else if (!strcmp(argv[i], "-v")) {
			wpp_verbosity++;
		} else {
			wpp_err("unknown option '%s' (try wpptrace --help)", argv[i]);
			return WPP_EXIT_USAGE;
		}
	}
	if (i == argc) {
		usage(stderr);
		return WPP_EXIT_USAGE;
	}
	if (!strcmp(argv[i], "help")) {
		if (i + 1 == argc) {
			usage(stdout);
			return WPP_EXIT_OK;
		}
		c = find(argv[i + 1]);
		if (!c) {
			wpp_err("no such command '%s' (try wpptrace --help)", argv[i + 1]);
			return WPP_EXIT_USAGE;
		}
		char *own_help[] = {argv[i + 1], "--help", NULL};
		return finish(c, c->run(2, own_help));
	}
	c = find(argv[i]);
	if (!c) {
		wpp_err("no such command '%s' (try wpptrace --help)", argv[i]);
		return WPP_EXIT_USAGE;
	}
	return finish(c, c->run(argc - i, argv + i));
}
