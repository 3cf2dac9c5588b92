/* SPDX-License-Identifier: MIT */
/*
 * test_warm_heap.c — the room warm_heap_prepare makes on the heap
 * (user/bpfcollect/warm_heap.h), no root needed.  Built without the
 * sanitizers: what is tested is glibc's malloc, which they replace.
 *   - large allocations made after it touch their pages without faulting
 *     (the process's minor faults, getrusage), where the same allocations
 *     in a process that did not prepare fault a page at a time;
 *   - what it is for: libbpf's load of this machine's kernel BTF, the same
 *     comparison (skipped without /sys/kernel/btf/vmlinux);
 *   - sizes it cannot make room for are refused.
 * Each measurement runs in a child of its own, so that one does not warm
 * the heap of the next.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <bpf/btf.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bpfcollect/warm_heap.h"

#define MB (1u << 20)

static long minflt(void)
{
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_minflt;
}

/* Two buffers of `each` bytes written through, as libbpf's read and copy
 * of the BTF do. */
static void touch_two(size_t each)
{
	char *volatile a = malloc(each);
	char *volatile b = malloc(each);
	assert_non_null(a);
	assert_non_null(b);
	memset(a, 1, each);
	memcpy(b, a, each);
	free(a);
	free(b);
}

static void load_btf(size_t each)
{
	(void)each;
	struct btf *b = btf__load_vmlinux_btf();
	assert_non_null(b);
	btf__free(b);
}

/* Faults taken by work(each) in a fresh child, after warm_heap_prepare(warm)
 * if warm is not 0; -1 if the child failed, -2 if the preparation did
 * (an older kernel without MADV_POPULATE_WRITE). */
static long faults_in_child(size_t warm, void (*work)(size_t), size_t each)
{
	int fds[2];
	assert_int_equal(pipe(fds), 0);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		close(fds[0]);
		long n = -2;
		if (!warm || warm_heap_prepare(warm) == 0) {
			long before = minflt();
			work(each);
			n = minflt() - before;
		}
		_exit(write(fds[1], &n, sizeof(n)) == sizeof(n) ? 0 : 1);
	}
	close(fds[1]);
	long n = -1;
	if (read(fds[0], &n, sizeof(n)) != sizeof(n))
		n = -1;
	close(fds[0]);
	int status;
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	return n;
}

static void compare(void (*work)(size_t), size_t each, size_t warm)
{
	long cold = faults_in_child(0, work, each);
	long hot = faults_in_child(warm, work, each);
	if (hot == -2)
		skip();
	print_message("faults: %ld without, %ld with %zu MB prepared\n", cold, hot, warm / MB);
	/* Two fresh buffers: a fault per 4 KB page at least. */
	assert_true(cold >= (long)(2 * each / 4096));
	assert_true(hot >= 0 && hot * 8 < cold);
}

static void test_buffers(void **state)
{
	(void)state;
	compare(touch_two, 6 * MB, 15 * MB);
}

static void test_libbpf_btf(void **state)
{
	(void)state;
	struct stat st;
	if (stat("/sys/kernel/btf/vmlinux", &st) != 0)
		skip();
	compare(load_btf, (size_t)st.st_size, 2 * (size_t)st.st_size + 3 * MB);
}

static void test_refused(void **state)
{
	(void)state;
	assert_int_equal(warm_heap_prepare(0), -EINVAL);
	assert_int_equal(warm_heap_prepare(4096), -EINVAL);
	/* Past glibc's largest dynamic mmap threshold the room would be a
	 * mapping of its own, gone when freed. */
	assert_int_equal(warm_heap_prepare(64 * MB), -E2BIG);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_buffers),
	    cmocka_unit_test(test_libbpf_btf),
	    cmocka_unit_test(test_refused),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
