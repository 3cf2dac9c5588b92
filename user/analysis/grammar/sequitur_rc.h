/* SPDX-License-Identifier: MIT */
/*
 * sequitur_rc.h — an adaptive binary range coder and the integer codes
 * built on it, for the version 2 grammar format (sequitur_serial_v2.c).
 *
 * Binary decisions are coded against 11-bit probabilities that adapt by
 * 1/16 of the error after every bit (the scheme LZMA popularised, there
 * with 1/32; 1/16 measured slightly smaller on path grammars; written
 * here from the textbook description).  Integers use an adaptive
 * Elias-gamma code: the bit length of the value through a 6-level binary
 * tree of probabilities, the bit below the leading one through a
 * probability per length, the remaining bits at even odds.  Every model is
 * a plain array of uint16_t, so coder state is deterministic and the same
 * on encode and decode.
 *
 * The decoder never reads outside its buffer: past the end it feeds zero
 * bytes and counts them (rc_dec_overrun), so a caller rejects input that
 * ended too early after the fact.  The probability floor (15/2048 after
 * adaptation) bounds how little a decision can cost: about 0.011 bits, so
 * a payload of N bytes decodes to at most ~760 N decisions.
 */
#ifndef WPP_SEQUITUR_RC_H
#define WPP_SEQUITUR_RC_H

#include <stddef.h>
#include <stdint.h>

#define RC_PROB_BITS 11
#define RC_PROB_INIT (1u << (RC_PROB_BITS - 1))

/* Values of up to this many bits have every bit below the leading one
 * modelled (a "fine" gamma model); longer ones only the first. */
#define RC_GAMMA_FINE_BITS 10

/* Probabilities for one adaptive gamma-coded integer context. */
struct rc_gamma_model {
	uint16_t len[64];  /* bit-length tree */
	uint16_t high[33]; /* the bit below the leading one, per length */
	/* Fine models: a bit tree per length (2 .. RC_GAMMA_FINE_BITS), node
	 * (length L, prefix p) at (1 << (L - 1)) - 1 + p. */
	uint16_t tree[1u << RC_GAMMA_FINE_BITS];
	int fine;
};

/* Plain (format version 2) or fine (version 3) gamma model. */
void rc_gamma_init(struct rc_gamma_model *m);
void rc_gamma_init_fine(struct rc_gamma_model *m);
void rc_probs_init(uint16_t *p, size_t n);

struct rc_enc {
	uint8_t *buf;
	size_t n, cap;
	uint64_t low;
	uint32_t range;
	uint8_t cache;
	uint64_t cache_size;
	int failed; /* out of memory */
};

void rc_enc_init(struct rc_enc *e);
void rc_enc_bit(struct rc_enc *e, uint16_t *prob, unsigned bit);
void rc_enc_direct(struct rc_enc *e, uint32_t value, unsigned nbits);
void rc_enc_gamma(struct rc_enc *e, struct rc_gamma_model *m, uint64_t value);
/* Flush; the coded bytes are then e->buf[0 .. e->n).  0 or -1. */
int rc_enc_finish(struct rc_enc *e);

struct rc_dec {
	const uint8_t *p, *end;
	uint32_t range, code;
	uint64_t overrun; /* zero bytes fed past the end */
};

/* 0, or -1 if the stream does not start like one rc_enc writes. */
int rc_dec_init(struct rc_dec *d, const uint8_t *buf, size_t len);
unsigned rc_dec_bit(struct rc_dec *d, uint16_t *prob);
uint32_t rc_dec_direct(struct rc_dec *d, unsigned nbits);
/* Values above max are clamped to max + 1 so callers can reject them
 * without overflow; lengths above 64 bits cannot be represented. */
uint64_t rc_dec_gamma(struct rc_dec *d, struct rc_gamma_model *m, uint64_t max);

#endif
