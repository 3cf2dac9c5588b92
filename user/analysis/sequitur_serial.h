/* SPDX-License-Identifier: MIT */
/*
 * sequitur_serial.h — a grammar's compact binary form (the stored WPP).
 *
 * Version 1 layout (all integers are LEB128 varints unless noted; full
 * description with rationale in docs/sequitur.md):
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
 * The parser treats its input as hostile: every count is checked against
 * the bytes that remain before anything is allocated, every reference must
 * point to an earlier rule (so the DAG is acyclic by construction), and the
 * checksum and exact length are verified.
 */
#ifndef WPP_SEQUITUR_SERIAL_H
#define WPP_SEQUITUR_SERIAL_H

#include <stddef.h>
#include <stdint.h>

#include "sequitur_grammar.h"

#define SEQ_SERIAL_MAGIC   "WPPG"
#define SEQ_SERIAL_VERSION 1u

/* Encode g into a malloc'd buffer (*out, *outlen).  0 or -1 (no memory). */
int seq_serialize(const struct seq_grammar *g, uint8_t **out, size_t *outlen);

/* Decode; 0, or -1 with a one-line reason in why (g is then empty). */
int seq_deserialize(const uint8_t *buf, size_t len, struct seq_grammar *g, char *why,
		    size_t whylen);

#endif
