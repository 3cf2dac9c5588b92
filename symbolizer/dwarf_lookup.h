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
		     uint32_t build_id_len, uint64_t load_bias, uint64_t addr, struct wpp_src_frame *frames,
		     int max, char *err, size_t errlen);

#endif
