/* SPDX-License-Identifier: MIT */
/*
 * main.c — bin/wpptrace: global options and subcommand dispatch.
 */
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "log.h"

#ifndef WPP_VERSION
#define WPP_VERSION "0.1.0"
#endif

struct command {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *summary;
	const char *usage;
};

static const struct command commands[] = {
	{"record", cmd_record, "run a program built with wppcc and record its paths",
	 "usage: wpptrace record --transport=shm -o run.wpp -- ./prog [args...]\n"
	 "\n"
	 "Runs prog with tracing.  The program's stdin, stdout, stderr and exit status\n"
	 "pass through unchanged; wpptrace exits with the program's status.\n"},
	{"script", cmd_script, "print every executed path, in order, per thread",
	 "usage: wpptrace script run.wpp [--format text|jsonl|json] [--pid P] [--tid T]\n"
	 "\n"
	 "For each thread, every executed path instance expanded to its basic blocks\n"
	 "with function and file:line, plus gaps (lost data) and unattributed words.\n"
	 "  --format text   readable listing (default)\n"
	 "  --format jsonl  one JSON object per event (see docs/cli.md)\n"
	 "  --format json   one JSON document\n"
	 "  --pid P, --tid T  only that process / thread\n"},
	{"paths", cmd_paths, "acyclic path profile: counts per function and path",
	 "usage: wpptrace paths run.wpp [--format text|json] [--pid P] [--top N]\n"
	 "\n"
	 "Per function and path id: executions, blocks, static instructions of the\n"
	 "path and executions x instructions, source line span, start/end kinds;\n"
	 "sorted by executions, with per-function summaries and totals.\n"
	 "  --top N  only the N most executed paths\n"},
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
	for (size_t i = 0; i < NCOMMANDS; i++)
		fprintf(out, "  %-8s %s\n", commands[i].name, commands[i].summary);
	fprintf(out, "\nSee docs/cli.md for details.\n");
}

int main(int argc, char **argv)
{
	const struct command *c;
	int i = 1;

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
		fputs(c->usage, stdout);
		return WPP_EXIT_OK;
	}
	c = find(argv[i]);
	if (!c) {
		wpp_err("no such command '%s' (try wpptrace --help)", argv[i]);
		return WPP_EXIT_USAGE;
	}
	for (int k = i + 1; k < argc; k++) {
		if (!strcmp(argv[k], "--"))
			break;
		if (!strcmp(argv[k], "--help") || !strcmp(argv[k], "-h")) {
			fputs(c->usage, stdout);
			return WPP_EXIT_OK;
		}
	}
	return c->run(argc - i, argv + i);
}
