/* SPDX-License-Identifier: MIT */
#include "record/record_opts.h"

#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/log.h"
#include "common/opt_error.h"
#include "record/record_ready.h"
#include "collect/sequitur_online.h"

static const char usage[] =
    "usage: wpptrace record [options] [--] PROGRAM [ARGS...]\n"
    "       wpptrace record [options] -p PID [-p PID...] [-d SECONDS]\n"
    "       wpptrace record [options] -a [-d SECONDS]\n"
    "  -o, --output FILE       trace file to write (default run.wpp)\n"
    "      --transport bpf|shm how batches reach the collector (default bpf: needs root;\n"
    "                          shm needs no privilege but only runs PROGRAM)\n"
    "  -p, --pid PID           attach to a running instrumented process (repeatable)\n"
    "  -a, --all               every instrumented process, including later ones\n"
    "  -d, --duration SECONDS  stop after this long (-p, -a; Ctrl-C also stops)\n"
    "  -q, --quiet             no summary line\n"
    "      --ready-fd N        once every probe is attached and recording has begun,\n"
    "                          write \"ready\" and a newline to file descriptor N and close\n"
    "                          it (closed without the line if record fails first)\n"
    "      --grammar           also build whole-program-path grammars while recording,\n"
    "                          on a worker thread (by default `wpptrace wpp` and `hot`\n"
    "                          build them from the recorded batches when asked)\n"
    "      --no-grammar        do not (the default)\n"
    "      --grammar-builder chunked|sequitur  with --grammar: how grammars are built:\n"
    "                          chunked (default, runs and chunks around SEQUITUR(1),\n"
    "                          several times faster on repetitive paths) or sequitur\n"
    "      --grammar-wait SECS|all|auto  with --grammar: how long to go on building\n"
    "                          grammars after the program ends (default auto: as long\n"
    "                          again as the recording ran, at least 1 s)\n"
    "      --compress none|zstd  how batches are stored: zstd (default) codes each\n"
    "                          batch's words (docs/wpp-file-format.md, BATCH_Z); none\n"
    "                          stores them raw, readable by older wpptrace\n"
    "  -k K                    also build k-iteration path forests (k-slab, 1 <= K <= 32)\n"
    "      --prune-nodes M     with -k: keep each forest within about M nodes by pruning\n"
    "                          cold ones (counts then lower bounds; docs/kpaths.md)\n"
    "counters (bpf transport; docs/counters.md):\n"
    "  -e, --event EV[,EV...]  hardware/software events to sample and count per batch\n"
    "                          (perf names: cpu-clock, page-faults, cache-misses, rNNNN, ...)\n"
    "  -c, --count N           sample every N events\n"
    "  -F, --freq HZ           sample about HZ times a second per CPU (default 4000)\n"
    "      --no-count          sample only (no per-batch counter deltas)\n"
    "      --count-only        count per batch only (no samples)\n"
    "      --list-events       the event names wpptrace knows\n"
    "bpf transport:\n"
    "      --ring-size BYTES   batch ring per CPU, power of two, K/M suffix\n"
    "                          (default 16M, less when there are more than 16 CPUs)\n"
    "      --record-words N    most words in one ring record (default 131072)\n"
    "      --drain-threads N   collector threads draining the rings (default: one per CPU)\n"
    "      --ring-full pause|drop  when the collector falls behind: stop the traced\n"
    "                          processes until it catches up (default, lossless), or\n"
    "                          drop batches (counted; the file marks each gap)\n"
    "      --max-threads N     threads traced at the same time (bpf 65536, shm 128)\n"
    "shm transport (these options select it; --buffer-words also works with\n"
    "--transport=bpf when running a program: it sets the program's batch size):\n"
    "      --buffer-words N    words per batch buffer (default 8192; a program\n"
    "                          started by record with --transport=bpf: 65536)\n"
    "      --ring-slots N      buffers per thread ring (default 16)\n"
    "      --max-procs N       processes traced at the same time (default 128)\n";

static int parse_u32(const char *opt, const char *s, uint32_t *out)
{
	char *end;
	unsigned long long v = strtoull(s, &end, 10);

	if (*end == 'K' || *end == 'k')
		v <<= 10, end++;
	else if (*end == 'M' || *end == 'm')
		v <<= 20, end++;
	else if (*end == 'G' || *end == 'g')
		v <<= 30, end++;
	if (!*s || *end || v == 0 || v > UINT32_MAX) {
		wpp_err("record: %s needs a positive number, got '%s'", opt, s);
		return -1;
	}
	*out = (uint32_t)v;
	return 0;
}

static int parse_pid(const char *s, struct record_opts *o)
{
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
static int parse_events(const char *s, struct pc_options *c)
{
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

static int parse_duration(const char *s, double *out)
{
	char *end;
	double v = strtod(s, &end);
	if (!*s || *end || !(v > 0) || v > 1e9) {
		wpp_err("record: -d needs a positive number of seconds, got '%s'", s);
		return -1;
	}
	*out = v;
	return 0;
}

/* --grammar-wait: seconds (0 = none), all, or auto */
static int parse_grammar_wait(const char *s, double *out)
{
	char *end;
	double v;

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
	uint32_t ring = o->bpf.ring_bytes ? o->bpf.ring_bytes : bc_default_ring_bytes();
	uint64_t nwords = (uint64_t)program_batch_words(o) + WPP_SLACK_WORDS;
	/* -1: a ring or --record-words bc_open refuses, saying why. */
	if (!ring || bc_ring_fits_batch(ring, o->bpf.record_words, nwords) != 0)
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

int record_parse_args(int argc, char **argv, struct record_opts *o)
{
	enum {
		O_TRANSPORT = 256,
		O_BUFWORDS,
		O_RINGSLOTS,
		O_THREADS,
		O_PROCS,
		O_RINGSIZE,
		O_RECWORDS,
		O_DRAIN,
		O_RINGFULL,
		O_DRAINDELAY,
		O_GRAMMAR,
		O_NOGRAMMAR,
		O_GRAMMARWAIT,
		O_GRAMMARBUILDER,
		O_NOCOUNT,
		O_COUNTONLY,
		O_LISTEV,
		O_PRUNE,
		O_COMPRESS,
		O_READYFD
	};
	static const struct option longopts[] = {
	    {"output", required_argument, NULL, 'o'},
	    {"transport", required_argument, NULL, O_TRANSPORT},
	    {"pid", required_argument, NULL, 'p'},
	    {"all", no_argument, NULL, 'a'},
	    {"duration", required_argument, NULL, 'd'},
	    {"buffer-words", required_argument, NULL, O_BUFWORDS},
	    {"ring-slots", required_argument, NULL, O_RINGSLOTS},
	    {"max-threads", required_argument, NULL, O_THREADS},
	    {"max-procs", required_argument, NULL, O_PROCS},
	    {"ring-size", required_argument, NULL, O_RINGSIZE},
	    {"record-words", required_argument, NULL, O_RECWORDS},
	    {"drain-threads", required_argument, NULL, O_DRAIN},
	    {"ring-full", required_argument, NULL, O_RINGFULL},
	    /* undocumented: a slow consumer for the overload tests */
	    {"debug-drain-delay-us", required_argument, NULL, O_DRAINDELAY},
	    {"quiet", no_argument, NULL, 'q'},
	    {"grammar", no_argument, NULL, O_GRAMMAR},
	    {"no-grammar", no_argument, NULL, O_NOGRAMMAR},
	    {"grammar-wait", required_argument, NULL, O_GRAMMARWAIT},
	    {"grammar-builder", required_argument, NULL, O_GRAMMARBUILDER},
	    {"event", required_argument, NULL, 'e'},
	    {"count", required_argument, NULL, 'c'},
	    {"freq", required_argument, NULL, 'F'},
	    {"no-count", no_argument, NULL, O_NOCOUNT},
	    {"count-only", no_argument, NULL, O_COUNTONLY},
	    {"list-events", no_argument, NULL, O_LISTEV},
	    {"prune-nodes", required_argument, NULL, O_PRUNE},
	    {"compress", required_argument, NULL, O_COMPRESS},
	    {"ready-fd", required_argument, NULL, O_READYFD},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	int c, bpf_only = 0, shm_only = 0, batch_words = 0, transport_given = 0, counter_opts = 0;
	const char *grammar_tuned = NULL; /* an option that only means something with --grammar */
	uint32_t max_threads = 0;
	const char *ring_arg = NULL;

	memset(o, 0, sizeof(*o));
	/* Grammars are built when asked (`wpp`, `hot`), not while recording:
	 * SEQUITUR costs 30-100 ns a path record, 10-30 times what the program
	 * pays to make it, so building online made the collector most of a
	 * recording's cost (docs/benchmarks.md, "Grammars when asked"). */
	o->grammar = -1;
	o->grammar_wait_s = RECORD_GRAMMAR_WAIT_AUTO;
	o->grammar_algo = SEQ_CHUNKED;
	o->compress = 1; /* batches are written as BATCH_Z chunks */
	o->output = "run.wpp";
	o->ready_fd = -1;
	o->transport = RECORD_BPF;
	optind = 1;
	opterr = 0;
	/* '+': stop at the program name, its options are its own. */
	while ((c = getopt_long(argc, argv, "+:o:p:ad:qhk:e:c:F:", longopts, NULL)) != -1) {
		switch (c) {
		case 'o':
			o->output = optarg;
			break;
		case 'q':
			o->quiet = 1;
			break;
		case O_GRAMMAR:
			o->grammar = 1;
			break;
		case O_NOGRAMMAR:
			o->grammar = 0;
			break;
		case O_GRAMMARWAIT:
			if (parse_grammar_wait(optarg, &o->grammar_wait_s))
				return -1;
			grammar_tuned = "--grammar-wait";
			break;
		case O_GRAMMARBUILDER:
			if (grammar_builder_parse("record", optarg, &o->grammar_algo) < 0)
				return -1;
			grammar_tuned = "--grammar-builder";
			break;
		case 'k':
			if (parse_u32("-k", optarg, &o->kpaths_k))
				return -1;
			if (o->kpaths_k < 1 || o->kpaths_k > 32) {
				wpp_err("record: -k takes 1 to 32, not %s", optarg);
				return -1;
			}
			break;
		case 'h':
			fputs(usage, stdout);
			return 1;
		case O_LISTEV:
			pc_events_list(stdout);
			return 1;
		case O_COMPRESS:
			if (!strcmp(optarg, "none") || !strcmp(optarg, "zstd")) {
				o->compress = optarg[0] == 'z';
				break;
			}
			wpp_err("record: --compress takes none or zstd, not '%s'", optarg);
			return -1;
		case O_READYFD:
			if (record_ready_parse("record", optarg, &o->ready_fd))
				return -1;
			break;
		case O_PRUNE:
			if (parse_u32("--prune-nodes", optarg, &o->kpaths_prune_nodes))
				return -1;
			break;
		case 'e':
			bpf_only = 1;
			if (parse_events(optarg, &o->counters))
				return -1;
			break;
		case 'c': {
			uint32_t v;
			counter_opts = 1;
			if (parse_u32("-c", optarg, &v))
				return -1;
			o->counters.period = v;
			break;
		}
		case 'F':
			counter_opts = 1;
			if (parse_u32("-F", optarg, &o->counters.freq))
				return -1;
			break;
		case O_NOCOUNT:
			counter_opts = 1;
			o->counters.no_count = true;
			break;
		case O_COUNTONLY:
			counter_opts = 1;
			o->counters.no_sample = true;
			break;
		case 'p':
			bpf_only = 1;
			if (parse_pid(optarg, o))
				return -1;
			break;
		case 'a':
			bpf_only = 1;
			o->all = 1;
			break;
		case 'd':
			bpf_only = 1;
			if (parse_duration(optarg, &o->duration_s))
				return -1;
			break;
		case O_TRANSPORT:
			transport_given = 1;
			if (strcmp(optarg, "bpf") == 0) {
				o->transport = RECORD_BPF;
			} else if (strcmp(optarg, "shm") == 0) {
				o->transport = RECORD_SHM;
			} else {
				wpp_err(
				    "record: unknown transport '%s' (use --transport=bpf or shm)",
				    optarg);
				return -1;
			}
			break;
		case O_BUFWORDS:
			batch_words = 1;
			if (parse_u32("--buffer-words", optarg, &o->shm.buffer_words))
				return -1;
			break;
		case O_RINGSLOTS:
			shm_only = 1;
			if (parse_u32("--ring-slots", optarg, &o->shm.ring_slots))
				return -1;
			break;
		case O_PROCS:
			shm_only = 1;
			if (parse_u32("--max-procs", optarg, &o->shm.max_procs))
				return -1;
			break;
		case O_THREADS:
			if (parse_u32("--max-threads", optarg, &max_threads))
				return -1;
			break;
		case O_RINGSIZE:
			bpf_only = 1;
			if (parse_u32("--ring-size", optarg, &o->bpf.ring_bytes))
				return -1;
			/* the kernel's rule for a ring buffer map, said here in
			 * record's words rather than at load time */
			if (!bc_ring_size_valid(o->bpf.ring_bytes)) {
				wpp_err("record: --ring-size %s must be a power of two of at "
					"least %ldK",
					optarg, sysconf(_SC_PAGESIZE) / 1024);
				return -1;
			}
			ring_arg = optarg;
			break;
		case O_RECWORDS:
			bpf_only = 1;
			if (parse_u32("--record-words", optarg, &o->bpf.record_words))
				return -1;
			break;
		case O_DRAIN:
			bpf_only = 1;
			if (parse_u32("--drain-threads", optarg, &o->bpf.drain_threads))
				return -1;
			break;
		case O_RINGFULL:
			bpf_only = 1;
			if (strcmp(optarg, "pause") == 0) {
				o->bpf.drop_when_full = false;
			} else if (strcmp(optarg, "drop") == 0) {
				o->bpf.drop_when_full = true;
			} else {
				wpp_err("record: --ring-full takes pause or drop, not '%s'",
					optarg);
				return -1;
			}
			break;
		case O_DRAINDELAY:
			bpf_only = 1;
			if (parse_u32("--debug-drain-delay-us", optarg, &o->bpf.drain_delay_us))
				return -1;
			break;
		default:
			bad_option("record", c, argv, longopts);
			return -1;
		}
	}
	/* Tuning the grammar worker asks for it; tuning it away is a mistake. */
	if (grammar_tuned && o->grammar == 0) {
		wpp_err("record: %s tunes the grammars --no-grammar turns off", grammar_tuned);
		return -1;
	}
	if (o->grammar < 0)
		o->grammar = grammar_tuned != NULL;
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
	int sources = (optind < argc) + (o->npids > 0) + o->all;
	if (sources == 0) {
		wpp_err("record: nothing to trace (give a program after --, -p PID or -a)");
		return -1;
	}
	if (sources > 1) {
		wpp_err("record: give one of a program, -p PID or -a");
		return -1;
	}
	if (o->duration_s > 0 && optind < argc) {
		wpp_err("record: -d applies to -p and -a; a program is traced until it ends");
		return -1;
	}
	o->argv = optind < argc ? argv + optind : NULL;
	if (check_ring_holds_batch(o, ring_arg))
		return -1;
	if (o->argv && output_is_inherited(o->output))
		return -1;
	return 0;
}
