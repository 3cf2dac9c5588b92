/* SPDX-License-Identifier: MIT */
/*
 * wpp_hello.h — the hello between a starting process image and system-wide
 * collectors (`wpptrace record -a`), shared by libwpprt (rt_hello.c) and
 * the BPF collector (user/bpfcollect/hello.c).
 *
 * A system-wide collector listens on the first free abstract unix stream
 * socket of WPP_HELLO_SLOTS names ("\0wpptrace-all-0", ...).  In probe
 * mode, a new image's runtime connects to each name before it records
 * anything, and waits until the collector behind it has attached its
 * probes to the objects the process maps: the collector answers one byte
 * (or closes), at most WPP_HELLO_TIMEOUT_MS later.  The collector learns
 * the pid from SO_PEERCRED; the runtime ignores listeners not run by root.
 */
#ifndef WPP_RT_HELLO_H
#define WPP_RT_HELLO_H

#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>

#define WPP_HELLO_SLOTS	     4
#define WPP_HELLO_TIMEOUT_MS 2000

/* The address of slot `slot` in *a; returns its length for bind/connect. */
static inline socklen_t wpp_hello_addr(struct sockaddr_un *a, unsigned slot)
{
	memset(a, 0, sizeof(*a));
	a->sun_family = AF_UNIX;
	/* abstract: sun_path[0] stays 0, the name follows */
	int n = snprintf(a->sun_path + 1, sizeof(a->sun_path) - 1, "wpptrace-all-%u", slot);
	return (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + (size_t)n);
}

#endif
