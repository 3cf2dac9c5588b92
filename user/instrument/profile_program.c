/* SPDX-License-Identifier: MIT */
/* profile_program.c — see profile_program.h. */
#include "instrument/profile_program.h"

#include <string.h>

/* The last path component of [s, s + n). */
static const char *base(const char *s, size_t n, size_t *len)
{
	const char *b = s;
	for (size_t i = 0; i < n; i++)
		if (s[i] == '/')
			b = s + i + 1;
	*len = n - (size_t)(b - s);
	return b;
}

int wpp_profile_other_program(const char *their_main, const char *source, size_t source_len)
{
	size_t a_len, b_len;
	if (!their_main || !source)
		return 0;
	const char *a = base(their_main, strlen(their_main), &a_len);
	const char *b = base(source, source_len, &b_len);
	/* the profile writes bytes <= ' ' as '?': such a name is not compared */
	for (size_t i = 0; i < b_len; i++)
		if ((unsigned char)b[i] <= ' ' || b[i] == 0x7f)
			return 0;
	return a_len != b_len || memcmp(a, b, a_len) != 0;
}
