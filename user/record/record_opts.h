/* SPDX-License-Identifier: MIT */
/* record_opts.h — the command line of `wpptrace record`. */
#ifndef WPP_RECORD_OPTS_H
#define WPP_RECORD_OPTS_H

#include "shm_layout.h"

struct record_opts {
	const char *output;     /* -o, default "run.wpp" */
	const char *transport;  /* --transport, default "shm" */
	struct wpp_shm_options shm;
	int quiet;
	char **argv;            /* the program and its arguments */
};

/* 0 = run, 1 = help was printed (exit 0), -1 = usage error (message printed). */
int record_parse_args(int argc, char **argv, struct record_opts *o);

#endif
