/* SPDX-License-Identifier: MIT */
/*
 * sequitur_serial_internal.h — what the two grammar format versions share
 * (sequitur_serial.c: the envelope, version 1 and the dispatch;
 * sequitur_serial_v2.c: version 2).  Not for users of the library.
 */
#ifndef WPP_SEQUITUR_SERIAL_INTERNAL_H
#define WPP_SEQUITUR_SERIAL_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "analysis/grammar/sequitur_grammar.h"

struct seq_out {
	uint8_t *p;
	size_t n, cap;
	int failed;
};

void seq_out_bytes(struct seq_out *o, const void *src, size_t n);
void seq_out_varint(struct seq_out *o, uint64_t v);

struct seq_in {
	const uint8_t *p, *end;
	int bad;
};

/* A LEB128 varint no larger than max (else bad is set). */
uint64_t seq_in_varint(struct seq_in *in, uint64_t max);

/* Version 2 or 3 body (the same layout; version 3 tunes the model, see
 * sequitur_serial_v2.c): everything after "WPPG" and the version, up to
 * (not including) the checksum.  Returns 0, 1 if g is not in the
 * canonical numbering both rely on (the caller then writes version 1), or
 * -1 when out of memory. */
int seq_serialize_v2_body(const struct seq_grammar *g, struct seq_out *o, unsigned version);

/* Parse a version 2 or 3 body spanning in (checksum already verified and
 * excluded); 0, or -1 with a reason in why (g is then empty). */
int seq_deserialize_v2_body(struct seq_in *in, struct seq_grammar *g, char *why, size_t whylen,
			    unsigned version);

#endif
