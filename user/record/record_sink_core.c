/* SPDX-License-Identifier: MIT */
/*
 * The transport-neutral half of the record sink: the file's lifecycle and the
 * events every transport reports the same way, each written as a chunk and
 * passed to the online analyses.
 */
#include "record/record_sink.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "common/cpu_clock.h"
#include "common/log.h"
#include "common/path_records.h"
#include "collect/online.h"
#include "record/record_info.h"
#include "record/record_online.h"
#include "record/summary_text.h"
#include "wpp/trace_abi.h"
#include "common/wppfile_batch.h"

static int keep(struct record_sink *rs, int err)
{
	/* After a write error the file is abandoned; the program runs on. */
	if (err < 0)
		rs->failed = 1;
	return err;
}

int record_sink_open(struct record_sink *rs, const struct record_opts *o,
		     const char *transport_lines)
{
	memset(rs, 0, sizeof(*rs));
	rs->w = wppw_open(o->output);
	if (!rs->w)
		return -1;
	rs->discard = o->discard_batches;
	/* (the shm loop says when it is idle: record_sink_idle) */
	rs->holding = o->transport == RECORD_SHM;
	if (rs->holding && wppw_hold(rs->w, RECORD_HOLD_BYTES, RECORD_HOLD_NS) < 0) {
		wpp_err("record: out of memory");
		record_sink_abort(rs, o);
		return -1;
	}
	if (o->compress) {
		rs->group = wpp_batch_group_new(1);
		/* The shm collector hands on one thread's batches at a time
		 * and says when it is idle; the BPF collector hands on runs
		 * of one thread's batches, each followed by a flush
		 * (bc_options.hold_words). */
		rs->group_words = RECORD_GROUP_WORDS;
		rs->bytes_per_record =
		    o->compress == RECORD_COMPRESS_FAST ? o->bytes_per_record : 0;
		/* Over BPF every run of a thread's batches is written before
		 * the next is drained (bc_options.hold_words, then a flush):
		 * nothing to overlap, so auto stays off there. */
		rs->coder_thread =
		    o->coder_thread == RECORD_CODER_AUTO && o->transport == RECORD_BPF
			? RECORD_CODER_OFF
			: o->coder_thread;
		/* --compress fast: the match stage, which skips repeated
		 * stretches (docs/benchmarks.md, "A match stage"); zstd
		 * keeps the tokens and a version 2 file older readers read. */
		if (!rs->group ||
		    (rs->bytes_per_record > 0 && wpp_batch_group_match_stage(rs->group) < 0)) {
			wpp_err("record: out of memory");
			record_sink_abort(rs, o);
			return -1;
		}
		wpp_batch_group_force(rs->group, o->second_stage);
		/* Before any chunk: older readers then refuse the file rather
		 * than skip its BATCH_Z chunks as an unknown type. */
		if (wppw_set_version(rs->w, rs->bytes_per_record > 0
						? WPP_FILE_VERSION_BATCH_MATCH
						: WPP_FILE_VERSION_BATCH_Z) < 0) {
			record_sink_abort(rs, o);
			return -1;
		}
	}
	if (record_write_info(rs->w, o, transport_lines) < 0 || record_online_start(rs, o) < 0) {
		record_sink_abort(rs, o);
		return -1;
	}
	return 0;
}

int record_sink_thread(struct record_sink *rs, const struct wpp_chunk_thread *t)
{
	if (record_sink_flush(rs) < 0)
		return -1;
	if (t->event == WPP_THREAD_START)
		rs->threads++;
	if (keep(rs, wppw_chunk(rs->w, WPP_CHUNK_THREAD, t, sizeof(*t))) < 0)
		return -1;
	if (rs->online && t->event == WPP_THREAD_EXIT) {
		struct wpp_thread_key key = {t->pid, t->tid, t->generation};
		return keep(rs, wpp_online_thread_exit(rs->online, &key, rs->w));
	}
	return 0;
}

/* Hand the online grammar worker the chunk the group just wrote: its
 * backlog holds what the file holds. */
static void feed_written(struct record_sink *rs)
{
	const void *head, *packed;
	uint32_t head_len, packed_len;

	wpp_batch_group_last(rs->group, &head, &head_len, &packed, &packed_len);
	if (rs->online && head_len)
		wpp_online_worker_packed(rs->online, head, head_len, packed, packed_len);
}

/* Write the group (pipelined: hand it to the coder thread and write the
 * one it held); all: also the chunk the coder thread holds, so that the
 * next chunk, of any type, follows it. */
static int write_group(struct record_sink *rs, int all)
{
	if (rs->failed || !rs->group)
		return rs->failed ? -1 : 0;
	/* The budget's account: what the records so far (this group's
	 * included) may take, less what the chunks took.  A chunk zstd
	 * could not bring within it is paid back by the next ones. */
	if (rs->bytes_per_record > 0)
		wpp_batch_group_allow(rs->group,
				      (int64_t)(rs->bytes_per_record * (double)rs->records) -
					  (int64_t)rs->batch_bytes,
				      WC_MIN_GAIN_NS_PER_BYTE);
	if (rs->coder_thread != RECORD_CODER_OFF) {
		int on = rs->coder_thread == RECORD_CODER_ON ||
			 record_idle_spare_cpu(&rs->idle, monotonic_ns());
		if (on != wpp_batch_group_pipelined(rs->group) &&
		    wpp_batch_group_pipeline(rs->group, on) < 0)
			rs->coder_thread = RECORD_CODER_OFF; /* no thread: code here */
	}
	rs->group_ns = 0; /* written or handed on: empty */
	if (keep(rs, wpp_batch_group_write(rs->group, rs->w, &rs->batch_bytes)) < 0)
		return -1;
	feed_written(rs);
	if (all) {
		if (keep(rs, wpp_batch_group_sync(rs->group, rs->w, &rs->batch_bytes)) < 0)
			return -1;
		feed_written(rs);
	}
	return 0;
}

int record_sink_flush(struct record_sink *rs)
{
	if (write_group(rs, 1) < 0)
		return -1;
	/* and the chunks held for one write, once old enough */
	return rs->failed ? -1 : keep(rs, wppw_flush(rs->w, RECORD_HOLD_NS));
}

int record_sink_idle(struct record_sink *rs)
{
	if (rs->holding && rs->group_ns && monotonic_ns() - rs->group_ns < RECORD_HOLD_NS)
		return rs->failed ? -1 : keep(rs, wppw_flush(rs->w, RECORD_HOLD_NS));
	return record_sink_flush(rs);
}

/* Hold b in the compression group (written when full), or write it as a
 * BATCH when it is too big for one (or compression is off).  Its path
 * records are counted as the coder takes its words (in the match stage's
 * copy, or after the token stage read them: counting first took the
 * slot's misses, 14 % of lua's collector) but before any write that
 * settles the bytes account on them. */
static int write_batch(struct record_sink *rs, const struct wpp_chunk_batch *b,
		       const uint64_t *words)
{
	int counted = 0;

	if (rs->group) {
		if (!wpp_batch_group_fits(rs->group, b)) {
			rs->records += wpp_count_path_records(words, b->nwords);
			counted = 1;
			if (record_sink_flush(rs) < 0)
				return -1;
		}
		if (wpp_batch_group_fits(rs->group, b)) {
			if (wpp_batch_group_add_counted(rs->group, b, words,
							counted ? NULL : &rs->records) < 0) {
				wpp_err("record: out of memory compressing a batch");
				return -ENOMEM;
			}
			if (!rs->group_ns)
				rs->group_ns = monotonic_ns();
			/* full: on to the coder (thread) while the next fills */
			if (wpp_batch_group_words(rs->group) >= rs->group_words)
				return write_group(rs, 0);
			return 0;
		}
	}
	if (!counted)
		rs->records += wpp_count_path_records(words, b->nwords);
	rs->batch_bytes += sizeof(struct wpp_chunk_header) + sizeof(*b) + b->nwords * 8u;
	if (rs->group && rs->online)
		wpp_online_worker_batch(rs->online, b, words);
	return wppw_chunk2(rs->w, WPP_CHUNK_BATCH, b, sizeof(*b), words, b->nwords * 8u);
}

int record_sink_batch(struct record_sink *rs, const struct wpp_chunk_batch *b,
		      const uint64_t *words)
{
	if (rs->failed)
		return -1;
	rs->totals.batches++;
	rs->totals.words += b->nwords;
	if (rs->discard)
		return 0; /* the transport's cost alone: nothing read, nothing written */
	if (keep(rs, write_batch(rs, b, words)) < 0)
		return -1;
	if (rs->online)
		wpp_online_batch(rs->online, b, words);
	return 0;
}

int record_sink_gap(struct record_sink *rs, const struct wpp_chunk_gap *g)
{
	rs->totals.lost_words += g->lost_words;
	rs->totals.lost_batches += g->lost_batches;
	if (record_sink_flush(rs) < 0)
		return -1;
	if (keep(rs, wppw_chunk(rs->w, WPP_CHUNK_GAP, g, sizeof(*g))) < 0)
		return -1;
	if (rs->online)
		wpp_online_gap(rs->online, g);
	return 0;
}

int record_sink_close(struct record_sink *rs, const struct record_opts *o, const char *extra)
{
	double cpu0 = process_cpu_seconds(), wall0 = (double)monotonic_ns() / 1e9;
	char after[96] = "", grammar_cpu[48] = "";

	record_sink_flush(rs);
	if (!rs->failed && rs->online)
		keep(rs, wpp_online_finish(rs->online, rs->w));
	/* The grammar worker's own CPU, a part of the collector's (issue 23:
	 * what the grammars cost, beside what moving the words costs). */
	double worker_cpu = rs->online && !rs->failed ? wpp_online_worker_cpu(rs->online) : -1;
	if (worker_cpu >= 0)
		snprintf(grammar_cpu, sizeof(grammar_cpu), ", grammar worker %.3f s CPU",
			 worker_cpu);
	/* Grammars the worker could not build as fast as the trace came are
	 * finished here, after the program: the summary's collector CPU
	 * (measured before) does not hold that, so say it. */
	double wall = (double)monotonic_ns() / 1e9 - wall0;
	if (wall >= 0.5)
		snprintf(after, sizeof(after),
			 ", %.1f s building grammars after the end (%.1f s CPU)", wall,
			 process_cpu_seconds() - cpu0);
	if (!rs->failed)
		keep(rs, record_online_check(rs));
	record_online_stop(rs);
	wpp_batch_group_free(rs->group);
	rs->group = NULL;
	rs->totals.end_ns = monotonic_ns();
	if (rs->failed) {
		wppw_abort(rs->w);
		wpp_err("record: %s is incomplete (write error)", o->output);
		return 1;
	}
	if (wppw_close(rs->w, &rs->totals) < 0)
		return 1;
	if (!o->quiet) {
		char per[64] = "";
		summary_per_record(per, sizeof(per), rs->batch_bytes, rs->records);
		wpp_info("recorded %llu %s, %llu %s, %llu %s, %llu %s%s%s%s%s -> %s%s",
			 (unsigned long long)rs->totals.batches,
			 summary_noun(rs->totals.batches, "batch", "batches"),
			 (unsigned long long)rs->totals.words,
			 summary_noun(rs->totals.words, "word", "words"),
			 (unsigned long long)rs->processes,
			 summary_noun(rs->processes, "process", "processes"),
			 (unsigned long long)rs->threads,
			 summary_noun(rs->threads, "thread", "threads"), per, grammar_cpu, after,
			 rs->totals.lost_words ? " (some data lost, see GAP chunks)" : "",
			 o->output, extra ? extra : "");
	}
	/* An empty trace of a program record ran is most often one built
	 * without wppcc; not when batches came and were lost (the loss report
	 * says why).  -p refuses a process without probes, and what -p/-a
	 * threads recorded is taken at detach, so there it means they ran no
	 * instrumented code while attached. */
	if (!rs->totals.batches && !rs->totals.lost_words && o->argv)
		wpp_warn("record: nothing was traced: no batch came from %s or what it ran (built "
			 "without wppcc? a -fwpp-mode=count program record runs hands its counts "
			 "over only when its threads or the process end normally, not when "
			 "killed%s)",
			 o->argv[0],
			 o->transport == RECORD_SHM
			     ? "; or linked with another wpptrace's static runtime, whose shared "
			       "memory protocol differs (its stderr says so): rebuild it with this "
			       "wppcc, or record with --transport=bpf"
			     : "");
	else if (!rs->totals.batches && !rs->totals.lost_words)
		wpp_warn("record: nothing was traced: %s while attached",
			 o->all		 ? "no process ran instrumented code"
			 : o->npids == 1 ? "the process ran no instrumented code"
					 : "the processes ran no instrumented code");
	return 0;
}

void record_usage_text(char *buf, size_t size, const char *more)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	snprintf(buf, size, " (collector CPU %.3f s, max RSS %ld MB%s)",
		 (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
		     (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6,
		 ru.ru_maxrss / 1024, more);
}

void record_sink_abort(struct record_sink *rs, const struct record_opts *o)
{
	record_online_stop(rs);
	/* Not yet published (out_file.h): the temporary goes, and a file
	 * that had the name keeps it. */
	(void)o;
	wpp_batch_group_free(rs->group);
	rs->group = NULL;
	if (rs->w)
		wppw_abort(rs->w);
	rs->w = NULL;
}
