/* SPDX-License-Identifier: MIT */
/* Main program linked against the instrumented shared library; passes it a
 * callback so control goes main -> lib -> main -> lib. */
#include <stdio.h>

#include "corpus.h"
#include "shlib.h"

static int halve_evens(int v)
{
	if (v & 1)
		return v;
	return v / 2;
}

int main(void)
{
	uint32_t st = corpus_seed();
	int v[64];
	for (int i = 0; i < 64; i++)
		v[i] = (int)(corpus_next(&st) % 200u);
	int before = shlib_score(v, 64);
	int changed = shlib_apply(v, 64, halve_evens);
	int after = shlib_score(v, 64);
	printf("shlib: before=%d changed=%d after=%d\n", before, changed, after);
	return 0;
}
