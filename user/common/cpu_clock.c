/* SPDX-License-Identifier: MIT */
/* cpu_clock.c — see cpu_clock.h. */
#include "common/cpu_clock.h"

#include <time.h>

double process_cpu_seconds(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}
