/* SPDX-License-Identifier: MIT */
/*
 * dwarf_lookup.h — run-time address -> source, for what the path metadata
 * does not carry: names of inlined functions and their call sites, and
 * ip -> line for sampled costs.  Built on elfutils' libdwfl/libdw (modules
 * by file, build-id check, DWARF line tables and inline scopes); nothing
 * here re-parses DWARF by hand.
 *
 * Processes may be gone by report time, so an address is translated with
 * the load bias recorded in the trace's MODULE chunk (PIE executables and
 * shared libraries at ASLR addresses): object address = address - bias.
 * Objects are opened once (cached by path + build-id) and a build-id that
 * does not match the recorded one is an error naming both ids.
 */
#ifndef WPP_SYMBOLIZER_DWARF_LOOKUP_H
#define WPP_SYMBOLIZER_DWARF_LOOKUP_H

#include <stddef.h>
#include <stdint.h>

/* One source frame; strings live as long as the wpp_dwarf. */
struct wpp_src_frame {
	const char *function; /* inlined function, or the containing function (outermost) */
	const char *file;     /* NULL if unknown */
	uint32_t line, column;
};

struct wpp_dwarf;

struct wpp_dwarf *wpp_dwarf_new(void);
void wpp_dwarf_free(struct wpp_dwarf *d);

/*
 * Frames at run-time address addr of the object at path, loaded with
 * load_bias: innermost (inlined) first, the real function last; the file and
 * line of an outer frame are where it called the inner one.  Returns the
 * number of frames filled (at most max, >= 1), 0 if no function covers the
 * address, -1 with a one-line reason in err (object missing, rebuilt, ...).
 * build_id_len 0 skips the build-id check.
 */
int wpp_dwarf_frames(struct wpp_dwarf *d, const char *path, const uint8_t *build_id,
		     uint32_t build_id_len, uint64_t load_bias, uint64_t addr,
		     struct wpp_src_frame *frames, int max, char *err, size_t errlen);

/*
 * The inline context of every source position inside one function, for
 * renderings that know positions (the path metadata's file:line:column) but
 * no addresses.  The function is found by name among the subprograms with
 * code in the CUs whose name ends like cu_source (any CU when cu_source is
 * empty or matches none); each row of its CU's line table inside the
 * function is placed in the innermost inlined instance whose ranges hold
 * its address.  label is NULL for the function's own code, else
 * "inner, inlined into outer, inlined into function"; brief skips the
 * middle ("inner, inlined into function"), for when the same position sits
 * in several chains (hash_word inlined into add_word directly and through
 * grow) and only its innermost function is certain.
 * Returns the number of positions in *out (caller frees the array; strings
 * live as long as d): 0 when the function has no DWARF, -1 with a one-line
 * reason in err.
 */
struct wpp_inline_pos {
	const char *file; /* as the line table names it (often an absolute path) */
	uint32_t line, column;
	const char *label, *brief;
};
long wpp_dwarf_fn_inlines(struct wpp_dwarf *d, const char *path, const uint8_t *build_id,
			  uint32_t build_id_len, const char *cu_source, const char *function,
			  struct wpp_inline_pos **out, char *err, size_t errlen);

/*
 * Where a local variable of the function at a run-time address is at that
 * address (its DWARF location, DW_AT_location list): the variable is
 * looked up by name among the direct children of the subprogram whose
 * ranges hold the address (an artificial variable of the function itself,
 * such as wppcc's run count).  Only the locations a saved register set
 * can evaluate are described; anything else (memory, pieces, entry
 * values, no location at that address) is WPP_VARLOC_NONE.
 */
enum wpp_varloc_kind {
	WPP_VARLOC_NONE = 0,
	WPP_VARLOC_REG,	       /* the value is register `reg` (DW_OP_regN) */
	WPP_VARLOC_REG_OFFSET, /* register `reg` + value (DW_OP_bregN off, stack_value) */
	WPP_VARLOC_CONST,      /* the constant value (DW_OP_lit/constu, stack_value) */
};
struct wpp_varloc {
	enum wpp_varloc_kind kind;
	uint32_t reg;	/* DWARF register number */
	uint64_t value; /* the constant, or the offset (two's complement) */
};
/* 1 with *out filled (kind may be NONE), -1 with a one-line reason in err. */
int wpp_dwarf_var_location(struct wpp_dwarf *d, const char *path, const uint8_t *build_id,
			   uint32_t build_id_len, uint64_t load_bias, uint64_t addr,
			   const char *var, struct wpp_varloc *out, char *err, size_t errlen);

/* A location's value given registers regs[0..nregs) (DWARF numbering):
 * 1 with *value, 0 when it names a register not in the set or is NONE. */
int wpp_varloc_eval(const struct wpp_varloc *l, const uint64_t *regs, uint32_t nregs,
		    uint64_t *value);

/* The location described by a DWARF expression (ops of libdw's Dwarf_Op
 * reduced to atom/number/number2), as above; exposed for the unit tests. */
struct wpp_dwarf_op {
	uint8_t atom;
	uint64_t number, number2;
};
struct wpp_varloc wpp_varloc_from_ops(const struct wpp_dwarf_op *ops, size_t nops);

#endif
