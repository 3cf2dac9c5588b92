/* SPDX-License-Identifier: MIT */
/*
 * sequitur_serial.h — a grammar's compact binary form (the stored WPP).
 *
 * seq_serialize writes version 4 (the layout of version 2, below) and
 * falls back to version 1 for a grammar not in seq_export's canonical
 * numbering; seq_deserialize reads versions 1 to 4.  Versions 2, 3 and 4
 * share the layout and differ in the model of the range-coded payload.
 * Full descriptions with rationale: docs/sequitur.md.
 *
 * Version 1 layout (all integers are LEB128 varints unless noted):
 *
 *   "WPPG"  version  flags
 *   nterm   nterm terminal values, most used first
 *   nrules  nroots
 *   for each node (rules in post-order, then roots in segment order):
 *       length (rules: length - 2, roots: length)
 *       length symbol codes: c < nterm   terminal number c
 *                            c >= nterm  rule (self - 1 - (c - nterm)),
 *                                        where self is nrules for roots
 *   crc32c of everything before it, 4 bytes little-endian
 *
 * Version 2, 3 and 4 layout:
 *
 *   "WPPG"  version  flags
 *   nterm   nterm terminal values in order of first occurrence, each as a
 *           zigzag varint of (value - previous value - 1)
 *   nrules  nroots  nsyms (body symbols in all)
 *   payload: the bodies, range-coded (sequitur_serial_v2.c, sequitur_rc.h)
 *   crc32c of everything before it, 4 bytes little-endian
 *
 * The parser treats its input as hostile: every count is checked against
 * the bytes that remain before anything is allocated, every reference must
 * point to an earlier rule (so the DAG is acyclic by construction), and the
 * checksum and exact length are verified.
 */
#ifndef WPP_SEQUITUR_SERIAL_H
#define WPP_SEQUITUR_SERIAL_H

#include <stddef.h>
#include <stdint.h>

#include "analysis/grammar/sequitur_grammar.h"

#define SEQ_SERIAL_MAGIC   "WPPG"
#define SEQ_SERIAL_VERSION 4u /* what seq_serialize writes (1 to 3 are still read) */

/* Encode g into a malloc'd buffer (*out, *outlen).  0 or -1 (no memory). */
int seq_serialize(const struct seq_grammar *g, uint8_t **out, size_t *outlen);

/* The same with a chosen version (1 to 4; 2 to 4 fall back to 1 for a
 * grammar that is not canonically numbered).  For tests and comparisons. */
int seq_serialize_version(const struct seq_grammar *g, unsigned version, uint8_t **out,
			  size_t *outlen);

/* Decode; 0, or -1 with a one-line reason in why (g is then empty). */
int seq_deserialize(const uint8_t *buf, size_t len, struct seq_grammar *g, char *why,
		    size_t whylen);

#endif
