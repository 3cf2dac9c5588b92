/* SPDX-License-Identifier: MIT */
/*
 * rt_hello.c — a new process image in probe mode waits, before it records
 * anything, until every system-wide collector has attached to it.
 *
 * `wpptrace record -a` attaches its probes per object file.  An executable
 * with the runtime linked in statically (or one loading a libwpprt other
 * than the one the collector attached up front) carries probes nobody has
 * attached yet when it starts; a collector attaching once it reads the
 * exec from its ring is milliseconds late, and a short program has
 * published its batches and exited by then (it was not recorded at all).
 * So rt_init says hello (protocol: wpp_hello.h): connect to each listening
 * collector and wait for its byte.  Nothing listening costs a refused
 * connect per slot (microseconds, once per image; fork children inherit
 * the image and say nothing).  A listener that is not root's is left at
 * once, so no other user can make instrumented programs wait; a collector
 * that does not answer is waited for WPP_HELLO_TIMEOUT_MS at most.
 *
 * The connect itself is non-blocking.  Anyone can bind the names (abstract
 * sockets have no permissions) and never accept; once such a listener's
 * backlog is full a blocking connect sleeps in the kernel before any
 * credential can be checked, and with no timeout (SO_RCVTIMEO does not
 * cover it).  A unix stream connect completes or fails at once when
 * non-blocking (EAGAIN: backlog full), so a squatted name costs nothing;
 * SO_PEERCRED, the listener's credentials as the kernel recorded them at
 * listen(), then decides whether to wait for its byte.  A root collector
 * whose backlog is full is skipped the same way: the program is then
 * attached when the collector reads its exec, as without the hello.
 *
 * A root collector that lets the wait run out (a machine too busy for it
 * to attach in time) may leave the process running without probes until
 * they come, its first batches unrecorded.  That is said, one line on
 * stderr; the collector says it on its side when its answer finds the
 * process gone from the socket (user/bpfcollect/hello.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include "runtime/rt_internal.h"
#include "runtime/wpp_hello.h"

/* Slot `slot` through *fd (a fresh unix stream socket, or -1 to make
 * one): returns once its collector, if any, answered or gave up.  A refused
 * connect leaves the socket usable for the next slot (one socket for all
 * when nothing listens: half the cost of one each); a connected one is
 * spent, and closed.  Returns 1 when a root collector answered. */
static int hello_slot(unsigned slot, int *fd)
{
	struct sockaddr_un a;
	socklen_t len = wpp_hello_addr(&a, slot);
	struct ucred peer;
	socklen_t plen = sizeof(peer);
	struct timeval tv = {WPP_HELLO_TIMEOUT_MS / 1000, (WPP_HELLO_TIMEOUT_MS % 1000) * 1000};
	char byte;
	int answered = 0;

	if (*fd < 0 && (*fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0)) < 0)
		return 0;
	if (connect(*fd, (struct sockaddr *)&a, len) != 0) {
		if (errno == ECONNREFUSED || errno == ENOENT)
			return 0; /* nobody there: the socket serves the next slot */
		close(*fd);	  /* EAGAIN and the rest: do not reuse it */
		*fd = -1;
		return 0;
	}
	/* Blocking again for the bounded read of a root collector's byte. */
	if (getsockopt(*fd, SOL_SOCKET, SO_PEERCRED, &peer, &plen) == 0 && peer.uid == 0 &&
	    fcntl(*fd, F_SETFL, 0) == 0 &&
	    setsockopt(*fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) == 0) {
		ssize_t n;
		while ((n = read(*fd, &byte, 1)) < 0 && errno == EINTR)
			;
		answered = n == 1;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			rt_say("a system-wide recorder (wpptrace record -a) did not answer within "
			       "the hello's bound: running on; ",
			       "what runs before its probes are attached may go unrecorded");
	}
	close(*fd);
	*fd = -1;
	return answered;
}

int rt_hello_collectors(void)
{
	int saved = errno, fd = -1, answered = 0;

	for (unsigned slot = 0; slot < WPP_HELLO_SLOTS; slot++)
		answered += hello_slot(slot, &fd);
	if (fd >= 0)
		close(fd);
	errno = saved;
	return answered;
}
