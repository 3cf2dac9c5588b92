/* SPDX-License-Identifier: MIT */
/*
 * rt_vfork.c — a vfork child records into streams of its own, and its parent
 * resumes exactly where it was.
 *
 * A vfork child runs on its parent's memory: the same TLS block (cursor,
 * limit, rt_self), the same globals, the same stack below the caller's
 * frame, while the parent's other threads keep running.  libwpprt
 * therefore defines `vfork` itself (it interposes libc's, as pthread_create
 * is interposed):
 *
 *   parent, before the syscall   block every signal; save the thread's
 *                                runtime state (a small stack per thread,
 *                                nested vforks included);
 *   child, after the syscall     become a new process as a fork child does
 *                                (pid, ppid, parent tid, FORKED; the
 *                                transport's process entry and modules; fresh
 *                                streams at seq 1 with buffers of its own),
 *                                through a process identity and shm client of
 *                                its own (TLS overrides: rt_proc and the
 *                                process's client stay the parent's, for its
 *                                other threads), then restore the mask;
 *   parent, once the child has   release the child's private buffers, put
 *   exec'd or exited             every saved byte back, restore the mask.
 *
 * The child publishes its batches itself (instrumented code calls
 * __wpp_flush_all before exec*, _exit and abort), attributed to its own pid
 * and tid; the parent's open buffer, cursor and sequence numbers are never
 * touched.  Signals stay blocked around both switches so that no handler
 * ever runs on a half-switched state (the parent's pending signals are
 * delivered once its state is back).
 *
 * The syscall wrapper is assembly because a vfork child returns from it and
 * goes on to overwrite the stack the wrapper's caller left below its frame:
 * the parent must not need anything from that stack after the syscall, so
 * the return address travels in a register (as in libc).  posix_spawn and
 * other clone(CLONE_VM|CLONE_VFORK) users do not come here; their children
 * run only libc code until exec, and record nothing; a clone(CLONE_VM|
 * CLONE_VFORK) that runs a function of the program's goes through the same
 * three steps (rt_clone.c).  The steps are C; only the vfork wrapper is
 * x86-64 assembly (elsewhere libc's vfork runs, uninterposed).
 */
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "kmod-free/shm_producer.h"
#include "runtime/rt_internal.h"
#include "runtime/rt_position.h"
#include "wpp/wpp_file.h"

/* vforks nested inside a vfork child (undefined behaviour in POSIX, but
 * cheap to allow) up to this depth.  A deeper child, or one whose parent
 * could not map a save area, is left alone: its records go on in the
 * parent's stream, as if the parent had made them (nothing is lost or
 * corrupted, only misattributed). */
#define RT_VFORK_DEPTH 4
#define RT_STR2(x)     #x
#define RT_STR(x)      RT_STR2(x)

/* What the parent gets back, and the child's own identity: the child must
 * not write rt_proc or the process's shm client, which the parent's other
 * threads keep using meanwhile. */
struct rt_vfork_save {
	struct rt_thread self;
	uint64_t *cursor, *limit;
	struct wpp_thread_position position;
	struct rt_process *proc_override;
	struct wpp_shm_client *shm_override;
	sigset_t mask;
	struct rt_process child_proc;
	struct wpp_shm_client child_shm;
};

/* Mapped at the thread's first vfork (kept out of TLS: a libwpprt loaded by
 * dlopen gets its TLS from the small static surplus), unmapped when the
 * thread exits. */
static __thread struct rt_vfork_save *rt_vfork_saves RT_TLS;
static __thread int rt_vfork_depth RT_TLS;
#define RT_VFORK_SAVES_BYTES (sizeof(struct rt_vfork_save) * RT_VFORK_DEPTH)

void rt_vfork_thread_exit(void)
{
	if (rt_vfork_saves && !rt_vfork_depth)
		munmap(rt_vfork_saves, RT_VFORK_SAVES_BYTES);
	rt_vfork_saves = NULL;
}

/* The save slot of depth d, or NULL: the child is left alone. */
static struct rt_vfork_save *slot_at(int d)
{
	return d < RT_VFORK_DEPTH && rt_vfork_saves ? &rt_vfork_saves[d] : NULL;
}

/* Same, mapping the slots first if need be (the parent, before vfork). */
static struct rt_vfork_save *save_slot(int d)
{
	if (d >= RT_VFORK_DEPTH)
		return NULL;
	if (!rt_vfork_saves) {
		void *m = mmap(NULL, RT_VFORK_SAVES_BYTES, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (m == MAP_FAILED)
			return NULL;
		rt_vfork_saves = m;
	}
	return &rt_vfork_saves[d];
}

/* Parent, before the syscall.  Returns nothing: the state is in TLS. */
void rt_vfork_prepare(void)
{
	struct rt_vfork_save *s = save_slot(rt_vfork_depth);
	sigset_t all;

	rt_vfork_depth++;
	if (!s)
		return;
	sigfillset(&all);
	syscall(SYS_rt_sigprocmask, SIG_BLOCK, &all, &s->mask, _NSIG / 8);
	memcpy(&s->self, &rt_self, sizeof(rt_self));
	s->cursor = __wpp_cursor;
	s->limit = __wpp_limit;
	rt_position_save(&s->position);
	s->proc_override = rt_proc_override;
	s->shm_override = rt_shm_client_use(NULL);
	rt_shm_client_use(s->shm_override);
}

/* Child, after the syscall: a new process with fresh streams. */
void rt_vfork_child(void)
{
	struct rt_thread *t = &rt_self;
	uint32_t parent_tid = t->tid ? t->tid : rt_process_self()->pid;
	struct rt_vfork_save *s = slot_at(rt_vfork_depth - 1);

	if (!s)
		return;
	rt_process_identify(&s->child_proc, parent_tid, WPP_PROC_FORKED);
	rt_proc_override = &s->child_proc;
	rt_shm_client_copy(&s->child_shm);
	rt_shm_client_use(&s->child_shm);
	if (rt_init_done())
		rt_transport->fork_child();
	rt_thread_restart(t, 1);
	syscall(SYS_rt_sigprocmask, SIG_SETMASK, &s->mask, NULL, _NSIG / 8);
}

/* Parent, once the child is gone (exec or exit) or the syscall failed. */
void rt_vfork_parent(void)
{
	struct rt_vfork_save *s = slot_at(--rt_vfork_depth);

	if (!s)
		return;
	/* Buffers the child mapped live in our address space now. */
	for (int l = 0; l < RT_LEVELS; l++)
		if (rt_self.private_buf[l] && rt_self.private_buf[l] != s->self.private_buf[l])
			munmap(rt_self.private_buf[l], wpp_shm_slot_bytes(rt_buffer_words));
	memcpy(&rt_self, &s->self, sizeof(rt_self));
	__wpp_cursor = s->cursor;
	__wpp_limit = s->limit;
	rt_position_restore(&s->position);
	rt_proc_override = s->proc_override;
	rt_shm_client_use(s->shm_override);
	syscall(SYS_rt_sigprocmask, SIG_SETMASK, &s->mask, NULL, _NSIG / 8);
}

#if defined(__x86_64__)
/* pid_t vfork(void).  The return address is popped into %rdi (vfork takes
 * no argument) before the syscall and pushed back after it, in the parent
 * and in the child alike; the helpers are called with the stack aligned. */
__asm__(".text\n"
	"\t.globl vfork\n"
	"\t.type vfork, @function\n"
	"vfork:\n"
	"\tsub $8, %rsp\n"
	"\tcall rt_vfork_prepare\n"
	"\tadd $8, %rsp\n"
	"\tpop %rdi\n"
	"\tmov $" RT_STR(SYS_vfork) ", %eax\n"
				    "\tsyscall\n"
				    "\tpush %rdi\n"
				    "\ttest %rax, %rax\n"
				    "\tjz 1f\n"
				    "\tpush %rax\n"
				    "\tcall rt_vfork_parent\n"
				    "\tpop %rax\n"
				    "\tcmp $-4095, %rax\n"
				    "\tjae 2f\n"
				    "\tret\n"
				    "1:\n"
				    "\tsub $8, %rsp\n"
				    "\tcall rt_vfork_child\n"
				    "\tadd $8, %rsp\n"
				    "\txor %eax, %eax\n"
				    "\tret\n"
				    "2:\n"
				    "\tneg %eax\n"
				    "\tmov %eax, %edi\n"
				    "\tjmp rt_vfork_failed\n"
				    "\t.size vfork, .-vfork\n");

/* The syscall failed: errno, -1 (a tail call from the wrapper). */
RT_HIDDEN long rt_vfork_failed(int err)
{
	errno = err;
	return -1;
}

#endif
