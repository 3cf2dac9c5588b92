/* SPDX-License-Identifier: MIT */
/*
 * procinfo.h — what the collector learns about a process from /proc, for
 * processes it meets mid-run (-p, -a) and for TU registrations.  Every
 * reader tolerates the process vanishing: it then reports "unknown".
 */
#ifndef WPP_BC_PROCINFO_H
#define WPP_BC_PROCINFO_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* readlink /proc/PID/exe into buf (NUL-terminated); 0 or -errno. */
int proc_exe(pid_t pid, char *buf, size_t size);
/* /proc/PID/cmdline, NUL-separated; returns bytes read (0 if gone). */
size_t proc_cmdline(pid_t pid, char *buf, size_t size);
/* Parent pid from /proc/PID/stat; 0 if unknown. */
pid_t proc_ppid(pid_t pid);
/* Start time in clock ticks since boot (field 22 of /proc/PID/stat; with
 * the pid, it names a process even after the pid is reused), 0 if it
 * cannot be read. */
uint64_t proc_start_time(pid_t pid);
/* The state letter of /proc/PID/stat (R, S, D, T, t, Z, X...), 0 if the
 * process is gone (or its stat cannot be read). */
char proc_state(pid_t pid);
/* Calls fn for every thread id in /proc/PID/task; number visited or -errno. */
int proc_each_thread(pid_t pid, void (*fn)(pid_t tid, void *arg), void *arg);
/* Calls fn once for every distinct file mapped executable by PID. */
int proc_each_exec_mapping(pid_t pid, void (*fn)(const char *path, void *arg), void *arg);
/* The file mapping that contains addr: its path and load bias (start of the
 * file's offset-0 mapping minus the lowest PT_LOAD page, as found in the
 * maps; for ET_EXEC objects the caller sees bias 0).  0 or -ENOENT. */
int proc_addr_object(pid_t pid, uint64_t addr, char *path, size_t size, uint64_t *map_base);

/* Calls fn for every file mapping at file offset 0 (an object's first
 * mapping): its path and start address.  0 or -errno. */
int proc_each_object_base(pid_t pid, void (*fn)(const char *path, uint64_t map_base, void *arg),
			  void *arg);

#endif
