/* SPDX-License-Identifier: MIT */
/*
 * usdt_producer — fires wpptrace:batch with words the BPF tests can check
 * independently of the collector: thread t (0-based) publishes batches
 * seq = 0 .. nbatches-1, each of nwords words, word i of batch b being
 * wpp_make_word(t + 1, b * nwords + i).  So every stream must read as one
 * unbroken payload count per fid, except where a gap says otherwise.
 *
 *   usdt_producer flood  NTHREADS NBATCHES NWORDS
 *   usdt_producer family NBATCHES NWORDS     fork a child that publishes
 *                                            and execs "leaf"; the parent
 *                                            publishes too
 *   usdt_producer leaf   NBATCHES NWORDS     publish, then exit(7)
 *
 * Before anything it fires wpptrace:register once with a descriptor whose
 * tu_hash is 0x5eed and fid_base 1.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "usdt_emit.h"
#include "wpp/trace_abi.h"

static uint32_t nthreads, nbatches, nwords;

static __attribute__((noinline)) void publish(const uint64_t *words, uint32_t n, uint64_t seq)
{
	WPP_TEST_USDT_BATCH(words, n, seq, 0, 0, 0, 0);
}

static __attribute__((noinline)) void register_tu(struct wpp_tu_desc *d, uint32_t fid_base)
{
	WPP_TEST_USDT_REGISTER(d, fid_base);
}

static void *producer(void *arg)
{
	uint32_t t = (uint32_t)(uintptr_t)arg;
	uint64_t *buf = malloc((size_t)nwords * 8 + 8);
	if (!buf)
		abort();
	for (uint32_t b = 0; b < nbatches; b++) {
		for (uint32_t i = 0; i < nwords; i++)
			buf[i] = wpp_make_word(t + 1, (uint64_t)b * nwords + i);
		publish(buf, nwords, b);
	}
	free(buf);
	return NULL;
}

static const char meta_blob[] = "test-meta";
static uint64_t fid_slot;

int main(int argc, char **argv)
{
	if (argc < 2)
		return 2;
	struct wpp_tu_desc desc = {
		.abi_version = WPP_ABI_VERSION, .nfuncs = 3, .tu_hash = 0x5eed,
		.fid_base_slot = &fid_slot, .meta = meta_blob, .meta_size = sizeof(meta_blob),
	};
	register_tu(&desc, 1);
	if (strcmp(argv[1], "flood") == 0 && argc == 5) {
		nthreads = atoi(argv[2]);
		nbatches = atoi(argv[3]);
		nwords = atoi(argv[4]);
		pthread_t th[256];
		if (nthreads > 256)
			return 2;
		for (uint32_t t = 0; t < nthreads; t++)
			pthread_create(&th[t], NULL, producer, (void *)(uintptr_t)t);
		for (uint32_t t = 0; t < nthreads; t++)
			pthread_join(th[t], NULL);
		return 0;
	}
	if ((strcmp(argv[1], "family") == 0 || strcmp(argv[1], "leaf") == 0) && argc == 4) {
		nbatches = atoi(argv[2]);
		nwords = atoi(argv[3]);
		if (strcmp(argv[1], "leaf") == 0) {
			producer((void *)(uintptr_t)2);
			return 7;
		}
		pid_t child = fork();
		if (child == 0) {
			producer((void *)(uintptr_t)1);
			execl("/proc/self/exe", "usdt_producer", "leaf", argv[2], argv[3], (char *)NULL);
			_exit(127);
		}
		producer((void *)(uintptr_t)0);
		int status;
		waitpid(child, &status, 0);
		return WIFEXITED(status) && WEXITSTATUS(status) == 7 ? 0 : 1;
	}
	fprintf(stderr, "usage: usdt_producer flood NTHREADS NBATCHES NWORDS | family|leaf NBATCHES NWORDS\n");
	return 2;
}
