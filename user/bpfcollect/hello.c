/* SPDX-License-Identifier: MIT */
/*
 * hello.c — system-wide collection (-a) answers the hello of every process
 * image starting in probe mode (protocol: user/runtime/wpp_hello.h): the
 * process waits in its runtime's initialisation, before it has recorded
 * or registered anything, while this attaches the probes to every object
 * it maps (the executable, with a static runtime; whatever libwpprt it
 * loaded), then gets its byte and runs on.  So a program is recorded from
 * its first batch however soon it exits, which attaching when its exec
 * record is read (lifecycle.c) cannot promise.  One thread accepts, the
 * attach runs under the collector's lock; objects already seen cost a
 * lookup.
 *
 * A process waits WPP_HELLO_TIMEOUT_MS at most, then runs on.  Its byte
 * arriving after that finds the socket closed: the write must not raise
 * SIGPIPE (it would end the recording: any local user could, by
 * connecting and closing at once), and the process may have run
 * unrecorded until the probes came, which is said (one line; the
 * runtime says so too).
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "bpfcollect/bc_internal.h"
#include "bpfcollect/procinfo.h"
#include "common/cpu_clock.h"
#include "common/log.h"
#include "runtime/wpp_hello.h"

static void answer(struct bc_collector *c, int fd)
{
	struct ucred peer;
	socklen_t len = sizeof(peer);
	uint64_t began = monotonic_ns();
	int objects = -1;
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &peer, &len) == 0 && peer.pid > 0) {
		pthread_mutex_lock(&c->lock);
		objects = c->finished ? 0 : attach_pid_mappings(c, peer.pid);
		pthread_mutex_unlock(&c->lock);
	}
	double ms = (double)(monotonic_ns() - began) / 1e6;
	if (objects >= 0 && wpp_verbosity >= 2)
		wpp_info("bpf: pid %d said hello: %d instrumented objects in %.1f ms",
			 (int)peer.pid, objects, ms);
	/* The byte is all it waits for; a failed write closes it just as
	 * well.  Failed for want of a reader, the process stopped waiting
	 * (or never waited: a connect and a close): said when it is alive
	 * and instrumented.  Its probes may have come meanwhile (attached
	 * up front, or when its exec was read), which cannot be told from
	 * here: "may".  It has run on, and registered its TUs, maybe with
	 * no probe to see it: its registry is read now, while it is alive
	 * (its first batch may come after its end, too late to read it). */
	if (send(fd, "", 1, MSG_NOSIGNAL) < 0 && (errno == EPIPE || errno == ECONNRESET) &&
	    objects > 0) {
		pthread_mutex_lock(&c->lock);
		struct bc_proc *p = NULL;
		if (!c->finished) {
			/* its fork and exec first: the registry is its newest image's */
			lifecycle_drain(c);
			p = proc_get(c, (uint32_t)peer.pid, 1);
		}
		if (p) {
			/* after the attach: a TU registering meanwhile is seen
			 * twice and announced once */
			p->registry_tried = 0;
			lifecycle_registry_catch_up(c, p);
		}
		pthread_mutex_unlock(&c->lock);
		char exe[4096];
		if (proc_exe(peer.pid, exe, sizeof(exe)) != 0)
			snprintf(exe, sizeof(exe), "?");
		wpp_warn("bpf: pid %d (%s) stopped waiting for its hello's answer (it waits %d "
			 "ms at most): what it ran before its probes were attached may be missing",
			 (int)peer.pid, exe, WPP_HELLO_TIMEOUT_MS);
	}
	close(fd);
}

static void *hello_thread(void *arg)
{
	struct bc_collector *c = arg;
	for (;;) {
		int fd = accept4(c->hello_fd, NULL, NULL, SOCK_CLOEXEC);
		if (fd >= 0)
			answer(c, fd);
		else if (errno != EINTR && errno != ECONNABORTED && errno != EMFILE &&
			 errno != ENFILE && errno != ENOBUFS && errno != ENOMEM)
			return NULL; /* shut down (hello_stop) */
	}
}

int hello_listen(struct bc_collector *c)
{
	c->hello_fd = -1;
	for (unsigned slot = 0; slot < WPP_HELLO_SLOTS; slot++) {
		struct sockaddr_un a;
		socklen_t len = wpp_hello_addr(&a, slot);
		int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (fd < 0)
			break;
		if (bind(fd, (struct sockaddr *)&a, len) == 0 && listen(fd, 128) == 0) {
			c->hello_fd = fd;
			break;
		}
		close(fd);
	}
	if (c->hello_fd < 0) {
		wpp_warn(
		    "bpf: no free hello socket (%d system-wide recordings running?): programs "
		    "with their own runtime are attached when their exec is read, and one that "
		    "ends sooner is missed",
		    WPP_HELLO_SLOTS);
		return -EADDRINUSE;
	}
	int err = pthread_create(&c->hello_tid, NULL, hello_thread, c);
	if (err) {
		close(c->hello_fd);
		c->hello_fd = -1;
		wpp_warn("bpf: cannot start the hello thread: %s", strerror(err));
		return -err;
	}
	return 0;
}

void hello_stop(struct bc_collector *c)
{
	if (c->hello_fd < 0)
		return;
	/* Wakes accept; connections still queued are reset, and their
	 * processes run on without waiting. */
	shutdown(c->hello_fd, SHUT_RDWR);
	pthread_join(c->hello_tid, NULL);
	close(c->hello_fd);
	c->hello_fd = -1;
}
