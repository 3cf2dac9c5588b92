/* SPDX-License-Identifier: MIT */
/*
 * cost_summary.c — the one line that heads every report with a counter
 * cost (costs.h): the estimate and its sample count, then every sample
 * that landed on no path, by reason, split into misses while the thread
 * recorded (the share that says how good attribution is) and samples
 * outside its recording (start-up, exit: no path ran to be charged).
 * Classes with no samples are left out to keep the line short.
 */
#include "costs/costs.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

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

static const char *const miss_key[COST_MISS_N] = {
    [COST_MISS_BEFORE_IMAGE] = "before_exec",	 [COST_MISS_NOT_RECORDING] = "start_up",
    [COST_MISS_AFTER_END] = "after_last_record", [COST_MISS_LOST] = "lost_batches",
    [COST_MISS_NO_POSITION] = "buffer_switch",	 [COST_MISS_DISCARD] = "discarded",
    [COST_MISS_NO_RECORD] = "no_record",	 [COST_MISS_NOT_A_PATH] = "no_known_path",
    [COST_MISS_NO_THREAD] = "untraced_thread",
};

const char *cost_miss_text(enum cost_miss m)
{
	return m < COST_MISS_N ? miss_text[m] : "?";
}

const char *cost_miss_key(enum cost_miss m)
{
	return m < COST_MISS_N ? miss_key[m] : "?";
}

void cost_tally_of(const struct cost_data *cd, const struct cost_attribution *a,
		   struct cost_tally *t)
{
	const struct wpp_counter_desc *c = &cd->counters[a->counter];
	memset(t, 0, sizeof(*t));
	snprintf(t->counter, sizeof(t->counter), "%s", c->name);
	t->period = c->period;
	t->freq = !!(c->flags & WPP_COUNTER_FREQ);
	t->samples = a->samples;
	t->on_paths = a->nhits;
	t->events_on_paths = a->weight - a->missed_weight;
	for (int m = 0; m < COST_MISS_N; m++) {
		t->missed[m] = a->missed[m];
		*(COST_MISS_OUTSIDE_RECORDING(m) ? &t->outside : &t->unattributed) += a->missed[m];
	}
	/* The share that says how well attribution works is of the samples
	 * taken while the thread recorded: outside that no path ran. */
	t->recording = a->samples - t->outside;
	t->has_counts = a->has_counts;
	t->counted = a->counted;
}

static double share_percent(const struct cost_tally *t)
{
	return t->recording ? 100.0 * (double)t->unattributed / (double)t->recording : 0.0;
}

void cost_tally_json(struct json_out *doc, const char *key, const struct cost_tally *t)
{
	struct json_out j;

	json_key(doc, key);
	/* compact in every document, hot's spaced one too: as it always printed */
	json_init(&j, doc->f, 0);
	json_object(&j, NULL);
	json_string(&j, "counter", t->counter);
	json_bool(&j, "estimated", 1);
	json_u64(&j, t->freq ? "frequency_hz" : "period", t->period);
	json_u64(&j, "samples", t->samples);
	json_u64(&j, "samples_on_paths", t->on_paths);
	json_u64(&j, "events_on_paths", t->events_on_paths);
	json_u64(&j, "samples_while_recording", t->recording);
	json_u64(&j, "unattributed_while_recording", t->unattributed);
	json_double(&j, "unattributed_percent", "%.4f", share_percent(t));
	json_u64(&j, "outside_recording", t->outside);
	json_object(&j, "by_class");
	for (int m = 0; m < COST_MISS_N; m++)
		json_u64(&j, miss_key[m], t->missed[m]);
	json_close(&j);
	if (t->has_counts)
		json_u64(&j, "counted", t->counted);
	else
		json_null(&j, "counted");
	json_close(&j);
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
static void add_classes(struct line *l, const struct cost_tally *a, int outside)
{
	const char *sep = "";
	for (int m = 0; m < COST_MISS_N; m++) {
		if (!COST_MISS_OUTSIDE_RECORDING(m) != !outside || !a->missed[m])
			continue;
		add(l, "%s%" PRIu64 " %s", sep, a->missed[m], miss_text[m]);
		sep = ", ";
	}
}

void cost_summary(char *buf, size_t len, const struct cost_data *cd,
		  const struct cost_attribution *a)
{
	struct cost_tally t;
	struct line l = {buf, len, 0};

	if (len)
		buf[0] = 0;
	cost_tally_of(cd, a, &t);
	if (t.freq)
		add(&l,
		    "%s: ~%" PRIu64 " on paths, estimated from %" PRIu64 " samples (%" PRIu64
		    " Hz, adaptive period)",
		    t.counter, t.events_on_paths, t.samples, t.period);
	else
		add(&l,
		    "%s: ~%" PRIu64 " on paths, estimated from %" PRIu64 " samples (period %" PRIu64
		    ")",
		    t.counter, t.events_on_paths, t.samples, t.period);
	add(&l,
	    "; %" PRIu64 " of the %" PRIu64 " samples taken while recording unattributed (%.2f%%)",
	    t.unattributed, t.recording, share_percent(&t));
	if (t.unattributed) {
		add(&l, " [");
		add_classes(&l, &t, 0);
		add(&l, "]");
	}
	if (t.outside) {
		add(&l, "; %" PRIu64 " outside recording [", t.outside);
		add_classes(&l, &t, 1);
		add(&l, "]");
	}
	if (t.has_counts)
		add(&l, "; counted exactly per batch: %" PRIu64, t.counted);
}
