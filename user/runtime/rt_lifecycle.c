/* SPDX-License-Identifier: MIT */
/*
 * rt_lifecycle.c — threads, fork and exit.
 *
 *  - pthread_create is wrapped so a new thread gets its own scratch area
 *    before its first record (the TLS image can only point at a global one).
 *  - A pthread key destructor publishes a thread's last batch when it exits
 *    and re-arms itself, so records made by destructors that run after ours
 *    are published in the next round (glibc runs up to
 *    PTHREAD_DESTRUCTOR_ITERATIONS rounds).
 *  - In a fork child the forking thread forgets the parent's buffers (the
 *    parent still owns and publishes them), the process registers anew
 *    (ppid, parent tid, FORKED) and the thread starts fresh streams.
 *  - The library destructor publishes the exiting thread's data.
 */
#include <dlfcn.h>
#include <limits.h>
#include <pthread.h>
#include <stdlib.h>

#include "runtime/rt_count.h"
#include "runtime/rt_internal.h"
#include "wpp/wpp_file.h"

static pthread_key_t exit_key;
static int exit_key_ok;

static void on_thread_exit(void *arg)
{
	struct rt_thread *t = &rt_self;
	int last;
	(void)arg;

	if (t->state != RT_T_LIVE && !rt_count_thread_active())
		return;
	last = ++t->exit_rounds >= PTHREAD_DESTRUCTOR_ITERATIONS;
	/* Counts first: draining them may start the thread's stream. */
	rt_count_thread_exit(last);
	if (t->state == RT_T_LIVE) {
		rt_final_flush();
		rt_transport->thread_close(t, last);
		if (last) {
			t->state = RT_T_DONE;
			rt_vfork_thread_exit();
		}
	}
	if (!last)
		pthread_setspecific(exit_key, t);
}

void rt_thread_arm_exit(struct rt_thread *t)
{
	if (exit_key_ok)
		pthread_setspecific(exit_key, t);
}

static void on_fork_prepare(void)
{
	rt_registry_fork_prepare();
}
static void on_fork_parent(void)
{
	rt_registry_fork_parent();
}

void rt_fork_child(void)
{
	struct rt_thread *t = &rt_self;
	uint32_t parent_tid = t->tid ? t->tid : rt_proc.pid;

	rt_registry_fork_child();
	rt_count_fork_child();
	rt_process_identify(&rt_proc, parent_tid, WPP_PROC_FORKED);
	rt_registry_set_pid(rt_proc.pid);
	rt_transport->fork_child();
	rt_thread_restart(t, 0);
}

void rt_lifecycle_init(void)
{
	exit_key_ok = pthread_key_create(&exit_key, on_thread_exit) == 0;
	pthread_atfork(on_fork_prepare, on_fork_parent, rt_fork_child);
}

/* ---- pthread_create ---- */

struct start_args {
	void *(*fn)(void *);
	void *arg;
};

static void *thread_entry(void *p)
{
	struct start_args a = *(struct start_args *)p;

	free(p);
	__wpp_cursor = __wpp_limit = rt_self.lv[0].scratch;
	return a.fn(a.arg);
}

typedef int (*pthread_create_fn)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);

__attribute__((visibility("default"))) int pthread_create(pthread_t *th, const pthread_attr_t *attr,
							  void *(*fn)(void *), void *arg)
{
	static pthread_create_fn real;
	struct start_args *a;
	int err;

	if (!real)
		real = (pthread_create_fn)dlsym(RTLD_NEXT, "pthread_create");
	if (!real)
		return 11; /* EAGAIN */
	a = malloc(sizeof(*a));
	if (!a)
		return real(th, attr, fn, arg);
	a->fn = fn;
	a->arg = arg;
	err = real(th, attr, thread_entry, a);
	if (err)
		free(a);
	return err;
}

/* ---- process start and exit ---- */

__attribute__((constructor(101))) static void rt_start(void)
{
	rt_init();
}

void rt_final_flush(void)
{
	struct rt_thread *t = &rt_self;

	if (t->state != RT_T_LIVE)
		return;
	/* exit() from a handler: the interrupted levels never resume. */
	rt_unwind(t, 0, 1);
	rt_level_finish(t, 0, WPP_BATCH_FINAL);
}

__attribute__((destructor(101))) static void rt_stop(void)
{
	rt_count_process_end();
	rt_final_flush();
}
