/* SPDX-License-Identifier: MIT */
/*
 * record_opts.c — the command line of `wpptrace record`: one option table
 * (options.h; the help is made from it) and the checks of how the options
 * go together (check_options), which the table cannot say.
 */
#include "record/record_opts.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/log.h"
#include "common/options.h"
#include "common/word_codec.h"
#include "record/record_live_counts.h"
#include "record/record_ready.h"
#include "collect/sequitur_online.h"

/* A positive 32-bit number, with a K, M or G suffix (--ring-size 16M). */
static int set_u32(const struct opt *self, const char *s)
{
	char name[64], *end;
	unsigned long long v = strtoull(s, &end, 10);

	if (*end == 'K' || *end == 'k')
		v <<= 10, end++;
	else if (*end == 'M' || *end == 'm')
		v <<= 20, end++;
	else if (*end == 'G' || *end == 'g')
		v <<= 30, end++;
	if (!*s || *end || v == 0 || v > UINT32_MAX) {
		wpp_err("record: %s needs a positive number, got '%s'",
			opt_name(self, name, sizeof(name)), s);
		return -1;
	}
	*(uint32_t *)self->ctx = (uint32_t)v;
	return 0;
}

/* -p PID (repeatable) */
static int add_pid(const struct opt *self, const char *s)
{
	struct record_opts *o = self->ctx;
	char *end;
	long v = strtol(s, &end, 10);

	if (!*s || *end || v <= 0 || v > 0x7fffffff) {
		wpp_err("record: -p needs a process id, got '%s'", s);
		return -1;
	}
	if (o->npids == RECORD_MAX_PIDS) {
		wpp_err("record: at most %d -p options", RECORD_MAX_PIDS);
		return -1;
	}
	o->pids[o->npids++] = (pid_t)v;
	return 0;
}

/* -e a,b,c (repeatable) */
static int add_events(const struct opt *self, const char *s)
{
	struct pc_options *c = self->ctx;
	char buf[1024];

	snprintf(buf, sizeof(buf), "%s", s);
	for (char *save, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (c->nevents == WPP_MAX_COUNTERS) {
			wpp_err("record: at most %d events", WPP_MAX_COUNTERS);
			return -1;
		}
		if (pc_event_parse(tok, &c->events[c->nevents]) < 0)
			return -1;
		for (uint32_t i = 0; i < c->nevents; i++)
			if (strcmp(c->events[i].name, tok) == 0) {
				wpp_err("record: event '%s' given twice", tok);
				return -1;
			}
		c->nevents++;
	}
	return 0;
}

static int set_duration(const struct opt *self, const char *s)
{
	char *end;
	double v = strtod(s, &end);

	if (!*s || *end || !(v > 0) || v > 1e9) {
		wpp_err("record: -d needs a positive number of seconds, got '%s'", s);
		return -1;
	}
	*(double *)self->ctx = v;
	return 0;
}

/* --snapshot-interval: seconds, within the bounds record_live_counts.h
 * sets (a read per thread at most every 10 ms; at least one an hour). */
static int set_snapshot_interval(const struct opt *self, const char *s)
{
	char *end;
	double v = strtod(s, &end);

	if (!*s || *end || !(v >= RECORD_LIVE_INTERVAL_MIN_S) ||
	    !(v <= RECORD_LIVE_INTERVAL_MAX_S)) {
		wpp_err("record: --snapshot-interval takes seconds from %g to %g, not '%s'",
			RECORD_LIVE_INTERVAL_MIN_S, RECORD_LIVE_INTERVAL_MAX_S, s);
		return -1;
	}
	*(double *)self->ctx = v;
	return 0;
}

/* --bytes-per-record: a budget from 0.01 to 64 bytes (8 a word: raw) */
static int set_budget(const struct opt *self, const char *s)
{
	char *end;
	double v = strtod(s, &end);

	if (!*s || *end || !(v >= 0.01) || !(v <= 64)) {
		wpp_err("record: --bytes-per-record takes bytes from 0.01 to 64, not '%s'", s);
		return -1;
	}
	*(double *)self->ctx = v;
	return 0;
}

/* --grammar-wait: seconds (0 = none), all, or auto */
static int set_grammar_wait(const struct opt *self, const char *s)
{
	double *out = self->ctx, v;
	char *end;

	if (!strcmp(s, "all") || !strcmp(s, "auto")) {
		*out = s[1] == 'l' ? RECORD_GRAMMAR_WAIT_ALL : RECORD_GRAMMAR_WAIT_AUTO;
		return 0;
	}
	v = strtod(s, &end);
	if (!*s || *end || !(v >= 0) || v > 1e9) {
		wpp_err("record: --grammar-wait takes seconds, all or auto, not '%s'", s);
		return -1;
	}
	*out = v;
	return 0;
}

/* --grammar and --no-grammar: the last one given counts (o->grammar
 * starts at -1: neither, so tuning the worker turns it on). */
static int grammar_on(const struct opt *self, const char *s)
{
	(void)s;
	*(int *)self->ctx = 1;
	return 0;
}

static int grammar_off(const struct opt *self, const char *s)
{
	(void)s;
	*(int *)self->ctx = 0;
	return 0;
}

static int set_builder(const struct opt *self, const char *s)
{
	return grammar_builder_parse("record", s, self->ctx);
}

static int set_ready_fd(const struct opt *self, const char *s)
{
	return record_ready_parse("record", s, self->ctx);
}

/* --ring-size, with the value as typed (for check_ring_holds_batch's line) */
struct ring_size {
	uint32_t *bytes;
	const char *typed;
};

/* The kernel's rule for a ring buffer map, said here in record's words
 * rather than at load time. */
static int set_ring_size(const struct opt *self, const char *s)
{
	struct ring_size *ring = self->ctx;
	struct opt as_u32 = *self;

	as_u32.ctx = ring->bytes;
	if (set_u32(&as_u32, s))
		return -1;
	if (!bc_ring_size_valid(*ring->bytes)) {
		wpp_err("record: --ring-size %s must be a power of two of at least %ldK", s,
			sysconf(_SC_PAGESIZE) / 1024);
		return -1;
	}
	ring->typed = s;
	return 0;
}

/* Options that only one transport understands must not be ignored silently. */
static int check_transport(struct record_opts *o, int bpf_only, int shm_only)
{
	if (o->transport == RECORD_SHM && bpf_only) {
		wpp_err(
		    "record: -p, -a, -d, -e, --ring-size, --record-words and --drain-threads need "
		    "--transport=bpf");
		return -1;
	}
	if (o->transport == RECORD_BPF && shm_only) {
		wpp_err("record: --buffer-words, --ring-slots and --max-procs are --transport=shm "
			"options");
		return -1;
	}
	if (o->transport == RECORD_SHM) {
		const char *msg;
		if (wpp_shm_options_check(&o->shm, &msg)) {
			wpp_err("record: %s", msg);
			return -1;
		}
	}
	return 0;
}

/* The batch size of the program record starts, as its runtime will take it
 * (record_bpf.c hands it --buffer-words, else BC_RECORD_BATCH_WORDS, unless
 * the environment already sets WPP_BUFFER_WORDS, which the runtime then
 * reads itself: rt_transport.c env_words, a bad value meaning its default). */
static uint32_t program_batch_words(const struct record_opts *o)
{
	const char *s = getenv(WPP_BUFFER_WORDS_ENV);
	char *end;

	if (o->shm.buffer_words)
		return o->shm.buffer_words;
	if (!s || !*s)
		return BC_RECORD_BATCH_WORDS;
	unsigned long v = strtoul(s, &end, 10);
	if (*end || v < WPP_SHM_MIN_BUFFER_WORDS || v > WPP_SHM_MAX_BUFFER_WORDS)
		return WPP_SHM_DEF_BUFFER_WORDS;
	return (uint32_t)v;
}

const char *record_size_text(uint32_t bytes, char *buf, size_t size)
{
	if (bytes % (1u << 20) == 0)
		snprintf(buf, size, "%uM", bytes >> 20);
	else if (bytes % 1024 == 0)
		snprintf(buf, size, "%uK", bytes >> 10);
	else
		snprintf(buf, size, "%u", bytes);
	return buf;
}

/*
 * A BPF ring must take one whole batch of the program: a batch is copied
 * into one CPU's ring in one probe call or lost, so a ring smaller than a
 * batch loses every full batch, with either --ring-full policy, and the
 * recording ends up empty (bc_ring_fits_batch, user/bpfcollect/load.c).
 * Refused here, before anything runs, because for a program record starts
 * the batch size is known now: record chooses it (program_batch_words).
 * Processes met with -p or -a chose theirs when they started (the runtime's
 * default, or their own WPP_BUFFER_WORDS), so for them it is only known
 * from what arrives; record_bpf.c says so at the end when batches were too
 * large for the ring.  ring_arg: --ring-size as typed (NULL: the default).
 */
static int check_ring_holds_batch(const struct record_opts *o, const char *ring_arg)
{
	char given[32], least[32];

	if (o->transport != RECORD_BPF || !o->argv)
		return 0;
	uint32_t ring = o->bpf.ring_bytes ? o->bpf.ring_bytes : BC_DEFAULT_RING_BYTES;
	uint64_t nwords = (uint64_t)program_batch_words(o) + WPP_SLACK_WORDS;
	/* -1: a ring or --record-words bc_open refuses, saying why. */
	if (bc_ring_fits_batch(ring, o->bpf.record_words, nwords) != 0)
		return 0;
	uint32_t min = bc_ring_min_bytes(o->bpf.record_words, nwords);
	if (!ring_arg)
		snprintf(given, sizeof(given), "%s (the default)",
			 record_size_text(ring, least, sizeof(least)));
	else
		snprintf(given, sizeof(given), "%s", ring_arg);
	if (min)
		wpp_err("record: --ring-size %s cannot hold one batch of %" PRIu64
			" bytes; use at least %s",
			given, nwords * 8, record_size_text(min, least, sizeof(least)));
	else
		wpp_err("record: --ring-size %s cannot hold one batch of %" PRIu64
			" bytes; use a smaller --buffer-words",
			given, nwords * 8);
	return -1;
}

/* A program started by record writes to record's own stdout and stderr;
 * a trace file that is one of them (-o /dev/stdout, or the file stdout is
 * redirected to) would be interleaved with the program's output and
 * unreadable.  With -p or -a no program shares them, so a pipe is fine. */
static int output_is_inherited(const char *path)
{
	struct stat out, fd;

	if (stat(path, &out) < 0)
		return 0; /* a new file is nobody's stdout */
	if (!S_ISREG(out.st_mode) && !S_ISFIFO(out.st_mode) && !S_ISSOCK(out.st_mode))
		return 0; /* /dev/null keeps nothing to interleave */
	for (int i = 1; i <= 2; i++)
		if (fstat(i, &fd) == 0 && fd.st_dev == out.st_dev && fd.st_ino == out.st_ino) {
			wpp_err("record: %s is the traced program's %s too; write the trace to a "
				"file of its own",
				path, i == 1 ? "standard output" : "standard error");
			return 1;
		}
	return 0;
}

static const char *const transports[] = {"bpf", "shm", NULL}; /* enum record_transport */
static const char *const compressions[] = {"none", "zstd", "fast", NULL}; /* record_compress */
static const char *const coder_threads[] = {"auto", "on", "off", NULL};	  /* record_coder_thread */
static const char *const ring_full_words[] = {"pause", "drop", NULL};
/* --debug-second-stage: index 0 lets the measures choose */
static const char *const second_stages[] = {"measured", "tokens", "zstd", "lz4", NULL};
static const uint32_t second_stage_codecs[] = {0, WC_CODEC_TOKENS, WC_CODEC_TOKENS_ZSTD,
					       WC_CODEC_TOKENS_LZ4};

static const struct opt_command record_cmd = {
    .name = "record",
    .usage = "record [options] [--] PROGRAM [ARGS...]\n"
	     "record [options] -p PID [-p PID...] [-d SECONDS]\n"
	     "record [options] -a [-d SECONDS]",
    .flags = OPTS_STOP_AT_OPERAND};

/* How often any of the options named was given. */
static unsigned given_any(const struct opt *table, const char *const *names)
{
	unsigned n = 0;

	for (; *names; names++)
		n += opt_given(table, *names);
	return n;
}

static int check_options(struct record_opts *o, const struct opt *table, int argc, char **argv,
			 int first, uint32_t max_threads, const char *ring_arg);

int record_parse_args(int argc, char **argv, struct record_opts *o)
{
	uint32_t max_threads = 0;
	int transport = RECORD_BPF, ring_full = 0, second_stage = 0, list_events = 0, no_count = 0,
	    count_only = 0;
	int first, rc;
	long kpaths_k = 0;
	struct ring_size ring = {&o->bpf.ring_bytes, NULL};
	struct opt table[] = {
	    {.type = OPT_STRING,
	     .short_name = 'o',
	     .long_name = "output",
	     .arg = "FILE",
	     .help = "trace file to write",
	     .value = &o->output,
	     .flags = OPT_SHOW_DEFAULT},
	    OPT_WORD_(0, "transport",
		      "how batches reach the collector (bpf: needs root;\n"
		      "shm needs no privilege but only runs PROGRAM)",
		      &transport, transports, OPT_SHOW_DEFAULT),
	    OPT_CALL_('p', "pid", "PID", "attach to a running instrumented process (repeatable)",
		      add_pid, o, 0),
	    OPT_FLAG_('a', "all", "every instrumented process, including later ones", &o->all),
	    OPT_CALL_('d', "duration", "SECONDS",
		      "stop after this long (-p, -a; Ctrl-C also stops)", set_duration,
		      &o->duration_s, 0),
	    OPT_CALL_(0, "snapshot-interval", "SECS",
		      "read the path counters of count builds (-fwpp-mode=count)\n"
		      "this often (default 1, 0.01..3600): a process killed\n"
		      "before its counts reach the trace keeps those of the\n"
		      "last read, and loses at most this long",
		      set_snapshot_interval, &o->snapshot_interval_s, 0),
	    OPT_FLAG_('q', "quiet", "no summary line", &o->quiet),
	    OPT_CALL_(0, "ready-fd", "N",
		      "once every probe is attached and recording has begun,\n"
		      "write \"ready\" and a newline to file descriptor N and close\n"
		      "it (closed without the line if record fails first)",
		      set_ready_fd, &o->ready_fd, 0),
	    OPT_CALL_(0, "grammar", NULL,
		      "also build whole-program-path grammars while recording,\n"
		      "on a worker thread (by default `wpptrace wpp` and `hot`\n"
		      "build them from the recorded batches when asked)",
		      grammar_on, &o->grammar, OPT_NO_VALUE),
	    OPT_CALL_(0, "no-grammar", NULL, "do not (the default)", grammar_off, &o->grammar,
		      OPT_NO_VALUE),
	    OPT_CALL_(0, "grammar-builder", "chunked|sequitur",
		      "with --grammar: how grammars are built: chunked\n"
		      "(default, runs and chunks around SEQUITUR(1), several times\n"
		      "faster on repetitive paths) or sequitur",
		      set_builder, &o->grammar_algo, 0),
	    OPT_CALL_(0, "grammar-wait", "SECS|all|auto",
		      "with --grammar: how long to go on building grammars\n"
		      "after the program ends (default auto: as long again as the\n"
		      "recording ran, at least 1 s)",
		      set_grammar_wait, &o->grammar_wait_s, 0),
	    OPT_WORD_(0, "compress",
		      "how batches are stored: fast codes each batch's words\n"
		      "(docs/wpp-file-format.md, BATCH_Z) as copies of repeated\n"
		      "stretches and literals, then zstd, or LZ4 or no second\n"
		      "stage where that saves CPU within 0.5 bytes per path\n"
		      "record (a version 4 file);\n"
		      "zstd the order-1 tokens, always zstd (more collector CPU,\n"
		      "a version 2 file); none stores them raw, readable by\n"
		      "older wpptrace",
		      &o->compress, compressions, OPT_SHOW_DEFAULT),
	    OPT_CALL_(0, "bytes-per-record", "B",
		      "with --compress fast: the bytes per path record the\n"
		      "batches may take where that saves the collector CPU\n"
		      "(default 0.5; 0.01 to 64)",
		      set_budget, &o->bytes_per_record, 0),
	    OPT_WORD_(0, "coder-thread",
		      "compress on a second collector thread (the token stage\n"
		      "here, zstd or LZ4 there): auto over shm when a CPU is\n"
		      "idle (from /proc/stat, checked every 100 ms), on, or off",
		      &o->coder_thread, coder_threads, OPT_SHOW_DEFAULT),
	    OPT_COUNT_('k', NULL, "K", "also build k-iteration path forests (k-slab)", &kpaths_k, 1,
		       32, 0),
	    OPT_CALL_(0, "prune-nodes", "M",
		      "with -k: keep each forest within about M nodes by pruning\n"
		      "cold ones (counts then lower bounds; docs/kpaths.md)",
		      set_u32, &o->kpaths_prune_nodes, 0),
	    OPT_HEADING_("counters (bpf transport; docs/counters.md):"),
	    OPT_CALL_('e', "event", "EV[,EV...]",
		      "hardware/software events to sample and count per batch\n"
		      "(perf names: cpu-clock, page-faults, cache-misses, rNNNN, ...)",
		      add_events, &o->counters, 0),
	    OPT_CALL_('c', "count", "N", "sample every N events", set_u32, &o->counters.period, 0),
	    OPT_CALL_('F', "freq", "HZ", "sample about HZ times a second per CPU (default 4000)",
		      set_u32, &o->counters.freq, 0),
	    OPT_FLAG_(0, "no-count", "sample only (no per-batch counter deltas)", &no_count),
	    OPT_FLAG_(0, "count-only", "count per batch only (no samples)", &count_only),
	    OPT_FLAG_(0, "list-events", "the event names wpptrace knows", &list_events),
	    OPT_HEADING_("bpf transport:"),
	    OPT_CALL_(0, "ring-size", "BYTES",
		      "batch ring per CPU, power of two, K/M suffix\n"
		      "(default 4M)",
		      set_ring_size, &ring, 0),
	    OPT_CALL_(0, "record-words", "N", "most words in one ring record (default 131072)",
		      set_u32, &o->bpf.record_words, 0),
	    OPT_CALL_(0, "drain-threads", "N",
		      "collector threads draining the rings (default: one per CPU)", set_u32,
		      &o->bpf.drain_threads, 0),
	    OPT_WORD_(0, "ring-full",
		      "when the collector falls behind: stop the traced\n"
		      "processes until it catches up (pause, lossless), or drop\n"
		      "batches (counted; the file marks each gap)",
		      &ring_full, ring_full_words, OPT_SHOW_DEFAULT),
	    OPT_CALL_(0, "max-threads", "N",
		      "threads traced at the same time (bpf: 8192 for a program record runs, 65536 "
		      "with -p/-a; shm 128)",
		      set_u32, &max_threads, 0),
	    /* a slow consumer for the overload tests */
	    OPT_CALL_(0, "debug-drain-delay-us", "N", "", set_u32, &o->bpf.drain_delay_us,
		      OPT_HIDDEN),
	    /* the transport with nothing behind it: scripts/bench-keepup -f */
	    {.type = OPT_FLAG,
	     .long_name = "debug-discard-batches",
	     .help = "",
	     .value = &o->discard_batches,
	     .flags = OPT_HIDDEN},
	    /* every chunk of one kind, whatever it costs: the tests' way to
	     * put LZ4 (or zstd, or bare token) chunks on disk for the
	     * independent reader (tests/e2e/keepup-compress.sh) */
	    OPT_WORD_(0, "debug-second-stage", "", &second_stage, second_stages, OPT_HIDDEN),
	    OPT_HEADING_(
		"shm transport (these options select it; --buffer-words also works with\n"
		"--transport=bpf when running a program: it sets the program's batch size):"),
	    OPT_CALL_(0, "buffer-words", "N",
		      "words per batch buffer (default 8192; a program\n"
		      "started by record with --transport=bpf: 65536)",
		      set_u32, &o->shm.buffer_words, 0),
	    OPT_CALL_(0, "ring-slots", "N", "buffers per thread ring (default 32)", set_u32,
		      &o->shm.ring_slots, 0),
	    OPT_CALL_(0, "max-procs", "N", "processes traced at the same time (default 128)",
		      set_u32, &o->shm.max_procs, 0),
	    OPT_END_,
	};

	memset(o, 0, sizeof(*o));
	/* Grammars are built when asked (`wpp`, `hot`), not while recording:
	 * SEQUITUR costs 30-100 ns a path record, 10-30 times what the program
	 * pays to make it, so building online made the collector most of a
	 * recording's cost (docs/benchmarks.md, "Grammars when asked"). */
	o->grammar = -1;
	o->grammar_wait_s = RECORD_GRAMMAR_WAIT_AUTO;
	o->grammar_algo = SEQ_CHUNKED;
	o->compress = RECORD_COMPRESS_FAST; /* batches are written as BATCH_Z chunks */
	o->bytes_per_record = RECORD_FAST_BYTES_PER_RECORD;
	o->output = "run.wpp";
	o->ready_fd = -1;
	o->snapshot_interval_s = 1.0;
	o->transport = RECORD_BPF;
	if ((rc = opts_parse(&record_cmd, table, argc, argv, &first)) != 0)
		return rc;
	if (list_events) {
		pc_events_list(stdout);
		return 1;
	}
	o->transport = (enum record_transport)transport;
	o->kpaths_k = (uint32_t)kpaths_k;
	o->counters.no_count = no_count;
	o->counters.no_sample = count_only;
	o->bpf.drop_when_full = ring_full == 1;
	o->second_stage = second_stage_codecs[second_stage];
	return check_options(o, table, argc, argv, first, max_threads, ring.typed);
}

/* How the options go together: each option's own value was checked as it
 * was read. */
static int check_options(struct record_opts *o, const struct opt *table, int argc, char **argv,
			 int first, uint32_t max_threads, const char *ring_arg)
{
	static const char *const bpf_opts[] = {"event",
					       "pid",
					       "all",
					       "duration",
					       "ring-size",
					       "record-words",
					       "drain-threads",
					       "ring-full",
					       "debug-drain-delay-us",
					       NULL};
	static const char *const shm_opts[] = {"ring-slots", "max-procs", NULL};
	static const char *const counter_opts_[] = {"count", "freq", "no-count", "count-only",
						    NULL};
	int bpf_only = given_any(table, bpf_opts) > 0, shm_only = given_any(table, shm_opts) > 0;
	int batch_words = opt_given(table, "buffer-words") > 0;
	int transport_given = opt_given(table, "transport") > 0;
	int counter_opts = given_any(table, counter_opts_) > 0;
	const char *grammar_tuned = opt_given(table, "grammar-wait")	  ? "--grammar-wait"
				    : opt_given(table, "grammar-builder") ? "--grammar-builder"
									  : NULL;
	/* Tuning the grammar worker asks for it; tuning it away is a mistake. */
	if (grammar_tuned && o->grammar == 0) {
		wpp_err("record: %s tunes the grammars --no-grammar turns off", grammar_tuned);
		return -1;
	}
	if (o->grammar < 0)
		o->grammar = grammar_tuned != NULL;
	if (opt_given(table, "bytes-per-record") && o->compress != RECORD_COMPRESS_FAST) {
		wpp_err("record: --bytes-per-record is --compress fast's budget");
		return -1;
	}
	if (o->second_stage && o->compress != RECORD_COMPRESS_FAST) {
		wpp_err("record: --debug-second-stage chooses among --compress fast's coders");
		return -1;
	}
	if (o->discard_batches && (o->grammar > 0 || o->kpaths_k)) {
		wpp_err("record: --debug-discard-batches leaves nothing to --grammar or -k");
		return -1;
	}
	if (o->kpaths_prune_nodes && (!o->kpaths_k || o->kpaths_prune_nodes < 8 * o->kpaths_k ||
				      o->kpaths_prune_nodes > UINT32_MAX / 2)) {
		wpp_err("record: --prune-nodes needs -k and at least 8 x k nodes");
		return -1;
	}
	/* shm settings without --transport mean the shm transport.  The batch
	 * size is the runtime's: with BPF it goes to the program started here
	 * (WPP_BUFFER_WORDS); running processes chose theirs at start. */
	if ((shm_only || batch_words) && !bpf_only && !transport_given)
		o->transport = RECORD_SHM;
	if (batch_words && o->transport == RECORD_BPF) {
		if (o->npids || o->all) {
			wpp_err(
			    "record: --buffer-words applies to a program started by record, not to "
			    "-p or -a (set WPP_BUFFER_WORDS when starting the program)");
			return -1;
		}
		if (o->shm.buffer_words < WPP_SHM_MIN_BUFFER_WORDS ||
		    o->shm.buffer_words > WPP_SHM_MAX_BUFFER_WORDS) {
			wpp_err("record: --buffer-words must be %u..%u", WPP_SHM_MIN_BUFFER_WORDS,
				WPP_SHM_MAX_BUFFER_WORDS);
			return -1;
		}
	}
	o->shm.max_threads = o->transport == RECORD_SHM ? max_threads : 0;
	o->bpf.max_threads = o->transport == RECORD_BPF ? max_threads : 0;
	if (check_transport(o, bpf_only, shm_only))
		return -1;
	if (counter_opts && !o->counters.nevents) {
		wpp_err("record: -c, -F, --no-count and --count-only need events (-e)");
		return -1;
	}
	if (o->counters.period && o->counters.freq) {
		wpp_err("record: give -c (a period) or -F (a frequency), not both");
		return -1;
	}
	if (o->counters.no_count && o->counters.no_sample) {
		wpp_err("record: --no-count and --count-only leave nothing to record");
		return -1;
	}
	int sources = (first < argc) + (o->npids > 0) + o->all;
	if (sources == 0) {
		wpp_err("record: nothing to trace (give a program after --, -p PID or -a)");
		return -1;
	}
	if (sources > 1) {
		wpp_err("record: give one of a program, -p PID or -a");
		return -1;
	}
	if (o->duration_s > 0 && first < argc) {
		wpp_err("record: -d applies to -p and -a; a program is traced until it ends");
		return -1;
	}
	o->argv = first < argc ? argv + first : NULL;
	if (check_ring_holds_batch(o, ring_arg))
		return -1;
	if (o->argv && output_is_inherited(o->output))
		return -1;
	return 0;
}
