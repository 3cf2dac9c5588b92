/* SPDX-License-Identifier: MIT */
/*
 * gen_load.c — a BPF object loaded by its generated loader program
 * (gen_load.h).
 */
#include "bpfcollect/gen_load.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* bpf_load_and_run; it needs errno.h and the bpf headers before it. */
#include <bpf/skel_internal.h>

struct gen_load {
	const struct bpf_object *obj;
	int nprogs;
	int prog_fds[]; /* per loaded program, in the object's order */
};

/* The loader's context: its header, then a descriptor per map of the
 * object and per program it loads, each in the object's order (what
 * libbpf 1.1's bpf_gen__finish writes the fds into).  No verifier log: at
 * level 1 it would hold every program's whole log and overflow (the load
 * then fails); a loader that fails leaves the diagnosis to the ordinary
 * load. */
static struct bpf_loader_ctx *loader_ctx(int nmaps, int nprogs)
{
	size_t size = sizeof(struct bpf_loader_ctx) + nmaps * sizeof(struct bpf_map_desc) +
		      nprogs * sizeof(struct bpf_prog_desc);
	struct bpf_loader_ctx *ctx = calloc(1, size);
	if (ctx)
		ctx->sz = (__u32)size;
	return ctx;
}

static struct bpf_map_desc *map_desc(struct bpf_loader_ctx *ctx, int i)
{
	return (struct bpf_map_desc *)(ctx + 1) + i;
}

static struct bpf_prog_desc *prog_desc(struct bpf_loader_ctx *ctx, int nmaps, int i)
{
	return (struct bpf_prog_desc *)map_desc(ctx, nmaps) + i;
}

/* Map an mmapped section's map over the image libbpf keeps at the
 * skeleton's address, as a skeleton load does.  0 or -errno. */
static int remap_section(struct bpf_map *map)
{
	size_t size;
	/* libbpf's image of the section, where the skeleton points */
	void *image = (void *)(uintptr_t)bpf_map__initial_value(map, &size);
	if (!image || !(bpf_map__map_flags(map) & BPF_F_MMAPABLE))
		return 0;
	long page = sysconf(_SC_PAGESIZE);
	size_t len = ((size_t)bpf_map__value_size(map) + 7) / 8 * 8 * bpf_map__max_entries(map);
	len = (len + page - 1) / page * page;
	int prot = bpf_map__map_flags(map) & BPF_F_RDONLY_PROG ? PROT_READ : PROT_READ | PROT_WRITE;
	if (mmap(image, len, prot, MAP_SHARED | MAP_FIXED, bpf_map__fd(map), 0) == MAP_FAILED)
		return -errno;
	return 0;
}

/* Every map's fd to libbpf (ours closed: it keeps a duplicate), its
 * section remapped.  0 or -errno; the fds not yet given are closed. */
static int adopt_maps(struct bpf_object *obj, struct bpf_loader_ctx *ctx, int nmaps)
{
	struct bpf_map *map;
	int i = 0, err = 0;
	bpf_object__for_each_map(map, obj)
	{
		int fd = map_desc(ctx, i++)->map_fd;
		if (!err && (err = bpf_map__reuse_fd(map, fd)) == 0)
			err = remap_section(map);
		close(fd);
	}
	return i == nmaps ? err : -EFAULT;
}

int gen_load(struct bpf_object *obj, struct gen_load **out, const char **failed)
{
	LIBBPF_OPTS(gen_loader_opts, gopts);
	struct bpf_map *map;
	struct bpf_program *prog;
	int nmaps = 0, nprogs = 0;

	*out = NULL;
	*failed = "generating the loader";
	int err = bpf_object__gen_loader(obj, &gopts);
	if (!err)
		err = bpf_object__load(obj); /* generates; loads nothing */
	if (err)
		return err < 0 ? err : -EINVAL;
	bpf_object__for_each_map(map, obj) nmaps++;
	bpf_object__for_each_program(prog, obj) nprogs += bpf_program__autoload(prog);

	struct gen_load *g = calloc(1, sizeof(*g) + nprogs * sizeof(int));
	struct bpf_loader_ctx *ctx = loader_ctx(nmaps, nprogs);
	if (!g || !ctx) {
		free(g);
		free(ctx);
		return -ENOMEM;
	}
	struct bpf_load_and_run_opts run = {.ctx = ctx,
					    .data = gopts.data,
					    .data_sz = gopts.data_sz,
					    .insns = gopts.insns,
					    .insns_sz = gopts.insns_sz};
	err = bpf_load_and_run(&run);
	if (err) {
		*failed = run.errstr;
		free(g);
		free(ctx);
		return err < 0 ? err : -EINVAL;
	}
	g->obj = obj;
	g->nprogs = nprogs;
	for (int i = 0; i < nprogs; i++)
		g->prog_fds[i] = prog_desc(ctx, nmaps, i)->prog_fd;
	err = adopt_maps(obj, ctx, nmaps);
	free(ctx);
	*failed = "taking the maps";
	if (err) {
		gen_load_free(g);
		return err;
	}
	*out = g;
	return 0;
}

int gen_load_prog_fd(const struct gen_load *g, const struct bpf_program *prog)
{
	struct bpf_program *p;
	int i = 0;
	bpf_object__for_each_program(p, g->obj)
	{
		if (!bpf_program__autoload(p))
			continue;
		if (p == prog)
			return g->prog_fds[i];
		i++;
	}
	return -1;
}

void gen_load_free(struct gen_load *g)
{
	if (!g)
		return;
	for (int i = 0; i < g->nprogs; i++)
		if (g->prog_fds[i] >= 0)
			close(g->prog_fds[i]);
	free(g);
}
