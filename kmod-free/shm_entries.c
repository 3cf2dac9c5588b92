/* SPDX-License-Identifier: MIT */
/* shm_entries.c — see shm_entries.h. */
#include "kmod-free/shm_entries.h"

#include <errno.h>
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "kmod-free/shm_proto.h"

int wpp_shm_pid_gone(uint32_t pid)
{
	return kill((pid_t)pid, 0) < 0 && errno == ESRCH;
}

int wpp_shm_tid_gone(uint32_t pid, uint32_t tid)
{
	return syscall(SYS_tgkill, (pid_t)pid, (pid_t)tid, 0) < 0 && errno == ESRCH;
}

int wpp_shm_claim_abandoned(uint32_t state)
{
	return (state & 0xf) == WPP_SHM_CLAIMED && wpp_shm_pid_gone(state >> 4);
}
