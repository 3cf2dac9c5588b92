/* SPDX-License-Identifier: MIT */
/*
 * paths_table.h — the path and function tables `wpptrace paths` prints,
 * shared with the commands that print a selection of the same rows
 * (`residual`): one rendering of a path row, in text and in JSON.
 *
 * Shares (the % column) are of share_of, which the caller picks: all
 * executions of the profile, whatever the rows were selected from, so a
 * selection's rows read against the whole run.
 */
#ifndef WPP_CLI_PATHS_TABLE_H
#define WPP_CLI_PATHS_TABLE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "common/json_out.h"
#include "report/profile.h"

struct paths_table {
	const struct rpt_row *paths; /* rpt_rows(RPT_BY_PATH) */
	size_t npaths, shown;	     /* rows, and how many of them to print */
	const struct rpt_row *fns;   /* rpt_rows(RPT_BY_FUNCTION) */
	size_t nfns;
	uint64_t share_of;
};

/* The path table (with its header line and "... N more"), a blank line,
 * then the function table. */
void paths_table_text(FILE *out, const struct paths_table *t);
/* The JSON document: {"file", "paths": [...], "functions": [...],
 * "totals": {...}} and a newline; totals(j, ctx) writes the members of
 * "totals", which are the command's own. */
void paths_table_json(FILE *out, const char *file, const struct paths_table *t,
		      void (*totals)(struct json_out *j, const void *ctx), const void *ctx);

#endif
