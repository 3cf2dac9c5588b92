/* SPDX-License-Identifier: MIT */
/*
 * meta_wet.h — the statement tables of a WET TU (WPP_MODE_WET,
 * docs/wet.md): what each block computes, what it records in the trace
 * (wet_abi.h), where in the source, and from which operands.
 *
 * A blob of mode WPP_MODE_WET carries, after its string table (at the next
 * multiple of 8, inside total_size), a wpp_meta_wet_header and the tables
 * it points to; its offsets are relative to that header (the pass lays
 * the tables out before the blob's string table is final).
 * Readers that do not know WET refuse the mode; readers that do accept
 * exactly the versions they know.  Tables:
 *
 *   funcs   one per function, in the blob's function order
 *   blocks  one per block, parallel to the blob's block table: the
 *           block's statements are stmts[first_stmt, first_stmt + nstmts)
 *   stmts   per block in IR order: every instruction that produces a value
 *           or touches memory, and the terminators that branch on or
 *           return a value
 *   ops     a statement's SSA operands [first_op, first_op + nops), in
 *           operand order (for a phi: its incoming values, each with the
 *           block it comes from)
 *
 * Instruction ids are function-local, in IR order over all instructions
 * (debug intrinsics excluded) before instrumentation.  A block's slots in
 * a path record (wet_abi.h) are its statements' recorded items in order,
 * address before value.
 */
#ifndef WPP_META_WET_H
#define WPP_META_WET_H

#include <stdint.h>

#define WPP_META_WET_MAGIC   "WPPWET\0\0"
#define WPP_META_WET_VERSION 1u

/* What the TU was built to record (-fwpp-wet-values=). */
enum wpp_wet_values {
	WPP_WET_VALUES_MEMORY = 1, /* loads, stores, results of external calls */
	WPP_WET_VALUES_ALL = 2,	   /* also every other value-producing instruction */
};

struct wpp_meta_wet_header {
	char magic[8]; /* WPP_META_WET_MAGIC */
	uint32_t version;
	uint32_t header_size; /* sizeof(struct wpp_meta_wet_header) */
	uint32_t values;      /* enum wpp_wet_values */
	uint32_t nfuncs;      /* the blob's nfuncs */
	uint32_t nblocks;     /* the blob's nblocks_total */
	uint32_t nstmts;
	uint32_t nops;
	uint32_t reserved0;
	uint64_t funcs_off;  /* struct wpp_meta_wet_func[nfuncs] */
	uint64_t blocks_off; /* struct wpp_meta_wet_block[nblocks] */
	uint64_t stmts_off;  /* struct wpp_meta_wet_stmt[nstmts] */
	uint64_t ops_off;    /* struct wpp_meta_wet_operand[nops] */
};

struct wpp_meta_wet_func {
	uint32_t ninsns;    /* instruction ids are 0 .. ninsns - 1 */
	uint32_t nargs;	    /* formal arguments */
	uint32_t max_words; /* words the longest path records (<= WPP_WET_MAX_WORDS) */
	uint32_t reserved0;
};

struct wpp_meta_wet_block {
	uint32_t first_stmt;
	uint32_t nstmts;
};

enum wpp_wet_kind {
	WPP_WET_LOAD = 1,
	WPP_WET_STORE = 2,
	WPP_WET_RMW = 3,       /* atomicrmw, cmpxchg */
	WPP_WET_EXTCALL = 4,   /* call of code not defined in this TU (maybe uninstrumented) */
	WPP_WET_CALL = 5,      /* call of a function defined (and instrumented) in this TU */
	WPP_WET_INTRINSIC = 6, /* LLVM intrinsic or inline asm */
	WPP_WET_PHI = 7,
	WPP_WET_COMPUTED = 8, /* any other value-producing instruction */
	WPP_WET_RET = 9,      /* ret with a value: operand 0 */
	WPP_WET_BRANCH = 10,  /* conditional br, switch, indirectbr: operand 0 decides */
	WPP_WET_KIND_MAX = 10,
};

/* Slots a statement writes, in this order. */
enum wpp_wet_records {
	WPP_WET_REC_ADDR = 1u << 0,
	WPP_WET_REC_VALUE = 1u << 1,
};

/* How a recorded value was made 64-bit (and how to print it). */
enum wpp_wet_vtype {
	WPP_WET_VT_NONE = 0,   /* not recordable (aggregate, vector, wider than 64 bits) */
	WPP_WET_VT_INT = 1,    /* sign-extended integer of `bits` bits (i1: zero-extended) */
	WPP_WET_VT_PTR = 2,    /* pointer: its address */
	WPP_WET_VT_HALF = 3,   /* 16-bit float: its bits, zero-extended */
	WPP_WET_VT_FLOAT = 4,  /* float: its bits, zero-extended */
	WPP_WET_VT_DOUBLE = 5, /* double: its bits */
	WPP_WET_VT_MAX = 5,
};

struct wpp_meta_wet_stmt {
	uint32_t insn;	 /* function-local instruction id */
	uint8_t kind;	 /* enum wpp_wet_kind */
	uint8_t records; /* enum wpp_wet_records */
	uint8_t vtype;	 /* enum wpp_wet_vtype of the value (recorded or not) */
	uint8_t reserved0;
	uint32_t bits;	   /* width of the value in bits (0: none) */
	uint32_t access;   /* bytes a load, store or rmw accesses (0 otherwise) */
	uint32_t file_str; /* source position: file ("" if unknown) */
	uint32_t line;	   /* 0 if unknown */
	uint32_t column;
	uint32_t callee_str; /* calls: the direct callee's name, else 0 */
	uint32_t first_op;
	uint32_t nops;
};

enum wpp_wet_operand_kind {
	WPP_WET_OP_INSN = 1,   /* id: instruction id of the same function */
	WPP_WET_OP_ARG = 2,    /* id: formal argument index */
	WPP_WET_OP_CONST = 3,  /* id: low 32 bits of an integer constant, else 0 */
	WPP_WET_OP_GLOBAL = 4, /* id: string index of the global's name */
	WPP_WET_OP_BLOCK = 5,  /* id: block index (branch targets) */
	WPP_WET_OP_OTHER = 6,  /* metadata, inline asm, ... */
	WPP_WET_OP_KIND_MAX = 6,
};

#define WPP_WET_NO_BLOCK UINT32_MAX

struct wpp_meta_wet_operand {
	uint32_t kind; /* enum wpp_wet_operand_kind */
	uint32_t id;
	uint32_t block; /* phi incoming block, else WPP_WET_NO_BLOCK */
	uint32_t reserved0;
};

#endif
