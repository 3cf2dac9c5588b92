/* SPDX-License-Identifier: MIT */
#include "record/record_online.h"

#include <stdlib.h>
#include <time.h>

#include "common/log.h"
#include "collect/online.h"
#include "record/record_child.h"
#include "record/record_sink.h"
#include "collect/kipf_kinds_live.h"
#include "collect/kslab_online.h"
#include "collect/sequitur_online.h"

/* The grammar worker's backlog limit: a burst the worker cannot absorb in
 * this much memory makes it give up (the batches are in the file and
 * `wpptrace wpp` builds the grammars from them); the collector never waits.
 * With compressed recordings the backlog holds compressed words (0.01-0.7
 * bytes a path record on the benchmark programs, docs/benchmarks.md), so
 * it covers hundreds of millions to billions of path records. */
#define GRAMMAR_BACKLOG_BYTES (UINT64_C(256) << 20)

/* The grammars of a trace that arrived faster than they could be built
 * are finished after the program: say how far along once a second, and
 * let Ctrl-C (or any stop signal from then on) leave them to `wpptrace
 * wpp`.  The wait is bounded (--grammar-wait): by default as long again
 * as the recording ran, so building grammars at most doubles what the
 * user waits for; the batches are all in the file, so a grammar left
 * unbuilt costs a later `wpptrace wpp` its time, never data. */
struct finish_progress {
	int started;
	unsigned long signals; /* stop signals before the wait began */
	double said;	       /* seconds waited when last said */
	double limit;	       /* seconds the wait may last; < 0: no limit */
	double wait_opt;       /* --grammar-wait */
	double t_start;	       /* CLOCK_MONOTONIC seconds when recording began */
	int interrupted;
	int timed_out;
	int quiet;
};

static double mono_seconds(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The wait's bound, decided when it begins: the recording's own length
 * is known only then. */
static double wait_limit(const struct finish_progress *p)
{
	double ran;

	if (p->wait_opt == RECORD_GRAMMAR_WAIT_ALL)
		return -1;
	if (p->wait_opt >= 0)
		return p->wait_opt;
	ran = mono_seconds() - p->t_start;
	return ran > 1.0 ? ran : 1.0;
}

struct record_online_cfg {
	int counted_said; /* the -k warning about a count-mode unit */
	struct wpp_grammar_cfg grammar;
	struct kslab_online_cfg kpaths;
	struct wpp_online_consumer grammar_consumer;
	struct kinds_live *kinds; /* path kinds for per-activation k-paths */
	struct kslab_kinds_source kinds_src;
	struct wpp_online_consumer consumers[1];
	size_t n;
	int grammar_on;
	struct finish_progress progress;
};

static int on_progress(void *ctx, uint64_t done, uint64_t queued, double seconds)
{
	struct finish_progress *p = ctx;

	if (!p->started) {
		p->started = 1;
		p->signals = child_stop_signals();
		p->limit = wait_limit(p);
	}
	if (child_stop_signals() != p->signals) {
		p->interrupted = 1;
		return 1;
	}
	if (p->limit >= 0 && seconds >= p->limit) {
		p->timed_out = 1;
		return 1;
	}
	if (!p->quiet && seconds - p->said >= 1.0) {
		p->said = seconds;
		if (done < queued)
			wpp_info("record: building grammars: %.1f of %.1f M path words, %.0f s "
				 "(Ctrl-C leaves them to `wpptrace wpp`)",
				 (double)done / 1e6, (double)queued / 1e6, seconds);
		else
			wpp_info("record: building grammars: all %.1f M path words in, closing "
				 "them, %.0f s (Ctrl-C leaves them to `wpptrace wpp`)",
				 (double)queued / 1e6, seconds);
	}
	return 0;
}

int record_online_start(struct record_sink *rs, const struct record_opts *o)
{
	struct record_online_cfg *cfg = calloc(1, sizeof(*cfg));

	if (!cfg) {
		wpp_err("record: out of memory");
		return -1;
	}
	rs->online_cfg = cfg;
	/* k-slab forests stay on the collector thread: they are cheap and
	 * nothing rebuilds them if they are missing. */
	if (o->kpaths_k) {
		cfg->kpaths.k = o->kpaths_k;
		cfg->kpaths.max_nodes = o->kpaths_prune_nodes;
		/* Without kinds (no memory) the forests are the flat view,
		 * which the chunks say; `kpaths` then rebuilds the other. */
		cfg->kinds = kinds_live_new();
		if (cfg->kinds) {
			cfg->kinds_src = kinds_live_source(cfg->kinds);
			cfg->kpaths.kinds = &cfg->kinds_src;
		}
		cfg->consumers[cfg->n++] = kslab_online_consumer(&cfg->kpaths);
	}
	if (cfg->n == 0 && !o->grammar)
		return 0;
	rs->online = wpp_online_new(cfg->consumers, cfg->n);
	if (!rs->online) {
		wpp_err("record: out of memory");
		return -1;
	}
	if (o->grammar) {
		/* SEQUITUR(1) runs on a worker thread fed by a bounded queue,
		 * so its cost never delays the drain of the transport. */
		cfg->grammar.algo = o->grammar_algo;
		cfg->grammar.emit_to = rs->online;
		cfg->grammar_consumer = wpp_grammar_consumer(&cfg->grammar);
		if (wpp_online_add_worker(rs->online, &cfg->grammar_consumer, 1,
					  GRAMMAR_BACKLOG_BYTES) < 0) {
			/* The recording matters more than its grammars. */
			wpp_warn("record: cannot start the grammar worker thread; `wpptrace wpp` "
				 "builds the grammars from the batches");
			return 0;
		}
		cfg->grammar_on = 1;
		/* Compressed recordings feed the worker their chunks, so its
		 * backlog holds compressed words (record_sink_flush). */
		if (o->compress)
			wpp_online_set_worker_packed(rs->online);
		cfg->progress.quiet = o->quiet;
		cfg->progress.wait_opt = o->grammar_wait_s;
		cfg->progress.t_start = mono_seconds();
		wpp_online_set_progress(rs->online, on_progress, &cfg->progress);
	}
	return 0;
}

int record_online_check(struct record_sink *rs)
{
	struct record_online_cfg *cfg = rs->online_cfg;
	uint64_t peak = 0;
	int status;

	if (!cfg || !cfg->grammar_on)
		return 0;
	/* A missing grammar loses nothing (the batches are all in the file):
	 * say so, but the recording itself is fine. */
	status = wpp_online_worker_status(rs->online, &peak);
	if (status > 0 && cfg->progress.timed_out)
		wpp_warn("record: stopped building grammars after %.1f s (--grammar-wait): the "
			 "threads not finished have none; `wpptrace wpp --store FILE` builds them "
			 "from the batches and keeps them in the file",
			 cfg->progress.limit);
	else if (status > 0 && cfg->progress.interrupted)
		wpp_warn("record: interrupted while building grammars: the threads not finished "
			 "have none; `wpptrace wpp --store FILE` builds them from the batches and "
			 "keeps them in the file");
	else if (status > 0)
		wpp_warn(
		    "record: the grammar worker fell %llu MiB behind and dropped the grammars "
		    "of some threads; `wpptrace wpp --store FILE` builds them from the batches "
		    "and keeps them in the file",
		    (unsigned long long)(peak >> 20));
	else if (status < 0 || cfg->grammar.failed)
		wpp_warn(
		    "record: some whole-program-path grammars could not be built (out of "
		    "memory); `wpptrace wpp --store FILE` builds them from the batches and keeps "
		    "them in the file");
	return 0;
}

void record_online_stop(struct record_sink *rs)
{
	wpp_online_free(rs->online);
	rs->online = NULL;
	if (rs->online_cfg)
		kinds_live_free(rs->online_cfg->kinds);
	free(rs->online_cfg);
	rs->online_cfg = NULL;
}

void record_online_process(struct record_sink *rs, const struct wpp_chunk_process *p)
{
	struct record_online_cfg *cfg = rs->online_cfg;

	/* On no memory the image's records get unknown kinds (still exact
	 * counts, split as kslab_act.h says), nothing worse. */
	if (cfg && cfg->kinds)
		(void)kinds_live_process(cfg->kinds, p);
}

void record_online_module(struct record_sink *rs, const struct wpp_chunk_module *m,
			  const char *path)
{
	struct record_online_cfg *cfg = rs->online_cfg;

	const char *counted;

	if (!cfg || !cfg->kinds)
		return;
	(void)kinds_live_module(cfg->kinds, m, path);
	/* -k needs the order of paths, which a count-mode unit does not
	 * record: say so as soon as one registers (the run goes on, and so
	 * does everything else the recording holds). */
	if (!cfg->counted_said && (counted = kinds_live_first_counted(cfg->kinds))) {
		cfg->counted_said = 1;
		wpp_warn("record: -k: %s was built with -fwpp-mode=count: its paths are counted, "
			 "not recorded in order, so the k-path forests are of no use and `wpptrace "
			 "kpaths` refuses this recording (build it with -fwpp-mode=paths for -k)",
			 counted);
	}
}
