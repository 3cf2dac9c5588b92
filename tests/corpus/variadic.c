/* SPDX-License-Identifier: MIT */
/* Variadic functions: va_arg loops over ints, a mini formatter walking a
 * format string with mixed types, and va_copy. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "corpus.h"

__attribute__((noinline)) static long sum_ints(int n, ...)
{
	va_list ap;
	long s = 0;
	va_start(ap, n);
	for (int i = 0; i < n; i++) {
		int v = va_arg(ap, int);
		if (v < 0)
			s -= v;
		else
			s += v;
	}
	va_end(ap);
	return s;
}

/* %d int, %s string, %f double (printed as fixed-point), %% literal. */
__attribute__((noinline)) static int mini_format(char *out, size_t cap, const char *fmt, ...)
{
	va_list ap, again;
	size_t n = 0;
	int args = 0;
	va_start(ap, fmt);
	va_copy(again, ap);
	for (const char *p = fmt; *p && n + 32 < cap; p++) {
		if (*p != '%') {
			out[n++] = *p;
			continue;
		}
		switch (*++p) {
		case 'd':
			n += (size_t)snprintf(out + n, cap - n, "%d", va_arg(ap, int));
			args++;
			break;
		case 's': {
			const char *s = va_arg(ap, const char *);
			size_t l = strlen(s);
			if (l > 16)
				l = 16;
			memcpy(out + n, s, l);
			n += l;
			args++;
			break;
		}
		case 'f':
			n += (size_t)snprintf(out + n, cap - n, "%.3f", va_arg(ap, double));
			args++;
			break;
		case '%':
			out[n++] = '%';
			break;
		default:
			out[n++] = '?';
			if (!*p)
				p--;
			break;
		}
	}
	out[n] = 0;
	/* Walk the copy again: the first argument is reported as a check. */
	int first = 0;
	if (args > 0 && fmt[0] == '%' && fmt[1] == 'd')
		first = va_arg(again, int);
	va_end(again);
	va_end(ap);
	return first;
}

int main(void)
{
	uint32_t st = corpus_seed();
	int a = (int)(st % 100u);
	long s = sum_ints(5, a, -3, 7, -a, 11) + sum_ints(0) + sum_ints(2, 1, 2);
	char buf[256];
	int first = mini_format(buf, sizeof buf, "%d items of %s cost %f (%% off %d)%q", a + 1,
			       "widget", 2.5 * a, 15);
	printf("sum=%ld first=%d fmt=[%s]\n", s, first, buf);
	return 0;
}
