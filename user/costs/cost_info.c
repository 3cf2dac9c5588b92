/* SPDX-License-Identifier: MIT */
/*
 * cost_info.c — the counters section of `wpptrace info` (costs.h): for
 * each recorded counter, every sample on a path or in exactly one miss
 * class, and the exact per-batch total.  Attribution decodes the threads,
 * so it needs the program's metadata, loaded by the caller; when that
 * could not be loaded the section says so and info still describes the
 * rest.
 */
#include "costs/cost_info.h"

#include <inttypes.h>

#include "costs/costs.h"

static void tally_text(FILE *out, const struct cost_data *cd, const struct cost_attribution *a)
{
	char line[1024];
	struct cost_tally t;
	cost_tally_of(cd, a, &t);
	cost_summary(line, sizeof(line), cd, a);
	fprintf(out, "  %s\n", line);
	if (!t.samples)
		return;
	fputs("    on no path:", out);
	for (int m = 0; m < COST_MISS_N; m++)
		fprintf(out, "%s %s %" PRIu64, m ? "," : "", cost_miss_key(m), t.missed[m]);
	fputc('\n', out);
}

int cost_info_print(FILE *out, struct json_out *j, struct wpp_trace *t, struct wpp_modules *mods)
{
	struct cost_data cd;
	int rc = 0;

	if (!t) {
		if (j)
			json_null(j, "counters");
		else
			fputs("counters    not attributed: the trace's metadata could not be "
			      "loaded (above)\n",
			      out);
		return 0;
	}
	if (cost_load(t, &cd) < 0)
		return -1;
	if (j)
		json_array(j, "counters");
	else
		fprintf(out, "counters    %" PRIu32 "\n", cd.ncounters);
	for (uint32_t i = 0; i < cd.ncounters && rc == 0; i++) {
		struct cost_attribution a;
		if (cost_attribute(t, mods, &cd, i, -1, -1, &a) < 0) {
			rc = -1;
			break;
		}
		if (j) {
			struct cost_tally t;
			cost_tally_of(&cd, &a, &t);
			cost_tally_json(j, NULL, &t);
		} else {
			tally_text(out, &cd, &a);
		}
		cost_attribution_free(&a);
	}
	if (j)
		json_close(j);
	cost_data_free(&cd);
	return rc;
}
