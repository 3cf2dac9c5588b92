/* SPDX-License-Identifier: MIT */
#include "common/log.h"

#include <stdio.h>
#include <stdlib.h>

int wpp_verbosity = 1;

static void say(const char *level, const char *fmt, va_list ap)
{
	char line[1024];

	vsnprintf(line, sizeof(line), fmt, ap);
	fprintf(stderr, "wpptrace: %s%s\n", level, line);
}

void wpp_err(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	say("error: ", fmt, ap);
	va_end(ap);
}

void wpp_warn(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	say("warning: ", fmt, ap);
	va_end(ap);
}

void wpp_info(const char *fmt, ...)
{
	va_list ap;
	if (wpp_verbosity < 1)
		return;
	va_start(ap, fmt);
	say("", fmt, ap);
	va_end(ap);
}

void wpp_die(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	say("error: ", fmt, ap);
	va_end(ap);
	exit(2);
}
