/* SPDX-License-Identifier: MIT */
/* record_attach.c — attaching to running programs (see record_attach.h). */
#include "record/record_attach.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "bpfcollect/activate.h"
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

int record_attach_running(struct bc_collector *c, int all, const pid_t *pids, int npids)
{
	if (all) {
		record_attach_own_runtime(c);
		if (bc_trace_all(c))
			return -1;
	}
	/* Threads that started before the thread probe was there are read
	 * from their runtime when their process is attached, into the
	 * positions the counters share (bc_positions_fd). */
	for (int i = 0; i < npids; i++)
		if (bc_trace_pid(c, pids[i], true))
			return -1;
	if (bc_start(c))
		return -1;
	record_dual_switch(pids, npids, 1);
	return 0;
}

void record_dual_switch(const pid_t *pids, int npids, int on)
{
	for (int i = 0; i < npids; i++) {
		int n = bc_dual_set(pids[i], on);
		/* Gone by the end: nothing is left to record on. */
		if (n == -ESRCH && !on)
			continue;
		if (n < 0)
			wpp_warn(
			    "record: pid %d: cannot %s its dual build's flags (%s): it records "
			    "%s",
			    (int)pids[i], on ? "set" : "clear", strerror(-n),
			    on ? "only what runs instrumented" : "on, unheard, until it exits");
		else if (n > 0 && wpp_verbosity >= 2)
			wpp_info("record: pid %d: %s %d dual flags", (int)pids[i],
				 on ? "set" : "cleared", n);
	}
}
