/* SPDX-License-Identifier: MIT */
/*
 * shm_futex.h — futex wait/wake on words that live in the shared region.
 * Shared (not FUTEX_PRIVATE) because waiter and waker are different
 * processes.  Callers always re-check their condition: a wait can return
 * early (signal, spurious wake, timeout).
 */
#ifndef WPP_SHM_FUTEX_H
#define WPP_SHM_FUTEX_H

#include <errno.h>
#include <linux/futex.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* Sleep while *word == expected, at most timeout_ms.  0 when woken (or
 * interrupted, or the word had already changed), -ETIMEDOUT on timeout. */
static inline int wpp_futex_wait(uint32_t *word, uint32_t expected, long timeout_ms)
{
	struct timespec ts = {timeout_ms / 1000, (timeout_ms % 1000) * 1000000L};
	if (syscall(SYS_futex, word, FUTEX_WAIT, expected, &ts, NULL, 0) < 0 && errno == ETIMEDOUT)
		return -ETIMEDOUT;
	return 0;
}

static inline void wpp_futex_wake_all(uint32_t *word)
{
	syscall(SYS_futex, word, FUTEX_WAKE, INT32_MAX, NULL, NULL, 0);
}

#endif
