/* SPDX-License-Identifier: MIT */
#include "record/record_info.h"

#include <stdio.h>
#include <time.h>
#include <unistd.h>

/* snprintf into buf at *n, never past its end. */
#define APPEND(...)                                                                                \
	do {                                                                                       \
		if (n < sizeof(buf))                                                               \
			n += (size_t)snprintf(buf + n, sizeof(buf) - n, __VA_ARGS__);              \
	} while (0)

int record_write_info(struct wpp_writer *w, const struct record_opts *o,
		      const char *transport_lines)
{
	char buf[8192];
	size_t n = 0;

	if (o->argv) {
		APPEND("command=");
		for (char **a = o->argv; *a; a++)
			APPEND("%s%s", a == o->argv ? "" : " ", *a);
		APPEND("\n");
	} else if (o->all) {
		APPEND("command=-a\nscope=all\n");
	} else {
		APPEND("command=-p");
		for (int i = 0; i < o->npids; i++)
			APPEND("%s%d", i ? "," : " ", (int)o->pids[i]);
		APPEND("\nscope=pids\n");
	}
	if (o->duration_s > 0)
		APPEND("duration_s=%g\n", o->duration_s);
	APPEND("%srecorder_pid=%d\n", transport_lines, (int)getpid());
	if (n >= sizeof(buf))
		n = sizeof(buf) - 1;
	return wppw_chunk(w, WPP_CHUNK_INFO, buf, (uint32_t)n);
}
