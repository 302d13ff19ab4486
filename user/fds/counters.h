/* SPDX-License-Identifier: GPL-2.0 */
/* attrs -> fds: one perf_event fd per event per CPU, system-wide. */
#ifndef BPMC_FDS_COUNTERS_H
#define BPMC_FDS_COUNTERS_H

#include <stdbool.h>
#include <stdint.h>

#include "common/error.h"
#include "names/events.h"

struct counter_opts {
	uint64_t period; /* -c: sample every N events, or 0 */
	uint64_t freq; /* -F: samples per second, used when !period */
	bool sampling; /* false: counting fds only */
};

/* One reading of a counter, or the difference of two. */
struct counter_reading {
	uint64_t value;
	uint64_t enabled;
	uint64_t running;
};

struct counters {
	int nr_events;
	int nr_cpus; /* possible CPUs: the fd array stride */
	int *fd; /* [event * nr_cpus + cpu], -1 if unused */
	struct counter_reading *last; /* same layout */
	int leader[BPMC_MAX_EVENTS];
	/* Kept to open a CPU that comes online later: the events must
	 * outlive the handle. */
	const struct event_list *events;
	struct counter_opts opts;
	bool enabled; /* counters__enable() was called */
	uint64_t *since_ns; /* [cpu]: CLOCK_MONOTONIC of its last read or start */
	/* A sampled cpu-clock or task-clock: its count is its running time,
	 * unless the kernel throttled it (counters__add_cpu). */
	bool sampled_clock[BPMC_MAX_EVENTS];
};

/* Opens every event on every CPU its PMU covers; err says why not. */
int counters__open(struct counters *c, const struct event_list *events,
		   const struct counter_opts *opts, struct error *err);
int counters__enable(struct counters *c);
int counters__disable(struct counters *c);
void counters__close(struct counters *c);

/*
 * CPU hotplug. An fd of a CPU that goes offline stays readable, but its
 * counts freeze and it never counts again, even once the CPU is back
 * (measured on 6.18): the CPU's fds are closed, and opened anew when it
 * returns. counters__open_cpu() opens cpu's events disabled, with
 * readings from zero; 0 opened is not an error (no PMU of ours covers
 * the CPU). counters__enable_cpu() starts them once BPF is ready.
 */
int counters__open_cpu(struct counters *c, int cpu, int *opened,
		       struct error *err);
int counters__enable_cpu(struct counters *c, int cpu);
void counters__close_cpu(struct counters *c, int cpu);

/* One interval's counts per event, summed over CPUs. */
struct counter_totals {
	struct counter_reading raw[BPMC_MAX_EVENTS];
	uint64_t scaled[BPMC_MAX_EVENTS]; /* per-CPU scaled, then summed */
	/* A sampled clock's running time its count lacks: throttled. */
	uint64_t throttled_ns[BPMC_MAX_EVENTS];
};

void counter_totals__reset(struct counter_totals *t);
/* True when some event is open on cpu. */
bool counters__has_cpu(const struct counters *c, int cpu);
/*
 * Adds each event's change on cpu since the last reading of that CPU to
 * t: the reading given[event] for the events in mask (a bit per event),
 * taken elsewhere at the instant wanted, and a read of the fd for the
 * others. *stopped (if not NULL) is set when an enabled counter's
 * enabled time fell behind the clock (counter_stopped): its CPU went
 * offline since the last read, and may be back already, with fds that
 * will never count again.
 *
 * A sampled cpu-clock or task-clock counts its CPU's clock while it
 * runs, but the kernel stops it, count and timer, while it throttles it
 * (more than kernel.perf_event_max_sample_rate / HZ overflows between
 * two scheduler ticks: an idle CPU whose tick stopped; perf record's
 * THROTTLE records here: 15-143 ms a time at -F 997), and restarts it from the clock without
 * crediting the gap. Such a change beyond THROTTLE_SLACK_NS is taken at
 * its running time, the clock, and the gap goes to t->throttled_ns.
 */
#define THROTTLE_SLACK_NS 1000000ULL
int counters__add_cpu(struct counters *c, int cpu,
		      const struct counter_reading *given, uint32_t mask,
		      struct counter_totals *t, bool *stopped);

/*
 * Why perf_event_open(attr, cpu) of ev failed with errno err, in words:
 * a constant string, or buf. cpu < 0 means the calling thread.
 */
const char *counters__open_reason(const struct event *ev,
				  const struct perf_event_attr *attr, int cpu,
				  int err, char *buf, size_t len);

/*
 * The attr ev is opened with on a CPU: counting, or sampling at opts'
 * rate unless ev sets its own; a group member counts, only its leader
 * samples.
 */
void counters__attr(struct perf_event_attr *attr, const struct event *ev,
		    bool member, const struct counter_opts *opts);

/*
 * The online CPUs of the PMU whose sysfs `type` is attr_type (the core
 * PMU's for generic hardware and cache events), or all online CPUs.
 */
int counters__pmu_cpus(__u32 attr_type, bool *cpus, int nr_cpus);

/* --best-effort: whether an event of a list opens on this host. */
#define COUNTER_REASON_LEN 256
struct counter_probe {
	bool ok;
	char reason[COUNTER_REASON_LEN]; /* why not, in words */
};

/*
 * Tries every event of the list on one CPU of its PMU, as
 * counters__open() would open it, and closes it again: out[e] says
 * whether it opened, and if not, why (counters__open_reason()). A member
 * is tried in its group, so a group the PMU cannot hold drops the
 * members that do not fit; one whose leader failed is tried as the
 * leader, as event_list__keep() will make it. 0, or -errno (err set)
 * when the CPUs cannot be read.
 */
int counters__probe(const struct event_list *events,
		    const struct counter_opts *opts, struct counter_probe *out,
		    struct error *err);

/*
 * -c and :period=: -ERANGE when period would sample ev faster than
 * kernel.perf_event_max_sample_rate allows any event, by the event's
 * known rate (timers: 1e9/s; cycles: 6e9/s; instructions: 3e10/s);
 * *min is the least period allowed (1 when the rate is unknown).
 */
int counters__check_period(const struct event *ev, uint64_t period,
			   uint64_t *min);

/* True when this host exposes a core PMU that can count cycles. */
bool counters__host_has_pmu(void);
/*
 * The core PMU's hardware counters as the kernel schedules them for this
 * thread (the largest group of generic hardware events it accepts, at
 * most max and BPMC_MAX_GROUP_PROBE); 0 without a hardware PMU.
 */
#define BPMC_MAX_GROUP_PROBE 64
int counters__hw_counters(int max);

/* The sampling-rate ceiling the kernel lowers when it throttles. */
#define PERF_MAX_SAMPLE_RATE_SYSCTL \
	"/proc/sys/kernel/perf_event_max_sample_rate"
int perf_max_sample_rate(long *rate);

/* The one multiplexing formula: value * enabled / running, 0 if never ran. */
uint64_t counter_scale(uint64_t value, uint64_t enabled, uint64_t running);

/*
 * Whether a counter enabled all along, whose enabled time moved by
 * enabled_ns while wall_ns passed, stopped for part of it. Enabled time
 * moves whenever the event is enabled, running or multiplexed out; only
 * an event that its CPU dropped stands still. The slack (an eighth, and
 * 1 ms) covers perf's clock against CLOCK_MONOTONIC and the gap between
 * a read and the clock call; a CPU away for less is caught one read
 * later, when its enabled time does not move at all.
 */
bool counter_stopped(uint64_t enabled_ns, uint64_t wall_ns);

/* Difference of two cumulative readings, tolerating a counter wrap. */
struct counter_reading counter_delta(const struct counter_reading *now,
				     const struct counter_reading *prev);

#endif
