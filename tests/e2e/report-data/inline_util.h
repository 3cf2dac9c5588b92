/* SPDX-License-Identifier: MIT */
/* Header code inlined into inline.c (tests/e2e/report-inline.sh) (its lines are in another file). */
/*
 * (padding: the code below sits at lines past the end of report-inline.c)
 * (padding: the code below sits at lines past the end of report-inline.c)
 * (padding: the code below sits at lines past the end of report-inline.c)
 * (padding: the code below sits at lines past the end of report-inline.c)
 * (padding: the code below sits at lines past the end of report-inline.c)
 * (padding: the code below sits at lines past the end of report-inline.c)
 * (padding: the code below sits at lines past the end of report-inline.c)
 * (padding: the code below sits at lines past the end of report-inline.c)
 * (padding: the code below sits at lines past the end of report-inline.c)
 * (padding: the code below sits at lines past the end of report-inline.c)
 * (padding: the code below sits at lines past the end of report-inline.c)
 * (padding: the code below sits at lines past the end of report-inline.c)
 * (padding: the code below sits at lines past the end of report-inline.c)
 * (padding: the code below sits at lines past the end of report-inline.c)
 * (padding: the code below sits at lines past the end of report-inline.c)
 * (padding: the code below sits at lines past the end of report-inline.c)
 * (padding: the code below sits at lines past the end of report-inline.c)
 * (padding: the code below sits at lines past the end of report-inline.c)
 * (padding: the code below sits at lines past the end of report-inline.c)
 * (padding: the code below sits at lines past the end of report-inline.c)
 * (padding: the code below sits at lines past the end of report-inline.c)
 * (padding: the code below sits at lines past the end of report-inline.c)
 * (padding: the code below sits at lines past the end of report-inline.c)
 * (padding: the code below sits at lines past the end of report-inline.c)
 * (padding: the code below sits at lines past the end of report-inline.c)
 * (padding: the code below sits at lines past the end of report-inline.c)
 * (padding: the code below sits at lines past the end of report-inline.c)
 * (padding: the code below sits at lines past the end of report-inline.c)
 * (padding: the code below sits at lines past the end of report-inline.c)
 * (padding: the code below sits at lines past the end of report-inline.c)
 * (padding: the code below sits at lines past the end of report-inline.c)
 * (padding: the code below sits at lines past the end of report-inline.c)
 * (padding: the code below sits at lines past the end of report-inline.c)
 * (padding: the code below sits at lines past the end of report-inline.c)
 * (padding: the code below sits at lines past the end of report-inline.c)
 * (padding: the code below sits at lines past the end of report-inline.c)
 */
static inline __attribute__((always_inline)) int clamp_small(int x)
{
	return x > 1000 ? 1000 : x; /* LINE_CLAMP */
}

static inline __attribute__((always_inline)) int scale(int x)
{
	return clamp_small(x * 3) + 1; /* LINE_SCALE */
}
