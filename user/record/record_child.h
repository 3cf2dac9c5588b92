/* SPDX-License-Identifier: MIT */
/*
 * record_child.h — running the traced program under `wpptrace record`:
 * start it with our environment, pass signals meant for it along, reap it
 * and every orphaned descendant (we are their subreaper), and turn its
 * wait status into our exit status.
 */
#ifndef WPP_RECORD_CHILD_H
#define WPP_RECORD_CHILD_H

#include <sys/types.h>

/* Become subreaper, route SIGINT/SIGTERM/SIGHUP/SIGQUIT to the child. */
void child_prepare(void);
/* SIGINT/SIGTERM/SIGHUP/SIGQUIT received so far (after the program has
 * ended, one means "stop waiting for the grammars"). */
unsigned long child_stop_signals(void);
/* fork + execvp.  0, or -errno of a failed exec (message not printed). */
int child_spawn(char **argv, pid_t *pid);
/* A child forked but held before exec, so the tracer can attach first. */
struct child_hold {
	int go_fd;  /* write a byte: exec */
	int err_fd; /* EOF: exec worked; else the exec errno */
};
/* fork; the child waits for child_release() and then execvp()s argv. */
int child_spawn_held(char **argv, pid_t *pid, struct child_hold *h);
/* Let the held child exec.  0, or -errno of a failed exec (child reaped). */
int child_release(pid_t pid, struct child_hold *h);
/* Give up on a held child before releasing it: it exits without exec'ing
 * and is reaped. */
void child_abandon(pid_t pid, struct child_hold *h);
/* The file execvp would run for name (PATH search); 0 or -ENOENT. */
int child_resolve(const char *name, char *out, size_t size);

/* Reap whatever has exited.  Sets *main_status when `main` is reaped.
 * Returns 1 when we have no children left at all. */
int child_reap(pid_t main, int *main_status, int *main_reaped);
/* The same, telling reaped(arg, pid, status) of every process reaped (the
 * program and the orphans re-parented to us). */
int child_reap_each(pid_t main, int *main_status, int *main_reaped,
		    void (*reaped)(void *arg, pid_t pid, int status), void *arg);
/* Exit status for the wait status: the code, or 128 + signal. */
int child_exit_code(int status);

#endif
