/* SPDX-License-Identifier: MIT */
/* crc32c.h — CRC-32C (Castagnoli), the checksum of .wpp chunks. */
#ifndef WPP_CRC32C_H
#define WPP_CRC32C_H

#include <stddef.h>
#include <stdint.h>

/* Continue a CRC over buf; start with crc = 0. */
uint32_t wpp_crc32c(uint32_t crc, const void *buf, size_t len);
/* The portable table version (what wpp_crc32c uses without SSE4.2); exposed
 * so tests can check the two implementations against each other. */
uint32_t wpp_crc32c_table(uint32_t crc, const void *buf, size_t len);

#endif
