/* SPDX-License-Identifier: MIT */
/*
 * kslab_words.c — raw trace words -> k-SF items and marks (see kslab_words.h).
 */
#include "kslab_words.h"

#include "wpp/trace_abi.h"

static int label(struct kslab *s, uint32_t fid, uint64_t value)
{
	if (fid == 0 || fid == WPP_FID_UNREGISTERED) {
		/* Whose path this is is unknown: it cannot be part of a k-path. */
		kslab_mark(s);
		return 0;
	}
	return kslab_item(s, fid, value);
}

int kslab_feed_words(struct kslab *s, const uint64_t *w, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		uint64_t word = w[i];
		int rc = 0;

		if (word == 0)
			continue;
		if (wpp_word_fid(word) != WPP_FID_CONTROL) {
			rc = label(s, wpp_word_fid(word), wpp_word_payload(word));
		} else {
			switch (wpp_ctrl_op(word)) {
			case WPP_CTRL_PAD:
				break;
			case WPP_CTRL_WIDE_PATH:
				if (i + 1 == n) {
					kslab_mark(s);
					break;
				}
				i++;
				if (w[i] & WPP_WIDE_ID_MARK)
					rc = label(s, wpp_ctrl_operand(word),
						   w[i] & ~WPP_WIDE_ID_MARK);
				else
					kslab_mark(s);
				break;
			case WPP_CTRL_GAP:
				if (i + 1 < n)
					i++;
				kslab_mark(s);
				break;
			default:
				kslab_mark(s);
				break;
			}
		}
		if (rc < 0)
			return -1;
	}
	return 0;
}
