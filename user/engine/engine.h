/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The collection engine: names -> attrs -> fds -> BPF maps -> rows, one
 * interval after another, into the sink it is handed. `bpmc record`
 * hands it the CSV (and Prometheus), `bpmc top` its screen: one
 * collector, so that what top shows is what record would write.
 *
 * It prints nothing: each call returns 0 or -errno and fills the
 * caller's struct error, and what is worth saying on the way (a CPU
 * gone, samples lost, an event left out) goes to ops->say, one line
 * each, for the command to print.
 *
 * engine__new    the cgroup hierarchy, -G's subtrees, the events
 * engine__setup  probe, open the counters, load and attach the BPF side
 * engine__start  enable the counters: the counts start here
 * engine__run    the interval loop, until stopped or -d is up
 * engine__end    what is said at the end (rare events)
 * engine__stop   disable, detach, close: the BPF side goes
 * engine__free   everything else
 */
#ifndef BPMC_ENGINE_ENGINE_H
#define BPMC_ENGINE_ENGINE_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include "common/error.h"
#include "maps/collector.h"
#include "names/events.h"
#include "rows/check.h"
#include "sinks/sink.h"

struct engine_opts {
	const char *events; /* -e; NULL: cycles,instructions (cpu-clock
			     * where the host has no hardware PMU) */
	const char *pmu; /* --pmu */
	long interval_ms;
	uint64_t duration_ms; /* 0: until stopped */
	uint64_t period; /* -c */
	long freq; /* -F */
	long max_keys;
	unsigned scopes; /* --by: what the conservation check looks at */
	double tolerance_pct; /* the check's */
	unsigned row_scopes; /* the rows made: --by's and every output's */
	bool exact;
	bool mode_given; /* else an event's own period means sampling */
	const char *filters; /* -G's list, commas joined; NULL: none */
	int rollup_depth; /* --rollup: -1 none */
	const char *cgroup_v1; /* --cgroup-v1 CONTROLLER */
	bool self_stats; /* hold BPF run-time statistics on */
	bool best_effort; /* leave out the events this host lacks */
	const char *kube_pods_dir, *kube_containers_dir; /* NULL: defaults */
	const char *host; /* the rows' host */
	bool verbose; /* say how exact mode takes each event */
	long flush_gap_us; /* tests: a sleep between a CPU's flush and read */
};

enum engine_say {
	ENGINE_WARN,
	ENGINE_INFO,
};

struct engine_ops {
	/* One line worth saying (lower case, no newline). */
	void (*say)(void *ctx, enum engine_say level, const char *msg);
	/* Waits until CLOCK_MONOTONIC reaches until_ns, or less (a signal,
	 * a key); true: stop after this interval. NULL: a plain sleep. */
	bool (*wait)(void *ctx, uint64_t until_ns);
	/* Around each interval's writing (a status line); may be NULL. */
	void (*interval_begin)(void *ctx);
	void (*interval_end)(void *ctx);
	/* Intervals the outputs could not write so far; may be NULL. */
	uint64_t (*intervals_lost)(void *ctx);
	/* Set from a signal handler: stop after this interval. */
	volatile sig_atomic_t *stop;
	void *ctx;
};

struct engine;

/* What the commands read of an engine; valid until engine__free(). */
struct engine_view {
	const struct event_list *asked; /* as -e gave them */
	const struct event_list
		*events; /* counted: asked, less what is dropped */
	const struct event_support *support; /* one per event asked */
	struct collector *collector; /* after engine__setup() */
	const struct check *check; /* the conservation check's sums */
	const uint64_t *drops; /* samples lost so far, per BPMC_DROP_* */
	const struct cgroups *cgroups;
};

/* ops (kept: it must outlive e) says what setup has to say. */
int engine__new(struct engine **out, const struct engine_opts *opts,
		const struct engine_ops *ops, struct error *err);
int engine__setup(struct engine *e, struct error *err);
int engine__start(struct engine *e, struct error *err);
/* The interval loop: each interval's rows go into sink. */
int engine__run(struct engine *e, struct sink *sink, struct error *err);
/* Says what is said once the run is over (too rare to sample). */
void engine__end(struct engine *e);
/* The counters and the BPF side go; safe at any stage, and twice. */
void engine__stop(struct engine *e);
void engine__free(struct engine *e);
void engine__view(const struct engine *e, struct engine_view *v);

/* Refuses a --max-keys whose counts maps, full, would not fit in the
 * memory this process can still take (identity/memory_room.h). */
int engine__check_max_keys(const struct collector_opts *opts,
			   struct error *err);

#endif
