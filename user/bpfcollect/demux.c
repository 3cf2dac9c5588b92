/* SPDX-License-Identifier: MIT */
/*
 * demux.c — batch chunk records -> per-stream, publish-ordered batch and
 * gap events.
 *
 * Each stream delivers pubno 0, 1, 2, ... in order.  A pubno is resolved
 * when its batch is complete and every earlier pubno is resolved, or when
 * a later complete batch (or the stream's end record) reports it lost: a
 * record says "the k pubnos right before me were lost", so a complete
 * batch P with k lost is deliverable exactly when next_pubno == P - k.
 * Records of one batch all sit in one CPU's ring (a BPF program does not
 * migrate), but consecutive batches of a thread may sit in different
 * rings, hence the holding list.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "bpfcollect/bc_internal.h"
#include "bpfcollect/detach_take.h"
#include "common/cpu_clock.h"
#include "common/log.h"

_Static_assert(WPP_BREC_SIGNAL == WPP_BATCH_SIGNAL && WPP_BREC_SALVAGED == WPP_BATCH_SALVAGED &&
		   WPP_BREC_FINAL == WPP_BATCH_FINAL,
	       "BPF sets and reads the file's batch flags");

static struct bc_proc *stream_proc(struct bc_collector *c, struct bc_stream *s)
{
	return proc_get(c, s->pid, 1);
}

struct bc_stream *demux_stream_get(struct bc_collector *c, uint64_t id, uint32_t pid, uint32_t tid)
{
	struct bc_stream *s = idmap_get(&c->streams, id);
	if (s)
		return s;
	s = calloc(1, sizeof(*s));
	if (!s || idmap_put(&c->streams, id, s)) {
		free(s);
		return NULL;
	}
	s->id = id;
	s->pid = pid;
	s->tid = tid;
	struct bc_proc *p = stream_proc(c, s);
	/* A stream first met while its process's exec is still being
	 * delivered belongs to the new image: every stream of the old image
	 * was named by an exit or exec record, which the lifecycle ring holds
	 * before the exec record. */
	if (p && p->execs) {
		s->blocked = 1;
		s->image = p->execs_read;
		p->blocked_streams++;
	} else if (p) {
		p->open_streams++;
	}
	return s;
}

static void emit_gap(struct bc_collector *c, struct bc_stream *s, uint64_t batches, uint64_t words,
		     uint64_t min_seq)
{
	if (!batches)
		return;
	hold_release(c, s); /* the batches before the gap go first */
	struct wpp_chunk_gap g = {
	    .pid = s->pid,
	    .tid = s->tid,
	    .after_seq = min_seq - 1, /* UINT64_MAX: before the first batch */
	    .lost_words = words,
	    .lost_batches = batches,
	};
	c->gaps++;
	s->had_loss = 1;
	/* Kept as seq + 1 so that 0 means none: a lost seq 0 counts too (a
	 * gap before it was taken for an unseen start, two gaps in a row). */
	if (!s->start_checked && (!s->first_lost_seq || min_seq + 1 < s->first_lost_seq))
		s->first_lost_seq = min_seq + 1;
	if (c->cb.gap)
		c->cb.gap(c->cb.ctx, &g);
}

/* A thread whose lowest seq is above 1, in a process that was not attached
 * mid-run: its runtime published batches before the probe was attached
 * here (an executable attached only once its exec record was read: -a with
 * a static runtime, or a libwpprt other than ours).  BPF never saw them, so
 * nothing else counts them: a gap of unknown size before the first batch,
 * up to the first seq a counted loss covers.
 *
 * The lowest seq is known once a main (level 0) batch is delivered: every
 * lower seq was numbered before it, and a batch numbered before a level 0
 * batch is published before it (a handler's batch before the handler
 * returns).  Signal batches alone do not tell: a handler's batch comes
 * first and names only the level it interrupted (a process forked inside a
 * handler numbers the handler's batch 1 and the interrupted one 2; nested
 * handlers name a chain), and what a thread ending inside a handler had
 * not published comes last, salvaged.  Until a main batch, the lowest seq
 * delivered or named is kept, and the stream's end decides. */
static void stream_unseen_start(struct bc_collector *c, struct bc_stream *s)
{
	struct bc_proc *p = idmap_get(&c->procs, s->pid);
	uint64_t first = s->lowest_seq;

	if (s->start_checked || !first)
		return;
	if (s->first_lost_seq && s->first_lost_seq - 1 < first)
		first = s->first_lost_seq - 1; /* BPF counted those: they have their gap */
	s->start_checked = 1;
	if (first <= 1 || (p && (p->flags & WPP_PROC_ATTACHED)))
		return;
	c->unseen_batches += first - 1;
	emit_gap(c, s, first - 1, 0, 1);
}

static void note_lowest_seq(struct bc_stream *s, const struct wpp_chunk_batch *b)
{
	uint64_t low = b->seq;

	if ((b->flags & WPP_BATCH_SIGNAL) && b->parent_seq < low)
		low = b->parent_seq;
	if (!s->lowest_seq || low < s->lowest_seq)
		s->lowest_seq = low;
}

void demux_note_taken(void *collector, const struct detach_taken *m)
{
	struct bc_collector *c = collector;
	struct detach_taken *copy = malloc(sizeof(*copy)), *old = idmap_get(&c->taken, m->tid);
	if (copy)
		*copy = *m;
	if (!copy || idmap_put(&c->taken, m->tid, copy)) {
		free(copy);
		wpp_warn("bpf: out of memory: thread %u's first %u words may be recorded twice",
			 m->tid, m->nwords);
		return;
	}
	free(old);
}

/* The words of b an earlier collector took at detach are in its file, not
 * here: batch seq loses them from its front, and a handler's batch that
 * splices into it moves with them (detach_take.h).  The mark is done with
 * once its batch is delivered: no later batch names that seq. */
static void drop_taken(struct bc_collector *c, struct bc_stream *s, struct wpp_chunk_batch *b,
		       const uint64_t **words)
{
	struct detach_taken *m = idmap_get(&c->taken, s->tid);
	if (!m || m->pid != s->pid)
		return;
	if (b->flags & WPP_BATCH_SIGNAL) {
		if (b->parent_seq == m->seq)
			b->parent_off = b->parent_off > m->nwords ? b->parent_off - m->nwords : 0;
		return;
	}
	if (b->seq != m->seq)
		return;
	uint32_t n = m->nwords < b->nwords ? m->nwords : b->nwords;
	*words += n;
	b->nwords -= n;
	c->taken_dropped += n;
	free(idmap_del(&c->taken, s->tid));
}

static void emit_batch(struct bc_collector *c, struct bc_stream *s, struct wpp_chunk_batch *b,
		       const uint64_t *words)
{
	struct bc_proc *p = stream_proc(c, s);
	if (c->taken.len)
		drop_taken(c, s, b, &words);
	if (p && !p->nfid_bases && !p->registry_tried)
		lifecycle_registry_late(c, p); /* met after its TUs registered */
	if (p) {
		thread_announce(c, p, s->tid, b->time_ns);
		b->generation = p->generation;
	}
	note_lowest_seq(s, b);
	if (!(b->flags & WPP_BATCH_SIGNAL))
		stream_unseen_start(c, s);
	c->batches++;
	c->words += b->nwords;
	if (c->opt.hold_words)
		hold_batch(c, s, b, words);
	else if (c->cb.batch)
		c->cb.batch(c->cb.ctx, b, words);
}

static void free_items_before(struct bc_stream *s, struct bc_item *stop)
{
	while (s->held && s->held != stop) {
		struct bc_item *it = s->held;
		s->held = it->next;
		free(it);
	}
}

static void stream_close(struct bc_collector *c, struct bc_stream *s)
{
	stream_unseen_start(c, s); /* if only signal batches came */
	hold_release(c, s);	   /* before its thread's exit */
	hold_free(c, s);
	free_items_before(s, NULL);
	idmap_del(&c->streams, s->id);
	struct detach_taken *m = idmap_get(&c->taken, s->tid);
	if (m && m->pid == s->pid)
		free(idmap_del(&c->taken, s->tid)); /* its image ended: no batch of it comes */
	if (s->had_loss && idmap_put(&c->closed_lossy, s->id, c))
		wpp_warn("bpf: out of memory remembering a closed stream");
	struct bc_proc *p = idmap_get(&c->procs, s->pid);
	if (s->end == BC_END_EXIT || s->end == BC_END_EXEC)
		thread_exited(c, s->pid, s->tid, s->end_time_ns);
	free(s);
	if (p)
		proc_stream_closed(c, p);
}

void demux_resolve(struct bc_collector *c, struct bc_stream *s)
{
	if (s->blocked)
		return;
	for (;;) {
		struct bc_item *it = s->held;
		while (it && it->got_words < it->b.nwords)
			it = it->next;
		if (it && it->pubno - it->lost_before.batches == s->next_pubno) {
			free_items_before(s, it); /* partial batches it reports lost */
			emit_gap(c, s, it->lost_before.batches, it->lost_before.words,
				 it->lost_before.min_seq);
			emit_batch(c, s, &it->b, it->words);
			s->next_pubno = it->pubno + 1;
			s->held = it->next;
			free(it);
			continue;
		}
		if (!it && s->end != BC_END_OPEN &&
		    s->next_pubno + s->lost_tail.batches == s->end_pubno) {
			emit_gap(c, s, s->lost_tail.batches, s->lost_tail.words,
				 s->lost_tail.min_seq);
			s->next_pubno = s->end_pubno;
			stream_close(c, s);
		}
		return;
	}
}

void demux_stream_end(struct bc_collector *c, struct bc_stream *s, enum bc_stream_end end,
		      const struct wpp_brec_stream_end *e, uint64_t time_ns)
{
	s->end = end;
	s->end_pubno = e->end_pubno;
	s->lost_tail = e->lost_tail;
	s->end_time_ns = time_ns;
	demux_resolve(c, s);
}

static int record_valid(const struct bc_collector *c, const struct wpp_brec_batch *r, size_t size)
{
	if (size < sizeof(*r) || r->chunk_words > c->opt.record_words ||
	    size < sizeof(*r) + (size_t)r->chunk_words * 8)
		return 0;
	if (r->chunk_off > r->nwords || r->chunk_words > r->nwords - r->chunk_off)
		return 0;
	return r->lost_before.batches <= r->pubno;
}

static void fill_batch_header(struct wpp_chunk_batch *b, const struct wpp_brec_batch *r)
{
	b->pid = r->h.pid;
	b->tid = r->h.tid;
	b->seq = r->seq;
	b->parent_seq = r->parent_seq;
	b->parent_off = r->parent_off;
	b->flags = r->flags;
	b->time_ns = r->h.time_ns;
	b->generation = r->generation;
	b->nwords = r->nwords;
}

/* The held item for r->pubno, created in pubno order if new. */
static struct bc_item *held_item(struct bc_stream *s, const struct wpp_brec_batch *r)
{
	struct bc_item **link = &s->held;
	while (*link && (*link)->pubno < r->pubno)
		link = &(*link)->next;
	if (*link && (*link)->pubno == r->pubno)
		return *link;
	struct bc_item *it = malloc(sizeof(*it) + (size_t)r->nwords * 8);
	if (!it)
		return NULL;
	it->pubno = r->pubno;
	it->got_words = 0;
	it->lost_before = r->lost_before;
	fill_batch_header(&it->b, r);
	it->next = *link;
	*link = it;
	return it;
}

void demux_batch_record(struct bc_collector *c, const void *data, size_t size)
{
	const struct wpp_brec_batch *r = data;
	const uint64_t *words = (const uint64_t *)(r + 1);

	c->records++;
	if (!record_valid(c, r, size)) {
		wpp_warn("bpf: malformed batch record ignored");
		return;
	}
	struct bc_stream *s = idmap_get(&c->streams, r->stream_id);
	if (!s && idmap_get(&c->closed_lossy, r->stream_id))
		return; /* a chunk of a batch its stream reported lost before closing */
	if (!s) {
		/* The fork or exec that started this thread is in the lifecycle
		 * ring already (committed before this record): take it first. */
		lifecycle_drain(c);
		s = demux_stream_get(c, r->stream_id, r->h.pid, r->h.tid);
		if (!s) {
			wpp_err("bpf: out of memory for a thread stream");
			return;
		}
	}
	if (r->pubno < s->next_pubno)
		return; /* a chunk of a batch already reported lost */

	/* Fast path: an in-order single-record batch goes straight from the
	 * ring to the callback, no copy (to its thread's run when runs are
	 * held: hold.c). */
	if (!s->blocked && !s->held && r->chunk_words == r->nwords &&
	    r->pubno - r->lost_before.batches == s->next_pubno) {
		struct wpp_chunk_batch b;
		fill_batch_header(&b, r);
		emit_gap(c, s, r->lost_before.batches, r->lost_before.words,
			 r->lost_before.min_seq);
		emit_batch(c, s, &b, words);
		s->next_pubno = r->pubno + 1;
		if (s->end != BC_END_OPEN)
			demux_resolve(c, s);
		return;
	}
	struct bc_item *it = held_item(s, r);
	if (!it) {
		wpp_err("bpf: out of memory holding a batch of %u words", r->nwords);
		return;
	}
	memcpy(it->words + r->chunk_off, words, (size_t)r->chunk_words * 8);
	it->got_words += r->chunk_words;
	if (it->got_words == it->b.nwords)
		demux_resolve(c, s);
}

/* ---- end of collection ---- */

void demux_end_with_taken(struct bc_collector *c, struct bc_stream *s, struct wpp_chunk_batch *b,
			  const uint64_t *words, uint64_t pubno,
			  const struct wpp_brec_loss *lost_before)
{
	struct bc_item *it = malloc(sizeof(*it) + (size_t)b->nwords * 8);
	if (!it) {
		wpp_err("bpf: out of memory holding a batch of %u words", b->nwords);
		return;
	}
	it->pubno = pubno;
	it->b = *b;
	it->lost_before = *lost_before;
	it->got_words = b->nwords;
	memcpy(it->words, words, (size_t)b->nwords * 8);
	/* Every pubno BPF handed out is below it: last in the list. */
	struct bc_item **link = &s->held;
	while (*link)
		link = &(*link)->next;
	it->next = NULL;
	*link = it;
	struct wpp_brec_stream_end e = {.stream_id = s->id, .end_pubno = pubno + 1};
	demux_stream_end(c, s, BC_END_DETACH, &e, monotonic_ns());
}

static void collect_stream_ids(uint64_t key, void *val, void *arg)
{
	(void)val;
	uint64_t **cursor = arg;
	*(*cursor)++ = key;
}

/* Deliver whatever a stream still holds, marking holes nobody reported
 * (their records were lost with a dropped lifecycle record) as gaps of
 * unknown size. */
static void stream_force_close(struct bc_collector *c, struct bc_stream *s)
{
	if (s->blocked) {
		struct bc_proc *p = idmap_get(&c->procs, s->pid);
		if (p && p->blocked_streams) {
			p->blocked_streams--;
			p->open_streams++;
		}
		s->blocked = 0;
	}
	demux_resolve(c, s);
	if (!idmap_get(&c->streams, s->id))
		return;
	while (s->held) {
		struct bc_item *it = s->held;
		s->held = it->next;
		if (it->got_words == it->b.nwords) {
			uint64_t hole = it->pubno - s->next_pubno;
			uint64_t words =
			    hole == it->lost_before.batches ? it->lost_before.words : 0;
			if (hole != it->lost_before.batches)
				c->unattributed_batches += hole;
			emit_gap(c, s, hole, words,
				 it->lost_before.batches ? it->lost_before.min_seq : it->b.seq);
			emit_batch(c, s, &it->b, it->words);
			s->next_pubno = it->pubno + 1;
		}
		free(it);
	}
	if (s->end != BC_END_OPEN && s->next_pubno < s->end_pubno) {
		uint64_t hole = s->end_pubno - s->next_pubno;
		if (hole != s->lost_tail.batches)
			c->unattributed_batches += hole - s->lost_tail.batches;
		emit_gap(c, s, hole, s->lost_tail.words, s->lost_tail.min_seq);
	}
	stream_close(c, s);
}

void demux_finish(struct bc_collector *c)
{
	/* By id, not pointer: closing one stream can complete an exec, which
	 * resolves (and may close) other streams. */
	size_t n = c->streams.len;
	uint64_t *ids = calloc(n ? n : 1, sizeof(*ids)), *cursor = ids;
	if (!ids)
		return;
	idmap_each(&c->streams, collect_stream_ids, &cursor);
	for (size_t i = 0; i < n; i++) {
		struct bc_stream *s = idmap_get(&c->streams, ids[i]);
		if (s)
			stream_force_close(c, s);
	}
	free(ids);
}
