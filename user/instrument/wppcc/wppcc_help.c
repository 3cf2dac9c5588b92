/* SPDX-License-Identifier: MIT */
/* wppcc_help.c — wppcc's own options for --help (see wppcc_help.h). */
#include "instrument/wppcc/wppcc_help.h"

void wppcc_help(FILE *out)
{
	fputs("wppcc: clang-19 with wpptrace's Ball-Larus path probes and runtime (drop-in CC;\n"
	      "docs/instrumentation.md).  Its own options, then clang's:\n"
	      "  -fwpp-mode=paths   trace every path in order (default): all wpptrace commands "
	      "read it\n"
	      "  -fwpp-mode=count   count paths per thread, no order (cheaper): wpp, hot, kpaths, "
	      "script refuse it\n"
	      "  -fwpp-mode=ppp     count, interesting paths (--wpp-interesting) by PPP ids;\n"
	      "                     wpptrace residual lists the others\n"
	      "  -fwpp-mode=tpp     count, only the paths a training run (--wpp-profile) found\n"
	      "                     hot and not obvious from edge counts (targeted profiling)\n"
	      "  --tpp-cold=P       tpp: an edge under P % of its block's flow is cold (5)\n"
	      "  --tpp-loop=P       tpp: a loop entered under P % as often as its header\n"
	      "                     runs is disconnected (15)\n"
	      "  -fwpp-mode=blocks  trace every basic block entered (the oracle mode: slow)\n"
	      "  -fwpp-static-rt    link the runtime statically (libwpprt.a -lpthread -ldl)\n"
	      "  -fwpp-no-runs      record every loop iteration (no REPEAT words)\n"
	      "  -fwpp-dual         paths mode: keep a plain copy of each function that runs\n"
	      "                     until a collector attaches (no collector: PGO's cost);\n"
	      "                     the default with --wpp-profile (-fno-wpp-dual: not)\n"
	      "  --wpp-profile=FILE place increments, branch weights and loop runs by an\n"
	      "                     edge profile or recording (wpptrace edges)\n"
	      "  --wpp-interesting=FILE[,FILE...]\n"
	      "                     number these paths compactly: recordings, sets (wpptrace\n"
	      "                     interesting) or FUNCTION PATH_ID lists\n"
	      "  --wpp-stats[=FILE] per-function path statistics, on stderr or appended to FILE;\n"
	      "                     ppp mode adds how each counted (counted=ppp|cache|plain|\n"
	      "                     empty|stale|wide; docs/instrumentation.md)\n"
	      "  -fno-wpp           behave exactly like clang-19\n"
	      "An option with a value takes it as OPT=VALUE or OPT VALUE (--wpp-stats, whose\n"
	      "file is optional, only as --wpp-stats=FILE).\n"
	      "\n",
	      out);
	fflush(out);
}
