/* SPDX-License-Identifier: MIT */
/*
 * record_bpf.h — `wpptrace record` over the BPF transport (the default):
 * a program it starts, running processes (-p) or every instrumented process
 * (-a), until they end, -d runs out or Ctrl-C.  Prints what was lost while
 * running and at the end.  Returns the exit status for wpptrace.
 */
#ifndef WPP_RECORD_BPF_H
#define WPP_RECORD_BPF_H

#include "record/record_opts.h"

int record_bpf(const struct record_opts *o);

#endif
