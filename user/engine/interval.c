// SPDX-License-Identifier: GPL-2.0
/*
 * One interval: flush every CPU, take the retired generation, follow
 * hotplug, resolve the new cgroups and write the rows into the sink,
 * with what is worth saying about it (samples lost, throttling, rare
 * events) handed to the command.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <string.h>
#include <time.h>

#include "common/util.h"
#include "engine/state.h"

static void check_throttling(struct engine *e)
{
	long rate;

	if (perf_max_sample_rate(&rate) || rate >= e->max_rate)
		return;
	engine_say(
		e, ENGINE_WARN,
		"the kernel throttled sampling: kernel.perf_event_max_sample_rate fell from %ld to %ld, so some overflows were not taken",
		e->max_rate, rate);
	e->max_rate = rate;
}

/*
 * A sampled clock the kernel throttled stopped counting for a while
 * (counters__add_cpu): its system row is the clock, but its keys' rows
 * lack the samples of that time. Said once per event; the self row's
 * samples_missed counts the periods every interval.
 */
static void warn_throttled(struct engine *e, const struct counter_totals *t)
{
	for (int i = 0; i < e->events.nr && i < BPMC_MAX_EVENTS; i++) {
		if (!t->throttled_ns[i] || e->throttled_said[i])
			continue;
		e->throttled_said[i] = true;
		engine_say(
			e, ENGINE_WARN,
			"%s: the kernel throttled it for %.1f ms of CPU time this interval (more than kernel.perf_event_max_sample_rate / HZ overflows between two ticks, as on an idle CPU whose tick stopped), and a throttled clock neither counts nor samples: its system row counts the clock, its rows miss that time's samples (the self row samples_missed counts them); lower -F, or count it with --mode exact",
			e->events.ev[i].name, t->throttled_ns[i] / 1e6);
	}
}

static void report_drops(struct engine *e, const uint64_t *drops)
{
	if (drops[BPMC_DROP_MAP_FULL])
		engine_say(
			e, ENGINE_WARN,
			"%" PRIu64
			" samples lost this interval: the counts map is full (raise --max-keys above %ld)",
			drops[BPMC_DROP_MAP_FULL], e->opts.max_keys);
	if (drops[BPMC_DROP_READ])
		engine_say(
			e, ENGINE_WARN,
			"%" PRIu64
			" counter reads failed this interval: their deltas go to the next task read on that CPU",
			drops[BPMC_DROP_READ]);
	if (drops[BPMC_DROP_CGROUP_PATH])
		engine_say(
			e, ENGINE_WARN,
			"%" PRIu64
			" new cgroups' paths did not fit the ring buffer this interval: a cgroup also removed within it has no path",
			drops[BPMC_DROP_CGROUP_PATH]);
	if (drops[BPMC_DROP_NO_MEMORY])
		engine_say(
			e, ENGINE_WARN,
			"%" PRIu64
			" samples lost this interval: the kernel could not allocate their keys in the counts map (out of memory, or the memory cgroup's limit)",
			drops[BPMC_DROP_NO_MEMORY]);
	if (drops[BPMC_DROP_RACE])
		engine_say(
			e, ENGINE_WARN,
			"%" PRIu64
			" samples lost this interval: another CPU inserted their key into the counts map at the same time, and the entry was gone before they could be added",
			drops[BPMC_DROP_RACE]);
	for (int i = 0; i < BPMC_DROP_NR; i++)
		e->drops[i] += drops[i];
}

static void learn_cgroup(void *cgroups, const struct bpmc_cgroup_event *e)
{
	cgroups__learn(cgroups, e->id, e->hierarchy_id, e->path,
		       e->flags & BPMC_CGROUP_PATH_CUT);
}

/*
 * Sampling mode: one warning per event whose samples are too few for the
 * interval (rows/rare.h), after the first intervals or at exit.
 */
void interval__warn_rare(struct engine *e, bool at_exit)
{
	struct rare_event rare[BPMC_MAX_EVENTS];
	const char *name;
	char err[48];
	int n;

	if (e->opts.exact)
		return;
	n = rare__judge(&e->rare, e->events.nr,
			e->opts.interval_ms * 1000000ull, at_exit, rare);
	for (int i = 0; i < n; i++) {
		name = e->events.ev[rare[i].event].name;
		if (isinf(rare[i].rel_err))
			snprintf(err, sizeof(err),
				 "an unknown amount (no sample)");
		else
			snprintf(err, sizeof(err),
				 "about %.0f %% (1/sqrt(samples))",
				 100 * rare[i].rel_err);
		engine_say(
			e, ENGINE_WARN,
			"%s is too rare to sample every %ld ms: %.1f samples per interval system-wide (over the first %" PRIu64
			" intervals), so each interval's rows are off by %s or more, a sparse key's by more, and may be biased; count it with --mode exact%s",
			name, e->opts.interval_ms, rare[i].samples_per_interval,
			e->rare.intervals, err,
			!strcmp(name, "cpu-clock") ||
					!strcmp(name, "task-clock") ?
				", or raise -F" :
				"");
	}
}

/*
 * An event enabled through the interval that never ran: the kernel
 * accepted its group (it fits an empty PMU) but never found room for it
 * (others hold counters: a pinned event, the NMI watchdog, another
 * tool). Its system row has no count (rows/drain.c); said once per
 * group, by its leader.
 */
static void warn_never_ran(struct engine *e, const struct counter_totals *t)
{
	const struct event *ev;
	int members;

	for (int i = 0; i < e->events.nr; i++) {
		ev = &e->events.ev[i];
		if (ev->leader != i || e->never_ran_said[i] ||
		    !t->raw[i].enabled || t->raw[i].running)
			continue;
		e->never_ran_said[i] = true;
		members = 0;
		for (int m = 0; m < e->events.nr; m++)
			members += m != i && e->events.ev[m].leader == i;
		engine_say(
			e, ENGINE_WARN,
			"event '%s'%s never ran this interval, though enabled: the PMU never had room for %s (other events hold its counters: a pinned event, the NMI watchdog, another tool), so its system row has no count, not 0; free counters, or split the group",
			ev->name, members ? " and its group" : "",
			members ? "the group's events at once" : "it");
	}
}

/*
 * Sampling mode: the overflows each sampled event's counter made that no
 * sample credited (rows/missed.h), this interval's, for the self row
 * samples_missed; said once per event. Not with -G: the keys then hold
 * only the subtrees' share of the system row.
 */
static uint64_t missed_overflows(struct engine *e,
				 const struct drain_sums *sums)
{
	uint64_t missed[BPMC_MAX_EVENTS], n;

	if (e->opts.exact || e->opts.filters)
		return 0;
	n = missed__interval(&e->missed, &e->events, sums, e->counters.nr_cpus,
			     missed);
	for (int i = 0; i < e->events.nr && n; i++) {
		if (!missed[i] || e->missed_said[i])
			continue;
		e->missed_said[i] = true;
		engine_say(
			e, ENGINE_WARN,
			"%s: %" PRIu64
			" overflows this interval were counted and never sampled (%.1f %% of its count so far): their interrupts came more than a period late, and the kernel skips the overflows in between (or the overflow program did not run); its rows are that much low, and the self row samples_missed counts them: sample it with a longer period (-c) or a lower -F, or count it with --mode exact",
			e->events.ev[i].name, missed[i],
			100 * missed__share(&e->missed, i));
	}
	return n;
}

/*
 * Hybrid hosts can keep their containers in cgroup v1 while every task
 * sits in the v2 root: say so rather than write root-only rows.
 */
static void check_root_only(struct engine *e)
{
	uint64_t root = cgroups__root_id(e->cgroups);

	if (e->root_only_done || e->opts.cgroup_v1 || e->opts.filters ||
	    !e->data.nr)
		return;
	for (size_t i = 0; i < e->data.nr; i++) {
		if (e->data.keys[i].cgroup_id != root) {
			e->root_only_done = true;
			return;
		}
	}
	e->root_only_done = true;
	engine_say(
		e, ENGINE_WARN,
		"every task is in the cgroup v2 root: this host's containers must live in a cgroup v1 hierarchy; attribute to one with --cgroup-v1 CONTROLLER (e.g. cpu, memory, pids)");
}

int interval__write(struct engine *e, struct error *error)
{
	/*
	 * The span the counts cover, not the time from one wake-up to the
	 * next (a late wake-up made a loaded host's cpu-clock reach 103 % of
	 * CPUs x interval_ms): each CPU's counts run from its last read to
	 * this one, so interval_ms is the mean of those spans.
	 */
	uint64_t cut = clock_ns(CLOCK_MONOTONIC);
	struct interval_info info = {
		.end_realtime_ns = clock_ns(CLOCK_REALTIME),
		.host = e->opts.host,
		.events = e->support,
		.nr_events = e->asked.nr,
	};
	struct sink *sink = e->sink;
	const struct engine_ops *ops = e->ops;
	struct counter_totals totals;
	struct drain_sums sums;
	bool online[BPMC_MAX_CPUS];
	struct prog_stats prog;
	int err;

	if (ops->intervals_lost)
		info.intervals_lost = ops->intervals_lost(ops->ctx);
	err = hotplug__flush_all_cpus(e, &totals, online);
	/* In a round where a CPU left, its counts stopped at a moment no
	 * read shows: the round's own start-to-start span is the better
	 * measure then. */
	info.length_ns = e->span_cpus && !e->span_unsure ?
				 e->span_sum_ns / e->span_cpus :
				 cut - e->last_cut_ns;
	e->last_cut_ns = cut;
	if (!err)
		err = collector__take_retired(e->collector, &e->data);
	if (err)
		return error__set(error, err,
				  "cannot read the interval's counts: %s",
				  strerror(-err));
	hotplug__apply(e, online);
	warn_never_ran(e, &totals);
	warn_throttled(e, &totals);
	report_drops(e, e->data.drops);
	check_throttling(e);
	cgroups__new_interval(e->cgroups);
	kube__new_interval(e->kube, cut);
	collector__take_new_cgroups(e->collector, learn_cgroup, e->cgroups);
	check_root_only(e);
	err = sink->ops->begin_interval(sink, &info);
	if (!err)
		err = drain__write_rows(&e->data, &e->rows, &e->events, &totals,
					sink, &sums);
	if (!err) {
		collector__prog_stats(e->collector, &prog);
		err = self__write_rows(
			&e->self, &prog,
			e->data.drops[BPMC_DROP_MAP_FULL] +
				e->data.drops[BPMC_DROP_RACE] +
				e->data.drops[BPMC_DROP_NO_MEMORY],
			missed_overflows(e, &sums), sink);
	}
	if (!err && !e->opts.exact)
		err = self__write_sampling_err(&e->events, &sums, sink);
	if (!err)
		err = sink->ops->end_interval(sink);
	if (err)
		return error__set(error, err, "%s",
				  sink->error.msg[0] ? sink->error.msg :
						       strerror(-err));
	check__interval(&e->check, &sums, e->opts.scopes, e->events.nr);
	rare__interval(&e->rare, &sums, e->events.nr, info.length_ns);
	interval__warn_rare(e, false);
	return 0;
}
