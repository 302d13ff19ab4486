// SPDX-License-Identifier: GPL-2.0
/*
 * Everything before the first interval: the cgroup hierarchy and -G's
 * subtrees, the events (less what --best-effort leaves out), the
 * kernel's features, the counters and the BPF side, opened and loaded
 * but not yet counting.
 */
#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "common/scope.h"
#include "common/util.h"
#include "engine/setup.h"
#include "identity/memory_room.h"

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
			   struct collector_opts *o, struct error *error)
{
	char path[4096];
	int err, level;
	uint64_t id;

	while (list) {
		const char *at = list;

		err = cgroups__list_next(&list, path, sizeof(path));
		if (err)
			return error__set(
				error, err,
				"invalid '-G %s': want PATH[,PATH...], none empty, a comma in a name as \\,",
				at);
		if (o->nr_filters == BPMC_MAX_FILTERS)
			return error__set(
				error, E2BIG,
				"too many cgroups in '-G %s': at most %d", at,
				BPMC_MAX_FILTERS);
		err = cgroups__resolve(cg, path, &id, &level);
		if (err == -EXDEV || err == -EINVAL)
			return error__set(
				error, err,
				"invalid '-G %s': %s the cgroup2 mount at %s",
				path, filter_reason(err), cgroups__mount(cg));
		if (err)
			return error__set(error, err,
					  "no cgroup '-G %s' under %s: %s",
					  path, cgroups__mount(cg),
					  strerror(-err));
		o->filter_id[o->nr_filters] = id;
		o->filter_level[o->nr_filters++] = level;
	}
	return 0;
}

/* The cgroup hierarchy, --cgroup-v1's subsystem and -G's subtrees. */
int setup__identity(struct engine *e, struct error *error)
{
	uint32_t hierarchy;
	int err = cgroups__new(&e->cgroups, e->opts.cgroup_v1, error);

	if (err)
		return err;
	e->rows.cgroups = e->cgroups;
	err = kube__new(&e->kube, e->opts.kube_pods_dir,
			e->opts.kube_containers_dir, error);
	if (err)
		return err;
	e->rows.kube = e->kube;
	e->bpf.v1_subsys = -1;
	if (e->opts.cgroup_v1) {
		err = cgroups__v1_controller(e->opts.cgroup_v1,
					     &e->bpf.v1_subsys, &hierarchy);
		if (err)
			return error__set(error, err,
					  "no cgroup v1 controller '%s': %s",
					  e->opts.cgroup_v1, strerror(-err));
	}
	return resolve_filters(e->cgroups, e->opts.filters, &e->bpf, error);
}

/*
 * --best-effort: leaves out the events this host cannot open, one
 * warning each, and counts the rest; none left is a refusal. Without
 * it every event is counted or the run is refused, as counters__open()
 * says.
 */
static int drop_unsupported(struct engine *e, const struct counter_opts *copts,
			    struct error *error)
{
	bool keep[BPMC_MAX_EVENTS];
	char why[ERROR_LEN] = "";
	int err;

	for (int i = 0; i < e->asked.nr; i++) {
		e->support[i] = (struct event_support){
			.event = e->asked.ev[i].name,
			.supported = true,
		};
		keep[i] = true;
	}
	if (!e->opts.best_effort) {
		e->events = e->asked;
		return 0;
	}
	err = counters__probe(&e->asked, copts, e->probe, error);
	if (err)
		return err;
	for (int i = 0; i < e->asked.nr; i++) {
		keep[i] = e->probe[i].ok;
		e->support[i].supported = keep[i];
		e->support[i].reason = keep[i] ? NULL : e->probe[i].reason;
		if (!keep[i])
			snprintf(why + strlen(why), sizeof(why) - strlen(why),
				 "%s'%s': %s", why[0] ? "; " : "",
				 e->asked.ev[i].name, e->probe[i].reason);
	}
	event_list__keep(&e->asked, keep, &e->events, NULL);
	if (!e->events.nr)
		return error__set(
			error, ENODEV,
			"none of the events can be counted on this host: %s",
			why);
	for (int i = 0; i < e->asked.nr; i++)
		if (!keep[i])
			engine_say(
				e, ENGINE_WARN,
				"event '%s' cannot be counted on this host, so it is left out (--best-effort): %s",
				e->asked.ev[i].name, e->probe[i].reason);
	return 0;
}

/* An event with its own period or frequency asks for sampling. */
static void choose_mode(struct engine *e)
{
	if (e->opts.mode_given)
		return;
	for (int i = 0; i < e->asked.nr; i++)
		if (e->asked.ev[i].own_period)
			e->opts.exact = false;
}

/*
 * Sampling mode: context-switches and cpu-migrations at a frequency are
 * biased per key, not noisy (docs/accuracy.md, "Error per event": a dense key's
 * whole run 22-34 % low here), so no sample count can vouch for them.
 * Said once, at start: a fixed period (-c) or exact mode has no bias.
 */
static void warn_biased(struct engine *e)
{
	for (int i = 0; i < e->events.nr && !e->opts.exact; i++) {
		const struct perf_event_attr *a = &e->events.ev[i].attr;

		if (a->type != PERF_TYPE_SOFTWARE ||
		    (a->config != PERF_COUNT_SW_CONTEXT_SWITCHES &&
		     a->config != PERF_COUNT_SW_CPU_MIGRATIONS) ||
		    (e->events.ev[i].own_period && !a->freq) || e->opts.period)
			continue;
		engine_say(
			e, ENGINE_WARN,
			"%s sampled at a frequency is biased per key (a dense key's whole run measured 22-43 %% low, docs/accuracy.md \"Error per event\"), whatever its samples; count it with --mode exact, or sample it with a fixed period (-c N, or %s:period=N)",
			e->events.ev[i].name, e->events.ev[i].name);
	}
}

/*
 * -v: how the context-switch program takes each event in exact mode
 * (maps/collector.h), which the kernel's features decide.
 */
static void say_switch_how(struct engine *e)
{
	static const char *const how[] = {
		[BPMC_HOW_READ] = "read",
		[BPMC_HOW_CLOCK] = "rq->clock",
		[BPMC_HOW_COUNT] = "count loaded",
	};
	char line[512];
	size_t n = 0;

	line[0] = '\0';
	for (int i = 0; i < e->events.nr && n < sizeof(line); i++)
		n += snprintf(line + n, sizeof(line) - n, "%s%s: %s",
			      i ? ", " : "", e->events.ev[i].name,
			      how[collector__event_how(&e->bpf, i)]);
	engine_say(e, ENGINE_INFO, "exact mode, at each context switch: %s",
		   line);
}

/* What the BPF side is configured with, from the events and scopes. */
static void collector_options(struct engine *e)
{
	struct collector_opts *bopts = &e->bpf;

	/* The rows' scopes: Prometheus may want more than --by. */
	bopts->key_tgid = e->rows.scopes & (SCOPE_PROCESS | SCOPE_THREAD);
	bopts->key_tid = e->rows.scopes & SCOPE_THREAD;
	bopts->max_keys = e->opts.max_keys;
	bopts->nr_events = e->events.nr;
	bopts->exact = e->opts.exact;
	/* A software event is always scheduled, never multiplexed out: its
	 * enabled and running times are equal, so the BPF side need not
	 * read them (one clock read and 4 words a counter fewer a read). */
	bopts->no_mux = true;
	for (int i = 0; i < e->events.nr; i++)
		bopts->no_mux &= e->events.ev[i].attr.type ==
				 PERF_TYPE_SOFTWARE;
	bopts->events = &e->events;
	for (int i = 0; i < e->events.nr; i++)
		bopts->leader[i] = e->events.ev[i].leader;
}

/* A period the kernel's rate limit refuses, or one in exact mode. */
static int check_periods(struct engine *e, struct error *error)
{
	for (int i = 0; i < e->events.nr; i++) {
		const struct event *ev = &e->events.ev[i];
		uint64_t period = ev->attr.freq ? 0 : ev->attr.sample_period,
			 min;

		/* A group member is read at its leader's overflows, never
		 * sampled: -c is not its period. */
		if (!e->opts.exact && !period && !ev->attr.freq &&
		    ev->leader == i)
			period = e->opts.period;
		if (period && counters__check_period(ev, period, &min))
			return error__set(
				error, EINVAL,
				"period %llu of '%s' samples faster than kernel.perf_event_max_sample_rate allows: want a period of %llu or more",
				(unsigned long long)period, ev->name,
				(unsigned long long)min);
		if (e->opts.exact && ev->own_period)
			return error__set(
				error, EINVAL,
				"event '%s' sets a period or frequency, which has no meaning with --mode exact",
				ev->name);
	}
	return 0;
}

int setup__collector(struct engine *e, struct error *error)
{
	struct collector_opts *bopts = &e->bpf;
	struct collector_features features;
	struct counter_opts copts;
	struct prog_stats start;
	int err;

	choose_mode(e);
	copts = (struct counter_opts){
		.period = e->opts.period,
		.freq = e->opts.freq,
		.sampling = !e->opts.exact,
	};
	err = drop_unsupported(e, &copts, error);
	if (err)
		return err;
	warn_biased(e);
	collector_options(e);
	err = check_periods(e, error);
	if (err)
		return err;
	if (sched_getaffinity(0, sizeof(e->affinity), &e->affinity))
		return error__set(error, errno,
				  "cannot read this process's CPU affinity: %s",
				  strerror(errno));
	/* Before anything is opened: never fail deep inside the run. */
	bopts->probe_all = e->opts.verbose;
	err = collector__probe(bopts, &features, error);
	if (features.found[0])
		engine_say(e, ENGINE_INFO, "kernel features: %s",
			   features.found);
	if (err)
		return err;
	for (int i = 0; i < features.nr_fallbacks; i++)
		engine_say(e, ENGINE_WARN, "%s", features.fallback[i]);
	bopts->no_ringbuf = !features.ringbuf;
	bopts->no_batch = !features.batch;
	bopts->no_event_loads = !features.event_loads;
	bopts->no_rq_clock = !features.rq_clock;
	if (e->opts.verbose && bopts->exact)
		say_switch_how(e);
	bopts->no_prealloc = features.no_prealloc;
	err = engine__check_max_keys(bopts, error);
	if (!err)
		err = counters__open(&e->counters, &e->events, &copts, error);
	if (!err)
		err = collector__load(&e->collector, bopts, error);
	if (!err)
		err = collector__attach(e->collector, &e->counters, error);
	if (err)
		return err;
	for (int cpu = 0; cpu < e->counters.nr_cpus; cpu++)
		e->counted[cpu] = counters__has_cpu(&e->counters, cpu);
	if (cpus_online(e->online, e->counters.nr_cpus))
		memcpy(e->online, e->counted, sizeof(e->online));
	/* Through the fd-based call, never the sysctl: it goes off with us. */
	err = e->opts.self_stats ? collector__enable_stats(e->collector) : 0;
	if (err == -EPERM)
		engine_say(
			e, ENGINE_WARN,
			"--self-stats needs CAP_SYS_ADMIN (bpf_enable_stats), which this process lacks: bpf_run_time_ns will read 0");
	else if (err)
		engine_say(
			e, ENGINE_WARN,
			"--self-stats: cannot turn BPF run-time statistics on: %s; bpf_run_time_ns will read 0",
			strerror(-err));
	collector__prog_stats(e->collector, &start);
	self__init(&e->self, &start, e->support, e->asked.nr);
	return 0;
}

int setup__events(struct engine *e, struct error *error)
{
	const char *list = e->opts.events, *warning;

	if (events__new(&e->names, e->opts.pmu, error))
		return -EINVAL;
	if (!list) {
		if (counters__host_has_pmu()) {
			list = "cycles,instructions";
		} else {
			list = "cpu-clock";
			engine_say(
				e, ENGINE_INFO,
				"no hardware PMU on this host (a VM?): recording cpu-clock instead of cycles,instructions");
		}
	}
	if (events__parse_list(e->names, list, &e->asked, error)) {
		warning = events__take_warning(e->names, false);
		if (warning)
			engine_say(e, ENGINE_WARN, "%s", warning);
		return -EINVAL;
	}
	return 0;
}

/* The largest --max-keys whose counts fit in room bytes, 0 for none. */
static uint64_t max_keys_within(struct collector_opts o, uint64_t room)
{
	uint64_t lo = 0, hi = 1 << 24, mid;

	while (lo < hi) {
		mid = (lo + hi + 1) / 2;
		o.max_keys = mid;
		if (collector__keys_bytes(&o) <= room)
			lo = mid;
		else
			hi = mid - 1;
	}
	return lo;
}

int engine__check_max_keys(const struct collector_opts *o, struct error *err)
{
	uint64_t cost = collector__keys_bytes(o);
	struct memory_room room;

	if (memory_room__read(&room) || cost <= room.bytes)
		return 0;
	return error__set(
		err, ENOMEM,
		"'--max-keys %u' needs up to %llu bytes (%.1f MiB: %llu a key with %d event%s, the maps full, the interval's copy and the entries' keeping), and %s leaves %llu: want --max-keys %llu or less",
		o->max_keys, (unsigned long long)cost, cost / 1048576.0,
		(unsigned long long)(cost / o->max_keys), o->nr_events,
		o->nr_events == 1 ? "" : "s", room.bound,
		(unsigned long long)room.bytes,
		(unsigned long long)max_keys_within(*o, room.bytes));
}
