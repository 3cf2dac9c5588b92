/* SPDX-License-Identifier: MIT */
/*
 * kernel_btf.c — a raw tracepoint's arguments from the kernel's BTF, by one
 * checked walk of the type section (kernel_btf.h says why not libbpf).
 * The layout is the kernel's documented one (Documentation/bpf/btf.rst,
 * <linux/btf.h>): a header, then types, each a struct btf_type followed by
 * data whose size its kind and vlen give.
 */
#include "bpfcollect/kernel_btf.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/btf.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define VMLINUX_BTF "/sys/kernel/btf/vmlinux"
/* More than any kernel's BTF (today's are 5–8 MB): a larger size is not one. */
#define MAX_BTF_BYTES (256u << 20)

/* Bytes after the struct btf_type of a type of this kind and vlen; -1 for
 * a kind this walk does not know. */
static long kind_extra(uint32_t kind, uint32_t vlen)
{
	switch (kind) {
	case BTF_KIND_PTR:
	case BTF_KIND_FWD:
	case BTF_KIND_TYPEDEF:
	case BTF_KIND_VOLATILE:
	case BTF_KIND_CONST:
	case BTF_KIND_RESTRICT:
	case BTF_KIND_FUNC:
	case BTF_KIND_FLOAT:
	case BTF_KIND_TYPE_TAG:
		return 0;
	case BTF_KIND_INT:
	case BTF_KIND_VAR:
	case BTF_KIND_DECL_TAG:
		return 4;
	case BTF_KIND_ARRAY:
		return (long)sizeof(struct btf_array);
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION:
		return (long)vlen * (long)sizeof(struct btf_member);
	case BTF_KIND_ENUM:
		return (long)vlen * (long)sizeof(struct btf_enum);
	case BTF_KIND_FUNC_PROTO:
		return (long)vlen * (long)sizeof(struct btf_param);
	case BTF_KIND_DATASEC:
		return (long)vlen * (long)sizeof(struct btf_var_secinfo);
	case BTF_KIND_ENUM64:
		return (long)vlen * (long)sizeof(struct btf_enum64);
	}
	return -1;
}

int kernel_btf_index(struct kernel_btf *kb, const void *data, size_t size)
{
	const struct btf_header *h = data;
	uint32_t cap = 0;

	memset(kb, 0, sizeof(*kb));
	if (size < sizeof(*h))
		return -EINVAL;
	if (h->magic != BTF_MAGIC)
		return h->magic == __builtin_bswap16(BTF_MAGIC) ? -ENOTSUP : -EINVAL;
	if (h->version != BTF_VERSION)
		return -ENOTSUP;
	if (h->hdr_len < sizeof(*h) || h->hdr_len > size ||
	    (uint64_t)h->type_off + h->type_len > size - h->hdr_len ||
	    (uint64_t)h->str_off + h->str_len > size - h->hdr_len || h->str_len == 0 ||
	    ((h->hdr_len | h->type_off) & 3))
		return -EINVAL;
	kb->data = data;
	kb->size = size;
	kb->types = (const unsigned char *)data + h->hdr_len + h->type_off;
	kb->types_len = h->type_len;
	kb->strs = (const char *)data + h->hdr_len + h->str_off;
	kb->strs_len = h->str_len;
	for (uint32_t off = 0; off < kb->types_len;) {
		const struct btf_type *t = (const void *)(kb->types + off);
		if (kb->types_len - off < sizeof(*t))
			return kernel_btf_close(kb), -EINVAL;
		long extra = kind_extra(BTF_INFO_KIND(t->info), BTF_INFO_VLEN(t->info));
		if (extra < 0)
			return kernel_btf_close(kb), -ENOTSUP;
		if ((uint64_t)kb->types_len - off - sizeof(*t) < (uint64_t)extra)
			return kernel_btf_close(kb), -EINVAL;
		if (kb->ntypes == cap) {
			cap = cap ? cap * 2 : 1u << 14;
			uint32_t *offs = realloc(kb->offs, cap * sizeof(*offs));
			if (!offs)
				return kernel_btf_close(kb), -ENOMEM;
			kb->offs = offs;
		}
		kb->offs[kb->ntypes++] = off;
		off += (uint32_t)(sizeof(*t) + (size_t)extra);
	}
	/* To size: the index is kept while the questions are asked. */
	uint32_t *offs = kb->ntypes ? realloc(kb->offs, kb->ntypes * sizeof(*offs)) : NULL;
	if (offs)
		kb->offs = offs;
	return 0;
}

/* Type `id` (1-based; 0 is void), NULL if there is none. */
static const struct btf_type *type_by_id(const struct kernel_btf *kb, uint32_t id)
{
	if (id == 0 || id > kb->ntypes)
		return NULL;
	return (const void *)(kb->types + kb->offs[id - 1]);
}

/* Is the string at name_off exactly `want` (of length n)? */
static int name_is(const struct kernel_btf *kb, uint32_t name_off, const char *want, size_t n)
{
	return name_off < kb->strs_len && kb->strs_len - name_off > n &&
	       memcmp(kb->strs + name_off, want, n) == 0 && kb->strs[name_off + n] == 0;
}

int kernel_btf_tp_args(const struct kernel_btf *kb, const char *tp)
{
	static const char prefix[] = "btf_trace_";
	char name[256];
	size_t n = strlen(tp);

	if (n > sizeof(name) - sizeof(prefix))
		return 0; /* longer than any kernel symbol: not there */
	memcpy(name, prefix, sizeof(prefix) - 1);
	memcpy(name + sizeof(prefix) - 1, tp, n + 1);
	n += sizeof(prefix) - 1;
	for (uint32_t id = 1; id <= kb->ntypes; id++) {
		const struct btf_type *t = type_by_id(kb, id);
		if (BTF_INFO_KIND(t->info) != BTF_KIND_TYPEDEF ||
		    !name_is(kb, t->name_off, name, n))
			continue;
		const struct btf_type *p = type_by_id(kb, t->type);
		const struct btf_type *f =
		    p && BTF_INFO_KIND(p->info) == BTF_KIND_PTR ? type_by_id(kb, p->type) : NULL;
		if (!f || BTF_INFO_KIND(f->info) != BTF_KIND_FUNC_PROTO)
			return -EINVAL;
		return (int)BTF_INFO_VLEN(f->info);
	}
	return 0;
}

/* The whole file read into memory, for kernels that do not let it be
 * mapped (before 6.16).  0 or -errno. */
static int read_all(int fd, size_t size, void **out)
{
	unsigned char *buf = malloc(size);
	size_t got = 0;

	if (!buf)
		return -ENOMEM;
	while (got < size) {
		ssize_t r = read(fd, buf + got, size - got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			int err = r < 0 ? -errno : -EINVAL; /* shorter than it said */
			free(buf);
			return err;
		}
		got += (size_t)r;
	}
	*out = buf;
	return 0;
}

int kernel_btf_open(struct kernel_btf *kb, const char *path)
{
	struct stat st;
	void *data;
	int mapped = 1, err;

	memset(kb, 0, sizeof(*kb));
	int fd = open(path ? path : VMLINUX_BTF, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0 || st.st_size <= 0 || (uint64_t)st.st_size > MAX_BTF_BYTES) {
		err = st.st_size <= 0 || (uint64_t)st.st_size > MAX_BTF_BYTES ? -EINVAL : -errno;
		close(fd);
		return err;
	}
	data = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (data == MAP_FAILED) {
		mapped = 0;
		err = read_all(fd, (size_t)st.st_size, &data);
		if (err) {
			close(fd);
			return err;
		}
	}
	close(fd);
	err = kernel_btf_index(kb, data, (size_t)st.st_size);
	if (err) {
		if (mapped)
			munmap(data, (size_t)st.st_size);
		else
			free(data);
		return err;
	}
	kb->own = mapped ? 1 : 2;
	return 0;
}

void kernel_btf_close(struct kernel_btf *kb)
{
	free(kb->offs);
	/* Only kernel_btf_open's data is ours: kernel_btf_index borrows. */
	if (kb->own == 1)
		munmap((void *)kb->data, kb->size);
	else if (kb->own == 2)
		free((void *)kb->data);
	memset(kb, 0, sizeof(*kb));
}
