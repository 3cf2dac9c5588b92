/* SPDX-License-Identifier: MIT */
/*
 * summary_text.h — the figures record's summary line and `wpptrace info`
 * print, worded the same in both: a count with its noun in the singular
 * or plural, and the bytes stored per path record.
 */
#ifndef WPP_RECORD_SUMMARY_TEXT_H
#define WPP_RECORD_SUMMARY_TEXT_H

#include <stddef.h>
#include <stdint.h>

/* "1 process", "2 processes": one if n is 1, else many. */
const char *summary_noun(uint64_t n, const char *one, const char *many);

/* ", B bytes per path record" into buf: B with three significant digits
 * and no exponent, so a REPEAT-heavy run's 0.00213 and a varied one's
 * 2.50 both say something (three decimals said 0.002 and 2.500); at most
 * eight decimals.  Nothing (empty) when there are no records. */
void summary_per_record(char *buf, size_t size, uint64_t bytes, uint64_t records);

#endif
