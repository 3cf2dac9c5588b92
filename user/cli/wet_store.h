/* SPDX-License-Identifier: MIT */
/*
 * wet_store.h — a thread's WET in its recording (docs/wet.md, "The WET in
 * the .wpp file"): WET chunks appended after END, one whole chunk per
 * write with O_APPEND as `wpp --store` appends grammars, so a torn append
 * costs only the WET, which is built again.  The stored form itself is
 * user/analysis/wet/wet_file.h; this file cuts it into chunks and puts
 * them back together.
 */
#ifndef WPP_CLI_WET_STORE_H
#define WPP_CLI_WET_STORE_H

#include "decode/session.h"
#include "analysis/wet/wet_build.h"

/* The thread's last complete stored WET: 1 with it in *out, 0 when none is
 * stored, 2 when the last one is of an older format (built again and
 * stored anew, as if none were: not damage), -1 when one is stored but
 * unusable (reason in err).  mode: how much of every stream reading checks
 * (enum wet_file_read, wet_file.h; LAZY: the thread keeps the bytes). */
int wet_store_load(struct session *s, const struct wpp_thread_trace *th, int mode,
		   struct wet_thread **out, char *err, size_t errlen);

/* Append t to the recording at path.  0, or -1 with a reason in err (a
 * file without END, read-only, out of space). */
int wet_store_save(struct session *s, const char *path, struct wet_thread *t, char *err,
		   size_t errlen);

#endif
