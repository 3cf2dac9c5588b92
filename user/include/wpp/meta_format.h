/* SPDX-License-Identifier: MIT */
/*
 * meta_format.h — layout of the path metadata wppcc places in every
 * instrumented object, in the ELF section WPP_META_SECTION.
 *
 * One blob per translation unit; the linker concatenates blobs (each starts
 * 8-byte aligned, so a reader walks the section blob by blob using
 * total_size rounded up to 8).  All integers little-endian.  All offsets are
 * relative to the start of the blob.  Readers treat blobs as hostile: every
 * offset, count and string index is bounds-checked (see symbolizer/).
 *
 * The DAG of a function has nodes 0..nblocks-1 (basic blocks, in the order
 * the pass saw them after splitting blocks before calls), node nblocks =
 * ENTRY and node nblocks+1 = EXIT.  Edges are stored grouped by source node
 * (ascending), and within a source by val ascending, so a decoder walks a
 * path id P from ENTRY by taking, at each node, the last out-edge whose val
 * is <= the remainder, subtracting val, until EXIT (Ball-Larus regeneration).
 *
 * Versioning: readers accept exactly the versions they know; a new field
 * goes into a new version.  Version 2 (written by -fwpp-mode=ppp units only,
 * so every other unit stays readable by version-1 readers) appends the
 * interesting-path sets to the header (struct wpp_meta_header_v2).
 * Documented for users in docs/metadata-format.md.
 */
#ifndef WPP_META_FORMAT_H
#define WPP_META_FORMAT_H

#include <stdint.h>

#define WPP_META_SECTION "wpp_meta"
#define WPP_META_MAGIC	 "WPPMETA\0"
#define WPP_META_VERSION 1u
/* Version 2: a version 1 blob plus the interesting-path sets of a PPP unit. */
#define WPP_META_VERSION_PPP 2u

enum wpp_meta_mode {
	WPP_MODE_PATHS = 1,  /* payload of a word = Ball-Larus path id */
	WPP_MODE_BLOCKS = 2, /* naive oracle mode: payload = block index entered */
	WPP_MODE_COUNTS = 3, /* path counting (-fwpp-mode=count): payload = Ball-Larus
			      * path id, as in PATHS, but the runtime emits each
			      * path once with its count (REPEAT words) when it
			      * flushes, so the order of paths is not recorded */
	/* 4: preferential path counting (-fwpp-mode=ppp): counted like COUNTS,
	 * and the runtime writes Ball-Larus ids as COUNTS does, but the
	 * interesting paths were counted in arrays indexed by their PPP ids;
	 * the blob is version 2 and holds each function's interesting set
	 * (what `wpptrace residual` compares with).  docs/wet.md planned 3 for
	 * WET; counting took 3 and PPP takes 4, so WET takes the next free
	 * number. */
	WPP_MODE_PPP = 4,
	WPP_MODE_WET = 5, /* whole execution traces (-fwpp-mode=wet): PATHS records
			   * followed by value words; the blob carries the
			   * statement tables of meta_wet.h after its strtab */
	WPP_MODE_TPP = 6, /* targeted path profiling (-fwpp-mode=tpp): counted like
			   * COUNTS, but a payload is a function's counter
			   * (meta_tpp.h), which the blob's plan tables after its
			   * strtab turn back into paths */
};

/* Modes whose paths were counted rather than recorded in order. */
static inline int wpp_meta_mode_counts(uint32_t mode)
{
	return mode == WPP_MODE_COUNTS || mode == WPP_MODE_PPP || mode == WPP_MODE_TPP;
}

struct wpp_meta_header {
	char magic[8];	      /* WPP_META_MAGIC */
	uint32_t version;     /* WPP_META_VERSION */
	uint32_t header_size; /* sizeof(struct wpp_meta_header) */
	uint64_t total_size;  /* whole blob, bytes */
	uint64_t tu_hash;     /* stable id of the TU (source path + function ids) */
	uint32_t mode;	      /* enum wpp_meta_mode */
	uint32_t nfuncs;
	uint32_t nblocks_total;
	uint32_t nedges_total;
	uint32_t nlines_total;
	uint32_t source_str;   /* main source file, as given to the compiler */
	uint32_t producer_str; /* "wppcc <version> (clang <version>)" */
	uint32_t reserved0;
	uint64_t funcs_off;   /* struct wpp_meta_func[nfuncs] */
	uint64_t blocks_off;  /* struct wpp_meta_block[nblocks_total] */
	uint64_t edges_off;   /* struct wpp_meta_edge[nedges_total] */
	uint64_t lines_off;   /* struct wpp_meta_line[nlines_total] */
	uint64_t strtab_off;  /* NUL-terminated strings; string index = offset into it */
	uint64_t strtab_size; /* offset 0 is the empty string */
};

/* Version 2 (WPP_META_VERSION_PPP): header_size = sizeof(this); the
 * interesting-path sets of a -fwpp-mode=ppp unit. */
struct wpp_meta_header_v2 {
	struct wpp_meta_header v1;
	uint64_t ppp_funcs_off; /* struct wpp_meta_ppp_func[nfuncs], in the order of funcs */
	uint64_t ppp_ids_off;	/* uint64_t[nppp_ids_total]: Ball-Larus ids */
	uint32_t nppp_ids_total;
	uint32_t reserved1;
};

/* How a function of a PPP unit counts its paths. */
enum wpp_ppp_how {
	WPP_PPP_ARRAY = 1, /* preferential numbering: interesting paths in an array
			    * indexed by their PPP id, the others (residual) in the
			    * thread's hash by Ball-Larus id */
	WPP_PPP_PLAIN = 2, /* Ball-Larus counting: its paths fit an array, where
			    * PPP would only add a register */
	WPP_PPP_EMPTY = 3, /* no interesting path: Ball-Larus counting */
	WPP_PPP_STALE = 4, /* the set was recorded from another build of it:
			    * ignored (nids 0), Ball-Larus counting */
	WPP_PPP_WIDE = 5,  /* PPP ids too wide for an array (or above 63 bits):
			    * Ball-Larus counting */
};

struct wpp_meta_ppp_func {
	uint32_t first_id; /* into the ids table */
	uint32_t nids;	   /* its interesting paths, by increasing Ball-Larus id */
	uint32_t how;	   /* enum wpp_ppp_how */
	uint32_t reserved0;
	uint64_t interval; /* PPP ids of the interesting paths lie below it (0
			    * unless how is ARRAY or WIDE with a numbering) */
};

enum wpp_func_flags {
	WPP_FUNC_WIDE = 1u << 0,      /* 64-bit path ids: two-word records */
	WPP_FUNC_TRUNCATED = 1u << 1, /* DAG has truncation cuts (overflow) */
	WPP_FUNC_VARIADIC = 1u << 2,
	WPP_FUNC_RETURNS_TWICE = 1u << 3, /* calls setjmp-like functions */
	WPP_FUNC_HAS_INDIRECTBR = 1u << 4,
};

struct wpp_meta_func {
	uint64_t stable_id;   /* hash(name, source file, CFG shape): same source -> same id */
	uint64_t npaths;      /* number of ENTRY->EXIT paths in the DAG */
	uint32_t local_index; /* fid = fid_base + local_index */
	uint32_t name_str;    /* linkage name */
	uint32_t file_str;    /* file of the definition ("" if no debug info) */
	uint32_t line;	      /* line of the definition (0 if unknown) */
	uint32_t flags;	      /* enum wpp_func_flags */
	uint32_t nblocks;
	uint32_t first_block; /* index into the blob's block array */
	uint32_t nedges;
	uint32_t first_edge; /* index into the blob's edge array */
	uint32_t reserved0;
};

enum wpp_block_flags {
	WPP_BLOCK_CALL_HEAD = 1u << 0, /* block starts with a call (split point) */
	WPP_BLOCK_RETURN = 1u << 1,    /* ends in ret */
	WPP_BLOCK_UNREACHABLE = 1u << 2,
	WPP_BLOCK_LOOP_HEADER = 1u << 3, /* target of a retreating edge (a loop header) */
};

struct wpp_meta_block {
	uint32_t first_line; /* index into the blob's line array */
	uint32_t nlines;     /* distinct source positions the block covers, in order */
	uint32_t ninsns;     /* static IR instruction count, excluding instrumentation */
	uint32_t flags;	     /* enum wpp_block_flags */
};

struct wpp_meta_line {
	uint32_t file_str; /* may differ from the function's file (inlined code) */
	uint32_t line;
	uint32_t column;
	uint32_t inlined_from_str; /* function name the code was inlined from, or 0 */
};

enum wpp_edge_kind {
	WPP_EDGE_REAL = 0,	 /* block -> block */
	WPP_EDGE_FUNC_ENTRY = 1, /* ENTRY -> entry block: path starts at function entry */
	WPP_EDGE_RETURN = 2,	 /* block -> EXIT at a ret */
	WPP_EDGE_NORETURN = 3,	 /* block -> EXIT at unreachable / noreturn call */
	WPP_EDGE_BACK_EXIT = 4,	 /* u -> EXIT for loop back edge (cfg_src -> cfg_dst) */
	WPP_EDGE_BACK_ENTRY = 5, /* ENTRY -> v for the same back edge */
	WPP_EDGE_CALL_EXIT = 6,	 /* u -> EXIT: path ends before a call in cfg_dst */
	WPP_EDGE_CALL_ENTRY = 7, /* ENTRY -> v: path resumes at the call block */
	WPP_EDGE_CUT_EXIT = 8,	 /* u -> EXIT: truncation (path count overflow) or
				  * an edge into an indirectbr/callbr target */
	WPP_EDGE_CUT_ENTRY = 9,	 /* ENTRY -> v for the same cut */
};

struct wpp_meta_edge {
	uint32_t src; /* DAG node: block index, nblocks = ENTRY, nblocks+1 = EXIT */
	uint32_t dst;
	uint64_t val;	  /* Ball-Larus value: sum of vals along a path = path id */
	uint64_t inc;	  /* increment actually placed on this edge (0 on the
			   * spanning tree); informational, mod 2^64 */
	uint32_t kind;	  /* enum wpp_edge_kind */
	uint32_t cfg_src; /* CFG edge this DAG edge stands for (== src/dst for REAL) */
	uint32_t cfg_dst; /* UINT32_MAX when there is none (RETURN, NORETURN) */
	uint32_t reserved0;
};

#endif
