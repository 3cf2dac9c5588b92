/* SPDX-License-Identifier: MIT */
/* record_attach.c — attaching to running programs (see record_attach.h). */
#include "record/record_attach.h"

#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "bpfcollect/activate.h"
#include "common/array_grow.h"
#include "common/log.h"

void record_attach_own_runtime(struct bc_collector *c)
{
	char self[PATH_MAX], lib[PATH_MAX + 64];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n <= 0)
		return;
	self[n] = 0;
	char *slash = strrchr(self, '/');
	if (!slash)
		return;
	*slash = 0;
	snprintf(lib, sizeof(lib), "%s/../lib/wpptrace/libwpprt.so", self);
	if (access(lib, R_OK) == 0)
		bc_attach_object(c, lib);
}

/* One process switched on by this collector, held by a pidfd. */
struct dual_proc {
	pid_t pid;
	int pidfd;
};

struct record_dual {
	struct dual_proc *procs;
	size_t n, cap;
	/* -a: the instrumented processes bc_trace_all found, to be switched
	 * once the probes run; found_lost: one could not be noted */
	pid_t *found;
	size_t nfound, found_cap;
	int found_lost;
};

/* Switch pid on; remember it if this call is what switched it on.  quiet:
 * -a's processes, some of them not dual builds or not ours to write. */
static void dual_on(struct record_dual *d, pid_t pid, int quiet)
{
	/* The pidfd first: if pid is this process now, the pidfd is too. */
	int pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
	int pidfd_err = pidfd < 0 ? errno : 0, was_on = 0;
	int n = bc_dual_set(pid, 1, &was_on);

	if (n < 0 && !(quiet && (n == -ENOENT || n == -ESRCH || n == -EPERM || n == -EACCES)))
		wpp_warn("record: pid %d: cannot set its dual build's flags (%s): it records only "
			 "what runs instrumented",
			 (int)pid, strerror(-n));
	else if (n > 0 && wpp_verbosity >= 2)
		wpp_info(was_on
			     ? "record: pid %d: %d dual flags were set already: left set at the end"
			     : "record: pid %d: set %d dual flags",
			 (int)pid, n);
	if (n <= 0 || was_on || pidfd < 0) {
		if (pidfd >= 0)
			close(pidfd);
		if (n > 0 && !was_on && pidfd < 0)
			wpp_warn("record: pid %d: no pidfd (%s): its dual build's flags stay set",
				 (int)pid, strerror(pidfd_err));
		return;
	}
	if (ARRAY_GROW(d->procs, d->cap, d->n + 1, 16)) {
		close(pidfd);
		wpp_warn("record: pid %d: out of memory: its dual build's flags stay set",
			 (int)pid);
		return;
	}
	d->procs[d->n++] = (struct dual_proc){pid, pidfd};
}

/* bc_trace_all's report of an instrumented running process. */
static void note_found(pid_t pid, void *arg)
{
	struct record_dual *d = arg;

	if (ARRAY_GROW(d->found, d->found_cap, d->nfound + 1, 64))
		d->found_lost = 1;
	else
		d->found[d->nfound++] = pid;
}

int record_attach_running(struct bc_collector *c, int all, const pid_t *pids, int npids,
			  struct record_dual **dual)
{
	struct record_dual *d = calloc(1, sizeof(*d));

	*dual = NULL;
	if (!d) {
		wpp_err("record: out of memory");
		return -1;
	}
	if (all) {
		record_attach_own_runtime(c);
		if (bc_trace_all(c, note_found, d)) {
			record_dual_restore(d);
			return -1;
		}
	}
	/* Threads that started before the thread probe was there are read
	 * from their runtime when their process is attached, into the
	 * positions the counters share (bc_positions_fd). */
	for (int i = 0; i < npids; i++)
		if (bc_trace_pid(c, pids[i], true)) {
			record_dual_restore(d);
			return -1;
		}
	if (bc_start(c)) {
		record_dual_restore(d);
		return -1;
	}
	if (d->found_lost)
		wpp_warn("record: out of memory: some dual builds running now record only what "
			 "runs instrumented");
	for (size_t i = 0; i < d->nfound; i++)
		dual_on(d, d->found[i], 1);
	for (int i = 0; i < npids; i++)
		dual_on(d, pids[i], 0);
	*dual = d;
	return 0;
}

void record_dual_restore(struct record_dual *d)
{
	if (!d)
		return;
	for (size_t i = 0; i < d->n; i++) {
		struct dual_proc *p = &d->procs[i];
		struct pollfd exited = {p->pidfd, POLLIN, 0};
		/* Readable: it exited, and its pid may be another's by now. */
		int n = poll(&exited, 1, 0) == 0 ? bc_dual_set(p->pid, 0, NULL) : -ESRCH;
		if (n < 0 && n != -ESRCH)
			wpp_warn(
			    "record: pid %d: cannot clear its dual build's flags (%s): it records "
			    "on, unheard, until it exits",
			    (int)p->pid, strerror(-n));
		else if (n > 0 && wpp_verbosity >= 2)
			wpp_info("record: pid %d: cleared %d dual flags", (int)p->pid, n);
		close(p->pidfd);
	}
	free(d->procs);
	free(d->found);
	free(d);
}
