/* SPDX-License-Identifier: MIT */
/*
 * testlib.h — test-side builders for the decode tests, written independently
 * of the code under test:
 *   - small DAGs with a plain Ball-Larus numbering (number of paths per node
 *     by memoised recursion, edge value = paths of earlier siblings);
 *   - metadata blobs in the wpp_meta layout built from such DAGs, and a copy
 *     of the test's own executable carrying one;
 *   - a minimal .wpp writer (header + CRC32C chunks).
 */
#ifndef WPP_TESTS_DECODE_TESTLIB_H
#define WPP_TESTS_DECODE_TESTLIB_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "wpp/meta_format.h"
#include "wpp/wpp_file.h"

#define TL_MAX_EDGES 96
#define TL_MAX_BLOCKS 32

struct tl_edge {
	uint32_t src, dst, kind; /* ENTRY = nblocks, EXIT = nblocks + 1 */
	uint64_t val;            /* set by tl_number */
};

struct tl_func {
	const char *name;
	uint32_t nblocks, nedges, flags;
	struct tl_edge edges[TL_MAX_EDGES]; /* grouped by src after tl_number */
	uint64_t npaths;                    /* set by tl_number */
};

/* Ball-Larus numbering of f (stable-sorts edges by src first). */
void tl_number(struct tl_func *f);

/* Random DAG: blocks in topological index order, n blocks (2..TL_MAX_BLOCKS). */
void tl_random_dag(struct tl_func *f, uint32_t nblocks, unsigned *seed);

/* The diamond: block 0 branches to 1 and 2, which join at 3 (two paths),
 * entered at function entry or by a back edge, left by return or a back
 * edge: 8 paths, numbered, named "diamond". */
void tl_diamond(struct tl_func *d);

/* Blob of the given functions (local_index = position).  Block b of every
 * function has one line "t.c":(100 * func + b + 1) and ninsns b + 1. */
void *tl_blob(const struct tl_func *fns, uint32_t nfns, uint64_t tu_hash, uint32_t mode, size_t *size);

/* Minimal .wpp writer. */
struct tl_writer {
	FILE *f;
};
int tl_wopen(struct tl_writer *w, const char *path);
void tl_chunk(struct tl_writer *w, uint16_t type, const void *a, uint32_t alen, const void *b, uint32_t blen);
void tl_batch(struct tl_writer *w, uint32_t pid, uint32_t gen, uint32_t tid, uint64_t seq, uint32_t flags,
	      uint64_t parent_seq, uint32_t parent_off, const uint64_t *words, uint32_t n);
void tl_module(struct tl_writer *w, uint32_t pid, uint32_t gen, uint32_t fid_base, uint32_t nfuncs,
	       uint64_t tu_hash, const uint8_t *build_id, uint32_t build_id_len, const char *path);
void tl_process(struct tl_writer *w, uint32_t pid, uint32_t ppid, uint32_t flags, uint32_t gen);
void tl_wclose(struct tl_writer *w, int with_end);

/* A scratch directory /tmp/wpp-test-NAME-PID, made (0700), its path into
 * dir: 0, or -1 if it cannot be made. */
int tl_scratch_dir(char *dir, size_t size, const char *name);
/* The scratch directory dir and every file in it, removed. */
void tl_scratch_remove(const char *dir);
/* A copy of this very executable at elf_path with blob (size bytes) as its
 * wpp_meta section, by objcopy: the copy has a real GNU build-id.  The blob
 * passes through ELF_PATH.meta, removed after.  0, or -1 if objcopy failed. */
int tl_exe_with_meta(const char *elf_path, const void *blob, size_t size);

/* Read a whole file (malloc'ed). */
unsigned char *tl_slurp(const char *path, size_t *size);
void tl_spit(const char *path, const void *buf, size_t size);

#endif
