// SPDX-License-Identifier: GPL-2.0
/*
 * CPU hotplug, at interval boundaries: the round of flushes that ends an
 * interval on every CPU, then the CPUs that went (their counters close)
 * and came (theirs open, from zero).
 */
#include <errno.h>
#include <sched.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common/util.h"
#include "engine/state.h"

/*
 * A CPU of ours that refuses us (sched_setaffinity: EINVAL) is on its way
 * out: the scheduler stops taking tasks there before perf freezes its
 * counters, and a flush by IPI now would race the switches that push its
 * tasks off, which read() then counts and BPF credits an interval later.
 * Wait (at most 500 ms; offlining took tens of ms here) until it is gone,
 * when its fds are frozen at what BPF last read. False: it stayed.
 */
static bool cpu_leaving(int cpu)
{
	bool online[BPMC_MAX_CPUS];
	struct timespec ms = { .tv_nsec = 1000000 };

	for (int i = 0; i < 500; i++) {
		if (!cpus_online(online, BPMC_MAX_CPUS) && !online[cpu])
			return true;
		nanosleep(&ms, NULL);
	}
	return false;
}

/*
 * Ends the interval on every CPU: from the CPU itself, flush what BPF has
 * pending there and read its fds right away. In exact mode the readings
 * are the flush's own, in the instant of its credits: a task that
 * preempted bpmc between the flush and a read(2) would have its switches
 * in the system row of this interval and in the rows of the next (one
 * context switch, or a CFS slice of cpu-clock, in an interval; seen with
 * the CPUs oversubscribed). Where we may not run, the flush goes by IPI
 * instead, the cut with it.
 *
 * A CPU that went offline is neither flushed nor run on (both fail), but
 * its fds are read one last time: they froze as it left, and BPF
 * credited the same frozen readings at its last context switches, into
 * the generation retired now. Such a CPU, and one whose counters stopped
 * because it went and came back within the interval, is marked gone for
 * hotplug__apply(). online gets the online CPUs.
 */
int hotplug__flush_all_cpus(struct engine *e, struct counter_totals *t,
			    bool *online)
{
	int nr = e->counters.nr_cpus;
	struct flush_cut cut;
	uint64_t now;
	bool stopped;
	cpu_set_t one;
	int err = 0;

	counter_totals__reset(t);
	memset(e->gone, 0, sizeof(e->gone));
	e->span_sum_ns = e->span_cpus = 0;
	e->span_unsure = false;
	/*
	 * Polled, once an interval, rather than watched through a uevent
	 * socket: a CPU's counters can only be swapped here, between its
	 * flush and the take, so news between boundaries would wait anyway;
	 * a CPU that leaves and returns between two polls is caught by its
	 * stopped counters. On a failed read, keep the last known set.
	 */
	if (cpus_online(online, nr))
		memcpy(online, e->online, nr * sizeof(*online));
	for (int cpu = 0; cpu < nr && !err; cpu++) {
		if (!counters__has_cpu(&e->counters, cpu))
			continue;
		stopped = false;
		cut.ok = 0; /* read(2) unless the flush took the cut */
		if (online[cpu]) {
			CPU_ZERO(&one);
			CPU_SET(cpu, &one);
			/* Once one stayed (a cpuset changed under us), the
			 * IPI it is, without waiting again. */
			if (sched_setaffinity(0, sizeof(one), &one) &&
			    CPU_ISSET(cpu, &e->affinity) && !e->stays[cpu]) {
				if (cpu_leaving(cpu)) {
					online[cpu] = false;
					goto read;
				}
				e->stays[cpu] = true;
			}
			err = collector__flush_cpu(e->collector, cpu, &cut);
			if (err == -ENXIO) {
				/* Offline since we read the list. */
				online[cpu] = false;
				err = 0;
			}
			if (e->opts.flush_gap_us > 0)
				usleep(e->opts.flush_gap_us);
		}
read:
		if (!err)
			err = counters__add_cpu(&e->counters, cpu, cut.reading,
						cut.ok, t, &stopped);
		e->gone[cpu] = !online[cpu] || stopped;
		now = clock_ns(CLOCK_MONOTONIC);
		/* A CPU that left stopped counting at an unknown moment
		 * before this read: its span is not the one its counts
		 * cover, so it does not set the interval's. */
		e->span_unsure |= e->gone[cpu];
		if (!err && e->read_ns[cpu] && !e->gone[cpu]) {
			e->span_sum_ns += now - e->read_ns[cpu];
			e->span_cpus++;
		}
		e->read_ns[cpu] = e->gone[cpu] ? 0 : now;
	}
	sched_setaffinity(0, sizeof(e->affinity), &e->affinity);
	return err;
}

/*
 * Whether cpu has finished coming online: the online mask is set before
 * the hotplug thread runs the rest of the bring-up there, at real-time
 * priority, and a flush and read on the CPU meanwhile are pulled apart
 * (measured: 116 us of cpu-clock credited an interval late at -I 100).
 * Without the hotplug files, assume it has.
 */
static bool cpu_settled(int cpu)
{
	char path[96];
	long state, target;

	snprintf(path, sizeof(path),
		 "/sys/devices/system/cpu/cpu%d/hotplug/state", cpu);
	if (read_file_long(path, &state))
		return true;
	snprintf(path, sizeof(path),
		 "/sys/devices/system/cpu/cpu%d/hotplug/target", cpu);
	return read_file_long(path, &target) || state == target;
}

/*
 * Opens, attaches and starts the counters of a CPU that came online. One
 * that fails (seen online while perf is not ready there yet, or without
 * CAP_PERFMON after --user) is retried at every boundary, said once.
 */
static void hotplug_bring_up(struct engine *e, int cpu)
{
	struct error error = {};
	int opened, err;

	err = counters__open_cpu(&e->counters, cpu, &opened, &error);
	if (!err && !opened)
		return; /* none of our events' PMUs covers it */
	if (!err)
		err = collector__attach_cpu(e->collector, &e->counters, cpu,
					    &error);
	if (!err) {
		err = counters__enable_cpu(&e->counters, cpu);
		if (err) {
			error__set(&error, err,
				   "cannot enable its counters: %s",
				   strerror(-err));
			collector__detach_cpu(e->collector, &e->counters, cpu);
		}
	}
	if (err) {
		counters__close_cpu(&e->counters, cpu);
		if (!e->retry[cpu])
			engine_say(
				e, ENGINE_WARN,
				"cpu%d came online, but it stays uncounted for now (retried every interval): %s",
				cpu, error__why(&error, err));
		e->retry[cpu] = true;
		return;
	}
	engine_say(e, ENGINE_WARN, "cpu%d came online: counting it%s", cpu,
		   e->counted[cpu] ? " again" : "");
	e->counted[cpu] = true;
	e->read_ns[cpu] = clock_ns(CLOCK_MONOTONIC); /* its counts start */
	e->retry[cpu] = false;
}

/*
 * After the take: closes the counters of the CPUs gone this round and
 * opens those of the CPUs that came online, each entering the live
 * generation, so that every interval adds up over the CPUs it counted.
 */
void hotplug__apply(struct engine *e, const bool *online)
{
	for (int cpu = 0; cpu < e->counters.nr_cpus; cpu++) {
		if (e->gone[cpu]) {
			collector__detach_cpu(e->collector, &e->counters, cpu);
			counters__close_cpu(&e->counters, cpu);
			engine_say(
				e, ENGINE_WARN,
				"cpu%d went offline: its counters are closed; the system row is now the online CPUs' total",
				cpu);
		}
		if (!online[cpu])
			e->retry[cpu] = e->stays[cpu] = e->settling[cpu] =
				false;
		else if ((!e->online[cpu] || e->gone[cpu] || e->retry[cpu] ||
			  e->settling[cpu]) &&
			 !counters__has_cpu(&e->counters, cpu)) {
			/* Not yet: the next boundary brings it up. */
			e->settling[cpu] = !cpu_settled(cpu);
			if (!e->settling[cpu])
				hotplug_bring_up(e, cpu);
		}
		e->online[cpu] = online[cpu];
	}
}
