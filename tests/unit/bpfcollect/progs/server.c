/* SPDX-License-Identifier: MIT */
/*
 * server — a long-running instrumented process for `wpptrace record -p`:
 * the main thread and one worker handle "requests" (a little deterministic
 * work, then a short sleep) until SIGTERM, then print how many they served.
 * It writes its pid to the file named by argv[1] once both threads run, so
 * the test attaches to a process that has already been working a while.
 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <unistd.h>

static volatile sig_atomic_t stop;

static void on_term(int sig)
{
	(void)sig;
	stop = 1;
}

static volatile int request_size = 200;

static __attribute__((noinline)) unsigned handle(unsigned x)
{
	for (int i = 0; i < request_size; i++) {
		if (x & 1)
			x = 3 * x + 1;
		else
			x = x / 2 + 7;
	}
	return x;
}

static void *serve(void *arg)
{
	unsigned long served = 0;
	unsigned x = (unsigned)(unsigned long)arg;
	while (!stop) {
		x = handle(x);
		served++;
		usleep(50);
	}
	return (void *)served;
}

int main(int argc, char **argv)
{
	if (argc != 2)
		return 2;
	signal(SIGTERM, on_term);
	pthread_t t;
	pthread_create(&t, NULL, serve, (void *)7ul);
	usleep(100000);
	FILE *f = fopen(argv[1], "w");
	if (!f)
		return 1;
	fprintf(f, "%d\n", (int)getpid());
	fclose(f);
	unsigned long mine = (unsigned long)serve((void *)3ul);
	void *other;
	pthread_join(t, &other);
	printf("served %lu\n", mine + (unsigned long)other);
	return 0;
}
