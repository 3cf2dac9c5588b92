/* SPDX-License-Identifier: MIT */
/*
 * rt_clone.c — children the program makes with raw clone() (libc's
 * `clone(fn, stack, flags, arg, ...)`, interposed as pthread_create and
 * vfork are) are followed like the fork and vfork children they resemble:
 *
 *   no CLONE_VM           a copy of the process, as fork makes, but libc
 *                         runs no pthread_atfork handler: the child restarts
 *                         its streams itself (rt_fork_child) before fn;
 *   CLONE_VM|CLONE_VFORK  the parent's memory, the parent suspended until
 *                         the child has exec'd or exited: vfork's three
 *                         steps (rt_vfork.c), on every architecture (the
 *                         child has a stack of its own, so this needs no
 *                         assembly);
 *   CLONE_VM alone        the parent's memory *and its thread's TLS*, with
 *                         both running at once.  Instrumented code keeps its
 *                         cursor in that TLS, so two tasks would write one
 *                         buffer: that cannot be made correct without
 *                         giving the child a TLS of its own, which only the
 *                         caller can do (CLONE_SETTLS).  The thread's stream
 *                         is published and closed, nothing more is recorded
 *                         by it or the child, and one line says so, with a
 *                         count (rt_thread_shared);
 *   CLONE_SETTLS or       a thread made by hand, with TLS of its own: left
 *   CLONE_THREAD          to the runtime's lazy thread start.
 *
 * A child whose fn returns leaves through libc's clone stub with no exit
 * handler: what it recorded is published here first.  posix_spawn and
 * pthread_create use libc's internal clone and never come here.
 */
#include <dlfcn.h>
#include <errno.h>
#include <sched.h>
#include <stdarg.h>
#include <sys/types.h>

#include "runtime/rt_internal.h"

typedef int (*clone_fn)(int (*)(void *), void *, int, void *, ...);

struct clone_start {
	int (*fn)(void *);
	void *arg;
	int shares_memory; /* CLONE_VM|CLONE_VFORK, else a copy */
};

/* Runs in the child on its own stack; the parent's frame holding *p stays
 * valid until the child has started (copy) or is gone (vfork-like). */
static int child_start(void *p)
{
	struct clone_start s = *(struct clone_start *)p;

	if (s.shares_memory)
		rt_vfork_child();
	else
		rt_fork_child();
	int r = s.fn(s.arg);
	rt_final_flush();
	return r;
}

__attribute__((visibility("default"))) int clone(int (*fn)(void *), void *stack, int flags,
						 void *arg, ...)
{
	static clone_fn real;
	struct clone_start s = {fn, arg, 0};
	va_list ap;
	pid_t *ptid;
	void *tls;
	pid_t *ctid;
	int pid, err;

	/* libc reads these only when flags ask for them; so do we. */
	va_start(ap, arg);
	ptid = va_arg(ap, pid_t *);
	tls = va_arg(ap, void *);
	ctid = va_arg(ap, pid_t *);
	va_end(ap);
	if (!real)
		real = (clone_fn)dlsym(RTLD_NEXT, "clone");
	if (!real) {
		errno = ENOSYS;
		return -1;
	}
	if (!fn || (flags & (CLONE_SETTLS | CLONE_THREAD)))
		return real(fn, stack, flags, arg, ptid, tls, ctid);
	if ((flags & CLONE_VM) && !(flags & CLONE_VFORK)) {
		rt_thread_shared();
		return real(fn, stack, flags, arg, ptid, tls, ctid);
	}
	s.shares_memory = (flags & CLONE_VM) != 0;
	if (s.shares_memory)
		rt_vfork_prepare();
	else
		rt_registry_fork_prepare(); /* as fork's atfork handler does */
	pid = real(child_start, stack, flags, &s, ptid, tls, ctid);
	err = errno;
	if (s.shares_memory)
		rt_vfork_parent();
	else
		rt_registry_fork_parent();
	errno = err;
	return pid;
}
