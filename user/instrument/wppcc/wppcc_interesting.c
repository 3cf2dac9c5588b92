/* SPDX-License-Identifier: MIT */
/* wppcc_interesting.c — resolve and check --wpp-interesting (see wppcc_interesting.h). */
#include "instrument/wppcc/wppcc_interesting.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "instrument/interesting_read.h"
#include "instrument/wppcc/wppcc_convert.h"

/* More files than any build needs; keeps the list a fixed array. */
#define MAX_FILES 64

static int check_set(const char *path, char *why, size_t whylen)
{
	struct wpp_interesting s;
	size_t len = strlen(path);
	if (wpp_interesting_load(&s, &path, 1, why, whylen)) {
		/* the caller names the file already */
		if (strncmp(why, path, len) == 0 && strncmp(why + len, ": ", 2) == 0)
			memmove(why, why + len + 2, strlen(why + len + 2) + 1);
		return -1;
	}
	wpp_interesting_free(&s);
	return 0;
}

int wppcc_interesting_resolve(const char *given, const char *bindir, char *out, size_t outlen,
			      struct wpp_interesting *s, char *why, size_t whylen)
{
	static const struct wppcc_converter k = {"--wpp-interesting", "interesting", check_set};
	static char resolved[MAX_FILES][PATH_MAX];
	const char *paths[MAX_FILES];
	char one[PATH_MAX];
	size_t n = 0, used = 0;

	for (const char *p = given;; p++) {
		const char *comma = strchr(p, ',');
		size_t len = comma ? (size_t)(comma - p) : strlen(p);
		if (!len || len >= sizeof(one)) {
			snprintf(why, whylen, "--wpp-interesting: %s in '%s'",
				 len ? "a file name too long" : "an empty file name", given);
			return -1;
		}
		if (n == MAX_FILES) {
			snprintf(why, whylen, "--wpp-interesting: more than %d files", MAX_FILES);
			return -1;
		}
		memcpy(one, p, len);
		one[len] = 0;
		if (wppcc_convert_resolve(&k, one, bindir, resolved[n], sizeof(resolved[n]), why,
					  whylen))
			return -1;
		if (strchr(resolved[n], '\n')) {
			snprintf(why, whylen, "--wpp-interesting %s: a newline in its path", one);
			return -1;
		}
		paths[n] = resolved[n];
		int w = snprintf(out + used, outlen - used, "%s%s", n ? "\n" : "", resolved[n]);
		if (w < 0 || (size_t)w >= outlen - used) {
			snprintf(why, whylen, "--wpp-interesting: too many files");
			return -1;
		}
		used += (size_t)w;
		n++;
		if (!comma)
			break;
		p = comma;
	}
	/* each file parses alone; together they must also agree */
	memset(s, 0, sizeof(*s));
	if (wpp_interesting_load(s, paths, n, why, whylen)) {
		char detail[512];
		snprintf(detail, sizeof(detail), "%s", why);
		snprintf(why, whylen, "--wpp-interesting: %s", detail);
		return -1;
	}
	return 0;
}
