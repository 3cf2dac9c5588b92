/* SPDX-License-Identifier: MIT */
#include "testlib.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/crc32c.h"

/* Paths from node to EXIT, memoised; the DAG is acyclic by construction. */
static uint64_t paths_from(const struct tl_func *f, uint32_t node, uint64_t *memo)
{
	uint64_t n = 0;

	if (node == f->nblocks + 1)
		return 1;
	if (memo[node])
		return memo[node];
	for (uint32_t i = 0; i < f->nedges; i++)
		if (f->edges[i].src == node)
			n += paths_from(f, f->edges[i].dst, memo);
	memo[node] = n;
	return n;
}

void tl_number(struct tl_func *f)
{
	uint64_t memo[TL_MAX_BLOCKS + 2] = {0};
	struct tl_edge sorted[TL_MAX_EDGES];
	uint32_t k = 0;

	for (uint32_t s = 0; s <= f->nblocks; s++)
		for (uint32_t i = 0; i < f->nedges; i++)
			if (f->edges[i].src == s)
				sorted[k++] = f->edges[i];
	memcpy(f->edges, sorted, k * sizeof(sorted[0]));
	f->nedges = k;
	for (uint32_t s = 0; s <= f->nblocks; s++) {
		uint64_t sum = 0;
		for (uint32_t i = 0; i < f->nedges; i++) {
			if (f->edges[i].src != s)
				continue;
			f->edges[i].val = sum;
			sum += paths_from(f, f->edges[i].dst, memo);
		}
	}
	f->npaths = paths_from(f, f->nblocks, memo);
}

static void add_edge(struct tl_func *f, uint32_t src, uint32_t dst, uint32_t kind)
{
	if (f->nedges < TL_MAX_EDGES)
		f->edges[f->nedges++] = (struct tl_edge){src, dst, kind, 0};
}

void tl_diamond(struct tl_func *d)
{
	memset(d, 0, sizeof(*d));
	d->name = "diamond";
	d->nblocks = 4;
	add_edge(d, 4, 0, WPP_EDGE_FUNC_ENTRY);
	add_edge(d, 4, 0, WPP_EDGE_BACK_ENTRY);
	add_edge(d, 0, 1, WPP_EDGE_REAL);
	add_edge(d, 0, 2, WPP_EDGE_REAL);
	add_edge(d, 1, 3, WPP_EDGE_REAL);
	add_edge(d, 2, 3, WPP_EDGE_REAL);
	add_edge(d, 3, 5, WPP_EDGE_RETURN);
	add_edge(d, 3, 5, WPP_EDGE_BACK_EXIT);
	tl_number(d);
}

void tl_random_dag(struct tl_func *f, uint32_t n, unsigned *seed)
{
	static const uint32_t exit_kinds[] = {WPP_EDGE_RETURN, WPP_EDGE_BACK_EXIT, WPP_EDGE_CALL_EXIT,
					      WPP_EDGE_CUT_EXIT, WPP_EDGE_NORETURN};
	static const uint32_t entry_kinds[] = {WPP_EDGE_BACK_ENTRY, WPP_EDGE_CALL_ENTRY, WPP_EDGE_CUT_ENTRY};
	const uint32_t entry = n, exit_node = n + 1;

	memset(f, 0, sizeof(*f));
	f->name = "rnd";
	f->nblocks = n;
	add_edge(f, entry, 0, WPP_EDGE_FUNC_ENTRY);
	for (uint32_t v = 1; v < n; v++)
		if (rand_r(seed) % 4 == 0)
			add_edge(f, entry, v, entry_kinds[rand_r(seed) % 3]);
	for (uint32_t u = 0; u < n; u++) {
		uint32_t outs = 1 + rand_r(seed) % 3;
		for (uint32_t k = 0; k < outs; k++) {
			if (u + 1 < n && rand_r(seed) % 5 != 0) {
				/* Parallel edges (same dst twice) are allowed, as for a switch. */
				uint32_t dst = u + 1 + rand_r(seed) % (n - u - 1);
				add_edge(f, u, dst, WPP_EDGE_REAL);
			} else {
				add_edge(f, u, exit_node, exit_kinds[rand_r(seed) % 5]);
			}
		}
	}
	tl_number(f);
}

struct strtab {
	char buf[4096];
	uint32_t len;
};

static uint32_t str_add(struct strtab *s, const char *str)
{
	uint32_t at = s->len, n = (uint32_t)strlen(str) + 1;

	if (!str[0])
		return 0;
	memcpy(s->buf + at, str, n);
	s->len += n;
	return at;
}

void *tl_blob(const struct tl_func *fns, uint32_t nfns, uint64_t tu_hash, uint32_t mode, size_t *size)
{
	struct strtab st = {.len = 1};
	struct wpp_meta_header h = {0};
	uint32_t nb = 0, ne = 0;
	unsigned char *blob;
	size_t off;

	for (uint32_t i = 0; i < nfns; i++) {
		nb += fns[i].nblocks;
		ne += fns[i].nedges;
	}
	memcpy(h.magic, WPP_META_MAGIC, 8);
	h.version = WPP_META_VERSION;
	h.header_size = sizeof(h);
	h.tu_hash = tu_hash;
	h.mode = mode;
	h.nfuncs = nfns;
	h.nblocks_total = nb;
	h.nedges_total = ne;
	h.nlines_total = nb;
	h.source_str = str_add(&st, "t.c");
	h.producer_str = str_add(&st, "wppcc test");
	h.funcs_off = sizeof(h);
	h.blocks_off = h.funcs_off + nfns * sizeof(struct wpp_meta_func);
	h.edges_off = h.blocks_off + nb * sizeof(struct wpp_meta_block);
	h.lines_off = h.edges_off + ne * sizeof(struct wpp_meta_edge);
	h.strtab_off = h.lines_off + nb * sizeof(struct wpp_meta_line);
	blob = calloc(1, h.strtab_off + sizeof(st.buf) + 8);
	nb = ne = 0;
	for (uint32_t i = 0; i < nfns; i++) {
		const struct tl_func *f = &fns[i];
		struct wpp_meta_func mf = {.stable_id = 0x1000 + i,
					   .npaths = f->npaths,
					   .local_index = i,
					   .name_str = str_add(&st, f->name),
					   .file_str = h.source_str,
					   .line = 100 * i,
					   .flags = f->flags,
					   .nblocks = f->nblocks,
					   .first_block = nb,
					   .nedges = f->nedges,
					   .first_edge = ne};
		memcpy(blob + h.funcs_off + i * sizeof(mf), &mf, sizeof(mf));
		for (uint32_t b = 0; b < f->nblocks; b++, nb++) {
			struct wpp_meta_block mb = {.first_line = nb, .nlines = 1, .ninsns = b + 1};
			struct wpp_meta_line ml = {.file_str = h.source_str, .line = 100 * i + b + 1};
			memcpy(blob + h.blocks_off + nb * sizeof(mb), &mb, sizeof(mb));
			memcpy(blob + h.lines_off + nb * sizeof(ml), &ml, sizeof(ml));
		}
		for (uint32_t e = 0; e < f->nedges; e++, ne++) {
			struct wpp_meta_edge me = {.src = f->edges[e].src,
						   .dst = f->edges[e].dst,
						   .val = f->edges[e].val,
						   .kind = f->edges[e].kind,
						   .cfg_src = f->edges[e].src,
						   .cfg_dst = f->edges[e].dst};
			memcpy(blob + h.edges_off + ne * sizeof(me), &me, sizeof(me));
		}
	}
	h.strtab_size = st.len;
	memcpy(blob + h.strtab_off, st.buf, st.len);
	off = h.strtab_off + st.len;
	h.total_size = off;
	memcpy(blob, &h, sizeof(h));
	*size = off;
	return blob;
}

int tl_wopen(struct tl_writer *w, const char *path)
{
	struct wpp_file_header h = {.version = WPP_FILE_VERSION, .header_size = sizeof(h)};

	memcpy(h.magic, WPP_FILE_MAGIC, 8);
	w->f = fopen(path, "wb");
	if (!w->f)
		return -1;
	fwrite(&h, sizeof(h), 1, w->f);
	return 0;
}

void tl_chunk(struct tl_writer *w, uint16_t type, const void *a, uint32_t alen, const void *b, uint32_t blen)
{
	struct wpp_chunk_header h = {.magic = WPP_CHUNK_MAGIC, .type = type, .length = alen + blen};

	h.crc32c = wpp_crc32c(0, &h.type, 8);
	h.crc32c = wpp_crc32c(h.crc32c, a, alen);
	if (blen)
		h.crc32c = wpp_crc32c(h.crc32c, b, blen);
	fwrite(&h, sizeof(h), 1, w->f);
	fwrite(a, 1, alen, w->f);
	if (blen)
		fwrite(b, 1, blen, w->f);
}

void tl_batch(struct tl_writer *w, uint32_t pid, uint32_t gen, uint32_t tid, uint64_t seq, uint32_t flags,
	      uint64_t parent_seq, uint32_t parent_off, const uint64_t *words, uint32_t n)
{
	struct wpp_chunk_batch b = {.pid = pid,
				    .tid = tid,
				    .seq = seq,
				    .parent_seq = parent_seq,
				    .parent_off = parent_off,
				    .flags = flags,
				    .generation = gen,
				    .nwords = n};
	tl_chunk(w, WPP_CHUNK_BATCH, &b, sizeof(b), words, n * 8);
}

void tl_module(struct tl_writer *w, uint32_t pid, uint32_t gen, uint32_t fid_base, uint32_t nfuncs,
	       uint64_t tu_hash, const uint8_t *build_id, uint32_t build_id_len, const char *path)
{
	struct wpp_chunk_module m = {.pid = pid,
				     .generation = gen,
				     .fid_base = fid_base,
				     .nfuncs = nfuncs,
				     .tu_hash = tu_hash,
				     .build_id_len = build_id_len,
				     .path_len = (uint32_t)strlen(path) + 1};
	memcpy(m.build_id, build_id, build_id_len);
	tl_chunk(w, WPP_CHUNK_MODULE, &m, sizeof(m), path, m.path_len);
}

void tl_process(struct tl_writer *w, uint32_t pid, uint32_t ppid, uint32_t flags, uint32_t gen)
{
	static const char tail[] = "/bin/prog\0prog\0";
	struct wpp_chunk_process p = {.pid = pid,
				      .ppid = ppid,
				      .flags = flags,
				      .generation = gen,
				      .exe_len = 10,
				      .cmdline_len = 5};
	tl_chunk(w, WPP_CHUNK_PROCESS, &p, sizeof(p), tail, 15);
}

void tl_wclose(struct tl_writer *w, int with_end)
{
	if (with_end) {
		struct wpp_chunk_end e = {0};
		tl_chunk(w, WPP_CHUNK_END, &e, sizeof(e), NULL, 0);
	}
	fclose(w->f);
}

unsigned char *tl_slurp(const char *path, size_t *size)
{
	FILE *f = fopen(path, "rb");
	unsigned char *buf;
	long n;

	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = malloc(n ? (size_t)n : 1);
	*size = fread(buf, 1, (size_t)n, f);
	fclose(f);
	return buf;
}

void tl_spit(const char *path, const void *buf, size_t size)
{
	FILE *f = fopen(path, "wb");

	if (!f || fwrite(buf, 1, size, f) != size || fclose(f) != 0) {
		fprintf(stderr, "testlib: cannot write %s\n", path);
		exit(1);
	}
}

int tl_scratch_dir(char *dir, size_t size, const char *name)
{
	snprintf(dir, size, "/tmp/wpp-test-%s-%d", name, (int)getpid());
	return mkdir(dir, 0700) < 0 ? -1 : 0;
}

void tl_scratch_remove(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;

	if (!d)
		return;
	while ((e = readdir(d)) != NULL)
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			unlinkat(dirfd(d), e->d_name, 0);
	closedir(d);
	rmdir(dir);
}

int tl_exe_with_meta(const char *elf_path, const void *blob, size_t size)
{
	char blob_path[4096], cmd[9000];
	int rc;

	snprintf(blob_path, sizeof(blob_path), "%s.meta", elf_path);
	tl_spit(blob_path, blob, size);
	snprintf(cmd, sizeof(cmd),
		 "objcopy --add-section wpp_meta=%s --set-section-flags wpp_meta=readonly "
		 "/proc/%d/exe %s",
		 blob_path, (int)getpid(), elf_path);
	rc = system(cmd);
	unlink(blob_path);
	return rc == 0 ? 0 : -1;
}
