/* SPDX-License-Identifier: MIT */
/*
 * pprof_export.h — a profile as a pprof profile.proto message (gzip).
 *
 * One sample per (process, path): its locations are the path's blocks, leaf
 * first as pprof expects — the last block executed is the leaf, so a flame
 * graph draws each path as a chain from its first block to its last.  Each
 * block is one Location (function, first source line; address 0 because
 * the metadata knows lines, not addresses) in the Mapping of its object
 * (file name and build-id).  Values: executions, IR instructions.  Labels:
 * pid, path id, start>end kind.  Encoding is protobuf-c's, from code
 * generated at build time out of profile.proto.
 */
#ifndef WPP_REPORT_PPROF_EXPORT_H
#define WPP_REPORT_PPROF_EXPORT_H

#include "report/profile.h"
#include "decode/trace_file.h"

/* 0, or -1 after one error line. */
int rpt_export_pprof(const char *path, const struct rpt_profile *p, const struct wpp_trace *t);

#endif
