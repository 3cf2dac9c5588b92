/* SPDX-License-Identifier: MIT */
/* Signals delivered at deterministic points (raise, kill(getpid())) into
 * handlers that run instrumented code; a signal raised inside a handler
 * (nested); a handler that leaves by siglongjmp. */
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "corpus.h"

static volatile sig_atomic_t usr1_count, usr2_count, term_count;
static volatile uint32_t handler_work;
static sigjmp_buf escape;

static uint32_t branchy(uint32_t v)
{
	uint32_t s = 0;
	for (int i = 0; i < 8; i++) {
		if (v & (1u << i))
			s += (uint32_t)i;
		else
			s ^= (uint32_t)i << 2;
	}
	return s;
}

static void on_usr1(int sig)
{
	(void)sig;
	usr1_count++;
	handler_work += branchy((uint32_t)usr1_count * 37u);
}

static void on_usr2(int sig)
{
	(void)sig;
	usr2_count++;
	if (usr2_count % 2 == 0)
		raise(SIGUSR1); /* nested: runs on_usr1 inside on_usr2 */
	handler_work ^= branchy((uint32_t)usr2_count);
}

static void on_term(int sig)
{
	(void)sig;
	term_count++;
	handler_work += 1000;
	siglongjmp(escape, (int)term_count);
}

static void install(int sig, void (*fn)(int))
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = fn;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = SA_RESTART;
	sigaction(sig, &sa, NULL);
}

int main(void)
{
	uint32_t st = corpus_seed();
	install(SIGUSR1, on_usr1);
	install(SIGUSR2, on_usr2);
	install(SIGTERM, on_term);
	/* volatile: modified between sigsetjmp and the siglongjmp back */
	volatile uint32_t main_work = 0;
	for (int i = 0; i < 20; i++) {
		uint32_t r = corpus_next(&st);
		main_work += branchy(r);
		if (r % 3 == 0)
			raise(SIGUSR1);
		else if (r % 3 == 1)
			kill(getpid(), SIGUSR2);
	}
	volatile int escapes = 0;
	for (int i = 0; i < 4; i++) {
		if (sigsetjmp(escape, 1) == 0) {
			main_work += branchy((uint32_t)i);
			raise(SIGTERM);
			main_work += 99999; /* skipped by the siglongjmp */
		} else {
			escapes++;
		}
	}
	printf("signals: usr1=%d usr2=%d term=%d escapes=%d handler_work=%u main_work=%u\n",
	       (int)usr1_count, (int)usr2_count, (int)term_count, escapes, handler_work,
	       (uint32_t)main_work);
	return 0;
}
