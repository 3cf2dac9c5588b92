/* SPDX-License-Identifier: MIT */
/*
 * kslab_words.h — feed raw trace words (wpp/trace_abi.h) to a k-slab forest.
 *
 * The item/mark rules are the decoder's event rules (user/decode/decoder.c)
 * restated for raw words, so a forest built online from words equals one
 * built offline from decoder events (kipf_build.h):
 *   fid 1..WPP_FID_MAX word          item (fid, payload)
 *   WIDE_PATH + id with mark bit     item (operand fid, id)
 *   zero word, PAD                   nothing
 *   GAP + count                      mark
 *   unregistered fid, fid 0 in a wide record, wide id without its mark bit,
 *   a wide/gap record cut short, unknown control word   mark
 * The one rule raw words cannot apply is "block index out of range" (it
 * needs metadata): such a blocks-mode record is an item online and a mark
 * offline.
 */
#ifndef WPP_KSLAB_WORDS_H
#define WPP_KSLAB_WORDS_H

#include <stddef.h>
#include <stdint.h>

#include "kslab.h"

/* Feed words[0..n); a two-word record must not be split across calls.
 * 0, or -1 if the forest ran out of memory. */
int kslab_feed_words(struct kslab *s, const uint64_t *words, size_t n);

#endif
