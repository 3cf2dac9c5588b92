/* SPDX-License-Identifier: MIT */
/*
 * test_kernel_btf.c — the tracepoint questions bc_open asks of the kernel's
 * BTF (user/bpfcollect/kernel_btf.h), no root needed:
 *   - on this machine's /sys/kernel/btf/vmlinux, against libbpf's own
 *     model of the same file: the number of types walked, and the argument
 *     count of a list of tracepoints (present, absent, with group_dead);
 *   - on BTF built here, type by type: the answers, and every malformed
 *     shape refused (each truncation, an unknown kind, another byte order,
 *     bad magic, a name past the strings) without reading outside the data
 *     (the test is built with the sanitizers).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <linux/btf.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bpfcollect/kernel_btf.h"

/* libbpf's answer: btf_trace_<tp> -> pointer -> prototype's vlen. */
static int libbpf_args(const struct btf *b, const char *tp)
{
	char name[256];
	snprintf(name, sizeof(name), "btf_trace_%s", tp);
	int id = btf__find_by_name_kind(b, name, BTF_KIND_TYPEDEF);
	if (id <= 0)
		return 0;
	const struct btf_type *t = btf__type_by_id(b, btf__type_by_id(b, id)->type);
	if (!t || !btf_is_ptr(t))
		return -EINVAL;
	t = btf__type_by_id(b, t->type);
	return t && btf_is_func_proto(t) ? btf_vlen(t) : -EINVAL;
}

static void test_matches_libbpf(void **state)
{
	(void)state;
	static const char *const tps[] = {
	    "sched_process_exit", "sched_prepare_exec", "sched_process_fork", "sched_process_exec",
	    "sched_switch",	  "sys_enter",		"no_such_tracepoint", "",
	};
	if (access("/sys/kernel/btf/vmlinux", R_OK) != 0)
		skip();
	struct btf *ref = btf__load_vmlinux_btf();
	assert_non_null(ref);
	struct kernel_btf kb;
	assert_int_equal(kernel_btf_open(&kb, NULL), 0);
	assert_int_equal(kb.ntypes, btf__type_cnt(ref) - 1);
	int found = 0;
	for (size_t i = 0; i < sizeof(tps) / sizeof(tps[0]); i++) {
		int want = libbpf_args(ref, tps[i]);
		assert_int_equal(kernel_btf_tp_args(&kb, tps[i]), want);
		found += want > 0;
	}
	/* The comparison must not be of two "absent"s only. */
	assert_true(found >= 3);
	kernel_btf_close(&kb);
	btf__free(ref);
}

/* ---- BTF built here ---- */

struct blob {
	unsigned char b[1024];
	size_t types_at, len; /* where the type section starts, bytes so far */
	uint32_t ntypes;
	char strs[256];
	uint32_t strs_len;
};

static uint32_t str_add(struct blob *x, const char *s)
{
	uint32_t off = x->strs_len;
	size_t n = strlen(s) + 1;
	memcpy(x->strs + off, s, n);
	x->strs_len += (uint32_t)n;
	return off;
}

static void put32(struct blob *x, uint32_t v)
{
	memcpy(x->b + x->len, &v, 4);
	x->len += 4;
}

/* A type: its btf_type, then `extra` zero bytes.  Its id. */
static uint32_t type_add(struct blob *x, const char *name, uint32_t kind, uint32_t vlen,
			 uint32_t size_or_type, size_t extra)
{
	put32(x, name ? str_add(x, name) : 0);
	put32(x, kind << 24 | vlen); /* info: kind in bits 24-28, vlen in 0-15 */
	put32(x, size_or_type);
	memset(x->b + x->len, 0, extra);
	x->len += extra;
	return ++x->ntypes;
}

static void blob_start(struct blob *x)
{
	memset(x, 0, sizeof(*x));
	x->strs_len = 1; /* offset 0: the empty name */
	x->types_at = x->len = sizeof(struct btf_header);
}

/* The header, and the strings after the types.  Total size. */
static size_t blob_finish(struct blob *x)
{
	struct btf_header h = {
	    .magic = BTF_MAGIC,
	    .version = BTF_VERSION,
	    .hdr_len = sizeof(h),
	    .type_off = 0,
	    .type_len = (uint32_t)(x->len - x->types_at),
	    .str_off = (uint32_t)(x->len - x->types_at),
	    .str_len = x->strs_len,
	};
	memcpy(x->b, &h, sizeof(h));
	memcpy(x->b + x->len, x->strs, x->strs_len);
	x->len += x->strs_len;
	return x->len;
}

/* int; a 3-argument prototype and its pointer; btf_trace_foo to it;
 * btf_trace_bad to the int; a struct, an enum64 and a datasec between. */
static size_t sample(struct blob *x)
{
	blob_start(x);
	uint32_t i = type_add(x, "int", BTF_KIND_INT, 0, 4, 4);
	uint32_t proto = type_add(x, NULL, BTF_KIND_FUNC_PROTO, 3, i, 3 * sizeof(struct btf_param));
	type_add(x, "s", BTF_KIND_STRUCT, 2, 8, 2 * sizeof(struct btf_member));
	uint32_t ptr = type_add(x, NULL, BTF_KIND_PTR, 0, proto, 0);
	type_add(x, "e", BTF_KIND_ENUM64, 2, 8, 2 * sizeof(struct btf_enum64));
	type_add(x, "btf_trace_foo", BTF_KIND_TYPEDEF, 0, ptr, 0);
	type_add(x, ".data", BTF_KIND_DATASEC, 1, 0, sizeof(struct btf_var_secinfo));
	type_add(x, "btf_trace_bad", BTF_KIND_TYPEDEF, 0, i, 0);
	return blob_finish(x);
}

static void test_built(void **state)
{
	(void)state;
	struct blob x;
	size_t n = sample(&x);
	struct kernel_btf kb;
	assert_int_equal(kernel_btf_index(&kb, x.b, n), 0);
	assert_int_equal(kb.ntypes, 8);
	assert_int_equal(kernel_btf_tp_args(&kb, "foo"), 3);
	assert_int_equal(kernel_btf_tp_args(&kb, "fo"), 0);
	assert_int_equal(kernel_btf_tp_args(&kb, "fooo"), 0);
	assert_int_equal(kernel_btf_tp_args(&kb, "bar"), 0);
	assert_int_equal(kernel_btf_tp_args(&kb, "bad"), -EINVAL);
	kernel_btf_close(&kb);
	/* libbpf reads the same blob the same way (the builder is right). */
	struct btf *ref = btf__new(x.b, (uint32_t)n);
	assert_non_null(ref);
	assert_int_equal(btf__type_cnt(ref) - 1, 8);
	assert_int_equal(libbpf_args(ref, "foo"), 3);
	btf__free(ref);
}

/* Every proper prefix of the data is refused, and read only within itself
 * (each is a copy of exactly that many bytes, so the sanitizer sees any
 * read past it). */
static void test_truncated(void **state)
{
	(void)state;
	struct blob x;
	size_t n = sample(&x);
	for (size_t len = 0; len < n; len++) {
		unsigned char *copy = malloc(len ? len : 1);
		assert_non_null(copy);
		memcpy(copy, x.b, len);
		struct kernel_btf kb;
		assert_int_equal(kernel_btf_index(&kb, copy, len), -EINVAL);
		free(copy);
	}
}

static void test_malformed(void **state)
{
	(void)state;
	struct blob x;
	struct kernel_btf kb;
	struct btf_header *h = (struct btf_header *)x.b;
	size_t n;

	n = sample(&x);
	h->magic = 0x1234;
	assert_int_equal(kernel_btf_index(&kb, x.b, n), -EINVAL);
	n = sample(&x);
	h->magic = __builtin_bswap16(BTF_MAGIC);
	assert_int_equal(kernel_btf_index(&kb, x.b, n), -ENOTSUP);
	n = sample(&x);
	h->version = 2;
	assert_int_equal(kernel_btf_index(&kb, x.b, n), -ENOTSUP);
	n = sample(&x);
	h->hdr_len = 8;
	assert_int_equal(kernel_btf_index(&kb, x.b, n), -EINVAL);
	n = sample(&x);
	h->str_off = (uint32_t)n;
	assert_int_equal(kernel_btf_index(&kb, x.b, n), -EINVAL);
	/* the type section ends inside its last type */
	n = sample(&x);
	h->type_len -= 4;
	assert_int_equal(kernel_btf_index(&kb, x.b, n), -EINVAL);

	/* a kind this walk does not know: not understood, not malformed */
	blob_start(&x);
	type_add(&x, "int", BTF_KIND_INT, 0, 4, 4);
	type_add(&x, "new", 31, 0, 0, 0);
	n = blob_finish(&x);
	assert_int_equal(kernel_btf_index(&kb, x.b, n), -ENOTSUP);

	/* names past the string section, and one running to its end without
	 * a NUL: not the name asked for, and nothing read beyond */
	blob_start(&x);
	uint32_t p = type_add(&x, NULL, BTF_KIND_FUNC_PROTO, 1, 0, sizeof(struct btf_param));
	p = type_add(&x, NULL, BTF_KIND_PTR, 0, p, 0);
	type_add(&x, "btf_trace_x", BTF_KIND_TYPEDEF, 0, p, 0);
	/* a typedef pointing to no type at all */
	type_add(&x, "btf_trace_y", BTF_KIND_TYPEDEF, 0, 99, 0);
	n = blob_finish(&x);
	unsigned char *copy = malloc(n);
	assert_non_null(copy);
	memcpy(copy, x.b, n);
	assert_int_equal(kernel_btf_index(&kb, copy, n), 0);
	assert_int_equal(kernel_btf_tp_args(&kb, "x"), 1);
	assert_int_equal(kernel_btf_tp_args(&kb, "y"), -EINVAL);
	kernel_btf_close(&kb);
	/* now x's name points past the strings, and the strings end with
	 * "btf_trace_y" without its NUL (the data one byte shorter) */
	uint32_t far = 1000;
	size_t x_name = x.types_at + 2 * sizeof(struct btf_type) + sizeof(struct btf_param);
	memcpy(copy + x_name, &far, 4);
	((struct btf_header *)copy)->str_len--;
	unsigned char *cut = malloc(n - 1);
	assert_non_null(cut);
	memcpy(cut, copy, n - 1);
	assert_int_equal(kernel_btf_index(&kb, cut, n - 1), 0);
	assert_int_equal(kernel_btf_tp_args(&kb, "x"), 0);
	assert_int_equal(kernel_btf_tp_args(&kb, "y"), 0);
	kernel_btf_close(&kb);
	free(cut);
	free(copy);
}

/* kernel_btf_open on files: a written blob (mapped), a missing file, an
 * empty one. */
static void test_open_files(void **state)
{
	(void)state;
	char path[] = "/tmp/test_kernel_btf.XXXXXX";
	struct blob x;
	size_t n = sample(&x);
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, x.b, n), (ssize_t)n);
	struct kernel_btf kb;
	assert_int_equal(kernel_btf_open(&kb, path), 0);
	assert_int_equal(kernel_btf_tp_args(&kb, "foo"), 3);
	kernel_btf_close(&kb);
	assert_int_equal(ftruncate(fd, 0), 0);
	assert_int_equal(kernel_btf_open(&kb, path), -EINVAL);
	close(fd);
	unlink(path);
	assert_int_equal(kernel_btf_open(&kb, path), -ENOENT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_matches_libbpf), cmocka_unit_test(test_built),
	    cmocka_unit_test(test_truncated),	   cmocka_unit_test(test_malformed),
	    cmocka_unit_test(test_open_files),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
