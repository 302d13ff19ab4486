/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel's sysfs event syntax, which libpfm 4.13 does not parse:
 *   PMU/event/               an alias from PMU/events/event
 *   PMU/term=val,term,.../   terms placed by PMU/format/term
 *   PMU/config=0x..,config1=0x../[ukhHGIDepP]
 *   PMU/name=X,event=ALIAS,rNNN,cycles,call-graph=no,time/
 * under /sys/bus/event_source/devices.
 */
#ifndef BPMC_NAMES_SYSFS_PMU_H
#define BPMC_NAMES_SYSFS_PMU_H

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stddef.h>

#include "common/error.h"
#include "names/perf_grammar.h"

#define SYSFS_PMU_ROOT "/sys/bus/event_source/devices"

/*
 * The devices directory a NULL root means: $BPMC_SYSFS_ROOT when set
 * (tests run perf's cases on fixture PMUs), else SYSFS_PMU_ROOT.
 */
const char *sysfs_pmu__root(void);

/* True when name has the PMU/.../ shape (whether or not the PMU exists). */
bool sysfs_pmu__is_syntax(const char *name);

/*
 * Encodes name into attr (type, config, config1, config2, exclude_*,
 * sample_period/freq for period=/freq= terms) and writes the fully
 * qualified form "PMU/config=0x..[,config1=0x..][,config2=0x..]/[mods]"
 * into fstr. root is the devices directory (NULL: sysfs_pmu__root()).
 * On failure returns -errno and err (may be NULL) holds
 * "... 'name': reason".
 */
int sysfs_pmu__encode(const char *root, const char *name,
		      struct perf_event_attr *attr, char *fstr, size_t fstr_len,
		      struct error *err);

/*
 * The same with perf's whole term and modifier grammar: group's
 * modifiers (may be NULL) are added to the event's own, and info gets
 * the name= term, the full form and P.
 */
int sysfs_pmu__encode_event(const char *root, const char *name,
			    const char *group, struct perf_event_attr *attr,
			    struct perf_event_info *info, struct error *err);

/* One alias event of a sysfs PMU, for `bpmc list` and suggestions. */
struct sysfs_event {
	const char *pmu; /* "msr" */
	const char *event; /* "tsc" */
	const char *terms; /* the alias file's content: "event=0x00" */
	int type; /* the PMU's perf_event_attr.type */
};

/*
 * Calls fn for every alias in every PMU's events/ directory, skipping
 * .scale/.unit/.snapshot/.per-pkg files; stops early and returns fn's
 * value when fn returns non-zero. root as above.
 */
int sysfs_pmu__for_each_event(const char *root,
			      int (*fn)(const struct sysfs_event *ev,
					void *ctx),
			      void *ctx);

/* Calls fn once per PMU that has a type; event and terms are NULL. */
int sysfs_pmu__for_each_pmu(const char *root,
			    int (*fn)(const struct sysfs_event *pmu, void *ctx),
			    void *ctx);

/*
 * The cpumask of the PMU whose type is type (a CPU list, "0" for an
 * uncore PMU read through one CPU) into buf. -ENOENT when no PMU has
 * that type or it names no CPUs: the event counts on every CPU.
 */
int sysfs_pmu__cpumask(const char *root, int type, char *buf, size_t len);

#endif
