/* SPDX-License-Identifier: MIT */
/*
 * hold_loader.c — an LD_AUDIT module (built with plain cc, not wppcc) that
 * holds the dynamic loader of the program it audits right after it has
 * mapped one object, before any relocation: what a loaded machine does
 * now and then for a few milliseconds, made to last.  count-kill.sh uses
 * it to hold a count build while libwpprt is mapped but not relocated,
 * so that its `__wpp_registry` still holds the file's link-time values
 * (the `counts` address among them) when record first reads it, and to
 * hold one before the runtime is mapped at all, for many snapshot
 * intervals.
 *
 * WPP_HOLD_OBJECT: a substring of the object's name to hold at ("" holds
 * at the first object, the program itself); WPP_HOLD_MS: for how long.
 * Only the first match holds.
 */
#define _GNU_SOURCE
#include <link.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

unsigned int la_version(unsigned int version)
{
	(void)version;
	return LAV_CURRENT;
}

unsigned int la_objopen(struct link_map *map, Lmid_t lmid, uintptr_t *cookie)
{
	static int held;
	const char *what = getenv("WPP_HOLD_OBJECT"), *ms = getenv("WPP_HOLD_MS");
	(void)lmid;
	(void)cookie;
	if (held || !what || !ms || !strstr(map->l_name ? map->l_name : "", what))
		return 0;
	held = 1;
	long n = atol(ms);
	struct timespec ts = {n / 1000, (n % 1000) * 1000000};
	while (nanosleep(&ts, &ts) != 0)
		;
	return 0;
}
