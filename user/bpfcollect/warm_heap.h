/* SPDX-License-Identifier: MIT */
/*
 * warm_heap.h — room on the heap, faulted in ahead in one call, for a
 * burst of large allocations we do not make ourselves.
 *
 * Why: loading the BPF object, libbpf 1.1 reads the kernel's BTF
 * (/sys/kernel/btf/vmlinux, 5.4 MB here) into one fresh malloc'd buffer,
 * copies it into a second and indexes its types: each buffer a fresh
 * mapping that takes a 4 KB page fault per page touched (~2 700 faults),
 * and page faults are dear on virtual machines (on the project's VM
 * they were a fifth of `record`'s start-up CPU).  libbpf takes no buffer
 * from us, so the room is made where its malloc will look: glibc serves
 * a request below its mmap threshold from the heap's free top, and raises
 * that threshold to the size of a mapped chunk freed (mallopt(3), "dynamic
 * mmap threshold").  warm_heap_prepare frees a mapped chunk of `bytes` to
 * raise it, then grows the heap by `bytes`, asks for huge pages there and
 * faults the whole range in with one madvise(MADV_POPULATE_WRITE) (Linux
 * 5.14+), and frees it back to the heap's top, where the next large
 * allocations of this thread find it.
 *
 * Best effort only: with another allocator, an older kernel, or a heap that
 * cannot grow, it does nothing and the allocations fault as before.  The
 * room stays in the heap for the collector's later allocations.
 */
#ifndef WPP_BC_WARM_HEAP_H
#define WPP_BC_WARM_HEAP_H

#include <stddef.h>

/* Make `bytes` of pre-faulted room at the top of the calling thread's heap.
 * 0 if it is there, or -errno (nothing changed that matters): -EINVAL
 * under two pages, -E2BIG over 32 MiB (glibc's highest dynamic mmap
 * threshold), -ENOMEM, or madvise's error (-EINVAL before Linux 5.14). */
int warm_heap_prepare(size_t bytes);

#endif
