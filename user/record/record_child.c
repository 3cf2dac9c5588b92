/* SPDX-License-Identifier: MIT */
#include "record/record_child.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile pid_t child_pid;
static volatile sig_atomic_t stop_signals; /* every one received */

/* The signals passed on to the program (child_prepare). */
static const int forwarded[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};
#define NFORWARDED (sizeof(forwarded) / sizeof(forwarded[0]))

/* Signals from the terminal already reached the child (same process
 * group); only those sent to us alone (kill) are passed on.  Either way
 * we keep running so the recording can finish cleanly. */
static void forward(int sig, siginfo_t *si, void *uc)
{
	int saved = errno;
	(void)uc;
	stop_signals++;
	if (si->si_code != SI_KERNEL && child_pid > 0)
		kill(child_pid, sig);
	errno = saved;
}

void child_prepare(void)
{
	struct sigaction sa;

	/* Orphaned descendants are re-parented to us, so "no children left"
	 * means every traced process is gone. */
	prctl(PR_SET_CHILD_SUBREAPER, 1);
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = forward;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigemptyset(&sa.sa_mask);
	for (unsigned i = 0; i < NFORWARDED; i++)
		sigaction(forwarded[i], &sa, NULL);
}

unsigned long child_stop_signals(void)
{
	return (unsigned long)stop_signals;
}

int child_spawn(char **argv, pid_t *pid)
{
	int pipefd[2], err = 0;
	ssize_t n;
	pid_t p;

	/* The exec error travels back through a close-on-exec pipe: EOF means
	 * the exec worked. */
	if (pipe2(pipefd, O_CLOEXEC) < 0)
		return -errno;
	p = fork();
	if (p < 0) {
		err = errno;
		close(pipefd[0]);
		close(pipefd[1]);
		return -err;
	}
	if (p == 0) {
		/* exec resets caught signals to default itself. */
		close(pipefd[0]);
		execvp(argv[0], argv);
		err = errno;
		n = write(pipefd[1], &err, sizeof(err));
		(void)n;
		_exit(127);
	}
	close(pipefd[1]);
	do
		n = read(pipefd[0], &err, sizeof(err));
	while (n < 0 && errno == EINTR);
	close(pipefd[0]);
	if (n == (ssize_t)sizeof(err)) {
		waitpid(p, NULL, 0);
		return -err;
	}
	child_pid = p;
	*pid = p;
	return 0;
}

int child_spawn_held(char **argv, pid_t *pid, struct child_hold *h)
{
	int go[2], errp[2], err;
	char byte;
	pid_t p;

	if (pipe2(go, O_CLOEXEC) < 0)
		return -errno;
	if (pipe2(errp, O_CLOEXEC) < 0) {
		err = errno;
		close(go[0]);
		close(go[1]);
		return -err;
	}
	p = fork();
	if (p < 0) {
		err = errno;
		close(go[0]), close(go[1]), close(errp[0]), close(errp[1]);
		return -err;
	}
	if (p == 0) {
		close(go[1]);
		close(errp[0]);
		/* EOF without the byte: the tracer gave up, do not run. */
		ssize_t n;
		do
			n = read(go[0], &byte, 1);
		while (n < 0 && errno == EINTR);
		if (n != 1)
			_exit(127);
		/* Forked before child_prepare, the child still has what record
		 * was started with: a shell without job control starts a
		 * background job with SIGINT and SIGQUIT ignored, and ignored
		 * they would stay across the exec, so the Ctrl-C record passes
		 * on would not end the program.  A program forked after
		 * child_prepare had them caught, which exec makes default. */
		struct sigaction dfl;
		memset(&dfl, 0, sizeof(dfl));
		dfl.sa_handler = SIG_DFL;
		for (unsigned i = 0; i < NFORWARDED; i++)
			sigaction(forwarded[i], &dfl, NULL);
		execvp(argv[0], argv);
		err = errno;
		n = write(errp[1], &err, sizeof(err));
		(void)n;
		_exit(127);
	}
	close(go[0]);
	close(errp[1]);
	h->go_fd = go[1];
	h->err_fd = errp[0];
	child_pid = p;
	*pid = p;
	return 0;
}

int child_release(pid_t pid, struct child_hold *h)
{
	int err = 0;
	ssize_t n = write(h->go_fd, "g", 1);
	close(h->go_fd);
	if (n == 1) {
		do
			n = read(h->err_fd, &err, sizeof(err));
		while (n < 0 && errno == EINTR);
	}
	close(h->err_fd);
	if (n == 0)
		return 0;
	waitpid(pid, NULL, 0);
	child_pid = 0;
	return n == (ssize_t)sizeof(err) ? -err : -EIO;
}

void child_abandon(pid_t pid, struct child_hold *h)
{
	/* EOF on the go pipe: the child exits (127) without exec'ing. */
	close(h->go_fd);
	close(h->err_fd);
	while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
		;
	child_pid = 0;
}

int child_resolve(const char *name, char *out, size_t size)
{
	if (strchr(name, '/')) {
		if (strlen(name) >= size)
			return -ENAMETOOLONG;
		strcpy(out, name);
		return access(out, X_OK) == 0 ? 0 : -errno;
	}
	const char *path = getenv("PATH");
	if (!path)
		path = "/usr/local/bin:/usr/bin:/bin";
	while (*path) {
		size_t len = strcspn(path, ":");
		int n = snprintf(out, size, "%.*s%s%s", (int)len, path, len ? "/" : "", name);
		if (n > 0 && (size_t)n < size && access(out, X_OK) == 0)
			return 0;
		path += len + (path[len] == ':');
	}
	return -ENOENT;
}

int child_reap(pid_t main, int *main_status, int *main_reaped)
{
	return child_reap_each(main, main_status, main_reaped, NULL, NULL);
}

int child_reap_each(pid_t main, int *main_status, int *main_reaped,
		    void (*reaped)(void *arg, pid_t pid, int status), void *arg)
{
	for (;;) {
		int status;
		pid_t p = waitpid(-1, &status, WNOHANG);
		if (p > 0 && reaped)
			reaped(arg, p, status);
		if (p > 0) {
			if (p == main) {
				*main_status = status;
				*main_reaped = 1;
				child_pid = 0;
			}
			continue;
		}
		if (p < 0 && errno == EINTR)
			continue;
		return p < 0 && errno == ECHILD;
	}
}

int child_exit_code(int status)
{
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return 1;
}
