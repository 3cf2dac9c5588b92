/* SPDX-License-Identifier: MIT */
/* summary_text.c — see summary_text.h. */
#include "record/summary_text.h"

#include <stdio.h>

const char *summary_noun(uint64_t n, const char *one, const char *many)
{
	return n == 1 ? one : many;
}

void summary_per_record(char *buf, size_t size, uint64_t bytes, uint64_t records)
{
	if (!records) {
		if (size)
			buf[0] = 0;
		return;
	}
	double v = (double)bytes / (double)records;
	int decimals = 2;
	/* one more decimal for each power of ten v is below 1 */
	for (double at = 1; v > 0 && v < at && decimals < 8; at /= 10)
		decimals++;
	snprintf(buf, size, ", %.*f bytes per path record", decimals, v);
}
