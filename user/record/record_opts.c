/* SPDX-License-Identifier: MIT */
#include "record_opts.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"

static const char usage[] =
	"usage: wpptrace record [options] [--] PROGRAM [ARGS...]\n"
	"  -o, --output FILE       trace file to write (default run.wpp)\n"
	"      --transport shm     how batches reach the collector (shm is the only one built)\n"
	"      --buffer-words N    words per batch buffer (default 8192)\n"
	"      --ring-slots N      buffers per thread ring (default 4)\n"
	"      --max-threads N     threads traced at the same time (default 128)\n"
	"      --max-procs N       processes traced at the same time (default 128)\n"
	"  -q, --quiet             no summary line\n";

static int parse_u32(const char *opt, const char *s, uint32_t *out)
{
	char *end;
	unsigned long v = strtoul(s, &end, 10);

	if (!*s || *end || v == 0 || v > UINT32_MAX) {
		wpp_err("record: %s needs a positive number, got '%s'", opt, s);
		return -1;
	}
	*out = (uint32_t)v;
	return 0;
}

int record_parse_args(int argc, char **argv, struct record_opts *o)
{
	enum { O_TRANSPORT = 256, O_BUFWORDS, O_RINGSLOTS, O_THREADS, O_PROCS };
	static const struct option longopts[] = {
		{"output", required_argument, NULL, 'o'},
		{"transport", required_argument, NULL, O_TRANSPORT},
		{"buffer-words", required_argument, NULL, O_BUFWORDS},
		{"ring-slots", required_argument, NULL, O_RINGSLOTS},
		{"max-threads", required_argument, NULL, O_THREADS},
		{"max-procs", required_argument, NULL, O_PROCS},
		{"quiet", no_argument, NULL, 'q'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	const char *msg;
	int c;

	memset(o, 0, sizeof(*o));
	o->output = "run.wpp";
	o->transport = "shm";
	optind = 1;
	opterr = 0;
	/* '+': stop at the program name, its options are its own. */
	while ((c = getopt_long(argc, argv, "+o:qh", longopts, NULL)) != -1) {
		switch (c) {
		case 'o':
			o->output = optarg;
			break;
		case 'q':
			o->quiet = 1;
			break;
		case 'h':
			fputs(usage, stdout);
			return 1;
		case O_TRANSPORT:
			o->transport = optarg;
			break;
		case O_BUFWORDS:
			if (parse_u32("--buffer-words", optarg, &o->shm.buffer_words))
				return -1;
			break;
		case O_RINGSLOTS:
			if (parse_u32("--ring-slots", optarg, &o->shm.ring_slots))
				return -1;
			break;
		case O_THREADS:
			if (parse_u32("--max-threads", optarg, &o->shm.max_threads))
				return -1;
			break;
		case O_PROCS:
			if (parse_u32("--max-procs", optarg, &o->shm.max_procs))
				return -1;
			break;
		default:
			wpp_err("record: unknown option '%s' (see wpptrace record --help)",
				argv[optind - 1]);
			return -1;
		}
	}
	if (strcmp(o->transport, "bpf") == 0) {
		wpp_err("record: the BPF transport is not built yet; use --transport=shm");
		return -1;
	}
	if (strcmp(o->transport, "shm") != 0) {
		wpp_err("record: unknown transport '%s' (use --transport=shm)", o->transport);
		return -1;
	}
	if (wpp_shm_options_check(&o->shm, &msg)) {
		wpp_err("record: %s", msg);
		return -1;
	}
	if (optind >= argc) {
		wpp_err("record: no program given (wpptrace record [options] -- PROGRAM [ARGS...])");
		return -1;
	}
	o->argv = argv + optind;
	return 0;
}
