/* SPDX-License-Identifier: MIT */
/* wppcc_profile.c — resolve and check --wpp-profile (see wppcc_profile.h). */
#include "instrument/wppcc/wppcc_profile.h"

#include "instrument/edge_profile_read.h"
#include "instrument/wppcc/wppcc_convert.h"

static int check_edge_profile(const char *path, char *why, size_t whylen)
{
	struct wpp_edge_prof p;
	if (wpp_edge_prof_load(&p, path, why, whylen))
		return -1;
	wpp_edge_prof_free(&p);
	return 0;
}

int wppcc_profile_resolve(const char *given, const char *bindir, char *out, size_t outlen,
			  char *why, size_t whylen)
{
	static const struct wppcc_converter k = {"--wpp-profile", "edges", check_edge_profile};
	return wppcc_convert_resolve(&k, given, bindir, out, outlen, why, whylen);
}
