/* SPDX-License-Identifier: MIT */
/*
 * killcount — the oracle for a traced program killed while its threads
 * record (tests/e2e/bpf-killcount.sh): NTHREADS busy workers each count the
 * iterations of a call-free loop (one path, so one trace word, each) into a
 * file the program maps shared, which outlives the SIGKILL.  The test then
 * knows, independently of the trace, how many words each thread recorded:
 * what the decoded trace holds for it plus what was counted lost must match.
 *   killcount FILE NTHREADS
 * FILE (made here: it must not exist, nor be a link) gets, per slot i
 * (main is slot 0, worker i slot i + 1): the tid and the iterations done,
 * two 64-bit words (slot 0's count word stays 0, its tid is the pid).
 * Main only waits for the kill, which comes from outside.
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#define MAX_THREADS 64

struct slot {
	uint64_t tid;
	uint64_t done;
};

static struct slot *slots;
static volatile uint64_t sink_;
#define FILL(v)	 (sink_ = sink_ * 6364136223846793005u + (v))
#define FILL4(v) (FILL(v), FILL(v), FILL(v), FILL(v))

static void *worker(void *arg)
{
	struct slot *s = arg;
	uint64_t x = (uint64_t)(uintptr_t)arg, n = 0;
	__atomic_store_n(&s->tid, (uint64_t)syscall(SYS_gettid), __ATOMIC_RELEASE);
	/* One path up to the gettid call, then one per iteration (the loop
	 * is call-free).  The count is stored after the branches, so the
	 * thread has recorded count + 1 words, or count with the last one
	 * about to be. */
	for (;;) {
		if (x & 1)
			x = 3 * x + 1;
		else if (x % 3 == 0)
			x = x / 3 + 5;
		else
			x /= 2;
		/* Branch-free filler (no inner loop: one path per iteration):
		 * slower iterations keep a test's trace small. */
		FILL4(x);
		FILL4(x);
		FILL4(x);
		FILL4(x);
		__atomic_store_n(&s->done, ++n, __ATOMIC_RELAXED);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc != 3)
		return 2;
	int n = atoi(argv[2]);
	if (n < 1 || n >= MAX_THREADS)
		return 2;
	int fd = open(argv[1], O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	size_t size = sizeof(struct slot) * MAX_THREADS;
	if (fd < 0 || ftruncate(fd, (off_t)size) != 0)
		return 2;
	slots = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (slots == MAP_FAILED)
		return 2;
	for (int i = 0; i < n; i++) {
		pthread_t t;
		if (pthread_create(&t, NULL, worker, &slots[i + 1]) != 0)
			return 2;
	}
	__atomic_store_n(&slots[0].tid, (uint64_t)getpid(), __ATOMIC_RELEASE);
	for (;;)
		pause();
}
