/* SPDX-License-Identifier: MIT */
#include "record_online.h"

#include <stdlib.h>

#include "log.h"
#include "online.h"
#include "record_sink.h"
#include "kslab_online.h"
#include "sequitur_online.h"

struct record_online_cfg {
	struct wpp_grammar_cfg grammar;
	struct kslab_online_cfg kpaths;
	struct wpp_online_consumer consumers[2];
	size_t n;
};

int record_online_start(struct record_sink *rs, const struct record_opts *o)
{
	struct record_online_cfg *cfg = calloc(1, sizeof(*cfg));

	if (!cfg) {
		wpp_err("record: out of memory");
		return -1;
	}
	if (o->grammar) {
		cfg->grammar.algo = SEQ_LOOKAHEAD;
		cfg->consumers[cfg->n++] = wpp_grammar_consumer(&cfg->grammar);
	}
	if (o->kpaths_k) {
		cfg->kpaths.k = o->kpaths_k;
		cfg->consumers[cfg->n++] = kslab_online_consumer(&cfg->kpaths);
	}
	rs->online_cfg = cfg;
	if (cfg->n == 0)
		return 0;
	rs->online = wpp_online_new(cfg->consumers, cfg->n);
	if (!rs->online) {
		wpp_err("record: out of memory");
		return -1;
	}
	return 0;
}

int record_online_check(struct record_sink *rs)
{
	if (rs->online_cfg && rs->online_cfg->grammar.failed) {
		wpp_err("record: a whole-program-path grammar could not be stored");
		return -1;
	}
	return 0;
}

void record_online_stop(struct record_sink *rs)
{
	wpp_online_free(rs->online);
	rs->online = NULL;
	free(rs->online_cfg);
	rs->online_cfg = NULL;
}
