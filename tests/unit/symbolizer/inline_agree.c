/* SPDX-License-Identifier: MIT */
/*
 * inline_agree — the path metadata's inlined_from against DWARF.
 *
 *   inline_agree OBJECT
 *
 * For every function of every wpp_meta blob in OBJECT, every source
 * position its blocks list is looked up among the positions libdw places in
 * the function's inlined instances (wpp_dwarf_fn_inlines: the line table
 * row's address inside the deepest DW_TAG_inlined_subroutine).  The
 * metadata's inlined_from (from the compiler's DILocation scopes) must name
 * the same innermost function, or nothing for the function's own code.  A
 * position the line table sits in several instances of is accepted when
 * one of them agrees; a position absent from the line table is counted,
 * not judged.  Prints one line per disagreement and a summary; exits 1 on
 * any disagreement or when no inlined position was compared at all (the
 * test program must have inlined calls), 2 on unusable input.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "symbolizer/dwarf_lookup.h"
#include "symbolizer/elf_object.h"
#include "symbolizer/meta_model.h"

struct tally {
	unsigned agree, agree_inlined, absent, disagree;
};

static const char *base_name(const char *p)
{
	const char *s = strrchr(p, '/');
	return s ? s + 1 : p;
}

/* Does a libdw label ("inner, inlined into ...", NULL for the function's
 * own code) have name (NULL: own code) as its innermost function? */
static int label_names(const char *label, const char *name)
{
	size_t n;
	if (!label || !name)
		return !label && !name;
	n = strcspn(label, ",");
	return strlen(name) == n && strncmp(label, name, n) == 0;
}

static void check_function(const struct wpp_elf_object *obj, struct wpp_dwarf *d,
			   const struct wpp_tu *tu, const struct wpp_fn *fn, struct tally *t)
{
	struct wpp_inline_pos *pos = NULL;
	char err[256];
	long npos = wpp_dwarf_fn_inlines(d, obj->path, obj->build_id, obj->build_id_len, tu->source,
					 fn->name, &pos, err, sizeof err);

	if (npos < 0) {
		printf("FAIL %s: %s\n", fn->name, err);
		t->disagree++;
		return;
	}
	for (uint32_t b = 0; b < fn->nblocks; b++) {
		const struct wpp_meta_block *bl = &fn->blocks[b];
		for (uint32_t i = bl->first_line; i < bl->first_line + bl->nlines; i++) {
			const struct wpp_meta_line *ln = &tu->lines[i];
			const char *file = wpp_tu_str(tu, ln->file_str);
			const char *from = wpp_line_inlined_from(tu, ln);
			int seen = 0, ok = 0;
			for (long k = 0; k < npos; k++) {
				if (pos[k].line != ln->line || pos[k].column != ln->column ||
				    strcmp(base_name(pos[k].file), base_name(file)) != 0)
					continue;
				seen = 1;
				ok |= label_names(pos[k].label, from);
			}
			if (!seen) {
				t->absent++;
			} else if (ok) {
				t->agree++;
				t->agree_inlined += from != NULL;
			} else {
				t->disagree++;
				printf("FAIL %s block %" PRIu32 " %s:%" PRIu32 ":%" PRIu32
				       ": metadata says inlined from \"%s\", DWARF does not\n",
				       fn->name, b, base_name(file), ln->line, ln->column,
				       from ? from : "");
			}
		}
	}
	free(pos);
}

int main(int argc, char **argv)
{
	struct wpp_elf_object *obj;
	struct wpp_dwarf *d;
	struct tally t = {0};
	char err[256];
	size_t off = 0;

	if (argc != 2) {
		fprintf(stderr, "usage: inline_agree OBJECT\n");
		return 2;
	}
	obj = wpp_elf_open(argv[1], err, sizeof err);
	if (!obj || !obj->meta) {
		fprintf(stderr, "inline_agree: %s: %s\n", argv[1],
			obj ? "no wpp_meta section" : err);
		return 2;
	}
	d = wpp_dwarf_new();
	while (off + sizeof(struct wpp_meta_header) <= obj->meta_size) {
		const struct wpp_meta_header *h =
		    (const struct wpp_meta_header *)((const char *)obj->meta + off);
		struct wpp_tu *tu = wpp_meta_parse(h, obj->meta_size - off, err, sizeof err);
		if (!tu) {
			fprintf(stderr, "inline_agree: %s: blob at %zu: %s\n", argv[1], off, err);
			return 2;
		}
		for (uint32_t f = 0; f < tu->nfuncs; f++)
			check_function(obj, d, tu, &tu->fns[f], &t);
		wpp_tu_free(tu);
		off += (size_t)((h->total_size + 7) & ~(uint64_t)7);
	}
	printf("%s: %u positions agree (%u inlined), %u disagree, %u not in the line table\n",
	       base_name(argv[1]), t.agree, t.agree_inlined, t.disagree, t.absent);
	wpp_dwarf_free(d);
	wpp_elf_close(obj);
	return t.disagree || !t.agree_inlined;
}
