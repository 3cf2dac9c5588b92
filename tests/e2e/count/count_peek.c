/* SPDX-License-Identifier: MIT */
/*
 * count_peek.c — the live-count reader (user/bpfcollect/count_snapshot.h)
 * as tests/e2e/count-mode.sh drives it: `count_peek PID`, then one line
 * `snap` on stdin per snapshot; each prints the paths whose count changed
 * since the previous snapshot (the first: every path the threads hold) as
 * "FUNCTION PATH COUNT" lines sorted by function and path, then `end`.
 * Functions are named from the registry's entries and each TU's metadata
 * (the symbolizer), as a live viewer would.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bpfcollect/count_snapshot.h"
#include "bpfcollect/registry.h"
#include "symbolizer/symbolizer.h"

struct tus {
	struct wpp_brec_register r[256];
	unsigned n;
};

static void keep(const struct wpp_brec_register *r, void *arg)
{
	struct tus *t = arg;
	if (t->n < 256)
		t->r[t->n++] = *r;
}

static const char *name_of(struct wpp_symbolizer *sym, const struct tus *t, uint32_t fid)
{
	for (unsigned i = 0; i < t->n; i++) {
		const struct wpp_brec_register *r = &t->r[i];
		if (fid < r->fid_base || fid - r->fid_base >= r->nfuncs || !r->entry_ok)
			continue;
		const struct wpp_tu *tu =
		    wpp_sym_tu(sym, r->path, r->build_id, r->build_id_len, r->tu_hash);
		if (tu && fid - r->fid_base < tu->nfuncs && tu->by_local[fid - r->fid_base])
			return tu->by_local[fid - r->fid_base]->name;
	}
	return "?";
}

struct line {
	const char *fn;
	uint64_t id, count;
};

static int by_name(const void *x, const void *y)
{
	const struct line *a = x, *b = y;
	int c = strcmp(a->fn, b->fn);
	return c ? c : (a->id > b->id) - (a->id < b->id);
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: count_peek PID (then 'snap' lines on stdin)\n");
		return 2;
	}
	pid_t pid = (pid_t)atoi(argv[1]);
	struct tus *t = calloc(1, sizeof(*t));
	struct registry_info info;
	int err = t ? registry_read(pid, keep, t, &info) : -12;
	if (err) {
		fprintf(stderr, "count_peek: registry of %d: error %d\n", (int)pid, err);
		return 1;
	}
	struct wpp_symbolizer *sym = wpp_sym_new();
	struct count_snapshot prev = {0}, now, delta;
	char cmd[64];
	while (fgets(cmd, sizeof(cmd), stdin)) {
		if (strcmp(cmd, "snap\n") != 0)
			continue;
		if ((err = count_snapshot_read(pid, info.counts, &now)) ||
		    (err = count_snapshot_delta(&prev, &now, &delta))) {
			fprintf(stderr, "count_peek: snapshot of %d: error %d\n", (int)pid, err);
			return 1;
		}
		struct line *l = calloc(delta.n + 1, sizeof(*l));
		if (!l)
			return 1;
		for (size_t i = 0; i < delta.n; i++)
			l[i] = (struct line){name_of(sym, t, delta.s[i].fid), delta.s[i].id,
					     delta.s[i].count};
		qsort(l, delta.n, sizeof(*l), by_name);
		for (size_t i = 0; i < delta.n; i++)
			printf("%s %" PRIu64 " %" PRIu64 "\n", l[i].fn, l[i].id, l[i].count);
		printf("end %u threads\n", now.threads);
		fflush(stdout);
		free(l);
		count_snapshot_free(&delta);
		count_snapshot_free(&prev);
		prev = now;
	}
	count_snapshot_free(&prev);
	wpp_sym_free(sym);
	free(t);
	return 0;
}
