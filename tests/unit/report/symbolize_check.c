/* SPDX-License-Identifier: MIT */
/*
 * symbolize_check — test driver for symbolizer/dwarf_lookup: reads lines
 *   ADDR <exe|lib> <hex run-time address> <inner fn> <inner line> <outer fn> <outer line>
 * printed by the traced program itself (tests/e2e/report-data/aslr_*.c) and
 * checks that the address, translated with the load bias the trace
 * recorded for that object, symbolizes to exactly those two frames
 * (inlined function at its line, then its caller at the call site).
 * Prints one line per address and the biases used; exits non-zero on any
 * mismatch.
 *
 * symbolize_check --inlines OBJECT FUNCTION prints the inline context of
 * every position of FUNCTION (wpp_dwarf_fn_inlines), one
 * "file:line:column<TAB>label" line each ("-" for the function's own code),
 * for the e2e test to compare with the lines the program names itself.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "symbolizer/dwarf_lookup.h"
#include "decode/trace_file.h"

static const struct wpp_module_rec *module_for(const struct wpp_trace *t, const char *kind)
{
	for (size_t i = 0; i < t->nmodules; i++) {
		const char *base = strrchr(t->modules[i].path, '/');
		base = base ? base + 1 : t->modules[i].path;
		if ((strcmp(kind, "lib") == 0) == (strncmp(base, "lib", 3) == 0))
			return &t->modules[i];
	}
	return NULL;
}

static int print_inlines(const char *object, const char *function)
{
	struct wpp_dwarf *d = wpp_dwarf_new();
	struct wpp_inline_pos *pos;
	char err[256];
	long n = d ? wpp_dwarf_fn_inlines(d, object, NULL, 0, "", function, &pos, err, sizeof(err)) : -1;

	if (n < 0)
		fprintf(stderr, "symbolize_check: %s\n", d ? err : "out of memory");
	for (long i = 0; i < n; i++) {
		const char *base = strrchr(pos[i].file, '/');
		printf("%s:%" PRIu32 ":%" PRIu32 "\t%s\n", base ? base + 1 : pos[i].file, pos[i].line, pos[i].column,
		       pos[i].label ? pos[i].label : "-");
	}
	if (n > 0)
		free(pos);
	wpp_dwarf_free(d);
	return n > 0 ? 0 : 1;
}

int main(int argc, char **argv)
{
	struct wpp_trace *t;
	struct wpp_dwarf *d;
	char line[512];
	FILE *in;
	int failures = 0, checked = 0;

	if (argc == 4 && strcmp(argv[1], "--inlines") == 0)
		return print_inlines(argv[2], argv[3]);
	if (argc != 3) {
		fprintf(stderr, "usage: symbolize_check run.wpp program-stdout\n");
		return 2;
	}
	if (!(t = wpp_trace_load(argv[1])) || !(in = fopen(argv[2], "r")))
		return 2;
	d = wpp_dwarf_new();
	while (fgets(line, sizeof(line), in)) {
		char kind[16], inner[64], outer[64], err[256];
		unsigned long long addr;
		int inner_line, outer_line, n;
		struct wpp_src_frame fr[8];
		const struct wpp_module_rec *m;

		if (sscanf(line, "ADDR %15s %llx %63s %d %63s %d", kind, &addr, inner, &inner_line, outer,
			   &outer_line) != 6)
			continue;
		checked++;
		if (!(m = module_for(t, kind))) {
			printf("FAIL %s: no MODULE record\n", kind);
			failures++;
			continue;
		}
		n = wpp_dwarf_frames(d, m->path, m->build_id, m->build_id_len, m->load_bias, addr, fr, 8, err,
				     sizeof(err));
		printf("%s: addr 0x%llx bias 0x%" PRIx64 " ->", kind, addr, m->load_bias);
		for (int i = 0; i < n; i++)
			printf(" %s@%s:%" PRIu32, fr[i].function, fr[i].file ? strrchr(fr[i].file, '/') + 1 : "?",
			       fr[i].line);
		printf("%s%s\n", n < 0 ? " error: " : "", n < 0 ? err : "");
		if (n < 2 || strcmp(fr[0].function, inner) || (int)fr[0].line != inner_line ||
		    strcmp(fr[1].function, outer) || (int)fr[1].line != outer_line) {
			printf("FAIL %s: expected %s@%d then %s@%d\n", kind, inner, inner_line, outer, outer_line);
			failures++;
		}
	}
	fclose(in);
	wpp_dwarf_free(d);
	wpp_trace_free(t);
	if (checked < 2) {
		printf("FAIL: only %d addresses to check\n", checked);
		return 1;
	}
	return failures != 0;
}
