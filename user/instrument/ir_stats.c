/* SPDX-License-Identifier: MIT */
/*
 * ir_stats.c — interesting paths per function and --wpp-stats (see
 * ir_stats.h).  Kept out of ir_function.c so the statistics cost nothing
 * and change nothing when not asked for: one hook per function, one open
 * and one close per translation unit.  Which functions of hand-written
 * lists the unit compiled goes to wppcc (listed_seen.h), which
 * alone sees the whole build and says which listed names none compiled.
 */
#include "instrument/ir_stats.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "instrument/interesting_read.h"
#include "instrument/ir_counts.h"
#include "instrument/listed_seen.h"
#include "instrument/ppp.h"
#include "instrument/ppp_plan.h"
#include "instrument/profile_program.h"
#include "wpp/meta_format.h"

/* Stale functions named in the warning before "and N more". */
#define STALE_NAMED 3

struct wpp_ir_stats {
	/* --wpp-stats: the unit's lines collect in memory and leave in one
	 * write at the end, so the units of a parallel build appending to
	 * one file never cut into each other's lines.  NULL: not asked. */
	FILE *out;
	char *buf;
	size_t buflen;
	const char *dest; /* "-" or the file */
	struct wpp_interesting set;
	int has_set;
	uint64_t ppp_max; /* the largest PPP interval an array takes */
	char *source;
	char *source_field; /* source as set files write it (wpp/interesting.h) */
	uint32_t nfns, with_interesting, hashed, nstale;
	uint32_t ppp_hashed;	/* functions whose PPP interval is above the limit */
	uint32_t gamma_bins[4]; /* <= 1.0, <= 1.1, <= 2, more */
	/* -fwpp-mode=ppp: functions per enum wpp_ppp_how */
	uint32_t plan_hows[WPP_PPP_WIDE + 1];
	uint32_t cache_cheaper; /* PLAIN: the path cache beats PPP (not in plan_hows) */
	int ppp_mode;
	char stale_names[STALE_NAMED][96];
	uint32_t nlisted_past; /* stale: a hand-written list's id past its paths */
	/* the listed names this unit compiled, for wppcc (listed_seen.h) */
	int seen_fd;
	FILE *seen;
	char *seen_buf;
	size_t seen_len;
};

/* WPP_INTERESTING's lines as a list of paths. */
static int load_set(struct wpp_ir_stats *st, const char *files)
{
	char *copy = strdup(files), why[512];
	const char **paths;
	size_t n = 1;
	int rc = -1;

	if (!copy)
		return -1;
	for (const char *p = copy; *p; p++)
		n += *p == '\n';
	if ((paths = malloc(n * sizeof(*paths)))) {
		n = 0;
		for (char *save = NULL, *p = strtok_r(copy, "\n", &save); p;
		     p = strtok_r(NULL, "\n", &save))
			paths[n++] = p;
		rc = wpp_interesting_load(&st->set, paths, n, why, sizeof(why));
		if (rc)
			fprintf(stderr, "wppcc: interesting paths: %s; numbering without them\n",
				why);
		free(paths);
	}
	free(copy);
	return rc;
}

/* wppcc's report file for the listed names compiled, when it asked for
 * one (a regular file: anything else an inherited value names is left
 * alone); -1 when not. */
static int seen_report_fd(void)
{
	const char *v = getenv(WPP_LISTED_SEEN_FD_ENV);
	struct stat sb;
	char *end;
	long fd;

	if (!v || !*v)
		return -1;
	errno = 0;
	fd = strtol(v, &end, 10);
	if (errno || *end || fd < 3 || fd > 65535 || fstat((int)fd, &sb) < 0 ||
	    !S_ISREG(sb.st_mode))
		return -1;
	return (int)fd;
}

struct wpp_ir_stats *wpp_ir_stats_open(const char *source, size_t source_len)
{
	const char *out = getenv("WPP_STATS"), *files = getenv("WPP_INTERESTING");
	struct wpp_ir_stats *st;

	if (!(out && *out) && !(files && *files))
		return NULL;
	if (!(st = calloc(1, sizeof(*st))) || !(st->source = strndup(source, source_len)) ||
	    !(st->source_field = strndup(source, source_len))) {
		fprintf(stderr, "wppcc: out of memory for --wpp-stats\n");
		if (st)
			free(st->source);
		free(st);
		return NULL;
	}
	for (char *c = st->source_field; *c; c++)
		if ((unsigned char)*c <= ' ' || *c == 0x7f)
			*c = '?';
	st->ppp_max = wpp_ppp_max_interval(wpp_counts_array_limit());
	if (files && *files)
		st->has_set = load_set(st, files) == 0;
	st->seen_fd = st->has_set && st->set.nrecorded < st->set.nfns ? seen_report_fd() : -1;
	if (st->seen_fd >= 0 && (st->seen = open_memstream(&st->seen_buf, &st->seen_len)))
		fputs(WPP_LISTED_SEEN_UNIT "\n", st->seen);
	if (out && *out) {
		st->dest = out;
		if (!(st->out = open_memstream(&st->buf, &st->buflen)))
			fprintf(stderr, "wppcc: out of memory for --wpp-stats\n");
	}
	return st;
}

static void note_stale(struct wpp_ir_stats *st, const char *name, size_t len)
{
	if (st->nstale < STALE_NAMED)
		snprintf(st->stale_names[st->nstale], sizeof(st->stale_names[0]), "%.*s", (int)len,
			 name);
	st->nstale++;
}

/* The sets as --wpp-interesting named them (wppcc hands the pass the
 * files it converted recordings into), for the user's messages. */
static const char *interesting_name(const struct wpp_ir_stats *st)
{
	const char *given = getenv("WPP_INTERESTING_NAME");
	if (given && *given)
		return given;
	return st->set.nfiles ? st->set.files[0] : "?";
}

/* A hand-written list gave fn (cname) an id past its d->npaths paths:
 * say which and where, once per function. */
static void warn_listed_past(const struct wpp_ir_stats *st, const struct wpp_interesting_fn *l,
			     const char *cname, uint64_t npaths)
{
	uint32_t k = 0;

	while (k + 1 < l->nids && l->ids[k] < npaths)
		k++;
	fprintf(stderr,
		"wppcc: warning: %s: path id %llu is past %s's %llu paths (its ids are 0 to %llu; "
		"line %u of %s); %s is numbered without interesting paths\n",
		st->source, (unsigned long long)l->ids[k], cname, (unsigned long long)npaths,
		(unsigned long long)(npaths ? npaths - 1 : 0), l->list_lines[k],
		st->set.files[l->list_files[k]], cname);
}

int wpp_ir_stats_lookup(struct wpp_ir_stats *st, LLVMValueRef fn, uint64_t stable_id,
			const struct wpp_dag *d, uint64_t **ids, uint64_t **counts, size_t *nids)
{
	size_t len;
	const char *name;
	char cname[1024];
	int match;

	*ids = NULL;
	*counts = NULL;
	*nids = 0;
	if (!st || !st->has_set)
		return WPP_INTERESTING_NONE;
	name = LLVMGetValueName2(fn, &len);
	snprintf(cname, sizeof(cname), "%.*s", (int)len, name);
	const struct wpp_interesting_fn *l = wpp_interesting_listed(&st->set, cname);
	if (l && st->seen)
		fprintf(st->seen, "%s\n", cname);
	match = wpp_interesting_lookup(&st->set, stable_id, d->nedges, cname, st->source_field, ids,
				       counts, nids);
	if (match < 0) {
		fprintf(stderr, "wppcc: out of memory reading interesting paths of %s\n", cname);
		return WPP_INTERESTING_NONE;
	}
	const char *their_main;
	if (match == WPP_INTERESTING_NONE && strcmp(cname, "main") == 0 &&
	    wpp_profile_other_program(their_main = wpp_interesting_source_of(&st->set, "main"),
				      st->source, strlen(st->source)))
		fprintf(stderr,
			"wppcc: warning: the interesting paths of %s were recorded from another "
			"program: its main is in %s, this program's in %s\n",
			interesting_name(st), their_main, st->source);
	if (match == WPP_INTERESTING_FOUND && *nids && (*ids)[*nids - 1] >= d->npaths) {
		/* an id beyond its paths: a list for another build */
		if (l && l->ids[l->nids - 1] >= d->npaths) {
			warn_listed_past(st, l, cname, d->npaths);
			st->nlisted_past++;
		} else {
			note_stale(st, name, len);
		}
		match = WPP_INTERESTING_STALE;
	} else if (match == WPP_INTERESTING_STALE) {
		note_stale(st, name, len);
	}
	if (match == WPP_INTERESTING_STALE) {
		free(*ids);
		free(*counts);
		*ids = *counts = NULL;
		*nids = 0;
	}
	return match;
}

/* PPP mode: what the pass did with the function, and the tallies. */
static void note_plan(struct wpp_ir_stats *st, const struct wpp_ppp_plan *plan)
{
	fprintf(st->out, " counted=%s", wpp_ppp_plan_counted(plan));
	/* why a function counting would hash went the way it did */
	if (plan->costed)
		fprintf(st->out,
			" (per path execution: ppp %.2f, cache %.2f instructions; %u of %u "
			"interesting paths lose their cache pair, %.1f%% of executions)",
			plan->cost.ppp, plan->cost.count, plan->cost.conflicts, plan->nids,
			100.0 * plan->cost.missed);
	if (plan->cache)
		st->cache_cheaper++;
	else if (plan->how >= WPP_PPP_ARRAY && plan->how <= WPP_PPP_WIDE)
		st->plan_hows[plan->how]++;
	st->ppp_mode = 1;
}

void wpp_ir_stats_function(struct wpp_ir_stats *st, LLVMValueRef fn, const struct wpp_dag *d,
			   const uint64_t *ids, size_t nids, int stale, int hashes,
			   const struct wpp_ppp_plan *plan)
{
	size_t len;
	const char *name;
	char why[160] = "";
	struct wpp_ppp ppp = {0};
	uint64_t interval = 0;
	uint32_t ninteresting = (uint32_t)nids;
	double g = 0;
	int ok;

	if (!st || !st->out)
		return;
	name = LLVMGetValueName2(fn, &len);
	if (plan) { /* the pass numbered it already */
		ok = plan->how != WPP_PPP_WIDE || !plan->why[0];
		interval = plan->interval;
		g = plan->gamma;
		snprintf(why, sizeof(why), "%s", plan->why);
	} else if ((ok = wpp_ppp_number(d, ids, nids, &ppp, why, sizeof(why)) == 0)) {
		interval = ppp.interval;
		ninteresting = ppp.npaths;
		g = wpp_ppp_compactness(&ppp);
		wpp_ppp_free(&ppp);
	}
	int hashed = hashes;
	st->nfns++;
	st->hashed += hashed;
	fprintf(st->out, "wpp-stats: %.*s paths=%llu interesting=%u", (int)len, name,
		(unsigned long long)d->npaths, ninteresting);
	const char *ppp_counting = "-";
	if (ok && ninteresting) {
		st->with_interesting++;
		st->gamma_bins[g <= 1.0 ? 0 : g <= 1.1 ? 1 : g <= 2.0 ? 2 : 3]++;
		ppp_counting = interval > st->ppp_max ? "hash" : "array";
		st->ppp_hashed += interval > st->ppp_max;
		fprintf(st->out, " interval=%llu gamma=%.3f", (unsigned long long)interval, g);
	} else if (ok) {
		fprintf(st->out, " interval=0 gamma=-");
	} else {
		fprintf(st->out, " interval=? gamma=?");
	}
	fprintf(st->out, " counting=%s ppp=%s%s", hashed ? "hash" : "array", ppp_counting,
		stale ? " stale" : "");
	if (plan)
		note_plan(st, plan);
	if (!ok)
		fprintf(st->out, " (%s)", why);
	fputc('\n', st->out);
}

/* The stats file is appended to by every unit of a build, so it cannot be
 * created fresh as out_file.h does; it is opened so that what another user
 * put at the name cannot take the lines (docs/security.md, "Files"): a
 * symbolic link is not followed, a FIFO cannot block the compiler, and
 * only a regular file of the compiling user is written. */
static int open_stats_file(const char *dest)
{
	struct stat st;
	int fd =
	    open(dest, O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0600);
	if (fd < 0) {
		fprintf(stderr, "wppcc: --wpp-stats %s: %s\n", dest,
			errno == ELOOP ? "a symbolic link (not followed: name the file itself)"
				       : strerror(errno));
		return -1;
	}
	const char *why = NULL;
	if (fstat(fd, &st) < 0)
		why = strerror(errno);
	else if (!S_ISREG(st.st_mode))
		why = "not a regular file";
	else if (st.st_uid != geteuid())
		why = "belongs to another user";
	if (why) {
		fprintf(stderr, "wppcc: --wpp-stats %s: %s\n", dest, why);
		close(fd);
		return -1;
	}
	return fd;
}

/* buf to fd in one write where the file allows; errors name what (the
 * option, then dest). */
static void write_all(int fd, const char *what, const char *dest, const char *buf, size_t len)
{
	while (len) {
		ssize_t n = write(fd, buf, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			fprintf(stderr, "wppcc: %s %s: %s\n", what, dest,
				n < 0 ? strerror(errno) : "short write");
			break;
		}
		buf += n;
		len -= (size_t)n;
	}
}

/* The unit's block to stderr ("-") or appended to the file, in one write
 * (a regular file's O_APPEND write is not interleaved with others). */
static void emit(const char *dest, const char *buf, size_t len)
{
	int fd = strcmp(dest, "-") == 0 ? 2 : open_stats_file(dest);
	if (fd < 0)
		return;
	write_all(fd, "--wpp-stats", dest, buf, len);
	if (fd != 2)
		close(fd);
}

void wpp_ir_stats_close(struct wpp_ir_stats *st)
{
	if (!st)
		return;
	if (st->nstale) {
		fprintf(stderr,
			"wppcc: warning: %s: %u function%s changed since the interesting paths "
			"were recorded (%s%s%s%s%s%s), numbered without them\n",
			st->source, st->nstale, st->nstale == 1 ? "" : "s", st->stale_names[0],
			st->nstale > 1 ? ", " : "", st->nstale > 1 ? st->stale_names[1] : "",
			st->nstale > 2 ? ", " : "", st->nstale > 2 ? st->stale_names[2] : "",
			st->nstale > STALE_NAMED ? ", ..." : "");
	}
	if (st->out) {
		fprintf(st->out,
			"wpp-stats: %s: %u functions, %u with interesting paths; gamma <= 1.0: %u, "
			"<= 1.1: %u, <= 2: %u, > 2: %u; %u count through a hash, %u with PPP; %u "
			"stale\n",
			st->source, st->nfns, st->with_interesting, st->gamma_bins[0],
			st->gamma_bins[1], st->gamma_bins[2], st->gamma_bins[3], st->hashed,
			st->ppp_hashed, st->nstale + st->nlisted_past);
		if (st->ppp_mode)
			fprintf(st->out,
				"wpp-stats: %s: ppp mode: %u count preferentially; Ball-Larus "
				"counting in %u whose paths fit an array, %u where the path cache "
				"is cheaper, %u without interesting paths, %u stale, %u too wide\n",
				st->source, st->plan_hows[WPP_PPP_ARRAY],
				st->plan_hows[WPP_PPP_PLAIN], st->cache_cheaper,
				st->plan_hows[WPP_PPP_EMPTY], st->plan_hows[WPP_PPP_STALE],
				st->plan_hows[WPP_PPP_WIDE]);
		if (fclose(st->out) == 0)
			emit(st->dest, st->buf, st->buflen);
		free(st->buf);
	}
	if (st->seen) {
		/* wppcc's file is O_APPEND: one write per unit */
		if (fclose(st->seen) == 0)
			write_all(st->seen_fd, "--wpp-interesting", "(the listed names compiled)",
				  st->seen_buf, st->seen_len);
		free(st->seen_buf);
	}
	if (st->has_set)
		wpp_interesting_free(&st->set);
	free(st->source);
	free(st->source_field);
	free(st);
}
