/* SPDX-License-Identifier: MIT */
/*
 * cost_summary.c — the one line that heads every report with a counter
 * cost (costs.h): the estimate and its sample count, then every sample
 * that landed on no path, by reason, split into misses while the thread
 * recorded (the share that says how good attribution is) and samples
 * outside its recording (start-up, exit: no path ran to be charged).
 * Classes with no samples are left out to keep the line short.
 */
#include "costs.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>

static const char *const miss_text[COST_MISS_N] = {
	[COST_MISS_BEFORE_IMAGE] = "before the program's exec",
	[COST_MISS_NOT_RECORDING] = "in start-up before the thread's first record",
	[COST_MISS_AFTER_END] = "after the thread's last record",
	[COST_MISS_LOST] = "in lost batches",
	[COST_MISS_NO_POSITION] = "in the runtime's buffer switch",
	[COST_MISS_DISCARD] = "while the runtime discarded records",
	[COST_MISS_NO_RECORD] = "where no record starts",
	[COST_MISS_NOT_A_PATH] = "on records with no known path",
	[COST_MISS_NO_THREAD] = "in threads with no trace",
};

const char *cost_miss_text(enum cost_miss m)
{
	return m < COST_MISS_N ? miss_text[m] : "?";
}

struct line {
	char *buf;
	size_t len, used;
};

static void add(struct line *l, const char *fmt, ...)
{
	va_list ap;
	if (l->used >= l->len)
		return;
	va_start(ap, fmt);
	int n = vsnprintf(l->buf + l->used, l->len - l->used, fmt, ap);
	va_end(ap);
	if (n > 0)
		l->used += (size_t)n;
}

/* ", N reason" for each class of the group with samples. */
static void add_classes(struct line *l, const struct cost_attribution *a, int outside)
{
	const char *sep = "";
	for (int m = 0; m < COST_MISS_N; m++) {
		if (!COST_MISS_OUTSIDE_RECORDING(m) != !outside || !a->missed[m])
			continue;
		add(l, "%s%" PRIu64 " %s", sep, a->missed[m], miss_text[m]);
		sep = ", ";
	}
}

void cost_summary(char *buf, size_t len, const struct cost_data *cd, const struct cost_attribution *a)
{
	const struct wpp_counter_desc *c = &cd->counters[a->counter];
	struct line l = {buf, len, 0};
	uint64_t missed = 0, outside = 0;

	if (len)
		buf[0] = 0;
	for (int m = 0; m < COST_MISS_N; m++)
		*(COST_MISS_OUTSIDE_RECORDING(m) ? &outside : &missed) += a->missed[m];
	/* The share that says how well attribution works is of the samples
	 * taken while the thread recorded: outside that no path ran. */
	uint64_t recording = a->samples - outside;
	if (c->flags & WPP_COUNTER_FREQ)
		add(&l, "%s: ~%" PRIu64 " on paths, estimated from %" PRIu64 " samples (%" PRIu64 " Hz, adaptive period)",
		    c->name, a->weight - a->missed_weight, a->samples, c->period);
	else
		add(&l, "%s: ~%" PRIu64 " on paths, estimated from %" PRIu64 " samples (period %" PRIu64 ")", c->name,
		    a->weight - a->missed_weight, a->samples, c->period);
	add(&l, "; %" PRIu64 " of the %" PRIu64 " samples taken while recording unattributed (%.2f%%)", missed,
	    recording, recording ? 100.0 * (double)missed / (double)recording : 0.0);
	if (missed) {
		add(&l, " [");
		add_classes(&l, a, 0);
		add(&l, "]");
	}
	if (outside) {
		add(&l, "; %" PRIu64 " outside recording [", outside);
		add_classes(&l, a, 1);
		add(&l, "]");
	}
	if (a->has_counts)
		add(&l, "; counted exactly per batch: %" PRIu64, a->counted);
}
