/* SPDX-License-Identifier: MIT */
/*
 * cyg_recorder.c — the independent side of the function entry/exit oracle.
 *
 * Linked (uninstrumented, plain clang-19) into a corpus program that was
 * built with -finstrument-functions-after-inlining.  Clang's codegen then
 * calls __cyg_profile_func_enter/exit around every function that survived
 * inlining; we log (enter|exit, function address) per thread in memory and
 * write one file per process image when it ends (exit or exec):
 *
 *     $WPP_CYG_LOG.<pid>.<generation>
 *
 * Format (text, one record per line):
 *     P <pid> <generation> <exe path>
 *     T <tid> <nevents>             a thread, then its events:
 *     E <addr hex> <obj base hex> <object path>   function entry
 *     X <addr hex> <obj base hex> <object path>   function exit
 * Addresses are resolved to symbols offline (nm), because dladdr only knows
 * dynamic symbols and most corpus functions are static.
 *
 * Nothing here may be instrumented (no_instrument_function), nor allocate in
 * the hot path: signal handlers log too.  Each thread's log is one large
 * MAP_NORESERVE mapping; logs are chained on a lock-free list.  A forked
 * child forgets the parent's logs (its own trace starts after fork(), as the
 * wpp trace does).  exec* is wrapped so the image's log is written first;
 * a SIGSEGV writes the log before the process dies.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <link.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#define NOINSTR __attribute__((no_instrument_function))
#define LOG_CAPACITY (UINT64_C(1) << 24) /* events per thread */

struct cyg_event {
	uintptr_t fn;
	uintptr_t kind; /* 'E' or 'X' */
};

struct cyg_thread_log {
	struct cyg_thread_log *next;
	pid_t tid;
	uint64_t n;
	int overflowed;
	struct cyg_event ev[];
};

static struct cyg_thread_log *_Atomic all_logs;
static __thread struct cyg_thread_log *my_log;
static unsigned generation;
static int dumped;

NOINSTR static struct cyg_thread_log *new_log(void)
{
	size_t bytes = sizeof(struct cyg_thread_log) + LOG_CAPACITY * sizeof(struct cyg_event);
	void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
		       -1, 0);
	if (p == MAP_FAILED)
		abort();
	struct cyg_thread_log *l = p;
	l->tid = (pid_t)syscall(SYS_gettid);
	l->next = all_logs;
	while (!__atomic_compare_exchange_n((struct cyg_thread_log **)&all_logs, &l->next, l, 0,
					    __ATOMIC_RELEASE, __ATOMIC_RELAXED))
		;
	return l;
}

NOINSTR static void log_event(void *fn, uintptr_t kind)
{
	struct cyg_thread_log *l = my_log;
	if (!l)
		l = my_log = new_log();
	if (l->n >= LOG_CAPACITY) {
		l->overflowed = 1;
		return;
	}
	l->ev[l->n].fn = (uintptr_t)fn;
	l->ev[l->n].kind = kind;
	__atomic_store_n(&l->n, l->n + 1, __ATOMIC_RELEASE);
}

NOINSTR void __cyg_profile_func_enter(void *fn, void *site)
{
	(void)site;
	log_event(fn, 'E');
}

NOINSTR void __cyg_profile_func_exit(void *fn, void *site)
{
	(void)site;
	log_event(fn, 'X');
}

/* The main program's load base: dladdr names the main program by its argv[0]
 * (which may be relative or arbitrary after exec), so we substitute
 * /proc/self/exe for it. */
NOINSTR static int first_object(struct dl_phdr_info *info, size_t size, void *data)
{
	(void)size;
	*(uintptr_t *)data = (uintptr_t)info->dlpi_addr;
	return 1; /* the first object reported is the main program */
}

NOINSTR static void write_event(FILE *f, const struct cyg_event *e, uintptr_t main_base,
				const char *exe)
{
	Dl_info info;
	if (dladdr((void *)e->fn, &info) && info.dli_fname)
		fprintf(f, "%c %lx %lx %s\n", (int)e->kind, (unsigned long)e->fn,
			(unsigned long)info.dli_fbase,
			(uintptr_t)info.dli_fbase == main_base ? exe : info.dli_fname);
	else
		fprintf(f, "%c %lx 0 ?\n", (int)e->kind, (unsigned long)e->fn);
}

NOINSTR static void dump_logs(void)
{
	const char *prefix = getenv("WPP_CYG_LOG");
	if (!prefix || dumped)
		return;
	dumped = 1;
	char path[4096], exe[4096];
	snprintf(path, sizeof path, "%s.%d.%u", prefix, (int)getpid(), generation);
	ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
	exe[n > 0 ? n : 0] = 0;
	uintptr_t main_base = 0;
	dl_iterate_phdr(first_object, &main_base);
	FILE *f = fopen(path, "w");
	if (!f)
		return;
	fprintf(f, "P %d %u %s\n", (int)getpid(), generation, exe);
	for (struct cyg_thread_log *l = all_logs; l; l = l->next) {
		uint64_t count = __atomic_load_n(&l->n, __ATOMIC_ACQUIRE);
		fprintf(f, "T %d %llu%s\n", (int)l->tid, (unsigned long long)count,
			l->overflowed ? " overflow" : "");
		for (uint64_t i = 0; i < count; i++)
			write_event(f, &l->ev[i], main_base, exe);
	}
	fclose(f);
}

NOINSTR static void forget_parent_logs(void)
{
	all_logs = NULL;
	my_log = NULL;
	dumped = 0;
}

/* Runs after every atexit handler the program registers (those come later). */
NOINSTR static void at_exit(void) { dump_logs(); }

/* A program that dies of SIGSEGV (corpus program "crash") still gets its
 * log written; then the signal is re-raised with the default action. */
NOINSTR static void on_fatal_signal(int sig)
{
	dump_logs();
	signal(sig, SIG_DFL);
	raise(sig);
}

__attribute__((constructor(101))) NOINSTR static void recorder_init(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_fatal_signal;
	sa.sa_flags = SA_RESETHAND;
	sigaction(SIGSEGV, &sa, NULL);
	const char *g = getenv("WPP_CYG_GENERATION");
	generation = g ? (unsigned)strtoul(g, NULL, 10) : 0;
	pthread_atfork(NULL, NULL, forget_parent_logs);
	atexit(at_exit);
}

/* Before the image goes away: write its log, tell the next image its
 * generation, then continue with the real exec (libc's or a wrapper that the
 * wpp runtime may interpose). */
NOINSTR static void before_exec(void)
{
	dump_logs();
	char g[16];
	snprintf(g, sizeof g, "%u", generation + 1);
	setenv("WPP_CYG_GENERATION", g, 1);
}

NOINSTR static void after_failed_exec(void)
{
	char g[16];
	snprintf(g, sizeof g, "%u", generation);
	setenv("WPP_CYG_GENERATION", g, 1);
	dumped = 0;
}

typedef int (*execv_fn)(const char *, char *const[]);
typedef int (*execve_fn)(const char *, char *const[], char *const[]);

NOINSTR int execv(const char *path, char *const argv[])
{
	execv_fn real = (execv_fn)dlsym(RTLD_NEXT, "execv");
	before_exec();
	int r = real(path, argv);
	after_failed_exec();
	return r;
}

NOINSTR int execve(const char *path, char *const argv[], char *const envp[])
{
	execve_fn real = (execve_fn)dlsym(RTLD_NEXT, "execve");
	before_exec();
	/* envp is the caller's: the generation travels only through environ. */
	int r = real(path, argv, envp);
	after_failed_exec();
	return r;
}
