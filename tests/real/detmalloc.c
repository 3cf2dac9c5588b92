/* SPDX-License-Identifier: MIT */
/*
 * detmalloc — an LD_PRELOAD allocator whose addresses depend only on the
 * sequence of allocation calls, never on the binary's layout or on ASLR.
 *
 * Why: the differential oracle compares traces of two different binaries
 * (wpp and wpp-blocks) on the same input.  Lua's code generator hashes a
 * table by its address (lparser's constant table uses itself as the key
 * standing for nil), so where glibc's heap starts changes hash-chain shapes
 * and therefore the blocks executed.  Serving every small allocation from an
 * arena mapped at a fixed address, with first-in-last-out free lists per size
 * class, makes the heap addresses a function of the call sequence alone.
 * Large blocks (> 64 KiB) are mmap'd: they hold arrays and buffers, whose
 * addresses programs do not hash.
 *
 * What runs before main differs between builds (clang's profile runtime
 * copies LLVM_PROFILE_FILE, libwpprt registers its translation units), so
 * allocations made before main come from a separate startup arena: main
 * begins with the same heap whatever the runtime did (main is found by
 * interposing __libc_start_main).
 *
 * Not a general-purpose allocator: no trimming, a coarse spinlock, 64 GiB
 * of reserved (not committed) address space.  Used by tests/real/run-oracles
 * (run-workload --detmalloc) for every build alike, never by the benchmark.
 */
#include <dlfcn.h>
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* 16 TiB and up: clear of PIE, brk and mmap bases */
#define ARENA_BASE(phase) ((uintptr_t)0x100000000000ull + (uintptr_t)(phase) * ARENA_SIZE)
#define ARENA_SIZE ((size_t)64 << 30)
#define HEADER 16u
#define SMALL_STEP 16u
#define SMALL_MAX 1024u
#define LARGE_MAX (64u << 10)
#define NCLASSES (SMALL_MAX / SMALL_STEP + 6) /* 16..1024 by 16, then 2K..64K */

struct header {
	uint64_t capacity; /* usable bytes after the header */
	uint64_t map_start; /* 0 = arena block; else start of its own mapping */
};

enum phase { STARTUP, MAIN, NPHASES };

struct arena {
	char *next, *end;
	void *free_lists[NCLASSES];
};

static struct arena arenas[NPHASES];
static enum phase current_phase = STARTUP;
static volatile int lock_word;

static void lock(void)
{
	while (__atomic_exchange_n(&lock_word, 1, __ATOMIC_ACQUIRE))
		while (__atomic_load_n(&lock_word, __ATOMIC_RELAXED))
			__builtin_ia32_pause();
}
static void unlock(void) { __atomic_store_n(&lock_word, 0, __ATOMIC_RELEASE); }

static int size_class(size_t n, size_t *capacity)
{
	if (n <= SMALL_MAX) {
		size_t c = n ? (n + SMALL_STEP - 1) / SMALL_STEP : 1;
		*capacity = c * SMALL_STEP;
		return (int)c - 1;
	}
	size_t cap = 2048;
	int c = SMALL_MAX / SMALL_STEP;
	while (cap < n) {
		cap <<= 1;
		c++;
	}
	*capacity = cap;
	return c;
}

static void arena_init(struct arena *a, enum phase phase)
{
	void *want = (void *)ARENA_BASE(phase);
	void *p = mmap(want, ARENA_SIZE, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED_NOREPLACE, -1, 0);
	if (p != want) {
		static const char msg[] = "detmalloc: cannot map the arena at its fixed address\n";
		(void)!write(2, msg, sizeof msg - 1);
		_exit(127);
	}
	a->next = p;
	a->end = a->next + ARENA_SIZE;
}

/* Caller holds the lock.  align is a power of two >= 16. */
static void *arena_alloc(size_t n, size_t align)
{
	struct arena *a = &arenas[current_phase];
	size_t capacity;
	int c = size_class(n, &capacity);
	if (align <= HEADER && a->free_lists[c]) {
		void *p = a->free_lists[c];
		a->free_lists[c] = *(void **)p;
		return p;
	}
	if (!a->next)
		arena_init(a, current_phase);
	uintptr_t user = ((uintptr_t)a->next + HEADER + align - 1) & ~(uintptr_t)(align - 1);
	if (user + capacity > (uintptr_t)a->end)
		return NULL;
	a->next = (char *)(user + capacity);
	struct header *h = (struct header *)(user - HEADER);
	h->capacity = capacity;
	h->map_start = 0;
	return (void *)user;
}

static void *big_alloc(size_t n, size_t align)
{
	size_t page = 4096, len = (n + HEADER + align + page - 1) & ~(page - 1);
	char *m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED)
		return NULL;
	uintptr_t user = ((uintptr_t)m + HEADER + align - 1) & ~(uintptr_t)(align - 1);
	struct header *h = (struct header *)(user - HEADER);
	h->capacity = (uintptr_t)m + len - user;
	h->map_start = (uintptr_t)m;
	return (void *)user;
}

static void *alloc_aligned(size_t n, size_t align)
{
	if (align < HEADER)
		align = HEADER;
	if (n > LARGE_MAX || align > 4096)
		return big_alloc(n, align);
	lock();
	void *p = arena_alloc(n, align);
	unlock();
	if (!p)
		errno = ENOMEM;
	return p;
}

void *malloc(size_t n) { return alloc_aligned(n, HEADER); }

void free(void *p)
{
	if (!p)
		return;
	struct header *h = (struct header *)((char *)p - HEADER);
	if (h->map_start) {
		munmap((void *)h->map_start, (uintptr_t)p - h->map_start + h->capacity);
		return;
	}
	/* back to the arena it came from, whatever the phase is now */
	struct arena *a = &arenas[(uintptr_t)p >= ARENA_BASE(MAIN) ? MAIN : STARTUP];
	size_t capacity;
	int c = size_class(h->capacity, &capacity);
	lock();
	*(void **)p = a->free_lists[c];
	a->free_lists[c] = p;
	unlock();
}

void *calloc(size_t a, size_t b)
{
	size_t n;
	if (__builtin_mul_overflow(a, b, &n)) {
		errno = ENOMEM;
		return NULL;
	}
	void *p = malloc(n);
	if (p)
		memset(p, 0, n);
	return p;
}

size_t malloc_usable_size(void *p)
{
	return p ? ((struct header *)((char *)p - HEADER))->capacity : 0;
}

void *realloc(void *p, size_t n)
{
	if (!p)
		return malloc(n);
	if (n == 0) {
		free(p);
		return NULL;
	}
	size_t have = malloc_usable_size(p);
	if (n <= have)
		return p;
	void *q = malloc(n);
	if (q) {
		memcpy(q, p, have < n ? have : n);
		free(p);
	}
	return q;
}

static int power_of_two(size_t a) { return a && !(a & (a - 1)); }

int posix_memalign(void **out, size_t align, size_t n)
{
	if (!power_of_two(align) || align % sizeof(void *))
		return EINVAL;
	void *p = alloc_aligned(n, align);
	if (!p)
		return ENOMEM;
	*out = p;
	return 0;
}

void *memalign(size_t align, size_t n)
{
	void *p = NULL;
	int err = posix_memalign(&p, align < sizeof(void *) ? sizeof(void *) : align, n);
	if (err)
		errno = err;
	return p;
}

void *aligned_alloc(size_t align, size_t n) { return memalign(align, n); }
void *valloc(size_t n) { return memalign(4096, n); }
void *pvalloc(size_t n) { return memalign(4096, (n + 4095) & ~(size_t)4095); }

typedef int main_fn(int, char **, char **);
typedef int start_main_fn(main_fn *, int, char **, void (*)(void), void (*)(void), void (*)(void), void *);
static main_fn *real_main;

static int main_in_main_phase(int argc, char **argv, char **envp)
{
	current_phase = MAIN;
	return real_main(argc, argv, envp);
}

int __libc_start_main(main_fn *main, int argc, char **argv, void (*init)(void), void (*fini)(void),
		      void (*rtld_fini)(void), void *stack_end)
{
	start_main_fn *next = (start_main_fn *)dlsym(RTLD_NEXT, "__libc_start_main");
	if (!next) {
		static const char msg[] = "detmalloc: no __libc_start_main to wrap\n";
		(void)!write(2, msg, sizeof msg - 1);
		_exit(127);
	}
	real_main = main;
	return next(main_in_main_phase, argc, argv, init, fini, rtld_fini, stack_end);
}
