/* SPDX-License-Identifier: MIT */
#include "report/table_fmt.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

char *fmt_fit(char *buf, size_t width, const char *s)
{
	size_t n = strlen(s);

	if (n <= width) {
		memcpy(buf, s, n + 1);
		return buf;
	}
	memcpy(buf, s, width - 1);
	buf[width - 1] = '~';
	buf[width] = '\0';
	return buf;
}

char *fmt_fit_left(char *buf, size_t width, const char *s)
{
	size_t n = strlen(s);

	if (n <= width) {
		memcpy(buf, s, n + 1);
		return buf;
	}
	buf[0] = '~';
	memcpy(buf + 1, s + n - (width - 1), width);
	return buf;
}

char *fmt_fit_mid(char *buf, size_t width, const char *s)
{
	size_t n = strlen(s), head = (width - 1) / 2, tail = width - 1 - head;

	if (n <= width) {
		memcpy(buf, s, n + 1);
		return buf;
	}
	memcpy(buf, s, head);
	buf[head] = '~';
	memcpy(buf + head + 1, s + n - tail, tail + 1);
	return buf;
}

char *fmt_count(char *buf, uint64_t v)
{
	static const char units[] = "kMGTPE";
	double x = (double)v;
	int u = -1;

	if (v < 100000) {
		snprintf(buf, FMT_NUM_LEN, "%" PRIu64, v);
		return buf;
	}
	/* Scale until 3 significant digits suffice; 999.5k must become 1.00M. */
	while (x >= 999.5 && u < 5) {
		x /= 1000.0;
		u++;
	}
	if (x < 9.995)
		snprintf(buf, FMT_NUM_LEN, "%.2f%c", x, units[u]);
	else if (x < 99.95)
		snprintf(buf, FMT_NUM_LEN, "%.1f%c", x, units[u]);
	else
		snprintf(buf, FMT_NUM_LEN, "%.0f%c", x, units[u]);
	return buf;
}

char *fmt_pct(char *buf, uint64_t part, uint64_t whole)
{
	double p = whole ? 100.0 * (double)part / (double)whole : 0.0;

	if (part && p < 0.05)
		snprintf(buf, FMT_NUM_LEN, "<0.1%%");
	else
		snprintf(buf, FMT_NUM_LEN, "%.1f%%", p);
	return buf;
}

char *fmt_change(char *buf, uint64_t before, uint64_t after)
{
	if (before == 0)
		snprintf(buf, FMT_NUM_LEN, after ? "new" : "0.0%%");
	else if (after >= before)
		snprintf(buf, FMT_NUM_LEN, "+%.1f%%",
			 100.0 * (double)(after - before) / (double)before);
	else
		snprintf(buf, FMT_NUM_LEN, "-%.1f%%",
			 100.0 * (double)(before - after) / (double)before);
	return buf;
}

const char *fmt_basename(const char *path)
{
	const char *s = strrchr(path, '/');
	return s ? s + 1 : path;
}

void fmt_wrap(FILE *out, int indent, int width, const char *text)
{
	int room = width - indent > 8 ? width - indent : 8;
	const char *p = text;

	while (*p) {
		int n = (int)strlen(p), cut = n;
		if (n > room) {
			for (cut = room; cut > 0 && p[cut] != ' '; cut--)
				;
			if (cut == 0)
				cut = room;
		}
		fprintf(out, "%*s%.*s\n", indent, "", cut, p);
		p += cut;
		while (*p == ' ')
			p++;
	}
}
