// SPDX-License-Identifier: GPL-2.0
/*
 * perf's legacy event names, as perf list prints them: the generic
 * hardware and software events and the TYPE-OP-RESULT cache events.
 * Written from the kernel's enum perf_hw_id, perf_sw_ids and
 * perf_hw_cache_* (include/uapi/linux/perf_event.h) and perf's list.
 */
#include <stdint.h>
#include <string.h>
#include <strings.h>

#include "common/util.h"
#include "names/perf_grammar.h"

struct legacy_name {
	const char *name;
	__u32 type;
	__u64 config;
};

static const struct legacy_name legacy[] = {
	{ "cpu-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES },
	{ "cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES },
	{ "instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS },
	{ "cache-references", PERF_TYPE_HARDWARE,
	  PERF_COUNT_HW_CACHE_REFERENCES },
	{ "cache-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES },
	{ "branch-instructions", PERF_TYPE_HARDWARE,
	  PERF_COUNT_HW_BRANCH_INSTRUCTIONS },
	{ "branches", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS },
	{ "branch-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES },
	{ "bus-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BUS_CYCLES },
	{ "stalled-cycles-frontend", PERF_TYPE_HARDWARE,
	  PERF_COUNT_HW_STALLED_CYCLES_FRONTEND },
	{ "idle-cycles-frontend", PERF_TYPE_HARDWARE,
	  PERF_COUNT_HW_STALLED_CYCLES_FRONTEND },
	{ "stalled-cycles-backend", PERF_TYPE_HARDWARE,
	  PERF_COUNT_HW_STALLED_CYCLES_BACKEND },
	{ "idle-cycles-backend", PERF_TYPE_HARDWARE,
	  PERF_COUNT_HW_STALLED_CYCLES_BACKEND },
	{ "ref-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_REF_CPU_CYCLES },
	{ "cpu-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK },
	{ "task-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK },
	{ "page-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS },
	{ "faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS },
	{ "context-switches", PERF_TYPE_SOFTWARE,
	  PERF_COUNT_SW_CONTEXT_SWITCHES },
	{ "cs", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES },
	{ "cpu-migrations", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS },
	{ "migrations", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS },
	{ "minor-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MIN },
	{ "major-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MAJ },
	{ "alignment-faults", PERF_TYPE_SOFTWARE,
	  PERF_COUNT_SW_ALIGNMENT_FAULTS },
	{ "emulation-faults", PERF_TYPE_SOFTWARE,
	  PERF_COUNT_SW_EMULATION_FAULTS },
	{ "dummy", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_DUMMY },
	{ "bpf-output", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_BPF_OUTPUT },
	{ "cgroup-switches", PERF_TYPE_SOFTWARE, 11 /* 5.13's value */ },
};

/* Spellings of one cache, operation or result, as perf's lexer has them. */
struct spelling {
	const char *names[6];
	int id;
};

static const struct spelling caches[] = {
	{ { "L1-dcache", "l1-d", "l1d", "L1-data" }, PERF_COUNT_HW_CACHE_L1D },
	{ { "L1-icache", "l1-i", "l1i", "L1-instruction" },
	  PERF_COUNT_HW_CACHE_L1I },
	{ { "LLC", "L2" }, PERF_COUNT_HW_CACHE_LL },
	{ { "dTLB", "d-tlb", "Data-TLB" }, PERF_COUNT_HW_CACHE_DTLB },
	{ { "iTLB", "i-tlb", "Instruction-TLB" }, PERF_COUNT_HW_CACHE_ITLB },
	{ { "branch", "branches", "bpu", "btb", "bpc" },
	  PERF_COUNT_HW_CACHE_BPU },
	{ { "node" }, PERF_COUNT_HW_CACHE_NODE },
};

static const struct spelling ops[] = {
	{ { "load", "loads", "read" }, PERF_COUNT_HW_CACHE_OP_READ },
	{ { "store", "stores", "write" }, PERF_COUNT_HW_CACHE_OP_WRITE },
	{ { "prefetch", "prefetches", "speculative-read", "speculative-load" },
	  PERF_COUNT_HW_CACHE_OP_PREFETCH },
};

static const struct spelling results[] = {
	{ { "refs", "Reference", "ops", "access" },
	  PERF_COUNT_HW_CACHE_RESULT_ACCESS },
	{ { "misses", "miss" }, PERF_COUNT_HW_CACHE_RESULT_MISS },
};

/* Which operations each cache has, bit per op, as perf checks them. */
static const unsigned char cache_ops[PERF_COUNT_HW_CACHE_MAX] = {
	[PERF_COUNT_HW_CACHE_L1D] = 7,	[PERF_COUNT_HW_CACHE_L1I] = 5,
	[PERF_COUNT_HW_CACHE_LL] = 7,	[PERF_COUNT_HW_CACHE_DTLB] = 7,
	[PERF_COUNT_HW_CACHE_ITLB] = 1, [PERF_COUNT_HW_CACHE_BPU] = 1,
	[PERF_COUNT_HW_CACHE_NODE] = 7,
};

/*
 * Matches a spelling at the start of *s followed by '-' or the end, and
 * moves *s past it (and the '-'). The longest spelling wins, so that
 * "speculative-read" is not taken as an unknown "speculative".
 */
static int match(const char **s, const struct spelling *set, size_t n)
{
	size_t best = 0;
	int id = -1;

	for (size_t i = 0; i < n; i++) {
		for (size_t j = 0; j < ARRAY_SIZE(set[i].names); j++) {
			const char *w = set[i].names[j];
			size_t len = w ? strlen(w) : 0;

			if (len > best && !strncasecmp(*s, w, len) &&
			    ((*s)[len] == '-' || !(*s)[len])) {
				best = len;
				id = set[i].id;
			}
		}
	}
	if (id >= 0)
		*s += best + ((*s)[best] == '-');
	return id;
}

static bool cache_lookup(const char *name, __u64 *config)
{
	const char *s = name;
	int cache, op = PERF_COUNT_HW_CACHE_OP_READ;
	int result = PERF_COUNT_HW_CACHE_RESULT_ACCESS;

	cache = match(&s, caches, ARRAY_SIZE(caches));
	if (cache < 0 || !*s)
		return false;
	/* TYPE-OP[-RESULT] or TYPE-RESULT. */
	if (s[-1] != '-')
		return false;
	int o = match(&s, ops, ARRAY_SIZE(ops));

	if (o >= 0)
		op = o;
	if (*s) {
		result = match(&s, results, ARRAY_SIZE(results));
		if (result < 0 || *s)
			return false;
	}
	if (!(cache_ops[cache] & 1 << op))
		return false;
	*config = cache | op << 8 | (__u64)result << 16;
	return true;
}

bool perf_legacy__lookup(const char *name, __u32 *type, __u64 *config)
{
	for (size_t i = 0; i < ARRAY_SIZE(legacy); i++) {
		if (!strcmp(name, legacy[i].name)) {
			*type = legacy[i].type;
			*config = legacy[i].config;
			return true;
		}
	}
	if (cache_lookup(name, config)) {
		*type = PERF_TYPE_HW_CACHE;
		return true;
	}
	return false;
}
