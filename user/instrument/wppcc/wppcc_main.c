/* SPDX-License-Identifier: MIT */
/*
 * wppcc — drop-in C compiler driver: clang-19 plus the wpptrace pass and
 * runtime.  Usable as CC= for make, autotools and CMake: everything it does
 * not own passes through to clang unchanged, and clang's exit status (and
 * diagnostics) are wppcc's, since wppcc finally execs clang.
 *
 * Finds clang via $WPP_CLANG, else clang-19 on PATH, else
 * /usr/lib/llvm-19/bin/clang; the plugin and runtime relative to its own
 * executable, in ../lib/wpptrace/.  The mode reaches the plugin through the
 * environment variable WPP_MODE, -fwpp-no-runs through WPP_RUNS=0 (always
 * set, so an inherited value never decides), --wpp-profile=FILE through
 * WPP_EDGE_PROFILE (the checked edge profile; wppcc_profile.h) and
 * WPP_EDGE_PROFILE_NAME (FILE as given, for the pass's warnings),
 * WPP_INTERESTING_NAME (likewise for --wpp-interesting),
 * --wpp-interesting through WPP_INTERESTING (the checked sets, one path a
 * line; wppcc_interesting.h), --wpp-stats through WPP_STATS (ir_stats.h),
 * -fwpp-wet-values through WPP_WET_VALUES (always set, like WPP_RUNS),
 * -fwpp-dual through WPP_DUAL=1 (always set, ir_dual.h).
 * With a hand-written interesting list it runs clang as a child instead,
 * to say afterwards which listed names the build had none of
 * (wppcc_listed.h).  `--help` prints wppcc's own options before clang's.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "instrument/wppcc/wppcc_args.h"
#include "instrument/wppcc/wppcc_help.h"
#include "instrument/listed_seen.h"
#include "instrument/wppcc/wppcc_interesting.h"
#include "instrument/wppcc/wppcc_listed.h"
#include "instrument/wppcc/wppcc_profile.h"

#define FALLBACK_CLANG "/usr/lib/llvm-19/bin/clang"

static void die(const char *fmt, const char *arg)
{
	fprintf(stderr, "wppcc: ");
	fprintf(stderr, fmt, arg);
	fputc('\n', stderr);
	exit(1);
}

static char *search_path(const char *name)
{
	const char *path = getenv("PATH");
	if (!path)
		return NULL;
	char *copy = strdup(path), *save = NULL;
	for (char *dir = strtok_r(copy, ":", &save); dir; dir = strtok_r(NULL, ":", &save)) {
		char buf[PATH_MAX];
		if (snprintf(buf, sizeof(buf), "%s/%s", *dir ? dir : ".", name) >= (int)sizeof(buf))
			continue;
		if (access(buf, X_OK) == 0) {
			free(copy);
			return strdup(buf);
		}
	}
	free(copy);
	return NULL;
}

static char *find_clang(const char *self)
{
	const char *env = getenv("WPP_CLANG");
	char *c = NULL;
	if (env && *env)
		c = strchr(env, '/') ? strdup(env) : search_path(env);
	if (!c)
		c = search_path("clang-19");
	if (!c && access(FALLBACK_CLANG, X_OK) == 0)
		c = strdup(FALLBACK_CLANG);
	if (!c)
		die("cannot find clang-19 (set WPP_CLANG)%s", "");
	/* CC=wppcc with WPP_CLANG=wppcc would exec itself forever */
	char real[PATH_MAX];
	if (realpath(c, real) && strcmp(real, self) == 0)
		die("WPP_CLANG names wppcc itself (%s)", c);
	return c;
}

int main(int argc, char **argv)
{
	char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n <= 0)
		die("cannot locate own executable: %s", strerror(errno));
	self[n] = 0;

	struct wppcc_plan plan;
	if (wppcc_plan_args(argc, argv, &plan))
		die("%s", plan.error);
	if (plan.help)
		wppcc_help(stdout);
	char *clang = find_clang(self);

	/* <prefix>/bin/wppcc -> <prefix>/lib/wpptrace */
	char libdir[PATH_MAX], plugin[PATH_MAX + 32], rtarchive[PATH_MAX + 32];
	char *slash = strrchr(self, '/');
	*slash = 0;
	if (snprintf(libdir, sizeof(libdir), "%s/../lib/wpptrace", self) >= (int)sizeof(libdir))
		die("path too long: %s", self);
	snprintf(plugin, sizeof(plugin), "%s/wpp-pass.so", libdir);
	snprintf(rtarchive, sizeof(rtarchive), "%s/libwpprt.a", libdir);

	char **out = calloc((size_t)plan.nargs + 16, sizeof(char *));
	int k = 0;
	out[k++] = clang;
	if (!plan.no_wpp && plan.compiles_source) {
		if (access(plugin, R_OK) != 0)
			die("cannot find the pass plugin %s", plugin);
		static char plugarg[PATH_MAX + 64];
		snprintf(plugarg, sizeof(plugarg), "-fpass-plugin=%s", plugin);
		out[k++] = plugarg;
		if (!plan.has_g)
			out[k++] = "-gline-tables-only";
	}
	for (int i = 0; i < plan.nargs; i++)
		out[k++] = plan.args[i];
	if (!plan.no_wpp && wppcc_plan_links(&plan)) {
		static char ldir[PATH_MAX + 8], rpath[PATH_MAX + 16];
		if (plan.static_rt) {
			out[k++] = rtarchive;
			out[k++] = "-lpthread";
			out[k++] = "-ldl";
		} else {
			snprintf(ldir, sizeof(ldir), "-L%s", libdir);
			snprintf(rpath, sizeof(rpath), "-Wl,-rpath,%s", libdir);
			out[k++] = ldir;
			out[k++] = "-lwpprt";
			out[k++] = rpath;
		}
	}
	out[k] = NULL;
	if (setenv("WPP_MODE", plan.mode, 1) || setenv("WPP_RUNS", plan.no_runs ? "0" : "1", 1) ||
	    setenv("WPP_DUAL", plan.dual ? "1" : "0", 1) ||
	    setenv("WPP_WET_VALUES", plan.wet_values, 1) ||
	    setenv("WPP_TPP_COLD", plan.tpp_cold, 1) || setenv("WPP_TPP_LOOP", plan.tpp_loop, 1))
		die("cannot set the plugin's environment: %s", strerror(errno));
	/* Like WPP_RUNS, always decided here, never inherited. */
	unsetenv("WPP_EDGE_PROFILE");
	unsetenv("WPP_EDGE_PROFILE_NAME");
	unsetenv("WPP_INTERESTING");
	unsetenv("WPP_INTERESTING_NAME");
	unsetenv("WPP_STATS");
	unsetenv(WPP_LISTED_SEEN_FD_ENV);
	static struct wpp_interesting set; /* the union of --wpp-interesting */
	if (plan.profile && !plan.no_wpp && plan.compiles_source) {
		static char prof[PATH_MAX];
		char why[PATH_MAX + 256];
		if (wppcc_profile_resolve(plan.profile, self, prof, sizeof(prof), why, sizeof(why)))
			die("%s", why);
		/* the pass names what the user gave in its warnings, not the cache */
		if (setenv("WPP_EDGE_PROFILE", prof, 1) ||
		    setenv("WPP_EDGE_PROFILE_NAME", plan.profile, 1))
			die("cannot set the plugin's environment: %s", strerror(errno));
	}
	if (plan.interesting && !plan.no_wpp && plan.compiles_source) {
		static char sets[16 * PATH_MAX];
		char why[PATH_MAX + 512];
		if (wppcc_interesting_resolve(plan.interesting, self, sets, sizeof(sets), &set, why,
					      sizeof(why)))
			die("%s", why);
		/* as for the profile: warnings name what the user gave */
		if (setenv("WPP_INTERESTING", sets, 1) ||
		    setenv("WPP_INTERESTING_NAME", plan.interesting, 1))
			die("cannot set the plugin's environment: %s", strerror(errno));
	}
	if (plan.stats && !plan.no_wpp && plan.compiles_source &&
	    setenv("WPP_STATS", plan.stats, 1))
		die("cannot set the plugin's environment: %s", strerror(errno));
	if (set.nrecorded < set.nfns) { /* a hand-written list */
		int rc = wppcc_listed_run(clang, out, &set);
		if (rc >= 0)
			return rc;
	}
	execv(clang, out);
	die("cannot run clang: %s", strerror(errno));
	return 1;
}
