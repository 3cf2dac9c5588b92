/* SPDX-License-Identifier: MIT */
/* wet_xthread.c — a program whose cross-thread memory dependences are
 * known by hand (tests/e2e/wet-query.sh, docs/wet.md "Threads"): a worker
 * stores x and y and exits; main joins it, loads y at once (still in its
 * first batch, whose start the recording does not know: the order is
 * unknown) and loads x after enough paths to have published batches since
 * (the worker's store is then proven earlier: the dependence is the
 * worker's store).  Run with small buffers (WPP_BUFFER_WORDS=512). */
#include <pthread.h>

volatile long x, y, spin, odd, ring[16];

static void *worker(void *arg)
{
	(void)arg;
	x = 42; /* XT:store-x */
	y = 7;	/* XT:store-y */
	return NULL;
}

/* Phase 2: stores racing main's loads of the same ring.  With small
 * buffers (WPP_BUFFER_WORDS) some of main's loads are provably after a
 * store of this thread, some concurrent with one: the brute force of
 * wet_query_check.py decides each from the batches' times. */
static void *writer(void *arg)
{
	(void)arg;
	for (long i = 1; i <= 20000; i++)
		ring[i % 16] = i;
	return NULL;
}

int main(void)
{
	pthread_t t;

	if (pthread_create(&t, NULL, worker, NULL) || pthread_join(t, NULL))
		return 2;
	long early = y; /* XT:early */
	/* a path word and a load and store of spin per round: about 4 words,
	 * 20 k in all, many buffers published (the test records with
	 * WPP_BUFFER_WORDS=512) */
	for (long i = 0; i < 5000; i++)
		spin = spin + i;
	long late = x; /* XT:late */
	long sum = 0;
	if (pthread_create(&t, NULL, writer, NULL))
		return 2;
	for (long i = 0; i < 20000; i++) {
		long v = ring[i % 16]; /* XT:race */
		/* two paths hold the load: the n-th of its instances is found by
		 * bisecting both nodes' timestamps (wet_insn_nth) */
		if (v & 1)
			odd = odd + 1;
		else
			sum += v;
	}
	if (pthread_join(t, NULL))
		return 2;
	return early + late == 49 && sum >= 0 ? 0 : 1;
}
