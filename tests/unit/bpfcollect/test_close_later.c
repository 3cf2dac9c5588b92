/* SPDX-License-Identifier: MIT */
/*
 * test_close_later.c — descriptors left to a closer that outlives the caller
 * (user/bpfcollect/close_later.h), on pipes (no root, no BPF):
 *   - the caller's copies are closed when close_later returns, and the
 *     closer's go too: each pipe's reader sees EOF;
 *   - a descriptor not given is not kept by the closer: its pipe's reader
 *     sees EOF as soon as the caller closes it (what lets a pipe on
 *     record's stdout end with record);
 *   - nobody is told when the closer ends (no SIGCHLD, nothing to reap);
 *   - more than it takes: all closed here, -E2BIG.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bpfcollect/close_later.h"

/* Does the read end r see EOF within ms milliseconds? */
static int eof_within(int r, int ms)
{
	struct pollfd p = {r, POLLIN, 0};
	if (poll(&p, 1, ms) != 1)
		return 0;
	char byte;
	return read(r, &byte, 1) == 0;
}

static volatile sig_atomic_t sigchld;
static void on_chld(int sig)
{
	(void)sig;
	sigchld = 1;
}

static void test_given_and_not(void **state)
{
	(void)state;
	int a[2], b[2], other[2];
	assert_int_equal(pipe(a), 0);
	assert_int_equal(pipe(b), 0);
	assert_int_equal(pipe(other), 0);
	signal(SIGCHLD, on_chld);
	int fds[] = {b[1], a[1]};
	assert_int_equal(close_later(fds, 2), 0);
	/* Ours are closed. */
	assert_int_equal(fcntl(a[1], F_GETFD), -1);
	assert_int_equal(fcntl(b[1], F_GETFD), -1);
	/* The closer's follow. */
	assert_true(eof_within(a[0], 5000));
	assert_true(eof_within(b[0], 5000));
	/* Not given: ours was the last copy once the closer dropped its. */
	assert_false(eof_within(other[0], 50));
	close(other[1]);
	assert_true(eof_within(other[0], 5000));
	usleep(50 * 1000);
	assert_int_equal(sigchld, 0);
	assert_int_equal(waitpid(-1, NULL, WNOHANG), -1);
	assert_int_equal(errno, ECHILD);
	close(a[0]), close(b[0]), close(other[0]);
}

static void test_too_many(void **state)
{
	(void)state;
	int r[65], fds[65];
	for (int i = 0; i < 65; i++) {
		int p[2];
		assert_int_equal(pipe(p), 0);
		r[i] = p[0];
		fds[i] = p[1];
	}
	assert_int_equal(close_later(fds, 65), -E2BIG);
	for (int i = 0; i < 65; i++) {
		assert_int_equal(fcntl(fds[i], F_GETFD), -1);
		assert_true(eof_within(r[i], 0));
		close(r[i]);
	}
	assert_int_equal(close_later(NULL, 0), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_given_and_not),
	    cmocka_unit_test(test_too_many),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
