/* SPDX-License-Identifier: MIT */
/*
 * cmd_tpp_quality.c — `wpptrace tpp-quality run.wpp --against full.wpp`:
 * how much a -fwpp-mode=tpp run's path profile (counted paths and obvious
 * ones reconstructed from edge counts, as `paths` reads it) differs from a
 * full Ball-Larus profile of the same run (a count or paths build of the
 * same source), as the TPP paper measures it: the accuracy of definite
 * flow per function and summed (report/tpp_quality.h), with the over- and
 * undercounts behind it and the executions TPP counted only as cold or as
 * pieces of disconnected loops.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "common/json_out.h"
#include "common/log.h"
#include "common/options.h"
#include "decode/decoder.h"
#include "decode/session.h"
#include "report/profile.h"
#include "report/tpp_quality.h"

static int is_tpp_unit(const struct wpp_tu *tu)
{
	return tu->mode == WPP_MODE_TPP;
}

/* The profile's paths as (stable id, path id, count, blocks). */
static struct tppq_path *paths_of(const struct rpt_profile *p, size_t *n)
{
	struct tppq_path *q = malloc((p->npaths + 1) * sizeof(*q));
	if (!q)
		wpp_die("out of memory");
	*n = 0;
	for (size_t i = 0; i < p->npaths; i++)
		if (!p->paths[i].is_block)
			q[(*n)++] = (struct tppq_path){p->paths[i].fn->stable_id, p->paths[i].id,
						       p->paths[i].count, p->paths[i].nblocks};
	return q;
}

/* The function of f's key in the TPP profile (for its name). */
static const struct wpp_fn *fn_named(const struct rpt_profile *a, const struct rpt_profile *b,
				     uint64_t key)
{
	for (size_t i = 0; i < a->npaths; i++)
		if (!a->paths[i].is_block && a->paths[i].fn->stable_id == key)
			return a->paths[i].fn;
	for (size_t i = 0; i < b->npaths; i++)
		if (!b->paths[i].is_block && b->paths[i].fn->stable_id == key)
			return b->paths[i].fn;
	return NULL;
}

/* The TPP run's cold-counter and loop-piece executions, per function. */
static void add_cold(struct session *s, struct tppq_fn *f, size_t n)
{
	for (size_t t = 0; t < s->trace->nthreads; t++) {
		struct wpp_decoder *d =
		    wpp_decoder_open(&s->trace->threads[t], s->mods, WPP_DECODE_RUNS);
		struct wpp_event ev;
		if (!d)
			wpp_die("out of memory");
		while (wpp_decoder_next(d, &ev) == 1) {
			if (ev.kind != WPP_EV_UNATTRIBUTED || !ev.fn ||
			    !(ev.tpp_cold || ev.tpp_piece))
				continue;
			size_t lo = 0, hi = n;
			while (lo < hi) { /* f is sorted by key */
				size_t mid = lo + (hi - lo) / 2;
				if (f[mid].fn_key < ev.fn->stable_id)
					lo = mid + 1;
				else
					hi = mid;
			}
			if (lo < n && f[lo].fn_key == ev.fn->stable_id) {
				if (ev.tpp_cold)
					f[lo].cold += ev.times;
				else
					f[lo].pieces += ev.times;
			}
		}
		wpp_decoder_close(d);
	}
}

static double pct(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

static void print_text(const char *file, const char *against, const struct tppq_fn *f, size_t n,
		       const struct tppq_fn *sum, const struct rpt_profile *tp,
		       const struct rpt_profile *rp)
{
	printf("TPP quality of %s against %s (AoDF: accuracy of definite flow)\n\n", file, against);
	printf("%7s %12s %12s %12s %12s %10s %10s  %s\n", "AoDF%", "full", "tpp", "over", "under",
	       "cold", "pieces", "function");
	for (size_t i = 0; i < n; i++) {
		const struct wpp_fn *fn = fn_named(tp, rp, f[i].fn_key);
		printf("%7.2f %12" PRIu64 " %12" PRIu64 " %12" PRIu64 " %12" PRIu64 " %10" PRIu64
		       " %10" PRIu64 "  %s\n",
		       tppq_aodf(f[i].total, f[i].over, f[i].under), f[i].ref_exec, f[i].tpp_exec,
		       f[i].over, f[i].under, f[i].cold, f[i].pieces,
		       fn && fn->name[0] ? fn->name : "?");
	}
	printf("\nAoDF %.2f%%: over %.2f%%, under %.2f%% of %" PRIu64
	       " block executions in %zu functions; %" PRIu64 " of %" PRIu64
	       " path executions counted cold, %" PRIu64 " in loop pieces\n",
	       tppq_aodf(sum->total, sum->over, sum->under), pct(sum->over, sum->total),
	       pct(sum->under, sum->total), sum->total, n, sum->cold, sum->ref_exec, sum->pieces);
}

static void print_json(const char *file, const char *against, const struct tppq_fn *f, size_t n,
		       const struct tppq_fn *sum, const struct rpt_profile *tp,
		       const struct rpt_profile *rp)
{
	struct json_out j;
	json_init(&j, stdout, 1);
	json_object(&j, NULL);
	json_string(&j, "file", file);
	json_string(&j, "against", against);
	json_double(&j, "aodf", "%.4f", tppq_aodf(sum->total, sum->over, sum->under));
	json_u64(&j, "total", sum->total);
	json_u64(&j, "over", sum->over);
	json_u64(&j, "under", sum->under);
	json_u64(&j, "cold", sum->cold);
	json_u64(&j, "pieces", sum->pieces);
	json_array(&j, "functions");
	for (size_t i = 0; i < n; i++) {
		const struct wpp_fn *fn = fn_named(tp, rp, f[i].fn_key);
		json_object(&j, NULL);
		json_string(&j, "function", fn ? fn->name : NULL);
		json_double(&j, "aodf", "%.4f", tppq_aodf(f[i].total, f[i].over, f[i].under));
		json_u64(&j, "full_executions", f[i].ref_exec);
		json_u64(&j, "tpp_executions", f[i].tpp_exec);
		json_u64(&j, "total", f[i].total);
		json_u64(&j, "over", f[i].over);
		json_u64(&j, "under", f[i].under);
		json_u64(&j, "cold", f[i].cold);
		json_u64(&j, "pieces", f[i].pieces);
		json_close(&j);
	}
	json_close(&j);
	json_close(&j);
	fputc('\n', stdout);
}

static const char *const formats[] = {"text", "json", NULL};

static const struct opt_command tpp_quality_cmd = {
    .name = "tpp-quality",
    OPT_OPERANDS("one .wpp file", 1, 1),
    .usage = "tpp-quality run.wpp --against full.wpp [options]",
    .about = "For a recording of a program built with wppcc -fwpp-mode=tpp: how far its\n"
	     "path profile (counted and obvious paths) is from full.wpp, a recording of\n"
	     "the same run by a count or paths build: per function and summed, the\n"
	     "accuracy of definite flow (AoDF = 100% - over% - under% of the full\n"
	     "profile's executions x blocks), and the executions TPP counted only as\n"
	     "cold or as disconnected loops' pieces.\n"};

static int load(struct session *s, struct rpt_profile *p, const char *file)
{
	if (session_open(s, file))
		return -1;
	if (rpt_profile_build(p, file, s->trace, s->mods, -1, -1, -1) < 0) {
		session_close(s);
		return -1;
	}
	return 0;
}

int cmd_tpp_quality(int argc, char **argv)
{
	const char *against = NULL;
	int json = 0, rc, first;
	struct session s, r;
	struct rpt_profile tp, rp;
	struct opt table[] = {
	    OPT_STRING_('a', "against", "FILE", "the full profile of the same run (required)",
			&against),
	    OPT_FORMAT(&json, formats),
	    OPT_END_,
	};

	if ((rc = opts_parse(&tpp_quality_cmd, table, argc, argv, &first)) != 0)
		return rc > 0 ? WPP_EXIT_OK : WPP_EXIT_USAGE;
	const char *file = argv[first];
	if (!against) {
		wpp_err(
		    "tpp-quality: --against FILE is required (a full recording of the same run)");
		return WPP_EXIT_USAGE;
	}
	if (load(&s, &tp, file))
		return WPP_EXIT_ERROR;
	if (!session_find_tu(&s, NULL, is_tpp_unit)) {
		wpp_err("tpp-quality: %s: no module of the recording was built with -fwpp-mode=tpp",
			file);
		rpt_profile_free(&tp);
		session_close(&s);
		return WPP_EXIT_ERROR;
	}
	if (load(&r, &rp, against)) {
		rpt_profile_free(&tp);
		session_close(&s);
		return WPP_EXIT_ERROR;
	}
	rc = WPP_EXIT_OK;
	if (session_find_tu(&r, NULL, is_tpp_unit)) {
		wpp_err("tpp-quality: %s: built with -fwpp-mode=tpp itself; --against needs a full "
			"profile (a count or paths build)",
			against);
		rc = WPP_EXIT_ERROR;
		goto out;
	}
	size_t nref, ntpp, n;
	struct tppq_path *ref = paths_of(&rp, &nref), *tpp = paths_of(&tp, &ntpp);
	struct tppq_fn *f, sum = {0};
	if (tppq_compare(ref, nref, tpp, ntpp, &f, &n))
		wpp_die("out of memory");
	add_cold(&s, f, n);
	for (size_t i = 0; i < n; i++) {
		sum.ref_exec += f[i].ref_exec, sum.tpp_exec += f[i].tpp_exec;
		sum.total += f[i].total, sum.over += f[i].over, sum.under += f[i].under;
		sum.cold += f[i].cold, sum.pieces += f[i].pieces;
	}
	if (json)
		print_json(file, against, f, n, &sum, &tp, &rp);
	else
		print_text(file, against, f, n, &sum, &tp, &rp);
	free(ref), free(tpp), free(f);
out:
	rpt_profile_free(&rp);
	session_close(&r);
	rpt_profile_free(&tp);
	session_close(&s);
	return rc;
}
