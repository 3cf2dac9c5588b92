/* SPDX-License-Identifier: MIT */
/*
 * branch_chain.h — chains of independent branches, for test programs that
 * need a function with many Ball-Larus paths (more than a counting array
 * range, a sparse range, the runtime's hash).  BRANCH_CHAIN24(v, x) and
 * BRANCH_CHAIN31(v, x) are 24 and 31 branches on bits 0.. of x, 2^24 and
 * 2^31 paths; branch b adds b + 1 to v, which must be volatile so that
 * the optimizer cannot turn a branch into a select.
 */
#ifndef WPP_TESTS_BRANCH_CHAIN_H
#define WPP_TESTS_BRANCH_CHAIN_H

#include <stdint.h>

#define BRANCH_IF(v, x, b)                                                                         \
	if ((x) & (UINT32_C(1) << (b)))                                                            \
		(v) += (b) + 1;
#define BRANCH_IF4(v, x, b)                                                                        \
	BRANCH_IF(v, x, b)                                                                         \
	BRANCH_IF(v, x, (b) + 1) BRANCH_IF(v, x, (b) + 2) BRANCH_IF(v, x, (b) + 3)
#define BRANCH_IF8(v, x, b)  BRANCH_IF4(v, x, b) BRANCH_IF4(v, x, (b) + 4)
#define BRANCH_CHAIN24(v, x) BRANCH_IF8(v, x, 0) BRANCH_IF8(v, x, 8) BRANCH_IF8(v, x, 16)
#define BRANCH_CHAIN31(v, x)                                                                       \
	BRANCH_CHAIN24(v, x)                                                                       \
	BRANCH_IF4(v, x, 24) BRANCH_IF(v, x, 28) BRANCH_IF(v, x, 29) BRANCH_IF(v, x, 30)

#endif
