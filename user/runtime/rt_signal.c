/* SPDX-License-Identifier: MIT */
/*
 * rt_signal.c — signal handlers record into their own buffers.
 *
 * sigaction() and signal() are interposed: a program's handler is installed
 * behind a trampoline that, with every signal blocked, moves the thread's
 * cursor to the buffer of the next nesting level, then restores the mask the
 * program asked for and calls its handler.  On return it publishes the
 * handler's batch (flagged WPP_BATCH_SIGNAL, parent = the interrupted batch
 * and the words it had published) and switches back.  The interrupted code
 * keeps its cursor in a register and may have been anywhere in a record; it
 * continues after we return, at the cursor it had, in memory nobody else
 * touched.
 *
 * A handler that leaves by longjmp never reaches the second half.  Its level
 * is popped later (rt_unwind) as soon as the stack pointer shows its frame is
 * gone, and only inside a flush: the code running there holds the level's
 * cursor in a register, so it must be the one to ask.  A signal that
 * interrupts such code nests one level deeper and marks the new level
 * (parent_abandoned); while it runs, and once it returns, the limit makes
 * every record flush until the pop is done (rt_buffers.c).  Records made
 * after the longjmp stay in the handler's batch, which the decoder splices
 * at the parent position, so the order is preserved.  Nesting deeper than
 * RT_LEVELS-1 is counted as lost.
 */
#include <dlfcn.h>
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <ucontext.h>

#include "runtime/rt_internal.h"

typedef int (*sigaction_fn)(int, const struct sigaction *, struct sigaction *);

struct user_handler {
	struct sigaction act; /* what the program installed */
	int ours;	      /* the kernel has our trampoline for it */
};

static struct user_handler handlers[_NSIG];
static sigaction_fn real_sigaction;

static sigaction_fn get_real(void)
{
	if (!real_sigaction)
		real_sigaction = (sigaction_fn)dlsym(RTLD_NEXT, "sigaction");
	return real_sigaction;
}

__attribute__((constructor(102))) static void resolve_early(void)
{
	get_real();
}

static int signal_enter(struct rt_thread *t, uintptr_t interrupted_sp, uintptr_t frame)
{
	struct rt_level *lv;
	stack_t ss;
	int level;

	if (t->state == RT_T_NEW)
		rt_thread_start(t);
	if (t->state != RT_T_LIVE)
		return -2;
	if (t->overflow) {
		t->overflow++;
		return -1;
	}
	level = t->depth + 1;
	if (level >= RT_LEVELS) {
		t->overflow = 1;
		__wpp_cursor = t->discard;
		__wpp_limit = t->discard + RT_DISCARD_WORDS;
		return -1;
	}
	lv = &t->lv[level];
	lv->saved_cursor = __wpp_cursor;
	lv->saved_limit = __wpp_limit;
	lv->parent_off = rt_level_offset(t, level - 1, __wpp_cursor);
	lv->parent_abandoned = level > 1 && rt_level_abandoned(&t->lv[level - 1], interrupted_sp);
	lv->hdr = NULL;
	lv->words = NULL;
	lv->seq = 0;
	lv->pinned = 0;
	memset(lv->scratch, 0, sizeof(lv->scratch));
	lv->entry_sp = frame;
	lv->alt_lo = lv->alt_hi = 0;
	if (sigaltstack(NULL, &ss) == 0 && (ss.ss_flags & SS_ONSTACK)) {
		lv->alt_lo = (uintptr_t)ss.ss_sp;
		lv->alt_hi = lv->alt_lo + ss.ss_size;
	}
	__wpp_cursor = __wpp_limit = lv->scratch;
	t->depth = level;
	return level;
}

static void signal_leave(struct rt_thread *t, int level, uint64_t *cursor, uint64_t *limit)
{
	struct rt_level *lv;

	if (level == -2)
		return;
	if (level == -1) {
		uint64_t *c = __wpp_cursor;
		if (c >= t->discard && c <= t->discard + RT_DISCARD_WORDS + WPP_SLACK_WORDS)
			rt_transport->lost(t, (uint64_t)(c - t->discard));
		t->overflow--;
		__wpp_cursor = cursor;
		__wpp_limit = limit;
		return;
	}
	/* Handlers nested in ours that longjmp'd back into ours are done. */
	while (t->depth > level) {
		struct rt_level *up = &t->lv[t->depth];
		rt_level_finish(t, t->depth, 0);
		__wpp_cursor = up->saved_cursor;
		__wpp_limit = up->saved_limit;
		t->depth--;
	}
	if (t->depth != level)
		return; /* already popped */
	lv = &t->lv[level];
	rt_level_finish(t, level, 0);
	__wpp_cursor = lv->saved_cursor;
	/* An abandoned interrupted level is popped by its next record. */
	__wpp_limit = lv->parent_abandoned ? lv->saved_cursor : lv->saved_limit;
	t->depth = level - 1;
}

static void trampoline(int sig, siginfo_t *si, void *ucv)
{
	struct rt_thread *t = &rt_self;
	ucontext_t *uc = ucv;
	int saved_errno = errno;
	uint64_t *cursor = __wpp_cursor, *limit = __wpp_limit;
	struct sigaction h = handlers[sig].act;
	sigset_t mask, all;
	int level;

	/* Every signal is blocked here (sa_mask is full). */
	level = signal_enter(t, (uintptr_t)uc->uc_mcontext.gregs[REG_RSP],
			     (uintptr_t)__builtin_frame_address(0));
	mask = uc->uc_sigmask;
	sigorset(&mask, &mask, &h.sa_mask);
	if (!(h.sa_flags & SA_NODEFER))
		sigaddset(&mask, sig);
	pthread_sigmask(SIG_SETMASK, &mask, NULL);
	errno = saved_errno;
	if (h.sa_flags & SA_SIGINFO)
		h.sa_sigaction(sig, si, ucv);
	else if (h.sa_handler != SIG_DFL && h.sa_handler != SIG_IGN)
		h.sa_handler(sig);
	saved_errno = errno;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, NULL);
	signal_leave(t, level, cursor, limit);
	errno = saved_errno;
}

static int wants_trampoline(int sig, const struct sigaction *act)
{
	if (!act || sig <= 0 || sig >= _NSIG || sig == SIGKILL || sig == SIGSTOP)
		return 0;
	if (act->sa_flags & SA_SIGINFO)
		return act->sa_sigaction != NULL;
	return act->sa_handler != SIG_DFL && act->sa_handler != SIG_IGN;
}

__attribute__((visibility("default"))) int sigaction(int sig, const struct sigaction *act,
						     struct sigaction *oact)
{
	sigaction_fn real = get_real();
	struct sigaction kact, kold, prev_user;
	int prev_ours, rc;

	if (!real) {
		errno = ENOSYS;
		return -1;
	}
	if (sig <= 0 || sig >= _NSIG)
		return real(sig, act, oact);
	prev_user = handlers[sig].act;
	prev_ours = handlers[sig].ours;
	if (wants_trampoline(sig, act)) {
		/* Publish the new handler before the kernel can deliver to it. */
		handlers[sig].act = *act;
		__atomic_store_n(&handlers[sig].ours, 1, __ATOMIC_RELEASE);
		kact = *act;
		kact.sa_sigaction = trampoline;
		kact.sa_flags = act->sa_flags | SA_SIGINFO;
		sigfillset(&kact.sa_mask);
		rc = real(sig, &kact, &kold);
		if (rc != 0) {
			handlers[sig].act = prev_user;
			handlers[sig].ours = prev_ours;
		}
	} else {
		rc = real(sig, act, &kold);
		if (rc == 0 && act)
			handlers[sig].ours = 0;
	}
	if (rc == 0 && oact) {
		if ((kold.sa_flags & SA_SIGINFO) && kold.sa_sigaction == trampoline && prev_ours)
			*oact = prev_user;
		else
			*oact = kold;
	}
	return rc;
}

__attribute__((visibility("default"))) sighandler_t signal(int sig, sighandler_t handler)
{
	struct sigaction act, old;

	/* glibc's signal() has BSD semantics: restartable, not reset. */
	memset(&act, 0, sizeof(act));
	act.sa_handler = handler;
	act.sa_flags = SA_RESTART;
	sigemptyset(&act.sa_mask);
	if (sigaction(sig, &act, &old) < 0)
		return SIG_ERR;
	return old.sa_handler;
}
