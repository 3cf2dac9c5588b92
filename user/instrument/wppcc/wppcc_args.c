/* SPDX-License-Identifier: MIT */
/* wppcc_args.c — command-line classification for wppcc (see wppcc_args.h). */
#include "instrument/wppcc/wppcc_args.h"

#include <stdlib.h>
#include <string.h>

/* Options whose value is the next argument (clang/gcc spelling). */
static const char *const takes_value[] = {
    "-o",
    "-x",
    "-I",
    "-D",
    "-U",
    "-L",
    "-l",
    "-include",
    "-imacros",
    "-isystem",
    "-idirafter",
    "-iquote",
    "-iprefix",
    "-iwithprefix",
    "-iwithprefixbefore",
    "-isysroot",
    "-MF",
    "-MT",
    "-MQ",
    "-MJ",
    "-Xlinker",
    "-Xclang",
    "-Xassembler",
    "-Xpreprocessor",
    "-Xarch_device",
    "-Xarch_host",
    "-mllvm",
    "-arch",
    "-target",
    "-z",
    "-T",
    "-u",
    "-e",
    "-aux-info",
    "-dependency-file",
    "-serialize-diagnostics",
    "-gcc-toolchain",
    "-F",
    "-framework",
    "--param",
    "-ivfsoverlay",
    "-resource-dir",
    "-B",
    "-Xopenmp-target",
    "-cxx-isystem",
    "-include-pch",
    "-index-header-map",
    "-isystem-after",
    "-Xcuda-fatbinary",
    "-Xcuda-ptxas",
    "-working-directory",
    "--sysroot",
    "--include-directory",
};

static const char *const stop_flags[] = {
    "-c", "-S", "-E", "-M", "-MM", "-fsyntax-only", "-emit-ast", "--precompile",
};

static const char *const source_exts[] = {
    ".c", ".i",	 ".cc", ".cp", ".cxx", ".cpp", ".CPP", ".c++",
    ".C", ".ii", ".m",	".mi", ".mm",  ".M",   ".mii",
};

static int in_list(const char *s, const char *const *list, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(s, list[i]) == 0)
			return 1;
	return 0;
}

#define IN(s, list) in_list((s), (list), sizeof(list) / sizeof((list)[0]))

static int is_source_file(const char *path)
{
	const char *dot = strrchr(path, '.');
	return dot && IN(dot, source_exts);
}

/* -g options that set a debug-info level (not -gz, -gsplit-dwarf, ...). */
static int sets_debug_level(const char *a)
{
	if (strncmp(a, "-g", 2) != 0)
		return 0;
	const char *r = a + 2;
	if (*r == 0 || ((*r >= '0' && *r <= '3') && r[1] == 0))
		return 1;
	return strncmp(r, "gdb", 3) == 0 || strncmp(r, "dwarf", 5) == 0 ||
	       strcmp(r, "line-tables-only") == 0 || strcmp(r, "line-directives-only") == 0 ||
	       strcmp(r, "full") == 0 || strcmp(r, "used") == 0 || strcmp(r, "codeview") == 0;
}

/* A threshold of --tpp-cold/--tpp-loop: a plain decimal in [0, 100]. */
static int is_percent(const char *s)
{
	char *end;
	if (!*s || !((*s >= '0' && *s <= '9') || *s == '.'))
		return 0;
	double v = strtod(s, &end);
	return !*end && v >= 0 && v <= 100;
}

/* The value of wppcc's option `name` at argv[*i], given as NAME=VALUE or
 * as NAME VALUE (then *i moves past VALUE): NULL when argv[*i] is not
 * that option, "" when its value is missing.  Before, "--tpp-cold 5" went
 * to clang as two unknown words. */
static const char *opt_value(int argc, char **argv, int *i, const char *name)
{
	size_t n = strlen(name);
	const char *a = argv[*i];
	if (strncmp(a, name, n) != 0)
		return NULL;
	if (a[n] == '=')
		return a + n + 1;
	if (a[n])
		return NULL;
	return *i + 1 < argc ? argv[++*i] : "";
}

int wppcc_plan_args(int argc, char **argv, struct wppcc_plan *p)
{
	memset(p, 0, sizeof(*p));
	p->mode = "paths";
	p->wet_values = "memory";
	p->tpp_cold = WPPCC_TPP_COLD_DEFAULT;
	p->tpp_loop = WPPCC_TPP_LOOP_DEFAULT;
	p->dual = -1;
	p->args = calloc((size_t)argc + 1, sizeof(char *));
	if (!p->args) {
		p->error = "out of memory";
		return -1;
	}
	const char *lang = NULL; /* current -x language, NULL = by extension */
	for (int i = 1; i < argc; i++) {
		char *a = argv[i];
		if (strcmp(a, "-fno-wpp") == 0) {
			p->no_wpp = 1;
			continue;
		}
		if (strcmp(a, "-fwpp-no-runs") == 0) {
			p->no_runs = 1;
			continue;
		}
		if (strcmp(a, "-fwpp-dual") == 0 || strcmp(a, "-fno-wpp-dual") == 0) {
			p->dual = a[2] != 'n';
			continue;
		}
		if (strcmp(a, "-fwpp-static-rt") == 0) {
			p->static_rt = 1;
			continue;
		}
		const char *v;
		if ((v = opt_value(argc, argv, &i, "--wpp-profile"))) {
			if (!*v) {
				p->error =
				    "--wpp-profile needs a file (a recording or an edge profile)";
				return -1;
			}
			p->profile = v;
			continue;
		}
		if ((v = opt_value(argc, argv, &i, "--wpp-interesting"))) {
			if (!*v) {
				p->error =
				    "--wpp-interesting needs files (recordings or path lists)";
				return -1;
			}
			p->interesting = v;
			continue;
		}
		if (strcmp(a, "--wpp-stats") == 0 || strncmp(a, "--wpp-stats=", 12) == 0) {
			if (a[11] == '=' && !a[12]) {
				p->error =
				    "--wpp-stats= needs a file (or give --wpp-stats for stderr)";
				return -1;
			}
			p->stats = a[11] ? a + 12 : "-";
			continue;
		}
		int loop = 0;
		if ((v = opt_value(argc, argv, &i, "--tpp-cold")) ||
		    (loop = 1, v = opt_value(argc, argv, &i, "--tpp-loop"))) {
			if (!is_percent(v)) {
				p->error =
				    "--tpp-cold and --tpp-loop take a percentage from 0 to 100";
				return -1;
			}
			*(loop ? &p->tpp_loop : &p->tpp_cold) = v;
			continue;
		}
		if ((v = opt_value(argc, argv, &i, "-fwpp-wet-values"))) {
			if (strcmp(v, "memory") && strcmp(v, "all")) {
				p->error = "-fwpp-wet-values takes 'memory' or 'all'";
				return -1;
			}
			p->wet_values = v;
			continue;
		}
		if ((v = opt_value(argc, argv, &i, "-fwpp-mode"))) {
			if (strcmp(v, "paths") && strcmp(v, "blocks") && strcmp(v, "count") &&
			    strcmp(v, "ppp") && strcmp(v, "tpp") && strcmp(v, "wet")) {
				p->error =
				    "-fwpp-mode takes 'paths', 'count', 'ppp', 'tpp', 'wet' or "
				    "'blocks'";
				return -1;
			}
			p->mode = v;
			continue;
		}
		p->args[p->nargs++] = a;
		if (strcmp(a, "--help") == 0 || strcmp(a, "-help") == 0)
			p->help = 1;
		if (a[0] == '@') {
			p->has_input = 1; /* response file: may hold sources */
			p->compiles_source = 1;
			continue;
		}
		if (a[0] != '-' || strcmp(a, "-") == 0) {
			p->has_input = 1;
			if ((lang ? 1 : is_source_file(a)) || strcmp(a, "-") == 0)
				p->compiles_source = 1;
			continue;
		}
		if (IN(a, stop_flags))
			p->stops_before_link = 1;
		if (sets_debug_level(a))
			p->has_g = 1;
		if (strncmp(a, "-x", 2) == 0) {
			const char *v = a[2] ? a + 2 : (i + 1 < argc ? argv[i + 1] : "");
			lang =
			    (strcmp(v, "none") == 0 || strncmp(v, "assembler", 9) == 0) ? NULL : v;
		}
		if (IN(a, takes_value) && i + 1 < argc)
			p->args[p->nargs++] = argv[++i];
	}
	/* PPP numbers the paths a set names; without one there is nothing
	 * to prefer */
	if (!strcmp(p->mode, "ppp") && !p->interesting && p->compiles_source && !p->no_wpp) {
		p->error = "-fwpp-mode=ppp needs --wpp-interesting=FILE (a recording or a path "
			   "list: the paths to count preferentially)";
		return -1;
	}
	/* TPP targets what a training run found hot; without one there is
	 * no target */
	if (!strcmp(p->mode, "tpp") && !p->profile && p->compiles_source && !p->no_wpp) {
		p->error = "-fwpp-mode=tpp needs --wpp-profile=FILE (a training recording or an "
			   "edge profile)";
		return -1;
	}
	/* Whoever builds with a training profile wants the binary as cheap as
	 * PGO's while nobody records it: that is a dual build (issue 27;
	 * docs/instrumentation.md "Dual builds").  Only paths mode has
	 * plain copies. */
	if (p->dual < 0)
		p->dual = p->profile && !strcmp(p->mode, "paths");
	return 0;
}

void wppcc_plan_free(struct wppcc_plan *p)
{
	free(p->args);
	p->args = NULL;
}

int wppcc_plan_links(const struct wppcc_plan *p)
{
	return p->has_input && !p->stops_before_link;
}
