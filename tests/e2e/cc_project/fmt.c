/* SPDX-License-Identifier: MIT */
#include <stdio.h>

#include "fmt.h"

void fmt_result(const char *expr, long value, int ok)
{
	if (ok)
		printf("%-20s = %ld\n", expr, value);
	else
		printf("%-20s : error\n", expr);
}
