// SPDX-License-Identifier: GPL-2.0
/* bpmc record: names -> attrs -> fds -> maps -> rows -> CSV, per interval. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/commands.h"
#include "cmd/privilege.h"
#include "cmd/record.h"
#include "common/util.h"
#include "fds/counters.h"
#include "identity/cgroups.h"
#include "identity/kube.h"
#include "maps/collector.h"
#include "names/events.h"
#include "rows/check.h"
#include "rows/rare.h"
#include "rows/drain.h"
#include "rows/self.h"
#include "cmd/record_meta.h"
#include "cmd/record_outputs.h"
#include "cmd/record_status.h"
#include "sinks/csv_sink.h"

struct record {
	struct record_env env;
	struct events *names;
	struct event_list asked; /* as -e gave them */
	struct event_list events; /* counted: asked, less what is dropped */
	/* Each event asked for: counted or not, and why (--best-effort). */
	struct event_support support[BPMC_MAX_EVENTS];
	struct counter_probe probe[BPMC_MAX_EVENTS];
	struct counters counters;
	struct collector *collector;
	struct interval_data data;
	struct record_outputs out;
	char host[256];
	char path[4096];
	struct record_meta meta;
	uint64_t last_cut_ns; /* CLOCK_MONOTONIC of the last flush */
	uint64_t drops[BPMC_DROP_NR];
	long max_rate;
	struct check check;
	struct rare rare;
	struct rows_opts rows;
	struct cgroups *cgroups;
	struct kube *kube;
	struct collector_opts bpf; /* the cgroup part is filled first */
	struct self self;
	bool root_only_done;
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
	const struct record_hooks *hooks; /* NULL: record itself */
	struct record_status status;
	/* Test-only: BPMC_TEST_FLUSH_GAP_US sleeps that long between each
	 * CPU's flush and its read, where a switch is sure to come. */
	long flush_gap_us;
};

static volatile sig_atomic_t stop_requested, rotate_requested;
static bool hangup_stops; /* set before the handler is */

static void on_signal(int sig)
{
	if (sig == SIGHUP && !hangup_stops)
		rotate_requested = 1;
	else
		stop_requested = 1;
}

static void check_throttling(struct record *r)
{
	long rate;

	if (perf_max_sample_rate(&rate) || rate >= r->max_rate)
		return;
	p_warn("the kernel throttled sampling: kernel.perf_event_max_sample_rate fell from %ld to %ld, so some overflows were not taken",
	       r->max_rate, rate);
	r->max_rate = rate;
}

static void report_drops(struct record *r, const uint64_t *drops)
{
	if (drops[BPMC_DROP_MAP_FULL])
		p_warn("%" PRIu64
		       " samples lost this interval: the counts map is full (raise --max-keys above %ld)",
		       drops[BPMC_DROP_MAP_FULL], r->env.max_keys);
	if (drops[BPMC_DROP_READ])
		p_warn("%" PRIu64
		       " counter reads failed this interval: their deltas go to the next task read on that CPU",
		       drops[BPMC_DROP_READ]);
	if (drops[BPMC_DROP_CGROUP_PATH])
		p_warn("%" PRIu64
		       " new cgroups' paths did not fit the ring buffer this interval: a cgroup also removed within it has no path",
		       drops[BPMC_DROP_CGROUP_PATH]);
	if (drops[BPMC_DROP_NO_MEMORY])
		p_warn("%" PRIu64
		       " samples lost this interval: the kernel could not allocate their keys in the counts map (out of memory, or the memory cgroup's limit)",
		       drops[BPMC_DROP_NO_MEMORY]);
	if (drops[BPMC_DROP_RACE])
		p_warn("%" PRIu64
		       " samples lost this interval: another CPU inserted their key into the counts map at the same time, and the entry was gone before they could be added",
		       drops[BPMC_DROP_RACE]);
	for (int i = 0; i < BPMC_DROP_NR; i++)
		r->drops[i] += drops[i];
}

static void learn_cgroup(void *cgroups, const struct bpmc_cgroup_event *e)
{
	cgroups__learn(cgroups, e->id, e->hierarchy_id, e->path,
		       e->flags & BPMC_CGROUP_PATH_CUT);
}

/*
 * Hybrid hosts can keep their containers in cgroup v1 while every task
 * sits in the v2 root: say so rather than write root-only rows.
 */
/*
 * Sampling mode: one warning per event whose samples are too few for the
 * interval (rows/rare.h), after the first intervals or at exit.
 */
static void warn_rare(struct record *r, bool at_exit)
{
	struct rare_event rare[BPMC_MAX_EVENTS];
	const char *name;
	char err[48];
	int n;

	if (r->env.exact)
		return;
	n = rare__judge(&r->rare, r->events.nr, r->env.interval_ms * 1000000ull,
			at_exit, rare);
	for (int i = 0; i < n; i++) {
		name = r->events.ev[rare[i].event].name;
		if (isinf(rare[i].rel_err))
			snprintf(err, sizeof(err),
				 "an unknown amount (no sample)");
		else
			snprintf(err, sizeof(err),
				 "about %.0f %% (1/sqrt(samples))",
				 100 * rare[i].rel_err);
		p_warn("%s is too rare to sample every %ld ms: %.1f samples per interval system-wide (over the first %" PRIu64
		       " intervals), so each interval's rows are off by %s or more, a sparse key's by more, and may be biased; count it with --mode exact%s",
		       name, r->env.interval_ms, rare[i].samples_per_interval,
		       r->rare.intervals, err,
		       !strcmp(name, "cpu-clock") ||
				       !strcmp(name, "task-clock") ?
			       ", or raise -F" :
			       "");
	}
}

static void check_root_only(struct record *r)
{
	uint64_t root = cgroups__root_id(r->cgroups);

	if (r->root_only_done || r->env.cgroup_v1 || r->env.filters ||
	    !r->data.nr)
		return;
	for (size_t i = 0; i < r->data.nr; i++) {
		if (r->data.keys[i].cgroup_id != root) {
			r->root_only_done = true;
			return;
		}
	}
	r->root_only_done = true;
	p_warn("every task is in the cgroup v2 root: this host's containers must live in a cgroup v1 hierarchy; attribute to one with --cgroup-v1 CONTROLLER (e.g. cpu, memory, pids)");
}

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
 * hotplug_apply(). online gets the online CPUs.
 */
static int flush_all_cpus(struct record *r, struct counter_totals *t,
			  bool *online)
{
	int nr = r->counters.nr_cpus;
	struct flush_cut cut;
	uint64_t now;
	bool stopped;
	cpu_set_t one;
	int err = 0;

	counter_totals__reset(t);
	memset(r->gone, 0, sizeof(r->gone));
	r->span_sum_ns = r->span_cpus = 0;
	r->span_unsure = false;
	/*
	 * Polled, once an interval, rather than watched through a uevent
	 * socket: a CPU's counters can only be swapped here, between its
	 * flush and the take, so news between boundaries would wait anyway;
	 * a CPU that leaves and returns between two polls is caught by its
	 * stopped counters. On a failed read, keep the last known set.
	 */
	if (cpus_online(online, nr))
		memcpy(online, r->online, nr * sizeof(*online));
	for (int cpu = 0; cpu < nr && !err; cpu++) {
		if (!counters__has_cpu(&r->counters, cpu))
			continue;
		stopped = false;
		cut.ok = 0; /* read(2) unless the flush took the cut */
		if (online[cpu]) {
			CPU_ZERO(&one);
			CPU_SET(cpu, &one);
			/* Once one stayed (a cpuset changed under us), the
			 * IPI it is, without waiting again. */
			if (sched_setaffinity(0, sizeof(one), &one) &&
			    CPU_ISSET(cpu, &r->affinity) && !r->stays[cpu]) {
				if (cpu_leaving(cpu)) {
					online[cpu] = false;
					goto read;
				}
				r->stays[cpu] = true;
			}
			err = collector__flush_cpu(r->collector, cpu, &cut);
			if (err == -ENXIO) {
				/* Offline since we read the list. */
				online[cpu] = false;
				err = 0;
			}
			if (r->flush_gap_us > 0)
				usleep(r->flush_gap_us);
		}
read:
		if (!err)
			err = counters__add_cpu(&r->counters, cpu, cut.reading,
						cut.ok, t, &stopped);
		r->gone[cpu] = !online[cpu] || stopped;
		now = clock_ns(CLOCK_MONOTONIC);
		/* A CPU that left stopped counting at an unknown moment
		 * before this read: its span is not the one its counts
		 * cover, so it does not set the interval's. */
		r->span_unsure |= r->gone[cpu];
		if (!err && r->read_ns[cpu] && !r->gone[cpu]) {
			r->span_sum_ns += now - r->read_ns[cpu];
			r->span_cpus++;
		}
		r->read_ns[cpu] = r->gone[cpu] ? 0 : now;
	}
	sched_setaffinity(0, sizeof(r->affinity), &r->affinity);
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
static void hotplug_bring_up(struct record *r, int cpu)
{
	struct error error = {};
	int opened, err;

	err = counters__open_cpu(&r->counters, cpu, &opened, &error);
	if (!err && !opened)
		return; /* none of our events' PMUs covers it */
	if (!err)
		err = collector__attach_cpu(r->collector, &r->counters, cpu,
					    &error);
	if (!err) {
		err = counters__enable_cpu(&r->counters, cpu);
		if (err) {
			error__set(&error, err,
				   "cannot enable its counters: %s",
				   strerror(-err));
			collector__detach_cpu(r->collector, &r->counters, cpu);
		}
	}
	if (err) {
		counters__close_cpu(&r->counters, cpu);
		if (!r->retry[cpu])
			p_warn("cpu%d came online, but it stays uncounted for now (retried every interval): %s",
			       cpu, error__why(&error, err));
		r->retry[cpu] = true;
		return;
	}
	p_warn("cpu%d came online: counting it%s", cpu,
	       r->counted[cpu] ? " again" : "");
	r->counted[cpu] = true;
	r->read_ns[cpu] = clock_ns(CLOCK_MONOTONIC); /* its counts start */
	r->retry[cpu] = false;
}

/*
 * After the take: closes the counters of the CPUs gone this round and
 * opens those of the CPUs that came online, each entering the live
 * generation, so that every interval adds up over the CPUs it counted.
 */
static void hotplug_apply(struct record *r, const bool *online)
{
	for (int cpu = 0; cpu < r->counters.nr_cpus; cpu++) {
		if (r->gone[cpu]) {
			collector__detach_cpu(r->collector, &r->counters, cpu);
			counters__close_cpu(&r->counters, cpu);
			p_warn("cpu%d went offline: its counters are closed; the system row is now the online CPUs' total",
			       cpu);
		}
		if (!online[cpu])
			r->retry[cpu] = r->stays[cpu] = r->settling[cpu] =
				false;
		else if ((!r->online[cpu] || r->gone[cpu] || r->retry[cpu] ||
			  r->settling[cpu]) &&
			 !counters__has_cpu(&r->counters, cpu)) {
			/* Not yet: the next boundary brings it up. */
			r->settling[cpu] = !cpu_settled(cpu);
			if (!r->settling[cpu])
				hotplug_bring_up(r, cpu);
		}
		r->online[cpu] = online[cpu];
	}
}

static int write_interval(struct record *r)
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
		.host = r->host,
		.events = r->support,
		.nr_events = r->asked.nr,
		.intervals_lost = record_outputs__intervals_lost(&r->out),
	};
	struct sink *sink = r->out.rows;
	struct counter_totals totals;
	struct drain_sums sums;
	bool online[BPMC_MAX_CPUS];
	int err;

	err = flush_all_cpus(r, &totals, online);
	/* In a round where a CPU left, its counts stopped at a moment no
	 * read shows: the round's own start-to-start span is the better
	 * measure then. */
	info.length_ns = r->span_cpus && !r->span_unsure ?
				 r->span_sum_ns / r->span_cpus :
				 cut - r->last_cut_ns;
	r->last_cut_ns = cut;
	if (!err)
		err = collector__take_retired(r->collector, &r->data);
	if (err) {
		p_err("cannot read the interval's counts: %s", strerror(-err));
		return err;
	}
	hotplug_apply(r, online);
	report_drops(r, r->data.drops);
	check_throttling(r);
	cgroups__new_interval(r->cgroups);
	kube__new_interval(r->kube, cut);
	collector__take_new_cgroups(r->collector, learn_cgroup, r->cgroups);
	check_root_only(r);
	err = sink->ops->begin_interval(sink, &info);
	if (!err)
		err = drain__write_rows(&r->data, &r->rows, &r->events, &totals,
					sink, &sums);
	if (!err)
		err = self__write_rows(
			&r->self, r->collector,
			r->data.drops[BPMC_DROP_MAP_FULL] +
				r->data.drops[BPMC_DROP_RACE] +
				r->data.drops[BPMC_DROP_NO_MEMORY],
			sink);
	if (!err && !r->env.exact)
		err = self__write_sampling_err(&r->events, &sums, sink);
	if (!err)
		err = sink->ops->end_interval(sink);
	if (err)
		p_err("%s",
		      sink->error.msg[0] ? sink->error.msg : strerror(-err));
	else {
		check__interval(&r->check, &sums, r->env.scopes, r->events.nr);
		rare__interval(&r->rare, &sums, r->events.nr, info.length_ns);
		warn_rare(r, false);
	}
	return err;
}

static void sleep_until(uint64_t mono_ns)
{
	struct timespec ts = {
		.tv_sec = mono_ns / 1000000000ull,
		.tv_nsec = mono_ns % 1000000000ull,
	};

	clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
}

/* Until the instant, or a signal; a hook may wake earlier (a key). */
static void wait_until(struct record *r, uint64_t mono_ns)
{
	const struct record_hooks *h = r->hooks;

	if (!h || !h->wait)
		sleep_until(mono_ns);
	else if (h->wait(h->ctx, mono_ns))
		stop_requested = 1;
}

static void show_status(struct record *r)
{
	struct record_progress p = {
		.intervals_lost = record_outputs__intervals_lost(&r->out),
	};

	csv_sink__progress(&r->out.csv, &p.rows, &p.bytes);
	for (int i = 0; i < BPMC_DROP_NR; i++)
		p.samples_lost += r->drops[i];
	record_status__interval(&r->status, &p);
}

/* Intervals end on start + k * interval, so they never drift. */
static int record_loop(struct record *r)
{
	uint64_t interval = r->env.interval_ms * 1000000ull;
	uint64_t start = clock_ns(CLOCK_MONOTONIC);
	uint64_t next = start + interval, deadline = UINT64_MAX, now;
	int err;

	if (r->env.duration_ms)
		deadline = start + r->env.duration_ms * 1000000ull;
	for (;;) {
		wait_until(r, next < deadline ? next : deadline);
		now = clock_ns(CLOCK_MONOTONIC);
		if (rotate_requested) {
			/* SIGHUP: the file holds whole intervals; it goes now. */
			rotate_requested = 0;
			record_status__clear(&r->status); /* for its notices */
			if (r->out.rows->ops->rotate)
				r->out.rows->ops->rotate(r->out.rows);
		}
		if (now < next && now < deadline && !stop_requested)
			continue; /* woken by a signal, not a boundary */
		record_status__clear(&r->status);
		err = write_interval(r);
		if (!err)
			show_status(r);
		if (err || stop_requested || now >= deadline)
			return err;
		while (next <= now)
			next += interval;
	}
}

/* Why a -G path that names no cgroup is refused, in words. */
static const char *filter_reason(int err)
{
	return err == -EXDEV ? "it leaves" :
			       "want a path starting with /, from the root of";
}

/*
 * -G PATH[,PATH...] (repeated -G joined by commas) -> the ancestor ids
 * and levels the BPF side tests, each level counted on the canonical
 * path: "/x/." is "/x" at depth 1, not 2.
 */
static int resolve_filters(struct cgroups *cg, const char *list,
			   struct collector_opts *o)
{
	char path[4096];
	int err, level;
	uint64_t id;

	while (list) {
		const char *at = list;

		err = cgroups__list_next(&list, path, sizeof(path));
		if (err) {
			p_err("invalid '-G %s': want PATH[,PATH...], none empty, a comma in a name as \\,",
			      at);
			return err;
		}
		if (o->nr_filters == BPMC_MAX_FILTERS) {
			p_err("too many cgroups in '-G %s': at most %d", at,
			      BPMC_MAX_FILTERS);
			return -E2BIG;
		}
		err = cgroups__resolve(cg, path, &id, &level);
		if (err == -EXDEV || err == -EINVAL) {
			p_err("invalid '-G %s': %s the cgroup2 mount at %s",
			      path, filter_reason(err), cgroups__mount(cg));
			return err;
		}
		if (err) {
			p_err("no cgroup '-G %s' under %s: %s", path,
			      cgroups__mount(cg), strerror(-err));
			return err;
		}
		o->filter_id[o->nr_filters] = id;
		o->filter_level[o->nr_filters++] = level;
	}
	return 0;
}

/* The cgroup hierarchy, --cgroup-v1's subsystem and -G's subtrees. */
static int identity_setup(struct record *r)
{
	struct error error = {};
	uint32_t hierarchy;
	int err = cgroups__new(&r->cgroups, r->env.cgroup_v1, &error);

	if (err) {
		p_err("%s", error__why(&error, err));
		return err;
	}
	r->rows.cgroups = r->cgroups;
	err = kube__new(&r->kube, r->env.kube_pods_dir,
			r->env.kube_containers_dir, &error);
	if (err) {
		p_err("%s", error__why(&error, err));
		return err;
	}
	r->rows.kube = r->kube;
	r->bpf.v1_subsys = -1;
	if (r->env.cgroup_v1)
		err = cgroups__v1_controller(r->env.cgroup_v1,
					     &r->bpf.v1_subsys, &hierarchy);
	if (!err)
		err = resolve_filters(r->cgroups, r->env.filters, &r->bpf);
	return err;
}

/*
 * --best-effort: leaves out the events this host cannot open, one
 * warning each, and counts the rest; none left is a refusal. Without
 * it every event is counted or the run is refused, as counters__open()
 * says.
 */
static int drop_unsupported(struct record *r, const struct counter_opts *copts)
{
	bool keep[BPMC_MAX_EVENTS];
	struct error error = {};
	char why[ERROR_LEN] = "";
	int err;

	for (int e = 0; e < r->asked.nr; e++) {
		r->support[e] = (struct event_support){
			.event = r->asked.ev[e].name,
			.supported = true,
		};
		keep[e] = true;
	}
	if (!r->env.best_effort) {
		r->events = r->asked;
		return 0;
	}
	err = counters__probe(&r->asked, copts, r->probe, &error);
	if (err) {
		p_err("%s", error__why(&error, err));
		return err;
	}
	for (int e = 0; e < r->asked.nr; e++) {
		keep[e] = r->probe[e].ok;
		r->support[e].supported = keep[e];
		r->support[e].reason = keep[e] ? NULL : r->probe[e].reason;
		if (!keep[e])
			snprintf(why + strlen(why), sizeof(why) - strlen(why),
				 "%s'%s': %s", why[0] ? "; " : "",
				 r->asked.ev[e].name, r->probe[e].reason);
	}
	event_list__keep(&r->asked, keep, &r->events, NULL);
	if (!r->events.nr) {
		p_err("none of the events can be counted on this host: %s",
		      why);
		return -ENODEV;
	}
	for (int e = 0; e < r->asked.nr; e++)
		if (!keep[e])
			p_warn("event '%s' cannot be counted on this host, so it is left out (--best-effort): %s",
			       r->asked.ev[e].name, r->probe[e].reason);
	return 0;
}

/* An event with its own period or frequency asks for sampling. */
static void choose_mode(struct record *r)
{
	if (r->env.mode_given)
		return;
	for (int e = 0; e < r->asked.nr; e++)
		if (r->asked.ev[e].own_period)
			r->env.exact = false;
}

/*
 * Sampling mode: context-switches and cpu-migrations at a frequency are
 * biased per key, not noisy (docs/accuracy.md, "Error per event": a dense key's
 * whole run 22-34 % low here), so no sample count can vouch for them.
 * Said once, at start: a fixed period (-c) or exact mode has no bias.
 */
static void warn_biased(const struct record *r)
{
	for (int e = 0; e < r->events.nr && !r->env.exact; e++) {
		const struct perf_event_attr *a = &r->events.ev[e].attr;

		if (a->type != PERF_TYPE_SOFTWARE ||
		    (a->config != PERF_COUNT_SW_CONTEXT_SWITCHES &&
		     a->config != PERF_COUNT_SW_CPU_MIGRATIONS) ||
		    (r->events.ev[e].own_period && !a->freq) || r->env.period)
			continue;
		p_warn("%s sampled at a frequency is biased per key (a dense key's whole run measured 22-43 %% low, docs/accuracy.md \"Error per event\"), whatever its samples; count it with --mode exact, or sample it with a fixed period (-c N, or %s:period=N)",
		       r->events.ev[e].name, r->events.ev[e].name);
	}
}

/*
 * -v: how the context-switch program takes each event in exact mode
 * (maps/collector.h), which the kernel's features decide.
 */
static void say_switch_how(const struct record *r)
{
	static const char *const how[] = {
		[BPMC_HOW_READ] = "read",
		[BPMC_HOW_CLOCK] = "rq->clock",
		[BPMC_HOW_COUNT] = "count loaded",
	};
	char line[512];
	size_t n = 0;

	line[0] = '\0';
	for (int e = 0; e < r->events.nr && n < sizeof(line); e++)
		n += snprintf(line + n, sizeof(line) - n, "%s%s: %s",
			      e ? ", " : "", r->events.ev[e].name,
			      how[collector__event_how(&r->bpf, e)]);
	p_info("exact mode, at each context switch: %s", line);
}

static int record_setup(struct record *r)
{
	choose_mode(r);
	struct counter_opts copts = {
		.period = r->env.period,
		.freq = r->env.freq,
		.sampling = !r->env.exact,
	};
	struct collector_opts *bopts = &r->bpf;
	struct collector_features features;
	struct error error = {};
	int err;

	err = drop_unsupported(r, &copts);
	if (err)
		return err;
	warn_biased(r);
	/* The rows' scopes: Prometheus may want more than --by. */
	bopts->key_tgid = r->rows.scopes & (SCOPE_PROCESS | SCOPE_THREAD);
	bopts->key_tid = r->rows.scopes & SCOPE_THREAD;
	bopts->max_keys = r->env.max_keys;
	bopts->nr_events = r->events.nr;
	bopts->exact = r->env.exact;
	/* A software event is always scheduled, never multiplexed out: its
	 * enabled and running times are equal, so the BPF side need not
	 * read them (one clock read and 4 words a counter fewer a read). */
	bopts->no_mux = true;
	for (int e = 0; e < r->events.nr; e++)
		bopts->no_mux &= r->events.ev[e].attr.type ==
				 PERF_TYPE_SOFTWARE;
	bopts->events = &r->events;

	for (int e = 0; e < r->events.nr; e++) {
		bopts->leader[e] = r->events.ev[e].leader;
		const struct event *ev = &r->events.ev[e];
		uint64_t period = ev->attr.freq ? 0 : ev->attr.sample_period,
			 min;

		if (!r->env.exact && !period && !ev->attr.freq)
			period = r->env.period;
		if (period && counters__check_period(ev, period, &min)) {
			p_err("period %llu of '%s' samples faster than kernel.perf_event_max_sample_rate allows: want a period of %llu or more",
			      (unsigned long long)period, ev->name,
			      (unsigned long long)min);
			return -EINVAL;
		}
		if (r->env.exact && r->events.ev[e].own_period) {
			p_err("event '%s' sets a period or frequency, which has no meaning with --mode exact",
			      r->events.ev[e].name);
			return -EINVAL;
		}
	}
	if (sched_getaffinity(0, sizeof(r->affinity), &r->affinity)) {
		err = -errno;
		p_err("cannot read this process's CPU affinity: %s",
		      strerror(-err));
		return err;
	}
	/* Before anything is opened: never fail deep inside the run. */
	err = collector__probe(bopts, &features, &error);
	if (err) {
		p_err("%s", error__why(&error, err));
		return err;
	}
	for (int i = 0; i < features.nr_fallbacks; i++)
		p_warn("%s", features.fallback[i]);
	bopts->no_ringbuf = !features.ringbuf;
	bopts->no_batch = !features.batch;
	bopts->no_event_loads = !features.event_loads;
	bopts->no_rq_clock = !features.rq_clock;
	if (verbose && bopts->exact)
		say_switch_how(r);
	bopts->no_prealloc = features.no_prealloc;
	err = record_check_max_keys(bopts, &error);
	if (err) {
		p_err("%s", error__why(&error, err));
		return err;
	}

	err = counters__open(&r->counters, &r->events, &copts, &error);
	if (!err)
		err = collector__load(&r->collector, bopts, &error);
	if (!err)
		err = collector__attach(r->collector, &r->counters, &error);
	if (err) {
		p_err("%s", error__why(&error, err));
		return err;
	}
	for (int cpu = 0; cpu < r->counters.nr_cpus; cpu++)
		r->counted[cpu] = counters__has_cpu(&r->counters, cpu);
	if (cpus_online(r->online, r->counters.nr_cpus))
		memcpy(r->online, r->counted, sizeof(r->online));
	/* Through the fd-based call, never the sysctl: it goes off with us. */
	err = r->env.self_stats ? collector__enable_stats(r->collector) : 0;
	if (err == -EPERM)
		p_warn("--self-stats needs CAP_SYS_ADMIN (bpf_enable_stats), which this process lacks: bpf_run_time_ns will read 0");
	else if (err)
		p_warn("--self-stats: cannot turn BPF run-time statistics on: %s; bpf_run_time_ns will read 0",
		       strerror(-err));
	self__init(&r->self, r->collector, r->support, r->asked.nr);
	record_meta__build(&r->meta, &r->env, &r->asked, &r->events, r->support,
			   r->host);
	if (r->out.csv.priv)
		csv_sink__set_meta(&r->out.csv, r->meta.rows, r->meta.nr);
	return record_outputs__setup(&r->out, &r->env, &r->events);
}

static int choose_events(struct record *r)
{
	const char *list = r->env.events, *warning;
	struct error error = {};
	int err = events__new(&r->names, r->env.pmu, &error);

	if (err) {
		p_err("%s", error__why(&error, err));
		return -EINVAL;
	}
	if (!list) {
		if (counters__host_has_pmu()) {
			list = "cycles,instructions";
		} else {
			list = "cpu-clock";
			p_info("no hardware PMU on this host (a VM?): recording cpu-clock instead of cycles,instructions");
		}
	}
	err = events__parse_list(r->names, list, &r->asked, &error);
	if (err) {
		warning = events__take_warning(r->names, false);
		if (warning)
			p_warn("%s", warning);
		p_err("%s", error__why(&error, err));
		return -EINVAL;
	}
	return 0;
}

int cmd_record(int argc, char **argv)
{
	struct record_env env = {
		.interval_ms = 1000,
		.freq = 997,
		.max_keys = 16384,
		.backlog = 60,
		.scopes = SCOPE_CGROUP | SCOPE_PROCESS,
		.tolerance_pct = 0.1,
		.rollup_depth = -1,
		.prom_scopes = PROM_SCOPES_DEFAULT,
		.prom_expire = 300,
	};
	int err = record_parse_args(argc, argv, &env);

	if (err)
		return cmd_exit_status(err);
	return record_run(&env, NULL);
}

/* The status line: on a terminal, unless the CSV streams to it too. */
static bool status_wanted(const struct record *r)
{
	bool to_stdout = !strcmp(r->path, "-");

	return !r->hooks && isatty(STDERR_FILENO) &&
	       !(to_stdout && isatty(STDOUT_FILENO));
}

int record_run(struct record_env *env, const struct record_hooks *hooks)
{
	struct record r = { .env = *env, .hooks = hooks };
	struct sigaction sa = { .sa_handler = on_signal };
	char missing[64];
	int err, ret = EXIT_USAGE;

	hangup_stops = hooks;
	r.out.screen = hooks ? hooks->sink : NULL;
	r.check.tolerance_pct = r.env.tolerance_pct;
	r.rows.scopes = record_outputs__row_scopes(&r.env);
	r.rows.rollup_depth = r.env.rollup_depth;
	if (getenv("BPMC_TEST_FLUSH_GAP_US"))
		r.flush_gap_us = atol(getenv("BPMC_TEST_FLUSH_GAP_US"));
	if (!record_has_capabilities(missing, sizeof(missing))) {
		p_err("%s needs root, or %s (this process lacks them)",
		      hooks ? hooks->command : "record", missing);
		return EXIT_USAGE;
	}
	gethostname(r.host, sizeof(r.host) - 1);
	snprintf(r.path, sizeof(r.path), "%s",
		 r.env.output ? r.env.output : "bpmc-%h-%Y%m%dT%H%M%SZ.csv");
	/* Before the events: a refusal must come before any other word. */
	if (record_outputs__open(&r.out, &r.env, r.path, r.host))
		return EXIT_USAGE;
	if (identity_setup(&r) || choose_events(&r)) {
		record_outputs__close(&r.out);
		events__free(r.names);
		cgroups__free(r.cgroups);
		kube__free(r.kube);
		return EXIT_USAGE;
	}
	if (perf_max_sample_rate(&r.max_rate))
		r.max_rate = 0;

	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	/* A closed -o - must come back as EPIPE, and end the run cleanly. */
	signal(SIGPIPE, SIG_IGN);
	err = record_setup(&r);
	if (err)
		goto cleanup;
	ret = 1;
	err = counters__enable(&r.counters);
	r.last_cut_ns = clock_ns(CLOCK_MONOTONIC); /* the counts start here */
	for (int cpu = 0; cpu < r.counters.nr_cpus; cpu++)
		if (counters__has_cpu(&r.counters, cpu))
			r.read_ns[cpu] = r.last_cut_ns;
	if (err) {
		p_err("cannot enable the counters: %s", strerror(-err));
		goto cleanup;
	}
	/* Everything that needs privilege is open: give it up. */
	if (r.env.user && privilege_drop_and_say(&r.env.target, r.collector))
		goto cleanup;
	if (record_outputs__serve(&r.out))
		goto cleanup;
	if (strcmp(r.path, "-") && !hooks)
		p_info("recording %d event(s) on %d CPU(s) into '%s'",
		       r.events.nr, cpus_possible(), r.path);
	record_status__init(&r.status, status_wanted(&r));
	err = hooks && hooks->started ? hooks->started(hooks->ctx) : 0;
	if (!err)
		err = record_loop(&r);
	record_status__end(&r.status);
	if (!err || err == -EPIPE)
		ret = 0;
	warn_rare(&r, true);
	/*
	 * Sampling error is statistical, and under -G the system row is the
	 * host's while the rows are the subtrees': report, never fail.
	 */
	if (!err && r.env.check &&
	    !check__report(&r.check, &r.events, r.env.scopes) && r.env.exact &&
	    !r.env.filters) {
		p_err("check failed: a discrepancy is above %.4g%%",
		      r.env.tolerance_pct);
		ret = 1;
	}
cleanup:
	if (hooks && hooks->stopping)
		hooks->stopping(hooks->ctx);
	if (r.counters.fd)
		counters__disable(&r.counters);
	collector__destroy(r.collector);
	counters__close(&r.counters);
	if (!record_outputs__close(&r.out))
		ret = 1;
	interval_data__free(&r.data);
	events__free(r.names);
	if (verbose && r.cgroups)
		p_info("cgroup cache: %zu entries at exit, %zu at most, %" PRIu64
		       " removed cgroups forgotten",
		       cgroups__cached(r.cgroups), cgroups__peak(r.cgroups),
		       cgroups__forgotten(r.cgroups));
	cgroups__free(r.cgroups);
	kube__free(r.kube);
	if (r.drops[BPMC_DROP_MAP_FULL])
		p_warn("%" PRIu64
		       " samples were lost in all because the counts map was full (--max-keys %ld)",
		       r.drops[BPMC_DROP_MAP_FULL], r.env.max_keys);
	return ret;
}
