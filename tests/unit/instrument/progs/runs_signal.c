/* A counting loop interrupted by a signal whose handler loops too: scan()
 * reads across pages that are PROT_NONE, so the load faults at a fixed
 * iteration; the SIGSEGV handler runs a repeating loop of its own, makes
 * the page readable and returns, and the load runs again.  Deterministic,
 * so the blocks-mode trace is an exact oracle. */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static unsigned char *pages;
static size_t pg;
static volatile unsigned sink, handler_sink;
static volatile int faults;

static void on_segv(int sig, siginfo_t *si, void *uc)
{
	(void)sig, (void)uc;
	unsigned s = 0;
	for (unsigned i = 0; i < 300; i++) {
		s += i * 3u;
		handler_sink = s;
	}
	unsigned char *page = (unsigned char *)((size_t)si->si_addr & ~(pg - 1));
	faults++;
	if (page < pages || page >= pages + 4 * pg || mprotect(page, pg, PROT_READ))
		_exit(3);
}

__attribute__((noinline)) static unsigned scan(const unsigned char *p, size_t n)
{
	unsigned s = 0;
	for (size_t i = 0; i < n; i++) {
		s += p[i] == 2 ? 5u : p[i];
		sink = s;
	}
	return s;
}

int main(void)
{
	pg = (size_t)sysconf(_SC_PAGESIZE);
	pages = mmap(NULL, 4 * pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (pages == MAP_FAILED)
		return 2;
	memset(pages, 1, 4 * pg);
	memset(pages + pg, 2, pg); /* another path from here */
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = on_segv;
	sa.sa_flags = SA_SIGINFO;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGSEGV, &sa, NULL);
	unsigned total = 0;
	for (int round = 0; round < 2; round++) {
		mprotect(pages + pg, 3 * pg, PROT_NONE);
		total += scan(pages + 100 + (size_t)round * 7, 3 * pg);
	}
	printf("%u %d\n", total, faults);
	return 0;
}
