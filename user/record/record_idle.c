/* SPDX-License-Identifier: MIT */
/* record_idle.c — see record_idle.h. */
#include "record/record_idle.h"

#include <stdio.h>
#include <unistd.h>

#define WINDOW_NS (100 * 1000 * 1000ull)

/* The "cpu" line's idle (idle + iowait) and total ticks; 0 or -1. */
static int read_stat(unsigned long long *idle, unsigned long long *total)
{
	unsigned long long v[8] = {0};
	FILE *f = fopen("/proc/stat", "re");
	int n;

	if (!f)
		return -1;
	n = fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2], &v[3],
		   &v[4], &v[5], &v[6], &v[7]);
	fclose(f);
	if (n < 5)
		return -1;
	*idle = v[3] + v[4];
	*total = 0;
	for (int i = 0; i < 8; i++)
		*total += v[i];
	return 0;
}

int record_idle_spare_cpu(struct record_idle *ri, uint64_t now_ns)
{
	unsigned long long idle, total;
	long ncpu;

	if (ri->at_ns && now_ns - ri->at_ns < WINDOW_NS)
		return ri->on;
	if (read_stat(&idle, &total) < 0)
		return ri->on = 0;
	ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	if (ri->at_ns && total > ri->total && ncpu > 1) {
		ri->idle_cpus =
		    (double)(idle - ri->idle) / (double)(total - ri->total) * (double)ncpu;
		ri->on = ri->on ? ri->idle_cpus >= 0.25 : ri->idle_cpus >= 0.75;
	}
	ri->at_ns = now_ns;
	ri->idle = idle;
	ri->total = total;
	return ri->on;
}
