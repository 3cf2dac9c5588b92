/* SPDX-License-Identifier: MIT */
/* detach_take.c — a live thread's unpublished words at detach, and the
 * mark a later attach honours (see detach_take.h). */
#include "bpfcollect/detach_take.h"

#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "kmod-free/shm_proto.h"

/* The runtime's switch to a new buffer is a few instructions (the buffer
 * is mapped once per thread): a thread found inside it is looked at again
 * this many times, a millisecond apart. */
#define TRIES 20

#define MARK_OFF offsetof(struct wpp_batch_hdr, reserved1)

static int read_at(int fd, void *buf, size_t n, uint64_t addr)
{
	ssize_t got = pread(fd, buf, n, (off_t)addr);
	if (got == (ssize_t)n)
		return 0;
	return got < 0 && errno != EIO && errno != EFAULT ? -errno : -ESRCH;
}

static int in_words(uint64_t at, uint64_t base, uint64_t n)
{
	return at >= base && at <= base + n * 8 && (at - base) % 8 == 0;
}

static uint64_t mark_word(uint64_t seq, uint32_t nwords)
{
	return (uint64_t)(uint32_t)seq << 32 | nwords;
}

/* Level 0 of the thread: its open buffer, seq and capacity. */
struct level0 {
	uint64_t words, seq;
	uint32_t cap;
};

static int read_level0(int fd, const struct wpp_bpf_position *p, struct level0 *l)
{
	uint64_t lv = p->thread_addr + p->off_levels;
	int err;
	l->cap = 0;
	if ((err = read_at(fd, &l->words, 8, lv + p->off_lv_words)) ||
	    (err = read_at(fd, &l->seq, 8, lv + p->off_lv_seq)) ||
	    (err = read_at(fd, &l->cap, 4, lv + p->off_lv_cap)))
		return err;
	/* The header sits before the words; a hostile size is refused. */
	if (l->words < sizeof(struct wpp_batch_hdr) || l->cap > (1u << 28))
		l->words = 0;
	return 0;
}

int detach_take_mark(int fd, const struct wpp_bpf_position *p, uint32_t tid,
		     struct detach_taken *out)
{
	struct level0 l;
	uint64_t mark;
	if (read_level0(fd, p, &l) || !l.words || !l.seq ||
	    read_at(fd, &mark, 8, l.words - sizeof(struct wpp_batch_hdr) + MARK_OFF))
		return 0;
	uint32_t n = (uint32_t)mark;
	if ((mark >> 32) != (uint32_t)l.seq || !n || n > (uint64_t)l.cap + p->slack_words)
		return 0;
	*out = (struct detach_taken){p->pid, tid, l.seq, n};
	return 1;
}

/* Where level 0 ends: the thread's cursor, or, inside a signal handler
 * (or entering one: the cursor already in level 1's scratch), the cursor
 * saved when the handler was entered.  0, or -EAGAIN for an older runtime
 * that does not say. */
static int level0_end(int fd, const struct wpp_bpf_position *p, int32_t depth, uint64_t *end)
{
	uint64_t up = p->thread_addr + p->off_levels + p->level_size;
	if (p->nlevels < 2 ||
	    (depth == 0 && !in_words(*end, up + p->off_lv_scratch, p->scratch_words)))
		return 0;
	if (!p->off_lv_saved_cursor)
		return -EAGAIN;
	return read_at(fd, end, 8, up + p->off_lv_saved_cursor);
}

/* One look: 1 taken, 0 nothing, -EAGAIN look again, -errno. */
static int take_once(int fd, const struct wpp_bpf_position *p, uint32_t tid,
		     struct detach_taken *out, uint64_t **words)
{
	struct level0 l, again;
	uint64_t end;
	int32_t depth;
	int err;

	if ((err = read_at(fd, &end, 8, p->cursor_addr)) ||
	    (err = read_at(fd, &depth, 4, p->thread_addr + p->off_depth)))
		return err;
	if (depth < 0 || (uint32_t)depth >= p->nlevels)
		return -EAGAIN;
	if ((err = level0_end(fd, p, depth, &end)) || (err = read_level0(fd, p, &l)))
		return err;
	if (l.words && l.seq && in_words(end, l.words, (uint64_t)l.cap + p->slack_words)) {
		uint32_t n = (uint32_t)((end - l.words) / 8);
		if (!n)
			return 0;
		uint64_t *w = malloc((size_t)n * 8);
		if (!w)
			return -ENOMEM;
		/* Words below the cursor are written once; the buffer is
		 * reused only after a publish, which renumbers the level. */
		if ((err = read_at(fd, w, (size_t)n * 8, l.words)) ||
		    (err = read_level0(fd, p, &again)) || again.words != l.words ||
		    again.seq != l.seq) {
			free(w);
			return err ? err : -EAGAIN;
		}
		uint64_t mark = mark_word(l.seq, n);
		/* Without the mark a later attach would record these again:
		 * say so by failing rather than hand on words twice. */
		if (pwrite(fd, &mark, 8,
			   (off_t)(l.words - sizeof(struct wpp_batch_hdr) + MARK_OFF)) != 8) {
			err = errno ? -errno : -EIO;
			free(w);
			return err;
		}
		*out = (struct detach_taken){p->pid, tid, l.seq, n};
		*words = w;
		return 1;
	}
	uint64_t scratch = p->thread_addr + p->off_levels + p->off_lv_scratch;
	if (in_words(end, scratch, p->scratch_words))
		return end == scratch ? 0 : -EAGAIN; /* a record on its way into a new buffer */
	if (in_words(end, p->global_scratch, p->scratch_words))
		return end == p->global_scratch ? 0 : -EAGAIN;
	if (in_words(end, p->thread_addr + p->off_discard, p->discard_words))
		return 0; /* not recording */
	return -EAGAIN;	  /* inside the buffer switch */
}

int detach_take_read(const struct wpp_bpf_position *p, uint32_t tid, struct detach_taken *out,
		     uint64_t **words)
{
	char path[64];
	int fd, err = -EAGAIN;

	/* A thread that ended since the probes went leaves its descriptor
	 * in a TLS block a new thread may have taken: its words are not
	 * this thread's. */
	snprintf(path, sizeof(path), "/proc/%u/task/%u", p->pid, tid);
	if (access(path, F_OK) != 0)
		return 0;
	snprintf(path, sizeof(path), "/proc/%u/mem", p->pid);
	if ((fd = open(path, O_RDWR | O_CLOEXEC)) < 0)
		return errno == ENOENT ? 0 : -errno;
	for (int t = 0; t < TRIES && err == -EAGAIN; t++) {
		if (t)
			nanosleep(&(struct timespec){0, 1000000}, NULL);
		err = take_once(fd, p, tid, out, words);
	}
	close(fd);
	return err == -ESRCH ? 0 : err;
}
