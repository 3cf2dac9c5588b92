/* SPDX-License-Identifier: MIT */
/*
 * cmd_tpp_quality.c — `wpptrace tpp-quality run.wpp --against full.wpp`:
 * how much a -fwpp-mode=tpp run's path profile (counted paths and obvious
 * ones reconstructed from edge counts, as `paths` reads it) differs from a
 * full Ball-Larus profile of the same run (a count or paths build of the
 * same source), as the TPP paper measures it: the accuracy of definite
 * flow per function and summed (report/tpp_quality.h), with the over- and
 * undercounts behind it and the executions TPP counted only as cold or as
 * pieces of disconnected loops.  As the paper's footnote 5 says, both
 * profiles' paths of a planned function are split where its plan cuts
 * them (wpp_tpp_split_path) and compared as TPP paths; a cold piece is an
 * undercount.
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

/* A growing list of paths. */
struct plist {
	struct tppq_path *v;
	size_t n, cap;
};

static void push(struct plist *l, struct tppq_path p)
{
	if (l->n == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 256;
		if (!(l->v = realloc(l->v, l->cap * sizeof(*l->v))))
			wpp_die("out of memory");
	}
	l->v[l->n++] = p;
}

/* The TPP run's functions with a plan (by stable id), and their cold
 * counter executions. */
struct tpp_fns {
	const struct wpp_fn **fn;
	uint64_t *cold, *pieces;
	size_t n, cap;
};

static size_t fn_slot(struct tpp_fns *t, const struct wpp_fn *fn)
{
	for (size_t i = 0; i < t->n; i++)
		if (t->fn[i]->stable_id == fn->stable_id)
			return i;
	if (t->n == t->cap) {
		t->cap = t->cap ? 2 * t->cap : 64;
		t->fn = realloc(t->fn, t->cap * sizeof(*t->fn));
		t->cold = realloc(t->cold, t->cap * sizeof(*t->cold));
		t->pieces = realloc(t->pieces, t->cap * sizeof(*t->pieces));
		if (!t->fn || !t->cold || !t->pieces)
			wpp_die("out of memory");
	}
	t->fn[t->n] = fn;
	t->cold[t->n] = t->pieces[t->n] = 0;
	return t->n++;
}

static const struct wpp_fn *plan_of(const struct tpp_fns *t, uint64_t key)
{
	for (size_t i = 0; i < t->n; i++)
		if (t->fn[i]->stable_id == key)
			return t->fn[i];
	return NULL;
}

/* A path's pieces, collected until the split succeeds. */
struct pieces {
	struct plist *out;
	size_t first;
	uint64_t key, count, *cold_serial;
};

static void add_piece(void *ctx, int cold, uint64_t hot_id, uint32_t nblocks)
{
	struct pieces *p = ctx;
	/* a cold piece is no TPP path: an id TPP never has, its own */
	uint64_t id = cold ? UINT64_MAX - (*p->cold_serial)++ : hot_id;
	push(p->out, (struct tppq_path){p->key, id, p->count, nblocks});
}

/* The profile's paths as (stable id, path id, count, blocks); a function
 * with a plan in the TPP run in the plan's terms, split where it cuts. */
static void paths_of(const struct rpt_profile *p, const struct tpp_fns *t, struct plist *out,
		     uint64_t *cold_serial, uint64_t *unsplit)
{
	for (size_t i = 0; i < p->npaths; i++) {
		const struct rpt_path *r = &p->paths[i];
		if (r->is_block)
			continue;
		const struct wpp_fn *plan = plan_of(t, r->fn->stable_id);
		struct pieces pc = {out, out->n, r->fn->stable_id, r->count, cold_serial};
		if (plan && plan->npaths == r->fn->npaths &&
		    wpp_tpp_split_path(plan, r->id, add_piece, &pc) == 0)
			continue;
		out->n = pc.first; /* compared by Ball-Larus id */
		*unsplit += plan != NULL;
		push(out, (struct tppq_path){r->fn->stable_id, r->id, r->count, r->nblocks});
	}
}

/* The TPP run's plan functions, cold counters, and its loop pieces as
 * TPP paths. */
static void scan_tpp(struct session *s, const struct rpt_profile *p, struct tpp_fns *t,
		     struct plist *tpp)
{
	for (size_t i = 0; i < p->npaths; i++)
		if (!p->paths[i].is_block && p->paths[i].fn->tpp)
			fn_slot(t, p->paths[i].fn);
	for (size_t th = 0; th < s->trace->nthreads; th++) {
		struct wpp_decoder *d =
		    wpp_decoder_open(&s->trace->threads[th], s->mods, WPP_DECODE_RUNS);
		struct wpp_event ev;
		if (!d)
			wpp_die("out of memory");
		while (wpp_decoder_next(d, &ev) == 1) {
			if (ev.kind != WPP_EV_UNATTRIBUTED || !ev.fn || !ev.fn->tpp ||
			    !(ev.tpp_cold || ev.tpp_piece))
				continue;
			size_t k = fn_slot(t, ev.fn);
			uint64_t hot;
			uint32_t nb;
			if (ev.tpp_cold)
				t->cold[k] += ev.times;
			else if (wpp_tpp_counter_hot(ev.fn, ev.value, &hot, &nb) == 0) {
				t->pieces[k] += ev.times;
				push(tpp, (struct tppq_path){ev.fn->stable_id, hot, ev.times, nb});
			}
		}
		wpp_decoder_close(d);
	}
}

static int cmp_obvious_id(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = ((const struct wpp_meta_tpp_obvious *)b)->id;
	return (x > y) - (x < y);
}

/* What each planned function's TPP paths cost: executions counted at a
 * recording point or on a defining edge (the plan's obvious table,
 * sorted by id), and its counters (slots, the cold counter, one per
 * obvious path).  tpp: the TPP run's paths in TPP ids, sorted by
 * function as tppq_compare leaves them; f by increasing key too. */
static void cost_breakdown(const struct tpp_fns *t, const struct plist *tpp, struct tppq_fn *f,
			   size_t n)
{
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		while (k < tpp->n && tpp->v[k].fn_key < f[i].fn_key)
			k++;
		const struct wpp_fn *plan = plan_of(t, f[i].fn_key);
		if (!plan)
			continue;
		const struct wpp_tpp_fn_model *m = plan->tpp;
		f[i].counters = m->nslots + 1 + m->nobvious;
		for (; k < tpp->n && tpp->v[k].fn_key == f[i].fn_key; k++) {
			const struct tppq_path *p = &tpp->v[k];
			if (p->id >= m->hot_npaths)
				continue;
			if (bsearch(&p->id, m->obvious, m->nobvious, sizeof(*m->obvious),
				    cmp_obvious_id))
				f[i].obvious += p->count;
			else
				f[i].counted += p->count;
		}
	}
}

/* The function of key (for its name). */
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

static double pct(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

static void print_text(const char *file, const char *against, const struct tppq_fn *f, size_t n,
		       const struct tppq_fn *sum, const struct rpt_profile *tp,
		       const struct rpt_profile *rp)
{
	printf("TPP quality of %s against %s (AoDF: accuracy of definite flow)\n\n", file, against);
	printf("%7s %12s %12s %12s %12s %10s %10s %12s %12s %6s  %s\n", "AoDF%", "full", "tpp",
	       "over", "under", "cold", "pieces", "counted", "obvious", "ctrs", "function");
	for (size_t i = 0; i < n; i++) {
		const struct wpp_fn *fn = fn_named(tp, rp, f[i].fn_key);
		printf("%7.2f %12" PRIu64 " %12" PRIu64 " %12" PRIu64 " %12" PRIu64 " %10" PRIu64
		       " %10" PRIu64 " %12" PRIu64 " %12" PRIu64 " %6" PRIu64 "  %s\n",
		       tppq_aodf(f[i].total, f[i].over, f[i].under), f[i].ref_exec, f[i].tpp_exec,
		       f[i].over, f[i].under, f[i].cold, f[i].pieces, f[i].counted, f[i].obvious,
		       f[i].counters, fn && fn->name[0] ? fn->name : "?");
	}
	printf("\nAoDF %.2f%%: over %.2f%%, under %.2f%% of %" PRIu64
	       " block executions in %zu functions; %" PRIu64 " of %" PRIu64
	       " path (piece) executions counted cold, %" PRIu64 " in loop pieces\n",
	       tppq_aodf(sum->total, sum->over, sum->under), pct(sum->over, sum->total),
	       pct(sum->under, sum->total), sum->total, n, sum->cold, sum->ref_exec, sum->pieces);
	printf("TPP increments: %" PRIu64 " at recording points, %" PRIu64
	       " on defining edges, %" PRIu64 " cold; %" PRIu64 " counters\n",
	       sum->counted, sum->obvious, sum->cold, sum->counters);
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
	json_u64(&j, "counted", sum->counted);
	json_u64(&j, "obvious", sum->obvious);
	json_u64(&j, "counters", sum->counters);
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
		json_u64(&j, "counted", f[i].counted);
		json_u64(&j, "obvious", f[i].obvious);
		json_u64(&j, "counters", f[i].counters);
		json_close(&j);
	}
	json_close(&j);
	json_close(&j);
	fputc('\n', stdout);
}

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

/* Whether any function ran in both profiles.  None means --against
 * recorded another program (or another build's functions, all changed):
 * the comparison would say AoDF 0 % for a mistake on the command line. */
static int share_a_function(const struct tppq_fn *f, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (f[i].ref_exec && f[i].tpp_exec)
			return 1;
	return 0;
}

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
	    OPT_FORMAT(&json, opt_text_json),
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
	/* a file that ends early still compares what is intact, and says so */
	rc = s.exit_status != WPP_EXIT_OK ? s.exit_status : r.exit_status;
	if (session_find_tu(&r, NULL, is_tpp_unit)) {
		wpp_err("tpp-quality: %s: built with -fwpp-mode=tpp itself; --against needs a full "
			"profile (a count or paths build)",
			against);
		rc = WPP_EXIT_ERROR;
		goto out;
	}
	struct plist ref = {0}, tpp = {0};
	struct tpp_fns plans = {0};
	uint64_t serial = 0, unsplit = 0;
	size_t n;
	struct tppq_fn *f, sum = {0};
	scan_tpp(&s, &tp, &plans, &tpp);
	paths_of(&rp, &plans, &ref, &serial, &unsplit);
	paths_of(&tp, &plans, &tpp, &serial, &unsplit);
	if (tppq_compare(ref.v, ref.n, tpp.v, tpp.n, &f, &n))
		wpp_die("out of memory");
	for (size_t i = 0; i < n; i++) {
		const struct wpp_fn *plan = plan_of(&plans, f[i].fn_key);
		for (size_t k = 0; plan && k < plans.n; k++)
			if (plans.fn[k] == plan)
				f[i].cold = plans.cold[k], f[i].pieces = plans.pieces[k];
	}
	if (tp.total_count && !share_a_function(f, n)) {
		wpp_err("tpp-quality: no function ran in both %s and %s: --against must record "
			"the same program (a count or paths build of its source)",
			file, against);
		rc = WPP_EXIT_ERROR;
		goto done;
	}
	cost_breakdown(&plans, &tpp, f, n);
	if (unsplit)
		wpp_warn("tpp-quality: %" PRIu64 " paths of planned functions could not be split "
			 "by their plan; compared by Ball-Larus id",
			 unsplit);
	for (size_t i = 0; i < n; i++) {
		sum.ref_exec += f[i].ref_exec, sum.tpp_exec += f[i].tpp_exec;
		sum.total += f[i].total, sum.over += f[i].over, sum.under += f[i].under;
		sum.cold += f[i].cold, sum.pieces += f[i].pieces;
		sum.counted += f[i].counted, sum.obvious += f[i].obvious;
		sum.counters += f[i].counters;
	}
	if (json)
		print_json(file, against, f, n, &sum, &tp, &rp);
	else
		print_text(file, against, f, n, &sum, &tp, &rp);
done:
	free(ref.v), free(tpp.v), free(f), free(plans.fn), free(plans.cold), free(plans.pieces);
out:
	rpt_profile_free(&rp);
	session_close(&r);
	rpt_profile_free(&tp);
	session_close(&s);
	return rc;
}
