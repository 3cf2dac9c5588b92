/* SPDX-License-Identifier: MIT */
/*
 * corrupt.c — a traced program one of whose processes turns hostile to
 * the shm collector (tests/e2e/harden-corrupt.sh).
 *
 * The parent does honest work and reports its child's status.  The child
 * works too, then (mode "corrupt") maps the collector's region itself, as
 * any traced process can, finds its own thread slot and rewrites its
 * rings: a start slot far outside the region and a head a thousand
 * batches past the tail.  A collector that trusts those fields reads far
 * outside its mapping.  Mode "others" instead rewrites the geometry of
 * every other thread's rings (start slot far away, length 0): a producer
 * or collector that read those fields would write far outside the region
 * or wait for ever.  Mode "honest" skips the rewrite, for the reference
 * recording.  Exit status 7.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kmod-free/shm_proto.h"

static unsigned long work(unsigned long rounds, unsigned long seed)
{
	unsigned long sum = seed;
	for (unsigned long n = 0; n < rounds; n++)
		for (unsigned i = 0; i < 1000; i++) {
			unsigned x = (unsigned)(n * 1000 + i + seed) | 1;
			for (int k = 0; k < 20; k++)
				x = (x & 1) ? 3 * x + 1 : x / 2;
			sum = sum * 31 + x;
		}
	return sum;
}

static void corrupt_rings(int others)
{
	const char *path = getenv(WPP_SHM_ENV);
	uint32_t tid = (uint32_t)syscall(SYS_gettid);
	struct stat st;
	int fd = path ? open(path, O_RDWR) : -1;

	if (fd < 0 || fstat(fd, &st) < 0)
		return;
	char *m = mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (m == MAP_FAILED)
		return;
	struct wpp_shm_header *h = (struct wpp_shm_header *)m;
	for (uint32_t i = 0; i < h->max_threads; i++) {
		struct wpp_shm_thread *t = (struct wpp_shm_thread *)(m + h->threads_off) + i;
		if ((t->tid == tid) == others || t->state != WPP_SHM_LIVE)
			continue;
		for (int l = 0; l < WPP_SHM_LEVELS; l++) {
			t->rings[l].first_slot = 0x7fffffff;
			if (others)
				t->rings[l].nslots = 0;
			else
				__atomic_store_n(&t->rings[l].head, t->rings[l].tail + 1000,
						 __ATOMIC_RELEASE);
		}
	}
}

int main(int argc, char **argv)
{
	int corrupt = argc > 1 && !strcmp(argv[1], "corrupt");
	int others = argc > 1 && !strcmp(argv[1], "others");
	unsigned long rounds = argc > 2 ? strtoul(argv[2], NULL, 10) : 200;
	int status = 0;
	pid_t child = fork();

	if (child == 0) {
		unsigned long s = work(rounds, 1);
		usleep(100000); /* the collector has seen this thread by now */
		if (corrupt || others)
			corrupt_rings(others);
		usleep(300000);
		s += work(rounds, 2);
		return s == 42; /* 0 */
	}
	unsigned long s = work(rounds, 0);
	waitpid(child, &status, 0);
	printf("checksum %lx, child exited %d\n", s, WIFEXITED(status) ? WEXITSTATUS(status) : -1);
	return 7;
}
