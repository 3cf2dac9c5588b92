/* SPDX-License-Identifier: MIT */
/* forgedpos.c — a worker thread that announces a position descriptor
 * naming memory that is not there (wpptrace:thread, as the runtime does at
 * a thread's start), records some more and blocks; main then exits, and
 * exit_group kills the worker with those words unpublished.  The BPF
 * salvage at its exit cannot read the thread's state, so what it held is
 * lost in a number nobody can know: record must say so, and keep it in the
 * file (tests/e2e/bpf-salvage-unreadable.sh).  Without an argument the
 * descriptor is not forged (the control: the words are salvaged).  Built
 * with the runtime linked in (-fwpp-static-rt), so this executable is the
 * instrumented object whose probe sites the collector attaches to, the
 * forged one included. */
#define _GNU_SOURCE /* gettid */
#include <pthread.h>
#include <semaphore.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "runtime/wpp_position.h"
#include "wpp/usdt.h"

static volatile unsigned long sink;
static sem_t done;
static int forge;

__attribute__((noinline)) static void work(int n)
{
	for (int i = 0; i < n; i++) {
		if (i % 3)
			sink += (unsigned long)i;
		else
			sink ^= (unsigned long)i;
	}
}

static void *worker(void *arg)
{
	/* A descriptor the position reader accepts (magic, version, levels)
	 * whose cursor and thread state lie in page 0, never mapped. */
	static struct wpp_thread_position forged = {
	    .magic = WPP_POSITION_MAGIC,
	    .version = WPP_POSITION_VERSION,
	    .nlevels = 1,
	    .cursor_addr = 8,
	    .thread_addr = 64,
	    .level_size = 64,
	};

	(void)arg;
	work(1000); /* the thread has started: the runtime announced its own */
	if (forge) {
		forged.tid = (uint32_t)gettid();
		__asm__ __volatile__(WPP_USDT_NOTE("wpptrace", "thread", "8@%[a1]")
				     :
				     : [a1] "r"((uint64_t)(uintptr_t)&forged)
				     : "memory");
	}
	work(1001);
	sem_post(&done);
	for (;;)
		pause(); /* until exit_group ends it, unflushed */
}

int main(int argc, char **argv)
{
	pthread_t t;

	forge = argc > 1 && argv[1][0] == 'f';
	sem_init(&done, 0, 0);
	if (pthread_create(&t, NULL, worker, NULL))
		return 2;
	while (sem_wait(&done))
		;
	printf("%lu\n", sink);
	return 0;
}
