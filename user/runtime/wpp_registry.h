/* SPDX-License-Identifier: MIT */
/*
 * wpp_registry.h — the process-global TU registry libwpprt keeps at the
 * exported symbol `__wpp_registry`, for collectors that attach to a running
 * process (the BPF collector with -p reads it through /proc/PID/mem after
 * finding the symbol in libwpprt's (or the executable's) symbol table).
 *
 * Layout is fixed ABI (little-endian x86-64, natural alignment):
 *  - header at __wpp_registry;
 *  - `entries` is the address of an array of `capacity` entries, of which the
 *    first `count` are valid.  The array only grows: a larger copy is made and
 *    `entries` switched with a release store; old arrays are never freed, so
 *    a reader racing with growth still reads valid (older) data.
 *  - `update_seq` is odd while a writer is changing the registry and even
 *    otherwise (seqlock): a reader copies header + entries and retries if the
 *    value changed or was odd.
 *  - `path` is the address of a NUL-terminated string of path_len bytes
 *    (incl. NUL), never freed.
 */
#ifndef WPP_RT_REGISTRY_H
#define WPP_RT_REGISTRY_H

#include <stdint.h>

#define WPP_REGISTRY_MAGIC   "WPPREG\0\0"
#define WPP_REGISTRY_VERSION 1u
#define WPP_REGISTRY_SYMBOL  "__wpp_registry"

enum wpp_registry_transport {
	WPP_REG_TRANSPORT_NONE = 0,
	WPP_REG_TRANSPORT_DISCARD = 1,
	WPP_REG_TRANSPORT_PROBE = 2,
	WPP_REG_TRANSPORT_SHM = 3,
};

struct wpp_registry_entry {
	uint64_t tu_hash;
	uint32_t fid_base;
	uint32_t nfuncs;
	uint64_t meta_addr; /* run-time address of the TU's metadata blob */
	uint64_t meta_size;
	uint64_t load_bias; /* of the ELF object containing the blob */
	uint64_t path;	    /* address of the object's path */
	uint32_t path_len;
	uint32_t build_id_len;
	uint8_t build_id[20];
	uint32_t reserved0;
};

struct wpp_registry {
	char magic[8];	     /* WPP_REGISTRY_MAGIC */
	uint32_t version;    /* WPP_REGISTRY_VERSION */
	uint32_t entry_size; /* sizeof(struct wpp_registry_entry) */
	uint64_t update_seq; /* seqlock, see above */
	uint32_t pid;	     /* process the data describes (updated in fork children) */
	uint32_t next_fid;   /* first unassigned fid */
	uint32_t count;
	uint32_t capacity;
	uint64_t entries;   /* address of struct wpp_registry_entry[capacity] */
	uint32_t transport; /* enum wpp_registry_transport */
	uint32_t buffer_words;
};

#endif
