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

#endif
