/* SPDX-License-Identifier: MIT */
/*
 * symbolizer.c — caches of opened objects and parsed TUs.  A run typically
 * names a handful of objects, so linear lists are enough.
 */
#include "symbolizer/symbolizer.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "symbolizer/elf_object.h"

struct sym_object {
	struct sym_object *next;
	char *path;
	uint8_t build_id[WPP_BUILD_ID_MAX];
	uint32_t build_id_len;
	struct wpp_elf_object *elf; /* NULL: unusable (reported once) */
};

struct sym_tu {
	struct sym_tu *next;
	const struct sym_object *obj;
	uint64_t tu_hash;
	struct wpp_tu *tu; /* NULL: unusable (reported once) */
};

struct wpp_symbolizer {
	struct sym_object *objects;
	struct sym_tu *tus;
	wpp_sym_report_fn report;
	void *report_ctx;
};

static void report(struct wpp_symbolizer *sym, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void report(struct wpp_symbolizer *sym, const char *fmt, ...)
{
	char msg[768];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (sym->report)
		sym->report(sym->report_ctx, msg);
	else
		wpp_warn("%s; %s", msg, WPP_SYM_UNATTRIBUTED);
}

void wpp_sym_set_reporter(struct wpp_symbolizer *sym, wpp_sym_report_fn fn, void *ctx)
{
	sym->report = fn;
	sym->report_ctx = ctx;
}

struct wpp_symbolizer *wpp_sym_new(void)
{
	return calloc(1, sizeof(struct wpp_symbolizer));
}

void wpp_sym_free(struct wpp_symbolizer *sym)
{
	if (!sym)
		return;
	while (sym->tus) {
		struct sym_tu *t = sym->tus;
		sym->tus = t->next;
		wpp_tu_free(t->tu);
		free(t);
	}
	while (sym->objects) {
		struct sym_object *o = sym->objects;
		sym->objects = o->next;
		wpp_elf_close(o->elf);
		free(o->path);
		free(o);
	}
	free(sym);
}

static struct sym_object *open_object(struct wpp_symbolizer *sym, const char *path,
				      const uint8_t *build_id, uint32_t len)
{
	char want[2 * WPP_BUILD_ID_MAX + 1], have[2 * WPP_BUILD_ID_MAX + 1], err[256];
	struct sym_object *o = calloc(1, sizeof(*o));

	if (!o || !(o->path = strdup(path))) {
		free(o);
		return NULL;
	}
	o->build_id_len = len;
	memcpy(o->build_id, build_id, len);
	wpp_build_id_hex(build_id, len, want, sizeof(want));
	o->elf = wpp_elf_open(path, err, sizeof(err));
	if (!o->elf) {
		report(sym, "%s (build-id %s): %s", path, len ? want : "not recorded", err);
		return o;
	}
	if (len && (o->elf->build_id_len != len || memcmp(o->elf->build_id, build_id, len) != 0)) {
		wpp_build_id_hex(o->elf->build_id, o->elf->build_id_len, have, sizeof(have));
		report(sym,
		       "%s: build-id %s does not match the recorded %s (object rebuilt since the "
		       "run?)",
		       path, o->elf->build_id_len ? have : "(none)", want);
		wpp_elf_close(o->elf);
		o->elf = NULL;
		return o;
	}
	if (!o->elf->meta)
		report(sym, "%s: no %s section (not built with wppcc?)", path, WPP_META_SECTION);
	return o;
}

const struct wpp_tu *wpp_sym_tu(struct wpp_symbolizer *sym, const char *path,
				const uint8_t *build_id, uint32_t build_id_len, uint64_t tu_hash)
{
	struct sym_object *o;
	struct sym_tu *t;
	const void *blob;
	size_t blob_size;
	char err[256];
	int found;

	if (build_id_len > WPP_BUILD_ID_MAX)
		build_id_len = WPP_BUILD_ID_MAX;
	for (o = sym->objects; o; o = o->next)
		if (strcmp(o->path, path) == 0 && o->build_id_len == build_id_len &&
		    memcmp(o->build_id, build_id, build_id_len) == 0)
			break;
	if (!o) {
		o = open_object(sym, path, build_id, build_id_len);
		if (!o)
			return NULL;
		o->next = sym->objects;
		sym->objects = o;
	}
	for (t = sym->tus; t; t = t->next)
		if (t->obj == o && t->tu_hash == tu_hash)
			return t->tu;
	t = calloc(1, sizeof(*t));
	if (!t)
		return NULL;
	t->obj = o;
	t->tu_hash = tu_hash;
	t->next = sym->tus;
	sym->tus = t;
	if (!o->elf || !o->elf->meta)
		return NULL;
	found = wpp_meta_find(o->elf->meta, o->elf->meta_size, tu_hash, &blob, &blob_size, err,
			      sizeof(err));
	if (found < 0) {
		report(sym, "%s: %s: %s", path, WPP_META_SECTION, err);
		return NULL;
	}
	if (found == 0) {
		report(sym, "%s: no metadata for TU %016" PRIx64 " in %s", path, tu_hash,
		       WPP_META_SECTION);
		return NULL;
	}
	t->tu = wpp_meta_parse(blob, blob_size, err, sizeof(err));
	if (!t->tu)
		report(sym, "%s: %s: TU %016" PRIx64 ": %s", path, WPP_META_SECTION, tu_hash, err);
	return t->tu;
}
