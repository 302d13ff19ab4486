// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "common/util.h"
#include "fds/counters.h"
#include "names/sysfs_pmu.h"

uint64_t counter_scale(uint64_t value, uint64_t enabled, uint64_t running)
{
	if (!running)
		return 0;
	unsigned __int128 scaled;

	if (running >= enabled)
		return value;
	scaled = (unsigned __int128)value * enabled / running;
	return scaled > UINT64_MAX ? UINT64_MAX : (uint64_t)scaled;
}

bool counter_stopped(uint64_t enabled_ns, uint64_t wall_ns)
{
	return !enabled_ns || enabled_ns + wall_ns / 8 + 1000000 < wall_ns;
}

struct counter_reading counter_delta(const struct counter_reading *now,
				     const struct counter_reading *prev)
{
	/* Modular subtraction stays right across a 64-bit wrap. */
	struct counter_reading d = {
		.value = now->value - prev->value,
		.enabled = now->enabled - prev->enabled,
		.running = now->running - prev->running,
	};
	return d;
}

/*
 * The online CPUs of the PMU whose sysfs `type` is attr_type, or all
 * online CPUs. A PMU's list may name offline CPUs (a hybrid core PMU's
 * `cpus`), which perf_event_open() refuses with ENODEV.
 */
int counters__pmu_cpus(__u32 attr_type, bool *cpus, int nr_cpus)
{
	bool online[BPMC_MAX_CPUS];
	char buf[4096];
	int err;

	if (attr_type == PERF_TYPE_HARDWARE || attr_type == PERF_TYPE_HW_CACHE)
		attr_type = PERF_TYPE_RAW; /* the core PMU, "cpu" */
	err = cpus_online(online, nr_cpus);
	if (err)
		return err;
	if (sysfs_pmu__cpumask(NULL, attr_type, buf, sizeof(buf))) {
		memcpy(cpus, online, nr_cpus * sizeof(*cpus));
		return 0;
	}
	err = cpulist_parse(buf, cpus, nr_cpus);
	for (int cpu = 0; !err && cpu < nr_cpus; cpu++)
		cpus[cpu] = cpus[cpu] && online[cpu];
	return err;
}

int perf_max_sample_rate(long *rate)
{
	return read_file_long(PERF_MAX_SAMPLE_RATE_SYSCTL, rate);
}

bool counters__host_has_pmu(void)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_HARDWARE,
		.size = sizeof(attr),
		.config = PERF_COUNT_HW_CPU_CYCLES,
		.disabled = 1,
	};
	int fd = syscall(SYS_perf_event_open, &attr, -1, 0, -1,
			 PERF_FLAG_FD_CLOEXEC);

	if (fd < 0)
		return false;
	close(fd);
	return true;
}

/*
 * How many hardware counters the core PMU has, as the kernel schedules
 * them: the largest group of this thread's generic hardware events that
 * perf_event_open() accepts, each event added for as long as it fits
 * (cycles first: on arm64 its own counter and every general one; then
 * what only a fixed counter takes, instructions and ref-cycles on x86).
 * The kernel refuses a group that its PMU could never schedule (EINVAL,
 * validate_group), on an empty PMU: what the NMI watchdog holds still
 * counts. User space only, so that any user may ask. 0 without a PMU.
 */
int counters__hw_counters(int max)
{
	static const __u64 config[] = {
		PERF_COUNT_HW_CPU_CYCLES,	   PERF_COUNT_HW_INSTRUCTIONS,
		PERF_COUNT_HW_REF_CPU_CYCLES,	   PERF_COUNT_HW_BUS_CYCLES,
		PERF_COUNT_HW_BRANCH_INSTRUCTIONS,
	};
	struct perf_event_attr attr = {
		.type = PERF_TYPE_HARDWARE,
		.size = sizeof(attr),
		.exclude_kernel = 1,
		.exclude_hv = 1,
	};
	int fd[BPMC_MAX_GROUP_PROBE], n = 0;

	if (max > BPMC_MAX_GROUP_PROBE)
		max = BPMC_MAX_GROUP_PROBE;
	/* Enabled: x86 and arm64 leave a group's disabled members out of
	 * their check, so that a disabled group of any size opens. */
	for (size_t c = 0; c < sizeof(config) / sizeof(config[0]); c++) {
		attr.config = config[c];
		while (n < max) {
			int f = syscall(SYS_perf_event_open, &attr, 0, -1,
					n ? fd[0] : -1, PERF_FLAG_FD_CLOEXEC);

			if (f < 0)
				break;
			fd[n++] = f;
		}
	}
	for (int i = n - 1; i >= 0; i--)
		close(fd[i]);
	return n;
}

/* Whether the event opens once sampling is taken away from it. */
static bool counts_without_sampling(const struct perf_event_attr *attr, int cpu)
{
	struct perf_event_attr plain = *attr;
	int fd;

	plain.sample_period = 0;
	plain.freq = 0;
	fd = syscall(SYS_perf_event_open, &plain, cpu < 0 ? 0 : -1, cpu, -1,
		     PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		return false;
	close(fd);
	return true;
}

/* kernel.perf_event_paranoid, or the kernel's default 2 if unreadable. */
static long perf_paranoid(void)
{
	FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "re");
	long level = 2;

	if (f) {
		if (fscanf(f, "%ld", &level) != 1)
			level = 2;
		fclose(f);
	}
	return level;
}

/*
 * Without CAP_PERFMON, kernel.perf_event_paranoid decides: 2 (the
 * default) lets a process count its own user space, 1 its kernel time
 * too, 0 or less whole CPUs; 3 (Debian's patch) nothing. Say what would
 * count, not only what did not.
 */
static const char *not_permitted(const struct event *ev,
				 const struct perf_event_attr *attr, int cpu,
				 char *buf, size_t len)
{
	long level = perf_paranoid();
	size_t n = strlen(ev->name);

	if (level >= 3)
		snprintf(
			buf, len,
			"not permitted: kernel.perf_event_paranoid is %ld, so only CAP_PERFMON or root may count",
			level);
	else if (cpu >= 0 && level >= 1)
		snprintf(
			buf, len,
			"not permitted: counting a whole CPU needs CAP_PERFMON or root (or kernel.perf_event_paranoid 0 or less; it is %ld)",
			level);
	else if (!attr->exclude_kernel && level >= 2)
		snprintf(
			buf, len,
			"not permitted: kernel.perf_event_paranoid is %ld, so without CAP_PERFMON or root only user space counts: '%s%s' would",
			level, ev->name,
			n && ev->name[n - 1] == '/' ? "u" : ":u");
	else
		snprintf(
			buf, len,
			"not permitted: needs CAP_PERFMON or root (kernel.perf_event_paranoid is %ld)",
			level);
	return buf;
}

const char *counters__open_reason(const struct event *ev,
				  const struct perf_event_attr *attr, int cpu,
				  int err, char *buf, size_t len)
{
	bool sampling = attr->sample_period != 0; /* sample_freq shares it */
	long max_rate;

	/* The true cause first: a rate or period the kernel refuses for
	 * every PMU is no sign that this PMU cannot sample. */
	if (err == EINVAL && attr->freq && !perf_max_sample_rate(&max_rate) &&
	    attr->sample_freq > (uint64_t)max_rate) {
		snprintf(
			buf, len,
			"frequency %llu is above kernel.perf_event_max_sample_rate (%ld)",
			(unsigned long long)attr->sample_freq, max_rate);
		return buf;
	}
	if (err == EINVAL && !attr->freq && attr->sample_period >> 63)
		return "the period is above 2^63-1, the kernel's limit";
	if (sampling && (err == EINVAL || err == EOPNOTSUPP) &&
	    counts_without_sampling(attr, cpu))
		return "its PMU cannot sample; it can only count";
	switch (err) {
	case ENOENT:
	case ENODEV:
		if (!event__is_hardware(ev))
			return "this kernel does not support the event";
		/* A PMU that lacks the event (QEMU's counts no branches). */
		return counters__hw_counters(1) ?
			       "this host's PMU does not implement it" :
			       "no hardware PMU on this host (a VM without vPMU?)";
	case EOPNOTSUPP:
		return "not supported by its PMU";
	case EACCES:
	case EPERM:
		return not_permitted(ev, attr, cpu, buf, len);
	case EMFILE:
		return "too many open files (raise ulimit -n)";
	default:
		return strerror(err);
	}
}

/*
 * The events whose rate is known: a timer counts nanoseconds, and a core
 * runs at most a few GHz, retiring a few instructions a cycle. NULL
 * rate: unknown (the kernel's throttling is then the only bound).
 */
static uint64_t expected_rate(const struct perf_event_attr *a)
{
	if (a->type == PERF_TYPE_SOFTWARE &&
	    (a->config == PERF_COUNT_SW_CPU_CLOCK ||
	     a->config == PERF_COUNT_SW_TASK_CLOCK))
		return 1000000000ull;
	if (a->type == PERF_TYPE_HARDWARE &&
	    (a->config == PERF_COUNT_HW_CPU_CYCLES ||
	     a->config == PERF_COUNT_HW_REF_CPU_CYCLES ||
	     a->config == PERF_COUNT_HW_BUS_CYCLES))
		return 6000000000ull;
	if (a->type == PERF_TYPE_HARDWARE &&
	    a->config == PERF_COUNT_HW_INSTRUCTIONS)
		return 30000000000ull;
	return 0;
}

int counters__check_period(const struct event *ev, uint64_t period,
			   uint64_t *min)
{
	uint64_t rate = expected_rate(&ev->attr);
	long max_rate;

	*min = 1;
	if (!rate || perf_max_sample_rate(&max_rate) || max_rate <= 0)
		return 0;
	/* -c 1000 on cpu-clock was a 1 us timer: 8 busy loops then froze
	 * this VM for minutes. No faster than the kernel lets any event
	 * sample. */
	*min = (rate + max_rate - 1) / max_rate;
	return period < *min ? -ERANGE : 0;
}

void counters__attr(struct perf_event_attr *attr, const struct event *ev,
		    bool member, const struct counter_opts *opts)
{
	*attr = ev->attr;
	attr->size = sizeof(*attr);
	/* A member follows its leader: disabled on its own, it was
	 * measured here never to be scheduled in, even when enabled. */
	attr->disabled = !member;
	attr->inherit = 0;
	attr->read_format = PERF_FORMAT_TOTAL_TIME_ENABLED |
			    PERF_FORMAT_TOTAL_TIME_RUNNING;
	attr->sample_type = 0;
	if (!opts->sampling || member) {
		attr->sample_period = 0;
		attr->freq = 0;
		return;
	}
	if (ev->own_period)
		return;
	if (opts->period) {
		attr->freq = 0;
		attr->sample_period = opts->period;
	} else {
		attr->freq = 1;
		attr->sample_freq = opts->freq;
	}
}

/*
 * A cpu-clock or task-clock in sampling mode: a leader sampled by its
 * hrtimer, or a member the kernel stops with its throttled leader. Either
 * counts the clock it runs on.
 */
static bool sampled_clock(const struct event *ev, const struct counter_opts *o)
{
	struct perf_event_attr attr;

	if (ev->attr.type != PERF_TYPE_SOFTWARE ||
	    (ev->attr.config != PERF_COUNT_SW_CPU_CLOCK &&
	     ev->attr.config != PERF_COUNT_SW_TASK_CLOCK))
		return false;
	counters__attr(&attr, ev, false, o);
	return attr.sample_period != 0;
}

/* Opens event e on cpu into its slot; error says why not. */
static int open_one(struct counters *c, int e, int cpu, struct error *error)
{
	const struct event_list *events = c->events;
	const struct event *ev = &events->ev[e];
	bool member = ev->leader != e;
	struct perf_event_attr attr;
	char reason[COUNTER_REASON_LEN];
	int fd, err;

	counters__attr(&attr, ev, member, &c->opts);
	fd = syscall(SYS_perf_event_open, &attr, -1, cpu,
		     member ? c->fd[ev->leader * c->nr_cpus + cpu] : -1,
		     PERF_FLAG_FD_CLOEXEC);
	if (fd < 0) {
		err = -errno;
		if (member && (errno == EINVAL || errno == ENOSPC))
			return error__set(
				error, err,
				"cannot open event '%s' on cpu %d: its group with '%s' does not fit the PMU's counters",
				ev->name, cpu, events->ev[ev->leader].name);
		return error__set(
			error, err, "cannot open event '%s' on cpu %d: %s",
			ev->name, cpu,
			counters__open_reason(ev, &attr, cpu, -err, reason,
					      sizeof(reason)));
	}
	c->fd[e * c->nr_cpus + cpu] = fd;
	memset(&c->last[e * c->nr_cpus + cpu], 0, sizeof(*c->last));
	return 0;
}

/* "{a,b,c}": group leader's events, as -e would name them. */
static void group_name(const struct event_list *events, int leader, char *buf,
		       size_t len)
{
	size_t n = 0;

	n += snprintf(buf, len, "{");
	for (int e = leader; e < events->nr && n < len; e++)
		if (events->ev[e].leader == leader)
			n += snprintf(buf + n, len - n, "%s%s",
				      e == leader ? "" : ",",
				      events->ev[e].name);
	if (n < len)
		snprintf(buf + n, len - n, "}");
}

/*
 * A group is opened with its leader disabled, and the Arm PMU's check of
 * whether a group fits its counters leaves a disabled leader out
 * (validate_event), so a group one counter too large opened and never
 * ran (QEMU's Armv8 PMU: 8 events, 7 counters). Opened once more here on
 * one CPU, its leader enabled, and closed: a group that does not fit is
 * refused as the kernel then says (EINVAL, ENOSPC). Any other failure is
 * left to the real open, which says why.
 */
static int check_group_fits(const struct counters *c, int leader, int cpu,
			    struct error *error)
{
	const struct event_list *events = c->events;
	int fds[BPMC_MAX_EVENTS], n = 0, members = 0, err = 0, fd;
	struct perf_event_attr attr;
	char name[512];

	for (int e = leader + 1; e < c->nr_events; e++)
		members += events->ev[e].leader == leader;
	if (!members)
		return 0;
	for (int e = leader; e < c->nr_events; e++) {
		if (events->ev[e].leader != leader)
			continue;
		counters__attr(&attr, &events->ev[e], e != leader, &c->opts);
		attr.disabled = 0;
		fd = syscall(SYS_perf_event_open, &attr, -1, cpu,
			     e == leader ? -1 : fds[0], PERF_FLAG_FD_CLOEXEC);
		if (fd < 0) {
			if (e != leader &&
			    (errno == EINVAL || errno == ENOSPC)) {
				group_name(events, leader, name, sizeof(name));
				err = error__set(
					error, -errno,
					"the group %s does not fit the PMU's counters: its event '%s', the %d%s of %d, is refused on cpu %d (%s)",
					name, events->ev[e].name, n + 1,
					n + 1 == 2 ? "nd" :
					n + 1 == 3 ? "rd" :
						     "th",
					members + 1, cpu, strerror(errno));
			}
			break;
		}
		fds[n++] = fd;
	}
	while (n > 0)
		close(fds[--n]);
	return err;
}

/* The CPUs event e counts on: its leader's PMU's, a member living where
 * its leader does. */
static int event_cpus(const struct counters *c, int e, bool *cpus,
		      struct error *error)
{
	const struct event *ev = &c->events->ev[e];
	int err = counters__pmu_cpus(c->events->ev[ev->leader].attr.type, cpus,
				     c->nr_cpus);

	if (err)
		return error__set(error, err,
				  "cannot read the CPUs of event '%s': %s",
				  ev->name, strerror(-err));
	return 0;
}

int counters__open(struct counters *c, const struct event_list *events,
		   const struct counter_opts *opts, struct error *error)
{
	bool cpus[BPMC_MAX_CPUS];
	int opened, err;
	size_t n;

	memset(c, 0, sizeof(*c));
	c->nr_cpus = cpus_possible();
	if (c->nr_cpus < 0)
		return error__set(error, c->nr_cpus,
				  "cannot count possible CPUs: %s",
				  strerror(-c->nr_cpus));
	if (c->nr_cpus > BPMC_MAX_CPUS)
		return error__set(
			error, E2BIG,
			"this host has %d possible CPUs; bpmc handles at most %d",
			c->nr_cpus, BPMC_MAX_CPUS);
	c->events = events;
	c->opts = *opts;
	c->nr_events = events->nr < BPMC_MAX_EVENTS ? events->nr :
						      BPMC_MAX_EVENTS;
	for (int e = 0; e < c->nr_events; e++) {
		c->leader[e] = events->ev[e].leader;
		c->sampled_clock[e] = sampled_clock(&events->ev[e], opts);
	}
	n = (size_t)c->nr_events * c->nr_cpus;
	c->fd = malloc(n * sizeof(*c->fd));
	c->last = calloc(n, sizeof(*c->last));
	c->since_ns = calloc(c->nr_cpus, sizeof(*c->since_ns));
	if (!c->fd || !c->last || !c->since_ns) {
		counters__close(c);
		return error__set(error, ENOMEM, "out of memory");
	}
	for (size_t i = 0; i < n; i++)
		c->fd[i] = -1;

	for (int e = 0; e < c->nr_events; e++) {
		err = event_cpus(c, e, cpus, error);
		if (err)
			goto fail;
		opened = 0;
		for (int cpu = 0; cpu < c->nr_cpus; cpu++) {
			if (!cpus[cpu])
				continue;
			err = opened || events->ev[e].leader != e ?
				      0 :
				      check_group_fits(c, e, cpu, error);
			if (!err)
				err = open_one(c, e, cpu, error);
			if (err)
				goto fail;
			opened++;
		}
		if (!opened) {
			err = error__set(
				error, ENODEV,
				"event '%s' has no online CPU to count on",
				events->ev[e].name);
			goto fail;
		}
	}
	return 0;
fail:
	counters__close(c);
	return err;
}

int counters__open_cpu(struct counters *c, int cpu, int *opened,
		       struct error *error)
{
	bool cpus[BPMC_MAX_CPUS];
	int err;

	*opened = 0;
	if (cpu < 0 || cpu >= c->nr_cpus)
		return error__set(error, EINVAL,
				  "cpu %d is not a possible CPU (0 to %d)", cpu,
				  c->nr_cpus - 1);
	/* Leaders come first in the list, so a member finds its leader. */
	for (int e = 0; e < c->nr_events; e++) {
		err = event_cpus(c, e, cpus, error);
		if (!err && !cpus[cpu])
			continue;
		if (!err)
			err = open_one(c, e, cpu, error);
		if (err) {
			counters__close_cpu(c, cpu);
			*opened = 0;
			return err;
		}
		(*opened)++;
	}
	return 0;
}

void counters__close_cpu(struct counters *c, int cpu)
{
	int i;

	/* Members before their leaders, the reverse of opening. */
	for (int e = c->nr_events - 1; e >= 0; e--) {
		i = e * c->nr_cpus + cpu;
		if (c->fd[i] >= 0)
			close(c->fd[i]);
		c->fd[i] = -1;
		memset(&c->last[i], 0, sizeof(c->last[i]));
	}
}

/* Through each group leader, which carries its members along. */
static int counters__ioctl_all(struct counters *c, unsigned long req)
{
	int n = c->nr_events * c->nr_cpus;

	for (int i = 0; i < n; i++) {
		if (c->fd[i] < 0 || c->leader[i / c->nr_cpus] != i / c->nr_cpus)
			continue;
		if (ioctl(c->fd[i], req, PERF_IOC_FLAG_GROUP))
			return -errno;
	}
	return 0;
}

int counters__enable(struct counters *c)
{
	int err = counters__ioctl_all(c, PERF_EVENT_IOC_ENABLE);
	uint64_t now = clock_ns(CLOCK_MONOTONIC);

	for (int cpu = 0; cpu < c->nr_cpus; cpu++)
		c->since_ns[cpu] = now;
	c->enabled = !err;
	return err;
}

int counters__disable(struct counters *c)
{
	c->enabled = false;
	return counters__ioctl_all(c, PERF_EVENT_IOC_DISABLE);
}

int counters__enable_cpu(struct counters *c, int cpu)
{
	int fd;

	for (int e = 0; e < c->nr_events; e++) {
		fd = c->fd[e * c->nr_cpus + cpu];
		if (fd < 0 || c->leader[e] != e)
			continue;
		if (ioctl(fd, PERF_EVENT_IOC_ENABLE, PERF_IOC_FLAG_GROUP))
			return -errno;
	}
	c->since_ns[cpu] = clock_ns(CLOCK_MONOTONIC);
	return 0;
}

void counters__close(struct counters *c)
{
	int n = c->nr_events * c->nr_cpus;

	for (int i = 0; c->fd && i < n; i++) {
		if (c->fd[i] >= 0)
			close(c->fd[i]);
	}
	free(c->fd);
	free(c->last);
	free(c->since_ns);
	memset(c, 0, sizeof(*c));
}

bool counters__has_cpu(const struct counters *c, int cpu)
{
	for (int e = 0; e < c->nr_events; e++) {
		if (c->fd[e * c->nr_cpus + cpu] >= 0)
			return true;
	}
	return false;
}

void counter_totals__reset(struct counter_totals *t)
{
	memset(t, 0, sizeof(*t));
}

int counters__add_cpu(struct counters *c, int cpu,
		      const struct counter_reading *given, uint32_t mask,
		      struct counter_totals *t, bool *stopped)
{
	uint64_t when = clock_ns(CLOCK_MONOTONIC);
	uint64_t wall = when - c->since_ns[cpu];
	struct counter_reading now, d;
	int i;

	if (stopped)
		*stopped = false;
	c->since_ns[cpu] = when;
	for (int e = 0; e < c->nr_events; e++) {
		i = e * c->nr_cpus + cpu;
		if (c->fd[i] < 0)
			continue;
		if (given && (mask & 1u << e))
			now = given[e];
		else if (read(c->fd[i], &now, sizeof(now)) != sizeof(now))
			return errno ? -errno : -EIO;
		d = counter_delta(&now, &c->last[i]);
		if (c->sampled_clock[e] &&
		    d.running > d.value + THROTTLE_SLACK_NS) {
			t->throttled_ns[e] += d.running - d.value;
			d.value = d.running;
		}
		if (stopped && c->enabled && counter_stopped(d.enabled, wall))
			*stopped = true;
		c->last[i] = now;
		t->raw[e].value += d.value;
		t->raw[e].enabled += d.enabled;
		t->raw[e].running += d.running;
		t->scaled[e] += counter_scale(d.value, d.enabled, d.running);
	}
	return 0;
}
