/* SPDX-License-Identifier: MIT */
/*
 * perf_events.c — our own table of perf's event names (no libpfm): the
 * generic hardware and software events of <linux/perf_event.h> and the
 * hardware-cache combinations perf builds from cache x operation x result.
 */
#include "bpfcollect/perf_events.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"

struct named {
	const char *name;
	uint32_t type;
	uint64_t config;
};

static const struct named generic[] = {
    {"cpu-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES},
    {"cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES},
    {"instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS},
    {"cache-references", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_REFERENCES},
    {"cache-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES},
    {"branch-instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS},
    {"branches", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS},
    {"branch-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES},
    {"bus-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BUS_CYCLES},
    {"stalled-cycles-frontend", PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_FRONTEND},
    {"idle-cycles-frontend", PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_FRONTEND},
    {"stalled-cycles-backend", PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_BACKEND},
    {"idle-cycles-backend", PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_BACKEND},
    {"ref-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_REF_CPU_CYCLES},
    {"cpu-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK},
    {"task-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK},
    {"page-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS},
    {"faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS},
    {"minor-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MIN},
    {"major-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MAJ},
    {"context-switches", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES},
    {"cs", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES},
    {"cpu-migrations", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS},
    {"migrations", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS},
    {"alignment-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_ALIGNMENT_FAULTS},
    {"emulation-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_EMULATION_FAULTS},
    {"dummy", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_DUMMY},
    {"cgroup-switches", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CGROUP_SWITCHES},
};

/* Hardware cache events: <cache>-<op><result>, e.g. L1-dcache-load-misses. */
static const struct {
	const char *name;
	uint32_t id;
} caches[] = {
    {"L1-dcache", PERF_COUNT_HW_CACHE_L1D}, {"L1-icache", PERF_COUNT_HW_CACHE_L1I},
    {"LLC", PERF_COUNT_HW_CACHE_LL},	    {"dTLB", PERF_COUNT_HW_CACHE_DTLB},
    {"iTLB", PERF_COUNT_HW_CACHE_ITLB},	    {"branch", PERF_COUNT_HW_CACHE_BPU},
    {"node", PERF_COUNT_HW_CACHE_NODE},
};

static const struct {
	const char *access, *miss; /* result ACCESS / MISS spellings */
	uint32_t op;
} cache_ops[] = {
    {"loads", "load-misses", PERF_COUNT_HW_CACHE_OP_READ},
    {"stores", "store-misses", PERF_COUNT_HW_CACHE_OP_WRITE},
    {"prefetches", "prefetch-misses", PERF_COUNT_HW_CACHE_OP_PREFETCH},
};

static int parse_cache(const char *s, struct pc_event *ev)
{
	for (size_t c = 0; c < sizeof(caches) / sizeof(caches[0]); c++) {
		size_t n = strlen(caches[c].name);
		if (strncmp(s, caches[c].name, n) != 0 || s[n] != '-')
			continue;
		for (size_t o = 0; o < sizeof(cache_ops) / sizeof(cache_ops[0]); o++) {
			uint64_t result;
			if (strcmp(s + n + 1, cache_ops[o].access) == 0)
				result = PERF_COUNT_HW_CACHE_RESULT_ACCESS;
			else if (strcmp(s + n + 1, cache_ops[o].miss) == 0)
				result = PERF_COUNT_HW_CACHE_RESULT_MISS;
			else
				continue;
			ev->type = PERF_TYPE_HW_CACHE;
			ev->config = caches[c].id | (uint64_t)cache_ops[o].op << 8 | result << 16;
			return 0;
		}
	}
	return -1;
}

/* rNNNN: raw event code in hex, as perf takes it. */
static int parse_raw(const char *s, struct pc_event *ev)
{
	char *end;
	if (s[0] != 'r' || !s[1] || strlen(s + 1) > 16)
		return -1;
	errno = 0;
	unsigned long long v = strtoull(s + 1, &end, 16);
	if (errno || *end)
		return -1;
	ev->type = PERF_TYPE_RAW;
	ev->config = v;
	return 0;
}

int pc_event_parse(const char *name, struct pc_event *ev)
{
	char base[WPP_COUNTER_NAME_MAX];
	size_t len = strlen(name);

	memset(ev, 0, sizeof(*ev));
	if (len == 0 || len >= sizeof(ev->name)) {
		wpp_err("record: bad event name '%s' (see wpptrace record --list-events)", name);
		return -EINVAL;
	}
	memcpy(ev->name, name, len + 1);
	memcpy(base, name, len + 1);
	char *colon = strchr(base, ':');
	if (colon) {
		*colon = 0;
		for (const char *m = colon + 1; *m; m++) {
			if (*m == 'u')
				ev->exclude_kernel = 1;
			else if (*m == 'k')
				ev->exclude_user = 1;
			else {
				wpp_err("record: event '%s': unknown modifier '%c' (u or k)", name,
					*m);
				return -EINVAL;
			}
		}
		if (ev->exclude_kernel && ev->exclude_user) /* ":uk" = both */
			ev->exclude_kernel = ev->exclude_user = 0;
	}
	for (size_t i = 0; i < sizeof(generic) / sizeof(generic[0]); i++)
		if (strcmp(base, generic[i].name) == 0) {
			ev->type = generic[i].type;
			ev->config = generic[i].config;
			return 0;
		}
	if (parse_cache(base, ev) == 0 || parse_raw(base, ev) == 0)
		return 0;
	wpp_err("record: unknown event '%s' (see wpptrace record --list-events)", name);
	return -EINVAL;
}

int pc_event_needs_pmu(const struct pc_event *ev)
{
	return ev->type != PERF_TYPE_SOFTWARE;
}

const char *pc_software_names(void)
{
	return "cpu-clock, task-clock, page-faults, minor-faults, major-faults, context-switches, "
	       "cpu-migrations";
}

void pc_events_list(FILE *out)
{
	fprintf(out, "hardware events (need a PMU):\n");
	for (size_t i = 0; i < sizeof(generic) / sizeof(generic[0]); i++)
		if (generic[i].type == PERF_TYPE_HARDWARE)
			fprintf(out, "  %s\n", generic[i].name);
	fprintf(out, "hardware cache events (need a PMU):\n");
	for (size_t c = 0; c < sizeof(caches) / sizeof(caches[0]); c++)
		for (size_t o = 0; o < sizeof(cache_ops) / sizeof(cache_ops[0]); o++)
			fprintf(out, "  %s-%s\n  %s-%s\n", caches[c].name, cache_ops[o].access,
				caches[c].name, cache_ops[o].miss);
	fprintf(out, "software events:\n");
	for (size_t i = 0; i < sizeof(generic) / sizeof(generic[0]); i++)
		if (generic[i].type == PERF_TYPE_SOFTWARE)
			fprintf(out, "  %s\n", generic[i].name);
	fprintf(out, "raw events (need a PMU):\n  rNNNN  (hex event code, as perf takes it)\n"
		     "modifiers: NAME:u (user mode only), NAME:k (kernel mode only)\n");
}
