/* SPDX-License-Identifier: MIT */
/*
 * record_info.h — the INFO chunk every recording starts with: what was
 * traced (command, pids or "all"), the transport and its settings, who
 * recorded it.  `wpptrace info` shows it back.
 */
#ifndef WPP_RECORD_INFO_H
#define WPP_RECORD_INFO_H

#include <stdint.h>

#include "record/record_opts.h"
#include "common/wppfile.h"

/* transport_lines: "key=value\n" lines describing the transport. */
int record_write_info(struct wpp_writer *w, const struct record_opts *o,
		      const char *transport_lines);

#endif
