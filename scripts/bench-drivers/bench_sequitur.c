/* SPDX-License-Identifier: MIT */
/*
 * bench_sequitur — the numbers behind docs/sequitur.md (run it through
 * scripts/bench-sequitur).
 *
 *   bench_sequitur WORKDIR [NSYMBOLS [STREAM.u32...]]
 *
 * Generates the synthetic trace (fixed seed) into WORKDIR/trace.u32, then
 * for plain SEQUITUR and SEQUITUR(1) builds the grammar in a child process
 * that streams the file in 64 KiB reads (so the peak RSS is the builder's,
 * not the input's), and prints speed, peak RSS, grammar and serialized
 * sizes next to xz -9e and zstd -19 of the same raw file (and the memory
 * latency measured between the builds, to tell a slow minute of this VM
 * from a slow builder), the same comparison for a nearly memoryless
 * random-loop trace and for any raw path streams given (e.g. real
 * programs'), and the hot-subpath time against E x L.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "analysis/grammar/hotsub.h"
#include "analysis/grammar/sequitur.h"
#include "analysis/grammar/sequitur_chunked.h"
#include "analysis/grammar/sequitur_digram.h"
#include "analysis/grammar/sequitur_serial.h"
#include "tests/unit/grammar/tracegen.h"
#include "analysis/grammar/wppdag.h"

#define SEED 0x5eed2024u

struct build_result {
	double seconds, cpu_seconds;
	long peak_rss_kb;
	struct seq_stats stats;
	size_t serialized;    /* current format (version 4) */
	size_t serialized_v3; /* version 3 (the previous range-coded model) */
	size_t serialized_v1; /* version 1, for comparison */
};

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec * 1e-9;
}

/* CPU time of this process: the per-core figure, less disturbed than wall
 * time when the machine is shared. */
static double cpu_now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	return t.tv_sec + t.tv_nsec * 1e-9;
}

/* SEQ_CHUNKED: the chunked builder (sequitur_chunked.h); its time
 * includes the export, which merges its levels (SEQUITUR's export is a
 * copy, left out as before).  stats then describe the exported grammar. */
static int build_from_file(const char *path, enum seq_algorithm algo, struct build_result *r,
			   struct seq_grammar *keep)
{
	static uint32_t buf[16384];
	FILE *f = fopen(path, "rb");
	int chunked = algo == SEQ_CHUNKED;
	struct seq_builder *b = chunked ? NULL : seq_builder_new(algo);
	struct seqc_builder *cb = chunked ? seqc_builder_new(NULL) : NULL;
	struct seq_grammar g;
	size_t got;

	if (!f || (!b && !cb))
		return -1;
	double t0 = now(), c0 = cpu_now();
	while ((got = fread(buf, sizeof(uint32_t), 16384, f)) > 0)
		if ((cb ? seqc_append_many(cb, buf, got) : seq_append_many(b, buf, got)) < 0)
			return -1;
	if (cb ? seqc_export(cb, &g) < 0 : seq_finish(b) < 0)
		return -1;
	r->seconds = now() - t0;
	r->cpu_seconds = cpu_now() - c0;
	fclose(f);
	if (cb) {
		struct seqc_stats cs;
		seqc_builder_stats(cb, &cs);
		r->stats = (struct seq_stats){.input_symbols = cs.input_symbols,
					      .grammar_symbols = g.start[seq_grammar_nodes(&g)],
					      .rules = g.nrules,
					      .segments = g.nroots,
					      .bytes = cs.bytes};
		seqc_builder_free(cb);
	} else {
		seq_builder_stats(b, &r->stats);
		if (seq_export(b, &g) < 0)
			return -1;
	}
	uint8_t *bytes;
	if (seq_serialize(&g, &bytes, &r->serialized) < 0)
		return -1;
	free(bytes);
	if (seq_serialize_version(&g, 1, &bytes, &r->serialized_v1) < 0)
		return -1;
	free(bytes);
	if (seq_serialize_version(&g, 3, &bytes, &r->serialized_v3) < 0)
		return -1;
	free(bytes);
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	r->peak_rss_kb = ru.ru_maxrss;
	seq_builder_free(b);
	if (keep)
		*keep = g;
	else
		seq_grammar_free(&g);
	return 0;
}

/* Run work(arg, out) in a fresh child and bring its size-byte result
 * back: the parent's memory and allocator state stay as they were, so
 * each build's peak RSS is its own and nothing one measurement allocates
 * changes the next (glibc, for one, raises its mmap threshold when a large
 * block is freed).  0, or -1 if the child failed. */
static int in_child(int (*work)(const void *arg, void *out), const void *arg, void *out,
		    size_t size)
{
	int fd[2];
	if (pipe(fd) < 0)
		return -1;
	pid_t pid = fork();
	if (pid == 0) {
		close(fd[0]);
		void *mine = malloc(size); /* aligned for any result */
		int ok = mine && work(arg, mine) == 0 && write(fd[1], mine, size) == (ssize_t)size;
		_exit(ok ? 0 : 1);
	}
	close(fd[1]);
	ssize_t n = read(fd[0], out, size);
	close(fd[0]);
	int status;
	waitpid(pid, &status, 0);
	return n == (ssize_t)size && WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}

struct build_job {
	const char *path;
	enum seq_algorithm algo;
};

static int build_work(const void *arg, void *out)
{
	const struct build_job *job = arg;
	return build_from_file(job->path, job->algo, out, NULL);
}

static int build_in_child(const char *path, enum seq_algorithm algo, struct build_result *r)
{
	struct build_job job = {path, algo};
	return in_child(build_work, &job, r, sizeof(*r));
}

/* The benchmark's pseudo-random numbers (a 64-bit LCG, top bits): the
 * latency chain's shuffle and the paths' static costs. */
static uint32_t lcg_next(uint64_t *s)
{
	*s = *s * 6364136223846793005ull + 1442695040888963407ull;
	return (uint32_t)(*s >> 33);
}

/* Builds of the synthetic trace per algorithm (odd: a median). */
#define BUILDS 5

/* This VM's speed drifts with its neighbours' load on the shared caches
 * and memory, and the builder waits mostly on memory: so the benchmark
 * measures memory latency beside each pair of builds, a chain of
 * dependent loads in random order over an array on huge pages (as the
 * builder's table and nodes are), of 4 MiB and of 16 MiB (the builder's
 * working set on the synthetic trace is ~10 MiB).  It tells a slow minute
 * from a slow builder: on this VM the last-level cache left to one guest
 * has been seen to shrink below 4 MiB. */
#define LATENCY_SIZES 2
static const unsigned latency_mib[LATENCY_SIZES] = {4, 16};
#define LATENCY_STEPS (1u << 20)

/* One random cycle through the mib MiB of slots (Sattolo's algorithm,
 * fixed seed). */
static uint32_t *latency_chain(unsigned mib)
{
	uint32_t n = (mib << 20) / sizeof(uint32_t);
	uint32_t *next = seq_alloc_random_access((size_t)mib << 20);
	uint64_t s = SEED;

	if (!next)
		return NULL;
	for (uint32_t i = 0; i < n; i++)
		next[i] = i;
	for (uint32_t i = n - 1; i > 0; i--) {
		uint32_t j = lcg_next(&s) % i, t = next[i];
		next[i] = next[j];
		next[j] = t;
	}
	return next;
}

/* Nanoseconds per load along a chain of *(unsigned *)arg MiB (CPU time,
 * as the builds) into out (a double).  Run in a child (in_child). */
static int latency_work(const void *arg, void *out)
{
	volatile uint32_t sink;
	uint32_t *next = latency_chain(*(const unsigned *)arg), at = 0;

	if (!next)
		return -1;
	double t0 = cpu_now();
	for (uint32_t k = 0; k < LATENCY_STEPS; k++)
		at = next[at];
	double ns = (cpu_now() - t0) * 1e9 / LATENCY_STEPS;
	sink = at;
	(void)sink;
	memcpy(out, &ns, sizeof(ns));
	return 0;
}

static int by_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static long compressed_size(const char *cmd)
{
	FILE *p = popen(cmd, "r");
	char line[64];
	long size = -1;

	if (p && fgets(line, sizeof(line), p))
		size = strtol(line, NULL, 10);
	if (p)
		pclose(p);
	return size;
}

static long xz_size(const char *path)
{
	char cmd[8192];
	snprintf(cmd, sizeof(cmd), "xz -9e -T1 -c '%s' | wc -c", path);
	return compressed_size(cmd);
}

static long zstd_size(const char *path)
{
	char cmd[8192];
	snprintf(cmd, sizeof(cmd), "zstd -19 -q -c '%s' | wc -c", path);
	return compressed_size(cmd);
}

/* One line of the "other inputs" table: SEQUITUR(1) construction speed
 * (CPU) and grammar sizes against SEQUITUR's grammar and xz -9e and
 * zstd -19 of the same raw file, measured now, and the chunked builder's
 * speed and sizes beside them.  Builds run in a child each, as for the
 * synthetic trace. */
static int compare_input(const char *label, const char *path)
{
	struct build_result r, plain, ch;
	long xz = xz_size(path), zstd = zstd_size(path);

	if (build_in_child(path, SEQ_LOOKAHEAD, &r) < 0 ||
	    build_in_child(path, SEQ_PLAIN, &plain) < 0 ||
	    build_in_child(path, SEQ_CHUNKED, &ch) < 0 || xz <= 0 || zstd <= 0) {
		fprintf(stderr, "bench_sequitur: cannot measure %s\n", path);
		return -1;
	}
	printf("%-20s %10llu %8.2f %7.1f %8.4f %10zu %10zu %10ld %10ld %7.3f %7.3f | %8.2f %7.1f "
	       "%9llu %10zu\n",
	       label, (unsigned long long)r.stats.input_symbols,
	       r.cpu_seconds > 0 ? r.stats.input_symbols / r.cpu_seconds / 1e6 : 0.0,
	       r.peak_rss_kb / 1024.0,
	       plain.stats.grammar_symbols
		   ? (double)r.stats.grammar_symbols / plain.stats.grammar_symbols
		   : 1.0,
	       r.serialized, r.serialized_v3, xz, zstd, (double)r.serialized / xz,
	       (double)r.serialized / zstd,
	       ch.cpu_seconds > 0 ? ch.stats.input_symbols / ch.cpu_seconds / 1e6 : 0.0,
	       ch.peak_rss_kb / 1024.0, (unsigned long long)ch.stats.grammar_symbols,
	       ch.serialized);
	return 0;
}

static int write_trace(const char *path, const uint32_t *t, size_t n)
{
	FILE *f = fopen(path, "wb");
	if (!f || fwrite(t, sizeof(*t), n, f) != n || fclose(f)) {
		fprintf(stderr, "bench_sequitur: cannot write %s: %s\n", path, strerror(errno));
		return -1;
	}
	return 0;
}

/* The random-loop trace and any raw path streams named on the command
 * line (little-endian u32 symbols below 2^31 - 1). */
static int compare_other_inputs(const char *workdir, char **files, int nfiles)
{
	char path[4096];
	size_t n = 300000;
	uint32_t *t = malloc(n * sizeof(*t));

	snprintf(path, sizeof(path), "%s/random-loops.u32", workdir);
	if (!t || tracegen_random_loops(SEED, t, n) < 0 || write_trace(path, t, n) < 0)
		return -1;
	free(t);
	printf("other inputs (SEQUITUR(1): construction M symbols/s per CPU second and peak RSS;\n"
	       "grammar symbols / SEQUITUR's; serialized bytes; / xz = grammar / xz -9e;\n"
	       "after |, the chunked builder: M symbols/s (export included), peak RSS, grammar\n"
	       "symbols, serialized bytes):\n");
	printf("%-20s %10s %8s %7s %8s %10s %10s %10s %10s %7s %7s | %8s %7s %9s %10s\n", "input",
	       "symbols", "Msym/s", "RSS MB", "syms/S", "grammar", "format v3", "xz -9e",
	       "zstd -19", "/ xz", "/ zstd", "chunked", "RSS MB", "gram syms", "serialized");
	if (compare_input("random loops (wpp-raw.sh)", path) < 0)
		return -1;
	for (int i = 0; i < nfiles; i++) {
		const char *base = strrchr(files[i], '/');
		if (compare_input(base ? base + 1 : files[i], files[i]) < 0)
			return -1;
	}
	printf("\n");
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: bench_sequitur WORKDIR [NSYMBOLS]\n");
		return 2;
	}
	size_t n = argc > 2 ? strtoull(argv[2], NULL, 10) : 10000000;
	char path[4096];
	snprintf(path, sizeof(path), "%s/trace.u32", argv[1]);

	uint32_t *trace = malloc(n * sizeof(*trace));
	if (!trace)
		return 1;
	long distinct = tracegen_make(SEED, trace, n);
	FILE *f = fopen(path, "wb");
	if (distinct < 0 || !f || fwrite(trace, sizeof(*trace), n, f) != n || fclose(f)) {
		fprintf(stderr, "bench_sequitur: cannot write %s: %s\n", path, strerror(errno));
		return 1;
	}
	free(trace);
	printf("synthetic trace: %zu symbols, %ld distinct paths, seed %#x, raw %zu bytes\n\n", n,
	       distinct, SEED, n * 4);

	/* Each algorithm is built BUILDS times, alternating, each in a fresh
	 * child: this VM's speed drifts by a fifth from one minute to the
	 * next, so one build says little.  The table gives the fastest build
	 * and the median; every build must give the same grammar. */
	/* Index = enum seq_algorithm: SEQUITUR, SEQUITUR(1), chunked. */
	struct build_result res[3], runs[3][BUILDS];
	const char *names[3] = {"SEQUITUR", "SEQUITUR(1)", "chunked"};
	double cpu[3][BUILDS], latency[LATENCY_SIZES][BUILDS];
	for (int k = 0; k < BUILDS; k++) {
		for (int c = 0; c < LATENCY_SIZES; c++)
			if (in_child(latency_work, &latency_mib[c], &latency[c][k],
				     sizeof(latency[c][k])) < 0) {
				fprintf(stderr, "bench_sequitur: latency measurement failed\n");
				return 1;
			}
		for (int a = 0; a < 3; a++) {
			if (build_in_child(path, a, &runs[a][k]) < 0) {
				fprintf(stderr, "bench_sequitur: %s build failed\n", names[a]);
				return 1;
			}
			if (k && (runs[a][k].serialized != runs[a][0].serialized ||
				  runs[a][k].stats.grammar_symbols !=
				      runs[a][0].stats.grammar_symbols)) {
				fprintf(stderr, "bench_sequitur: %s built two different grammars\n",
					names[a]);
				return 1;
			}
			cpu[a][k] = runs[a][k].cpu_seconds;
		}
	}
	for (int c = 0; c < LATENCY_SIZES; c++)
		qsort(latency[c], BUILDS, sizeof(double), by_double);
	for (int a = 0; a < 3; a++) {
		int best = 0;
		for (int k = 1; k < BUILDS; k++)
			if (cpu[a][k] < cpu[a][best])
				best = k;
		res[a] = runs[a][best];
		for (int k = 0; k < BUILDS; k++)
			if (runs[a][k].peak_rss_kb > res[a].peak_rss_kb)
				res[a].peak_rss_kb = runs[a][k].peak_rss_kb;
		qsort(cpu[a], BUILDS, sizeof(double), by_double);
	}
	printf("construction: %d builds each, alternating; the fastest, and the median speed\n",
	       BUILDS);
	printf("%-12s %8s %8s %11s %8s %10s %9s %10s %10s\n", "algorithm", "wall s", "cpu s",
	       "Msym/s/cpu", "median", "peakRSS MB", "rules", "gram syms", "serialized");
	for (int a = 0; a < 3; a++)
		printf("%-12s %8.3f %8.3f %11.2f %8.2f %10.1f %9u %10llu %10zu\n", names[a],
		       res[a].seconds, res[a].cpu_seconds, n / res[a].cpu_seconds / 1e6,
		       n / cpu[a][BUILDS / 2] / 1e6, res[a].peak_rss_kb / 1024.0,
		       res[a].stats.rules, (unsigned long long)res[a].stats.grammar_symbols,
		       res[a].serialized);
	printf("SEQUITUR(1) / SEQUITUR grammar symbols: %.4f\n",
	       (double)res[1].stats.grammar_symbols / res[0].stats.grammar_symbols);
	printf("memory latency beside the builds (dependent loads; fastest, median):");
	for (int c = 0; c < LATENCY_SIZES; c++)
		printf("%s %u MiB %.1f / %.1f ns", c ? ";" : "", latency_mib[c], latency[c][0],
		       latency[c][BUILDS / 2]);
	printf("\n\n");

	long xz = xz_size(path), zstd = zstd_size(path);
	printf("%-28s %12s %10s\n", "representation", "bytes", "vs raw");
	printf("%-28s %12zu %10.1fx\n", "raw u32 trace", n * 4, 1.0);
	printf("%-28s %12ld %10.1fx\n", "xz -9e", xz, (double)n * 4 / xz);
	printf("%-28s %12ld %10.1fx\n", "zstd -19", zstd, (double)n * 4 / zstd);
	printf("%-28s %12zu %10.1fx\n", "WPP grammar, SEQUITUR(1)", res[1].serialized,
	       (double)n * 4 / res[1].serialized);
	printf("%-28s %12zu %10.1fx\n", "WPP grammar, SEQUITUR", res[0].serialized,
	       (double)n * 4 / res[0].serialized);
	printf("%-28s %12zu %10.1fx\n", "WPP grammar, chunked", res[2].serialized,
	       (double)n * 4 / res[2].serialized);
	printf("%-28s %12zu %10.1fx\n", "  same, format version 3", res[1].serialized_v3,
	       (double)n * 4 / res[1].serialized_v3);
	printf("%-28s %12zu %10.1fx\n", "  same, format version 1", res[1].serialized_v1,
	       (double)n * 4 / res[1].serialized_v1);
	printf("serialized SEQUITUR(1) / xz -9e: %.3f   / zstd -19: %.3f\n\n",
	       (double)res[1].serialized / xz, (double)res[1].serialized / zstd);
	if (compare_other_inputs(argv[1], argv + 3, argc > 3 ? argc - 3 : 0) < 0)
		return 1;

	/* Hot subpaths on the SEQUITUR(1) grammar. */
	struct build_result again;
	struct seq_grammar g;
	struct wppdag d;
	if (build_from_file(path, SEQ_LOOKAHEAD, &again, &g) < 0 || wppdag_init(&d, &g) < 0)
		return 1;
	uint64_t edges = g.start[seq_grammar_nodes(&g)];
	uint64_t *cost = malloc((size_t)distinct * sizeof(*cost));
	uint64_t s = SEED;
	for (long t = 0; t < distinct; t++) /* static instructions per path */
		cost[t] = 4 + lcg_next(&s) % 60;
	printf("hot subpaths (SEQUITUR(1) DAG, E = %llu edges, min-cost 100000, insns):\n",
	       (unsigned long long)edges);
	printf("%6s %8s %12s %12s %10s %10s %12s\n", "L", "min-len", "E x L", "grams", "distinct",
	       "cpu s", "ns/(E x L)");
	uint32_t lens[] = {10, 25, 50, 100};
	for (int i = 0; i < 4; i++) {
		struct hotsub_params p = {.min_len = lens[i] < 10 ? lens[i] : 10,
					  .max_len = lens[i],
					  .min_cost = 100000,
					  .cost = cost,
					  .ncost = (uint32_t)distinct};
		struct hotsub_result r;
		double t0 = cpu_now();
		if (hotsub_find(&d, &p, &r) < 0)
			return 1;
		double sec = cpu_now() - t0;
		printf("%6u %8u %12llu %12llu %10llu %10.3f %12.2f   -> %zu minimal hot subpaths\n",
		       p.max_len, p.min_len, (unsigned long long)(edges * p.max_len),
		       (unsigned long long)r.grams_seen, (unsigned long long)r.distinct_grams, sec,
		       sec * 1e9 / (edges * p.max_len), r.n);
		hotsub_result_free(&r);
	}
	free(cost);
	wppdag_free(&d);
	seq_grammar_free(&g);
	return 0;
}
