/* SPDX-License-Identifier: GPL-2.0 */
/* What engine.c, setup.c, interval.c and hotplug.c share, and no one else. */
#ifndef BPMC_ENGINE_STATE_H
#define BPMC_ENGINE_STATE_H

#include <sched.h>
#include <stdarg.h>
#include <stdio.h>

#include "engine/engine.h"
#include "fds/counters.h"
#include "identity/cgroups.h"
#include "identity/kube.h"
#include "maps/collector.h"
#include "rows/check.h"
#include "rows/drain.h"
#include "rows/missed.h"
#include "rows/rare.h"
#include "rows/self.h"

struct engine {
	struct engine_opts opts;
	const struct engine_ops *ops;
	struct events *names;
	struct event_list asked; /* as -e gave them */
	struct event_list events; /* counted: asked, less what is dropped */
	/* Each event asked for: counted or not, and why (--best-effort). */
	struct event_support support[BPMC_MAX_EVENTS];
	struct counter_probe probe[BPMC_MAX_EVENTS];
	struct counters counters;
	struct collector *collector;
	struct interval_data data;
	struct sink *sink; /* engine__run's */
	uint64_t last_cut_ns; /* CLOCK_MONOTONIC of the last flush */
	uint64_t drops[BPMC_DROP_NR];
	long max_rate;
	struct check check;
	struct rare rare;
	struct missed missed; /* sampling mode */
	bool missed_said[BPMC_MAX_EVENTS]; /* warned once, per event */
	bool throttled_said[BPMC_MAX_EVENTS]; /* warned once, per event */
	bool never_ran_said[BPMC_MAX_EVENTS]; /* warned once, per group */
	struct rows_opts rows;
	struct cgroups *cgroups;
	struct kube *kube;
	struct collector_opts bpf; /* the cgroup part is filled first */
	struct self self;
	bool root_only_done;
	bool stop; /* ops->wait asked for it */
	cpu_set_t affinity; /* ours, restored after each flush round */
	/* CPU hotplug: the online CPUs at the last boundary, the CPUs whose
	 * counters ended in this round, the CPUs ever counted, and those
	 * online whose counters failed to open. */
	bool online[BPMC_MAX_CPUS];
	bool gone[BPMC_MAX_CPUS];
	bool counted[BPMC_MAX_CPUS];
	bool retry[BPMC_MAX_CPUS];
	bool stays[BPMC_MAX_CPUS]; /* refused us, yet did not go offline */
	bool settling[BPMC_MAX_CPUS]; /* online, its bring-up not done */
	/* CLOCK_MONOTONIC of each CPU's last read (0: not counted): the
	 * span a CPU's counts cover ends at its own read, and the reads of
	 * one round are milliseconds apart when bpmc waits for a busy CPU. */
	uint64_t read_ns[BPMC_MAX_CPUS];
	uint64_t span_sum_ns, span_cpus; /* this round's spans */
	bool span_unsure; /* a CPU left during the round */
};

/* Hands one line to ops->say. */
__attribute__((format(printf, 3, 4))) static inline void
engine_say(struct engine *e, enum engine_say level, const char *fmt, ...)
{
	char line[ERROR_LEN];
	va_list ap;

	if (!e->ops || !e->ops->say)
		return;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	e->ops->say(e->ops->ctx, level, line);
}

/* hotplug.c: the round of flushes at a boundary, and what follows it. */
int hotplug__flush_all_cpus(struct engine *e, struct counter_totals *t,
			    bool *online);
void hotplug__apply(struct engine *e, const bool *online);

/* interval.c: one interval, from the flush to the sink's end. */
int interval__write(struct engine *e, struct error *err);
/* Sampling mode: the events too rare for the interval, said. */
void interval__warn_rare(struct engine *e, bool at_exit);

#endif
