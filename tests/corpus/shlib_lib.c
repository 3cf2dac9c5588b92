/* SPDX-License-Identifier: MIT */
/* Shared library built with `wppcc -shared -fPIC`: exported functions with
 * branches and loops, a static helper, and a callback into the main program. */
#include "shlib.h"

static int weight(int v)
{
	if (v % 15 == 0)
		return 4;
	if (v % 5 == 0)
		return 3;
	if (v % 3 == 0)
		return 2;
	return 1;
}

int shlib_score(const int *v, int n)
{
	int s = 0;
	for (int i = 0; i < n; i++)
		s += weight(v[i]) * (v[i] & 7);
	return s;
}

int shlib_apply(int *v, int n, int (*fn)(int))
{
	int changed = 0;
	for (int i = 0; i < n; i++) {
		int nv = fn(v[i]);
		if (nv != v[i]) {
			v[i] = nv;
			changed++;
		}
	}
	return changed;
}
