/* SPDX-License-Identifier: MIT */
/*
 * forest_check.h — the unit tests' comparison of a k-IPF with the
 * brute-force n-gram reference: every forest node is a reference n-gram
 * and every reference n-gram a node, with equal counts (lost == 0), or,
 * for a pruned forest, counts c with c <= truth <= c + lost per node and
 * deficits summed per level at most lost.  Fails the running cmocka test.
 */
#ifndef WPP_TEST_KSLAB_FOREST_CHECK_H
#define WPP_TEST_KSLAB_FOREST_CHECK_H

#include <stdint.h>

#include "analysis/kpaths/kipf.h"
#include "ngram_ref.h"

void forest_check(const struct kipf *f, const struct ngram_ref *ref, uint64_t lost);
/* Two sorted forests are the same: k, items, lost_items, every node's
 * label and count. */
void forest_same(const struct kipf *a, const struct kipf *b);

#endif
