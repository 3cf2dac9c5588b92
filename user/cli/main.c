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

struct command {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *summary;
	const char *usage; /* NULL: the command prints its own on --help */
};

static const struct command commands[] = {
    /* record's options belong to the recorder: it prints its own usage. */
    {"record", cmd_record, "run a program built with wppcc and record its paths", NULL},
    {"script", cmd_script, "print every executed path, in order, per thread",
     "usage: wpptrace script run.wpp [--format text|jsonl|json] [--pid P] [--tid T] [--gen G]\n"
     "                              [--processes]\n"
     "\n"
     "For each thread, every executed path instance expanded to its basic blocks\n"
     "with function and file:line, plus gaps (lost data) and unattributed words.\n"
     "  --format text   readable listing (default)\n"
     "  --format jsonl  one JSON object per event (see docs/cli.md)\n"
     "  --processes     jsonl: first one \"process\" object per process (pid, ppid, exe, flags)\n"
     "  --format json   one JSON document\n"
     "  --pid P, --tid T  only that process / thread\n"
     "  --gen G           only the threads of exec generation G (0: the first image)\n"
     "A recording of -fwpp-mode=count code holds counts, not order: refused in one line.\n"},
    {"info", cmd_info,
     "what a recording holds: processes, threads, time span, words and records, lost, counters, "
     "transport",
     "usage: wpptrace info [--format text|json] FILE.wpp\n"},
    {"paths", cmd_paths, "acyclic path profile: counts per function and path",
     "usage: wpptrace paths run.wpp [--format text|json] [--pid P] [--top N]\n"
     "\n"
     "Per function and path id: executions, blocks, static instructions of the\n"
     "path and executions x instructions, source line span, start/end kinds;\n"
     "sorted by executions, with per-function summaries and totals.\n"
     "  --top N  only the N most executed paths\n"
     "A recording of -fwpp-mode=count code (path counts, no order) reads the same:\n"
     "the same paths and counts as a trace of a paths build.\n"},
    {"wpp", cmd_wpp, "whole program path: each thread's grammar, rules, DAG queries",
     "usage: wpptrace wpp run.wpp [--pid P] [--tid T] [--gen G] [--format text|json] [--max-rules "
     "N]\n"
     "                    [--freq SEQ] [--context SEQ [--context-len K]] [--order SEQ]\n"
     "                    [--expand] [--rebuild] [--store] [--grammar-builder chunked|sequitur]\n"
     "       wpptrace wpp --from-raw trace.u32 -o g.wpp [--grammar-builder chunked|sequitur]\n"
     "       wpptrace wpp run.wpp [--pid P] [--tid T] [--gen G] --raw-out trace.u32 [--raw-max N]\n"
     "\n"
     "Per thread: the grammar of its path stream (chunked SEQUITUR(1); recorded online by\n"
     "record, or rebuilt from the batches): input length, rules, grammar size and\n"
     "ratio, serialized size, the rules covering most of the stream, path\n"
     "frequencies.  SEQ is a comma-separated list of paths, each pN (as printed)\n"
     "or FUNCTION:PATHID.\n"
     "  --pid, --tid, --gen  only that process, thread, exec generation (0: first image)\n"
     "  --max-rules N    rules and paths listed (default 20)\n"
     "  --freq SEQ       how often SEQ ran (consecutively)\n"
     "  --context SEQ    what ran K paths before and after SEQ, with counts\n"
     "  --order SEQ      where each path first and last ran, and which ran before which\n"
     "  --expand         print the expanded stream (\"fid path\" lines, \"gap\")\n"
     "  --rebuild        ignore a recorded grammar, rebuild from the batches\n"
     "  --grammar-builder B  how grammars built here are built: chunked (default:\n"
     "                   runs and chunks around SEQUITUR(1)) or sequitur (one-level\n"
     "                   SEQUITUR(1)); the stream they stand for is the same\n"
     "  --store          keep the grammars built from the batches in the file (GRAMMAR\n"
     "                   chunks after its END), so later wpp/hot runs read them\n"
     "  --from-raw F -o OUT  grammar of a raw stream of little-endian 32-bit symbols\n"
     "  --raw-out F      write one thread's path stream as such a stream (pN as N), read\n"
     "                   from the batches without building a grammar\n"
     "  --raw-max N      with --raw-out: only the first N symbols\n"
     "A recording of -fwpp-mode=count code holds counts, not order: refused in one line.\n"},
    {"hot", cmd_hot, "minimal hot subpaths, as functions and source lines",
     "usage: wpptrace hot run.wpp [--min-len N] [--max-len N] [--min-cost C]\n"
     "                    [--cost insns|count|COUNTER] [--top N] [--pid P] [--tid T] [--gen G]\n"
     "                    [--format text|json] [--grammar-builder chunked|sequitur]\n"
     "\n"
     "Minimal hot subpaths of each thread's path stream: sequences of min-len to\n"
     "max-len consecutive paths whose frequency x cost reaches min-cost and whose\n"
     "shorter prefixes do not.  Cost of a path: its static instructions (insns,\n"
     "default), 1 (count) or a recorded counter's events per execution (estimated;\n"
     "docs/counters.md).  Defaults: --min-len 2 --max-len 20 --min-cost 100000\n"
     "--top 20 (0: all).  --pid, --tid, --gen: only that process, thread, exec\n"
     "generation.  On a grammar written by wpp --from-raw: count costs.\n"
     "--grammar-builder: for grammars built from the batches (as wpp's; the\n"
     "result does not depend on it).  A recording of -fwpp-mode=count code holds\n"
     "counts, not order: refused in one line.\n"},
    {"report", cmd_report, "path profile report: paths, functions, processes; HTML; diff",
     "usage: wpptrace report run.wpp [--pid P] [--tid T] [--by function|path|process]\n"
     "                        [--sort count|cost] [--top N] [--format text|json]\n"
     "       wpptrace report run.wpp --html -o report.html\n"
     "       wpptrace report a.wpp --diff b.wpp [--format text|json|html] [-o FILE]\n"
     "\n"
     "Hot paths as the source lines they cover (branch decisions in [ ]), top\n"
     "functions and, for system-wide traces, processes; processes of the same\n"
     "binary are merged.  Cost = IR instructions executed.  See docs/reports.md.\n"
     "  --by W      main table: path (default), function or process\n"
     "  --sort K    count (executions, default) or cost\n"
     "  --cost EV   cost = a counter recorded with record -e EV (docs/counters.md)\n"
     "  --top N     rows per table (default 20; HTML: all, paged)\n"
     "  --html      one self-contained page (needs -o FILE)\n"
     "  --diff B    what changed from this run to B: paths gone, new, hotter, colder\n"
     "  -o FILE     write there instead of stdout\n"
     "A recording of -fwpp-mode=count code (path counts, no order) gives the same\n"
     "report as a trace of a paths build.\n"},
    {"annotate", cmd_annotate, "a function's source with per-line and per-branch counts",
     "usage: wpptrace annotate run.wpp FUNCTION [--pid P] [--tid T] [--format text|json]\n"
     "\n"
     "The function's source, each line with how often it ran, each branch with\n"
     "how often each way was taken, and the lines of the three hottest paths\n"
     "marked A, B, C.  --cost EV: hot paths with a recorded counter's events.\n"
     "A recording of -fwpp-mode=count code gives the same counts as a trace.\n"},
    {"cfg", cmd_cfg, "a function's CFG with counts and hot paths (dot / SVG)",
     "usage: wpptrace cfg run.wpp FUNCTION [-o f.svg|f.dot] [--pid P] [--tid T]\n"
     "\n"
     "Blocks with source lines and counts, edges with how often they were taken,\n"
     "the three hottest paths in red, orange and gold.  -o NAME.svg runs\n"
     "Graphviz's dot; otherwise the dot text is written.  A recording of\n"
     "-fwpp-mode=count code gives the same counts as a trace.\n"},
    {"export", cmd_export, "export paths for other profilers (pprof)",
     "usage: wpptrace export run.wpp --format pprof -o run.pb.gz [--pid P] [--tid T]\n"
     "\n"
     "A pprof profile (profile.proto, gzip-compressed): one sample per path and\n"
     "process, its locations the path's blocks (function, file:line), its values\n"
     "the executions and the IR instructions executed (--cost EV: a recorded\n"
     "counter's events instead).  A recording of -fwpp-mode=count code gives the\n"
     "same samples as a trace.\n"},
    {"edges", cmd_edges, "edge profile for profile-guided placement (wppcc --wpp-profile)",
     "usage: wpptrace edges run.wpp... [-o FILE] [--pid P] [--tid T] [-q]\n"
     "\n"
     "How often each edge of each function's path DAG was taken (summed over\n"
     "the recordings given), as a text\n"
     "edge profile (docs/instrumentation.md, \"Profile-guided placement\").\n"
     "wppcc --wpp-profile=FILE places the path register's increments on the\n"
     "edges that ran least; path ids keep their meaning.  On stderr: functions,\n"
     "edges, path executions and the increments the recorded build executed.\n"
     "A recording of -fwpp-mode=count code gives the same profile as a trace.\n"
     "  -o FILE     write there instead of stdout\n"
     "  -q          no summary line\n"},
    {"interesting", cmd_interesting, "interesting paths for PPP (wppcc --wpp-interesting)",
     "usage: wpptrace interesting run.wpp... [--top N] [--min-count C] [-o FILE]\n"
     "                             [--pid P] [--tid T] [-q]\n"
     "\n"
     "Per function, the Ball-Larus ids of the paths the recordings executed, with\n"
     "their counts (docs/instrumentation.md, \"Interesting paths\"): the set that\n"
     "wppcc --wpp-interesting=FILE numbers compactly (preferential path profiling).\n"
     "On stderr: functions, paths kept and paths executed.  A recording of\n"
     "-fwpp-mode=count code gives the same set as a trace.\n"
     "  --top N        only the N hottest paths over all recordings\n"
     "  --min-count C  only paths executed at least C times (with --top: the N\n"
     "                 hottest of those; the file's '# kept:' line says which)\n"
     "  -o FILE        write there instead of stdout\n"
     "  -q             no summary line\n"},
    {"residual", cmd_residual, "executed paths outside a PPP build's interesting sets",
     "usage: wpptrace residual run.wpp [--format text|json] [--pid P] [--tid T] [--top N]\n"
     "\n"
     "For a program built with wppcc -fwpp-mode=ppp --wpp-interesting=SET: the\n"
     "paths this recording executed that SET does not hold (residual paths: what\n"
     "ran here that the recordings SET came from never ran), per function and\n"
     "path as `paths` lists them, with their source lines and counts; then how\n"
     "many there were of all paths and executions of the ppp units.  A function\n"
     "whose set was recorded from another build counts all its paths as residual.\n"
     "  --top N  only the N most executed residual paths\n"},
    {"top", cmd_top, "live: hottest paths of running instrumented processes, refreshed",
     "usage: wpptrace top -p PID [-p PID...] | -a  [-d SECS] [-n N] [--top N] [--merge]\n"
     "                    [--format text|json] [--ready-fd N]\n"
     "\n"
     "Every -d seconds (default 1), the paths that ran most in the interval in\n"
     "running programs built with wppcc (-a: every such process, also those that\n"
     "start later): count, share, pid, function, path id and source lines.\n"
     "Counting builds (-fwpp-mode=count) are read from memory; tracing builds'\n"
     "path words are counted as they arrive over BPF (root), nothing written; a\n"
     "full ring drops words, counted as lost in the header.  Nothing is stopped,\n"
     "and at the end the probes are detached.  --merge: rows summed per binary\n"
     "(build-id), with the number of processes.  --top N rows (default 20, 0:\n"
     "all).  --format json: one line per interval.  -n N stops after N intervals\n"
     "(default: until the processes exit; -a: until q, SIGINT or SIGTERM).\n"
     "--ready-fd N: \"ready\" on fd N once watching has begun.  Its own CPU time\n"
     "is printed on stderr at the end.\n"},
    {"kpaths", cmd_kpaths, "hottest k-paths: runs of up to k consecutive acyclic paths",
     "usage: wpptrace kpaths run.wpp [-k K] [--function F] [--min-count N] [--top N]\n"
     "                        [--format text|json] [--pid P] [--tid T] [--all]\n"
     "                        [--source auto|stored|trace] [--prune-nodes M]\n"
     "                        [--flat] [--cost insns|count|COUNTER]\n"
     "\n"
     "Per process, the hottest concatenations of up to K consecutive acyclic paths\n"
     "of one routine activation (the caller's paths around a call join; the\n"
     "callee's form their own), each expanded to function, path, source lines and\n"
     "start/end kinds, with the share of its prefix's count each extension takes.\n"
     "--flat: consecutive paths of a thread across calls and returns.  Either view\n"
     "uses the forest `record -k` stored in that view when deep enough, else the trace.\n"
     "See docs/kpaths.md.\n"
     "  -k K            longest k-path (1..32; default: the stored depth, else 8)\n"
     "  --function F    only k-paths that start in function F\n"
     "  --min-count N   only k-paths that occurred at least N times\n"
     "  --top N         how many (default 10; 0 = all)\n"
     "  --all           every k-path, not only maximal ones\n"
     "  --source S      stored forest only, trace only, or auto (default)\n"
     "  --prune-nodes M build from the trace with at most M k-slab nodes\n"
     "  --flat          the thread-wide view, across calls and returns\n"
     "  --cost C        each k-path's cost (sum over its path instances) in IR\n"
     "                  instructions, executions, or a recorded counter; ranks by it\n"
     "A recording of -fwpp-mode=count code holds counts, not order: refused in one line.\n"},
    {"wet", cmd_wet, "whole execution traces of a wet build: the values and addresses",
     "usage: wpptrace wet dump run.wpp [--format text|jsonl] [--pid P] [--tid T] [--gen G]\n"
     "                             [-n N]\n"
     "\n"
     "Every path execution of the selected threads of a recording of a program built\n"
     "with wppcc -fwpp-mode=wet, numbered from 1 per thread (its timestamp), with its\n"
     "statements in order: source position, kind, and the address and value the\n"
     "trace recorded for it.  Uncompressed: the reference the WET is checked against.\n"
     "  -n N            at most N path executions per thread\n"
     "  --format jsonl  one JSON object per path execution (see docs/wet.md)\n"},
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
		if (!c->usage) {
			char *own_help[] = {argv[i + 1], "--help", NULL};
			return c->run(2, own_help);
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
		if (c->usage && (!strcmp(argv[k], "--help") || !strcmp(argv[k], "-h"))) {
			fputs(c->usage, stdout);
			return WPP_EXIT_OK;
		}
	}
	return c->run(argc - i, argv + i);
}
