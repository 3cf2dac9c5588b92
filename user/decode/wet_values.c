/* SPDX-License-Identifier: MIT */
/* wet_values.c — the slots of a WET path record (see wet_values.h). */
#include "decode/wet_values.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

uint64_t wpp_wet_path_nslots(const struct wpp_fn *fn, const struct wpp_path *p)
{
	uint64_t n = 0;

	for (uint32_t i = 0; i < p->nblocks; i++)
		n += fn->wet->block_slots[p->blocks[i]];
	return n;
}

void wpp_wet_path_items(const struct wpp_fn *fn, const struct wpp_path *p,
			struct wpp_wet_item *items)
{
	const struct wpp_wet_tu_model *w = fn->tu->wet;
	uint64_t n = 0;

	for (uint32_t i = 0; i < p->nblocks; i++) {
		const struct wpp_meta_wet_block *bl = &fn->wet->blocks[p->blocks[i]];
		for (uint32_t k = 0; k < bl->nstmts; k++) {
			const struct wpp_meta_wet_stmt *s = &w->stmts[bl->first_stmt + k];
			if (s->records & WPP_WET_REC_ADDR)
				items[n++] =
				    (struct wpp_wet_item){p->blocks[i], s, WPP_WET_REC_ADDR};
			if (s->records & WPP_WET_REC_VALUE)
				items[n++] =
				    (struct wpp_wet_item){p->blocks[i], s, WPP_WET_REC_VALUE};
		}
	}
}

const char *wpp_wet_kind_name(uint8_t kind)
{
	static const char *const names[] = {"?",	"load", "store",     "rmw",
					    "extcall",	"call", "intrinsic", "phi",
					    "computed", "ret",	"branch"};
	return kind <= WPP_WET_KIND_MAX ? names[kind] : "?";
}

const char *wpp_wet_stmt_file(const struct wpp_fn *fn, const struct wpp_meta_wet_stmt *s)
{
	const char *f = wpp_tu_str(fn->tu, s->file_str);
	return f[0] ? f : fn->file && fn->file[0] ? fn->file : "?";
}

void wpp_wet_format(const struct wpp_wet_item *it, int64_t v, char *buf, size_t size)
{
	uint64_t u = (uint64_t)v;

	if (it->what == WPP_WET_REC_ADDR) {
		snprintf(buf, size, "0x%" PRIx64, u);
		return;
	}
	switch (it->stmt->vtype) {
	case WPP_WET_VT_PTR:
		snprintf(buf, size, "0x%" PRIx64, u);
		break;
	case WPP_WET_VT_FLOAT: {
		float f;
		uint32_t bits = (uint32_t)u;
		memcpy(&f, &bits, sizeof(f));
		snprintf(buf, size, "%.9g", (double)f);
		break;
	}
	case WPP_WET_VT_DOUBLE: {
		double d;
		memcpy(&d, &u, sizeof(d));
		snprintf(buf, size, "%.17g", d);
		break;
	}
	case WPP_WET_VT_HALF:
		snprintf(buf, size, "half:0x%04" PRIx64, u & 0xffff);
		break;
	default:
		snprintf(buf, size, "%" PRId64, v);
		break;
	}
}
