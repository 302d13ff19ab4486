/* SPDX-License-Identifier: GPL-2.0 */
/*
 * libpmc: NetBSD's pmc_control(2) and pmc_get_info(2) on Linux, over
 * per-task perf_event fds and bpmc's naming layer. pmc_control(3) is the
 * manual: what is NetBSD's, what is a Linux extension (every name with
 * "linux" in it), and where Linux differs.
 *
 * Every call returns 0, or -1 with errno set. The library is
 * thread-safe; each thread has its own set of counters, which count the
 * thread that configured them.
 */
#ifndef BPMC_PMC_H
#define BPMC_PMC_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* NetBSD's x86 types: int event ids, 64-bit counter values. */
typedef int pmc_evid_t;
typedef uint64_t pmc_ctr_t;

struct pmc_counter_cfg {
	pmc_evid_t event_id;
	pmc_ctr_t reset_value; /* PROFSTART: events between two samples */
	uint32_t flags; /* 0, or PMC_LINUX_FLAG_* */
};

/* pmc_control() operations: NetBSD's values. */
#define PMC_OP_START 1
#define PMC_OP_STOP 2
#define PMC_OP_CONFIGURE 3
#define PMC_OP_PROFSTART 4
#define PMC_OP_PROFSTOP 5

/* pmc_get_info() requests: NetBSD's values. */
#define PMC_INFO_NCOUNTERS 1
#define PMC_INFO_CPUCTR_TYPE 2
#define PMC_INFO_COUNTER_VALUE 3
#define PMC_INFO_ACCUMULATED_COUNTER_VALUE 4

#define PMC_INVALID_EVID (-1)

/*
 * NetBSD's calls: ctr is a counter of the calling thread, op one of
 * PMC_OP_* (pmc_control) or PMC_INFO_* (pmc_get_info), argp what op
 * takes.
 */
int pmc_control(int ctr, int op, void *argp);
int pmc_get_info(int ctr, int op, void *argp);

/* ---- Linux extensions ------------------------------------------------ */

/*
 * Portable event ids: perf's generic events. The hardware ones need a
 * hardware PMU (ENODEV without one); the software ones count anywhere.
 */
#define PMC_LINUX_EV_CYCLES 0x0001
#define PMC_LINUX_EV_INSTRUCTIONS 0x0002
#define PMC_LINUX_EV_CACHE_REFERENCES 0x0003
#define PMC_LINUX_EV_CACHE_MISSES 0x0004
#define PMC_LINUX_EV_BRANCHES 0x0005
#define PMC_LINUX_EV_BRANCH_MISSES 0x0006
#define PMC_LINUX_EV_CPU_CLOCK 0x0101 /* ns */
#define PMC_LINUX_EV_TASK_CLOCK 0x0102 /* ns */
#define PMC_LINUX_EV_PAGE_FAULTS 0x0103
#define PMC_LINUX_EV_CONTEXT_SWITCHES 0x0104
#define PMC_LINUX_EV_CPU_MIGRATIONS 0x0105
#define PMC_LINUX_EV_MINOR_FAULTS 0x0106
#define PMC_LINUX_EV_MAJOR_FAULTS 0x0107
/* Ids from pmc_linux_event_id() start here. */
#define PMC_LINUX_EV_NAMED_BASE 0x10000

/*
 * Any name `bpmc encode` accepts (perf generic names, libpfm4 names with
 * unit masks and modifiers, r<hex>, PMU/terms/) to an id. why, when not
 * NULL, receives the reason a name was refused. Errors: EINVAL (bad
 * name), ENOENT (no such event), ENOMEM.
 */
int pmc_linux_event_id(const char *name, pmc_evid_t *id, char *why,
		       size_t whylen);
/* The name an id was made from ("task-clock", "cycles:u"). EINVAL. */
int pmc_linux_event_name(pmc_evid_t id, char *buf, size_t len);

/* struct pmc_counter_cfg.flags */
/*
 * Share the PMU with other users, as perf stat does, instead of
 * counting all the time or refusing with EBUSY (the default, which is
 * NetBSD's meaning: an exclusive counter). The values are then raw
 * counts over the time the counter ran: PMC_LINUX_INFO_TIMES says how
 * long that was.
 */
#define PMC_LINUX_FLAG_MULTIPLEX 0x1
/* PROFSTART: sample the threads and processes created afterwards too. */
#define PMC_LINUX_FLAG_DESCENDANTS 0x2
/*
 * CONFIGURE: count the descendants for PMC_LINUX_INFO_INHERITED_* alone,
 * without the per-CPU twins that PMC_INFO_ACCUMULATED_COUNTER_VALUE
 * needs (which then fails with ENXIO): a hardware counter then takes one
 * of the PMU's counters fewer where a descendant runs.
 */
#define PMC_LINUX_FLAG_NO_ACCUMULATE 0x4

/* pmc_get_info(ctr, PMC_INFO_CPUCTR_TYPE) with ctr == -1: the class. */
#define PMC_LINUX_CLASS_SOFTWARE 0x10000 /* no hardware PMU */
/* A hardware PMU of libpfm4 pmu id P (pfm_pmu_t): 0x10000 | P. */
#define PMC_LINUX_CLASS_PFM(p) (0x10000 | (p))
/* with ctr >= 0: the counter's type */
#define PMC_LINUX_TYPE_HARDWARE 1 /* counts hardware and software events */
#define PMC_LINUX_TYPE_SOFTWARE 2 /* software events only */
/* The class's name: libpfm4's PMU name or "software". EINVAL. */
int pmc_linux_class_name(int cls, char *buf, size_t len);

/* More pmc_get_info() requests. */
struct pmc_linux_times {
	uint64_t enabled_ns; /* started, whether on the PMU or not */
	uint64_t running_ns; /* on the PMU: counting */
};
/* argp: struct pmc_linux_times *, of COUNTER_VALUE */
#define PMC_LINUX_INFO_TIMES 0x100
/* argp: struct pmc_linux_times *, summed like ACCUMULATED_COUNTER_VALUE */
#define PMC_LINUX_INFO_ACCUMULATED_TIMES 0x101
/*
 * argp: uint64_t *. perf's inherited count: this thread's own count,
 * plus every thread and process created since CONFIGURE, exited or
 * live, grandchildren and orphans included.
 */
#define PMC_LINUX_INFO_INHERITED_VALUE 0x102
/* argp: struct pmc_linux_times *, of INHERITED_VALUE */
#define PMC_LINUX_INFO_INHERITED_TIMES 0x104
/* argp: struct pmc_linux_profile_stats *, of a PROFSTART counter */
#define PMC_LINUX_INFO_PROFILE_STATS 0x103

struct pmc_linux_profile_stats {
	uint64_t samples; /* in the histogram */
	uint64_t lost; /* the kernel could not write: never in it */
	uint64_t entries; /* distinct (pid, pc) pairs */
};

/* One bucket of a profile's flat histogram. */
struct pmc_linux_profile_entry {
	uint64_t pc; /* the interrupted user-space PC */
	uint64_t count; /* samples at pc */
	int32_t pid; /* the process it was in */
	uint32_t image; /* which of pid's programs: one more per exec */
};

/*
 * A PROFSTART counter's histogram so far, most samples first: up to max
 * entries into out, the number it holds into *total. Counting goes on.
 * ENXIO: ctr is not profiling.
 */
int pmc_linux_profile_read(int ctr, struct pmc_linux_profile_entry *out,
			   size_t max, size_t *total);

/*
 * Which file an entry's pc was in when it was sampled, and the offset in
 * that file: from the mappings the kernel reported while profiling, so
 * it holds after the process exited or exec'd. ENOENT: anonymous
 * memory, or a mapping made before PROFSTART of a process other than
 * the caller's.
 */
int pmc_linux_profile_locate(int ctr, const struct pmc_linux_profile_entry *e,
			     char *path, size_t pathlen, uint64_t *file_offset);

#ifdef __cplusplus
}
#endif

#endif
