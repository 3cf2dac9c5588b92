/* SPDX-License-Identifier: MIT */
/*
 * dwarf_private.h — what the symbolizer's libdw-based files share and the
 * rest of the program does not see: the cached module of an object and the
 * naming of scopes.
 */
#ifndef WPP_SYMBOLIZER_DWARF_PRIVATE_H
#define WPP_SYMBOLIZER_DWARF_PRIVATE_H

#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>

#include "symbolizer/dwarf_lookup.h"

/* The object's module (opened once, build-id checked; bias 0), or NULL
 * with the reason in err. */
Dwfl_Module *wpp_dwarf_module(struct wpp_dwarf *d, const char *path, const uint8_t *build_id,
			      uint32_t build_id_len, char *err, size_t errlen);

/* The CU covering module address a (also without .debug_aranges), with
 * its DWARF bias in *bias; NULL when none does. */
Dwarf_Die *wpp_dwarf_cu_at(Dwfl_Module *mod, Dwarf_Addr a, Dwarf_Addr *bias);

/* A copy of s that lives as long as d; NULL when out of memory. */
const char *wpp_dwarf_keep(struct wpp_dwarf *d, const char *s);

/* Name of a subprogram or inlined subroutine DIE (following abstract_origin). */
const char *wpp_dwarf_scope_name(Dwarf_Die *die);

#endif
