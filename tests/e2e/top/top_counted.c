/* SPDX-License-Identifier: MIT */
/*
 * top_counted.c — the counting-mode half of tests/e2e/top/top_phases.c:
 * built with -fwpp-mode=count while the rest traces, so one process
 * holds both kinds of TU.  counted(x) takes one of two paths and adds 2.
 */
#include <stdint.h>

volatile uint64_t counted_acc;

__attribute__((noinline)) void counted(uint32_t x)
{
	if (x % 3 == 0)
		counted_acc += 1, counted_acc += 1;
	else
		counted_acc += 2;
}
