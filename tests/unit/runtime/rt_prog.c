/* SPDX-License-Identifier: MIT */
/*
 * rt_prog.c — a traced program written against the record ABI directly.
 * Each scenario emits words whose payload says who wrote them and in which
 * order, so the checker (test_record.c) can rebuild the exact expected
 * stream without sharing code with the runtime:
 *
 *   word = (fid_base + role) << 40 | (tag << 32 | counter)
 *
 * role: 0 main code, 1 thread code, 2 signal level 1, 3 signal level 2,
 *       4 after-fork child, 5 exec'd image, 6 after longjmp.
 *
 * Modes (argv[1]): basic, threads, churn, forkchurn, signals, longjmp,
 * fork, exec (execd), kill, exit; argv[2] is the words per writer.
 */
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "rt_emit.h"

static uint64_t fid_base; /* fid_base << 40, stored by the runtime */
static const char meta_blob[64] = "fake metadata blob for rt_prog";
static struct wpp_tu_desc desc = {WPP_ABI_VERSION, 8, 0x1234abcdULL, &fid_base, meta_blob,
				  sizeof(meta_blob)};

__attribute__((constructor)) static void reg(void) { __wpp_register_tu(&desc); }

static uint64_t word(unsigned role, unsigned tag, uint32_t counter)
{
	return fid_base + ((uint64_t)role << 40) + ((uint64_t)tag << 32 | counter);
}

static void run(unsigned role, unsigned tag, uint32_t from, uint32_t n)
{
	for (uint32_t i = from; i < from + n; i++) {
		if (i % 97 == 5) /* mix in wide (2-word) records */
			emit2(word(role, tag, i), word(role, tag, i) ^ 1);
		else
			emit1(word(role, tag, i));
	}
}

static uint32_t nwords;

static void *thread_main(void *arg)
{
	run(1, (unsigned)(uintptr_t)arg, 1, nwords);
	return NULL;
}

static void *churn_thread(void *arg)
{
	uint32_t i = (uint32_t)(uintptr_t)arg;

	run(1, 0, i * nwords + 1, nwords);
	return NULL;
}

static void on_usr2(int sig)
{
	(void)sig;
	run(3, 0, 1, 50);
}

static void on_usr1(int sig)
{
	(void)sig;
	run(2, 0, 1, 30);
	raise(SIGUSR2); /* nested */
	run(2, 0, 31, 30);
}

static sigjmp_buf jb;
static void on_alrm(int sig)
{
	(void)sig;
	run(2, 1, 1, 10);
	siglongjmp(jb, 1);
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "basic";

	nwords = argc > 2 ? (uint32_t)strtoul(argv[2], NULL, 10) : 1000;
	if (!strcmp(mode, "basic")) {
		run(0, 0, 1, nwords);
	} else if (!strcmp(mode, "threads")) {
		unsigned n = argc > 3 ? (unsigned)atoi(argv[3]) : 4;
		pthread_t th[64];
		run(0, 0, 1, 10);
		for (unsigned i = 0; i < n; i++)
			pthread_create(&th[i], NULL, thread_main, (void *)(uintptr_t)(i + 1));
		for (unsigned i = 0; i < n; i++)
			pthread_join(th[i], NULL);
		run(0, 0, 11, 10);
	} else if (!strcmp(mode, "churn")) {
		/* Waves of short-lived threads, each thread i writing counters
		 * i*nwords+1 .. (i+1)*nwords of role 1: more threads over the run
		 * than the tables hold, never more at once. */
		unsigned waves = argc > 3 ? (unsigned)atoi(argv[3]) : 10;
		unsigned per = argc > 4 ? (unsigned)atoi(argv[4]) : 4;
		pthread_t th[64];
		for (unsigned w = 0; w < waves; w++) {
			for (unsigned i = 0; i < per && i < 64; i++)
				pthread_create(&th[i], NULL, churn_thread,
					       (void *)(uintptr_t)(w * per + i));
			for (unsigned i = 0; i < per && i < 64; i++)
				pthread_join(th[i], NULL);
		}
		run(0, 0, 1, 10);
	} else if (!strcmp(mode, "forkchurn")) {
		/* The same with processes: child i writes role 4, counters
		 * i*nwords+1 .. (i+1)*nwords, and exits at once. */
		unsigned waves = argc > 3 ? (unsigned)atoi(argv[3]) : 10;
		unsigned per = argc > 4 ? (unsigned)atoi(argv[4]) : 3;
		for (unsigned w = 0; w < waves; w++) {
			for (unsigned i = 0; i < per; i++)
				if (fork() == 0) {
					run(4, 0, (w * per + i) * nwords + 1, nwords);
					__wpp_flush_all();
					_exit(0);
				}
			while (wait(NULL) > 0)
				;
		}
		run(0, 0, 1, 10);
	} else if (!strcmp(mode, "signals")) {
		signal(SIGUSR1, on_usr1);
		signal(SIGUSR2, on_usr2);
		for (uint32_t k = 0; k < 20; k++) {
			run(0, 0, 1 + k * nwords, nwords);
			raise(SIGUSR1);
		}
	} else if (!strcmp(mode, "longjmp")) {
		signal(SIGALRM, on_alrm);
		for (unsigned k = 0; k < 50; k++) {
			run(0, 0, 1 + k * nwords, nwords);
			if (sigsetjmp(jb, 1) == 0)
				raise(SIGALRM);
			run(6, 0, 1 + k * 7, 7);
		}
	} else if (!strcmp(mode, "fork")) {
		run(0, 0, 1, nwords);
		pid_t p = fork();
		if (p == 0) {
			run(4, 0, 1, nwords);
			__wpp_flush_all();
			_exit(0);
		}
		run(0, 0, nwords + 1, nwords);
		waitpid(p, NULL, 0);
	} else if (!strcmp(mode, "exec")) {
		run(0, 0, 1, nwords);
		__wpp_flush_all();
		char n[32];
		snprintf(n, sizeof(n), "%u", nwords);
		execl("/proc/self/exe", argv[0], "execd", n, (char *)NULL);
		perror("exec");
		return 1;
	} else if (!strcmp(mode, "execd")) {
		run(5, 0, 1, nwords);
	} else if (!strcmp(mode, "kill")) {
		run(0, 0, 1, nwords);
		raise(SIGKILL);
	} else if (!strcmp(mode, "exit")) {
		run(0, 0, 1, nwords);
		return 3;
	} else {
		fprintf(stderr, "rt_prog: unknown mode %s\n", mode);
		return 2;
	}
	return 0;
}
