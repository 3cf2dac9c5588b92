/* SPDX-License-Identifier: MIT */
/* One line for a rejected option; see opt_error.h. */
#include "common/opt_error.h"

#include <stdio.h>
#include <string.h>

#include "common/log.h"

/* The exit status of a bad command line (user/cli/commands.h). */
#define OPT_EXIT_USAGE 2

/* The long option a "--NAME[=VALUE]" argument names, as getopt_long
 * matches it (exactly, else by a unique prefix): NULL if none, with
 * *nhits the number of prefix matches (more than one: ambiguous). */
static const struct option *long_option_named(const char *arg, const struct option *longopts,
					      size_t len, int *nhits)
{
	const struct option *hit = NULL;

	*nhits = 0;
	for (const struct option *lo = longopts; lo && lo->name; lo++) {
		if (strncmp(lo->name, arg, len))
			continue;
		if (strlen(lo->name) == len) {
			*nhits = 1;
			return lo;
		}
		if ((*nhits)++ == 0)
			hit = lo;
	}
	return *nhits == 1 ? hit : NULL;
}

int bad_option(const char *cmd, int c, char **argv, const struct option *longopts)
{
	/* A long option is always the argument just consumed (getopt_long
	 * moved optind past it); a short one may sit inside a cluster ("-xp")
	 * where optind has not moved yet: optopt names it. */
	const char *arg = optind > 0 ? argv[optind - 1] : NULL;

	if (arg && !strncmp(arg, "--", 2) && arg[2]) {
		const char *name = arg + 2;
		size_t len = strcspn(name, "=");
		int nhits, has_value = name[len] == '=';
		const struct option *lo = long_option_named(name, longopts, len, &nhits);

		if (c == ':' && lo && !has_value && lo->has_arg == required_argument) {
			wpp_err("%s: --%s needs a value", cmd, lo->name);
			return OPT_EXIT_USAGE;
		}
		if (c == '?' && optopt && lo && has_value && lo->has_arg == no_argument) {
			wpp_err("%s: --%s takes no value", cmd, lo->name);
			return OPT_EXIT_USAGE;
		}
		if (c == '?' && !optopt && nhits > 1) {
			char list[256] = "";
			size_t used = 0;
			for (const struct option *o = longopts; o->name && used < sizeof(list) - 64;
			     o++)
				if (!strncmp(o->name, name, len))
					used +=
					    (size_t)snprintf(list + used, sizeof(list) - used,
							     "%s--%s", used ? ", " : "", o->name);
			wpp_err("%s: '--%.*s' is ambiguous (%s)", cmd, (int)len, name, list);
			return OPT_EXIT_USAGE;
		}
		if (c == '?' && !optopt) {
			wpp_err("%s: unknown option '--%.*s' (try wpptrace help %s)", cmd, (int)len,
				name, cmd);
			return OPT_EXIT_USAGE;
		}
	}
	if (c == ':' && optopt > 0 && optopt < 128) {
		const struct option *lo = longopts;
		while (lo && lo->name && !(lo->val == optopt && !lo->flag && lo->has_arg))
			lo++;
		if (lo && lo->name)
			wpp_err("%s: -%c (--%s) needs a value", cmd, optopt, lo->name);
		else
			wpp_err("%s: -%c needs a value", cmd, optopt);
	} else if (optopt > 0 && optopt < 128)
		wpp_err("%s: unknown option '-%c' (try wpptrace help %s)", cmd, optopt, cmd);
	else
		wpp_err("%s: bad option '%s' (try wpptrace help %s)", cmd, arg ? arg : "?", cmd);
	return OPT_EXIT_USAGE;
}
