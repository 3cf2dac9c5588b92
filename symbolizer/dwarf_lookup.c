/* SPDX-License-Identifier: MIT */
/*
 * dwarf_lookup.c — one offline Dwfl per object, reported at bias 0 so that
 * the same object serves every process whatever its load address.
 */
#include "symbolizer/dwarf_lookup.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "symbolizer/dwarf_private.h"
#include "symbolizer/elf_object.h"

struct dw_object {
	struct dw_object *next;
	char *path;
	uint8_t build_id[WPP_BUILD_ID_MAX];
	uint32_t build_id_len;
	Dwfl *dwfl; /* NULL: unusable, reason in err */
	Dwfl_Module *mod;
	char err[256];
};

struct dw_string {
	struct dw_string *next;
	char s[];
};

struct wpp_dwarf {
	struct dw_object *objects;
	struct dw_string *strings; /* wpp_dwarf_keep: labels built from DIE names */
};

static const Dwfl_Callbacks offline_callbacks = {
    .find_elf = dwfl_build_id_find_elf,
    .find_debuginfo = dwfl_standard_find_debuginfo,
    .section_address = dwfl_offline_section_address,
};

static void set_err(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void set_err(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

struct wpp_dwarf *wpp_dwarf_new(void)
{
	return calloc(1, sizeof(struct wpp_dwarf));
}

void wpp_dwarf_free(struct wpp_dwarf *d)
{
	if (!d)
		return;
	while (d->objects) {
		struct dw_object *o = d->objects;
		d->objects = o->next;
		if (o->dwfl)
			dwfl_end(o->dwfl);
		free(o->path);
		free(o);
	}
	while (d->strings) {
		struct dw_string *x = d->strings;
		d->strings = x->next;
		free(x);
	}
	free(d);
}

static void open_object(struct dw_object *o)
{
	char want[2 * WPP_BUILD_ID_MAX + 1], have[2 * WPP_BUILD_ID_MAX + 1];
	const unsigned char *bits;
	GElf_Addr vaddr;
	int n;

	wpp_build_id_hex(o->build_id, o->build_id_len, want, sizeof(want));
	o->dwfl = dwfl_begin(&offline_callbacks);
	if (!o->dwfl) {
		set_err(o->err, sizeof(o->err), "libdwfl: %s", dwfl_errmsg(-1));
		return;
	}
	/* dwfl_report_elf opens and validates the file itself (hostile input). */
	o->mod = dwfl_report_elf(o->dwfl, o->path, o->path, -1, 0, false);
	if (!o->mod || dwfl_report_end(o->dwfl, NULL, NULL) != 0) {
		set_err(o->err, sizeof(o->err), "%s (build-id %s): %s", o->path,
			o->build_id_len ? want : "not recorded", dwfl_errmsg(-1));
		goto fail;
	}
	n = dwfl_module_build_id(o->mod, &bits, &vaddr);
	if (o->build_id_len &&
	    (n != (int)o->build_id_len || memcmp(bits, o->build_id, o->build_id_len) != 0)) {
		if (n > 0)
			wpp_build_id_hex(bits, (uint32_t)n, have, sizeof(have));
		set_err(o->err, sizeof(o->err),
			"%s: build-id %s does not match the recorded %s (object rebuilt since the "
			"run?)",
			o->path, n > 0 ? have : "(none)", want);
		goto fail;
	}
	return;
fail:
	dwfl_end(o->dwfl);
	o->dwfl = NULL;
	o->mod = NULL;
}

static struct dw_object *object_get(struct wpp_dwarf *d, const char *path, const uint8_t *id,
				    uint32_t len)
{
	struct dw_object *o;

	if (len > WPP_BUILD_ID_MAX)
		len = WPP_BUILD_ID_MAX;
	for (o = d->objects; o; o = o->next)
		if (!strcmp(o->path, path) && o->build_id_len == len &&
		    (!len || !memcmp(o->build_id, id, len)))
			return o;
	o = calloc(1, sizeof(*o));
	if (!o || !(o->path = strdup(path))) {
		free(o);
		return NULL;
	}
	if (len) /* id may be NULL when nothing is recorded */
		memcpy(o->build_id, id, len);
	o->build_id_len = len;
	open_object(o);
	o->next = d->objects;
	d->objects = o;
	return o;
}

const char *wpp_dwarf_keep(struct wpp_dwarf *d, const char *s)
{
	size_t n = strlen(s);
	struct dw_string *x = malloc(sizeof(*x) + n + 1);

	if (!x)
		return NULL;
	memcpy(x->s, s, n + 1);
	x->next = d->strings;
	d->strings = x;
	return x->s;
}

Dwfl_Module *wpp_dwarf_module(struct wpp_dwarf *d, const char *path, const uint8_t *build_id,
			      uint32_t build_id_len, char *err, size_t errlen)
{
	struct dw_object *o = object_get(d, path, build_id, build_id_len);

	if (!o) {
		set_err(err, errlen, "out of memory");
		return NULL;
	}
	if (!o->dwfl)
		set_err(err, errlen, "%s", o->err);
	return o->mod;
}

/* Name of a subprogram or inlined subroutine DIE (following abstract_origin). */
const char *wpp_dwarf_scope_name(Dwarf_Die *die)
{
	Dwarf_Attribute attr;
	const char *name = NULL;

	if (dwarf_attr_integrate(die, DW_AT_linkage_name, &attr))
		name = dwarf_formstring(&attr);
	if (!name)
		name = dwarf_diename(die);
	if (!name && dwarf_attr_integrate(die, DW_AT_name, &attr))
		name = dwarf_formstring(&attr);
	return name ? name : "??";
}

/*
 * The CU covering a (module address).  libdw's lookup goes through
 * .debug_aranges, which clang does not emit by default and elfutils 0.188
 * does not synthesize; then ask each CU whether its ranges hold a.
 */
Dwarf_Die *wpp_dwarf_cu_at(Dwfl_Module *mod, Dwarf_Addr a, Dwarf_Addr *bias)
{
	Dwarf_Die *cu = dwfl_module_addrdie(mod, a, bias);

	if (cu)
		return cu;
	for (cu = dwfl_module_nextcu(mod, NULL, bias); cu; cu = dwfl_module_nextcu(mod, cu, bias))
		if (dwarf_haspc(cu, a - *bias) > 0)
			return cu;
	return NULL;
}

int wpp_dwarf_frames(struct wpp_dwarf *d, const char *path, const uint8_t *build_id,
		     uint32_t build_id_len, uint64_t load_bias, uint64_t addr,
		     struct wpp_src_frame *frames, int max, char *err, size_t errlen)
{
	struct dw_object *o = object_get(d, path, build_id, build_id_len);
	Dwarf_Addr a = addr - load_bias, bias = 0;
	Dwarf_Die *cu, *scopes = NULL;
	Dwarf_Line *line;
	const char *file = NULL;
	int lineno = 0, col = 0, nscopes, n = 0;

	if (!o) {
		set_err(err, errlen, "out of memory");
		return -1;
	}
	if (!o->dwfl) {
		set_err(err, errlen, "%s", o->err);
		return -1;
	}
	if (max < 1)
		return 0;
	cu = wpp_dwarf_cu_at(o->mod, a, &bias);
	if (cu && (line = dwarf_getsrc_die(cu, a - bias)) != NULL) {
		file = dwarf_linesrc(line, NULL, NULL);
		dwarf_lineno(line, &lineno);
		dwarf_linecol(line, &col);
	}
	nscopes = cu ? dwarf_getscopes(cu, a - bias, &scopes) : 0;
	/* dwarf_getscopes follows an inlined instance to its abstract
	 * definition, not to the function it was inlined into; the physical
	 * chain comes from dwarf_getscopes_die on the inlined instance. */
	for (int i = 0; i < nscopes && n < max; i++) {
		int tag = dwarf_tag(&scopes[i]);
		Dwarf_Attribute attr;
		Dwarf_Word v;
		Dwarf_Die inl, *outer = NULL;
		if (tag != DW_TAG_inlined_subroutine && tag != DW_TAG_subprogram)
			continue;
		frames[n++] = (struct wpp_src_frame){wpp_dwarf_scope_name(&scopes[i]), file,
						     (uint32_t)lineno, (uint32_t)col};
		if (tag == DW_TAG_subprogram)
			break;
		/* The next (outer) frame is at this inlined call's call site. */
		file = NULL;
		lineno = col = 0;
		if (dwarf_attr(&scopes[i], DW_AT_call_line, &attr) &&
		    dwarf_formudata(&attr, &v) == 0)
			lineno = (int)v;
		if (dwarf_attr(&scopes[i], DW_AT_call_column, &attr) &&
		    dwarf_formudata(&attr, &v) == 0)
			col = (int)v;
		if (dwarf_attr(&scopes[i], DW_AT_call_file, &attr) &&
		    dwarf_formudata(&attr, &v) == 0) {
			Dwarf_Files *files;
			if (dwarf_getsrcfiles(cu, &files, NULL) == 0)
				file = dwarf_filesrc(files, v, NULL, NULL);
		}
		inl = scopes[i];
		nscopes = dwarf_getscopes_die(&inl, &outer);
		free(scopes);
		scopes = outer;
		i = 0; /* scopes[0] is the inlined instance itself; continue outward */
	}
	free(scopes);
	if (n == 0) {
		/* No DWARF scope: fall back to the symbol table. */
		const char *sym = dwfl_module_addrname(o->mod, a);
		if (!sym)
			return 0;
		frames[n++] = (struct wpp_src_frame){sym, file, (uint32_t)lineno, (uint32_t)col};
	}
	return n;
}
