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
 */
#include <errno.h>
#include <pthread.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "bpfcollect/bc_internal.h"
#include "common/log.h"
#include "runtime/wpp_hello.h"

static void answer(struct bc_collector *c, int fd)
{
	struct ucred peer;
	socklen_t len = sizeof(peer);
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &peer, &len) == 0 && peer.pid > 0) {
		pthread_mutex_lock(&c->lock);
		int objects = c->finished ? 0 : attach_pid_mappings(c, peer.pid);
		pthread_mutex_unlock(&c->lock);
		if (wpp_verbosity >= 2)
			wpp_info("bpf: pid %d said hello: %d instrumented objects", (int)peer.pid,
				 objects);
	}
	/* The byte is all it waits for; a failed write closes it just as well. */
	ssize_t n = write(fd, "", 1);
	(void)n;
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
