// SPDX-License-Identifier: GPL-2.0
/*
 * --best-effort: which events this host can open at all, tried one CPU
 * each before the real opening, so that a fleet's one command line
 * counts what each CPU model has and names what it lacks.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "common/util.h"
#include "fds/counters.h"

static int first_cpu(__u32 type, int nr_cpus)
{
	bool cpus[BPMC_MAX_CPUS];
	int err = counters__pmu_cpus(type, cpus, nr_cpus);

	if (err)
		return err;
	for (int cpu = 0; cpu < nr_cpus; cpu++)
		if (cpus[cpu])
			return cpu;
	return -ENODEV;
}

static int open_on(const struct perf_event_attr *attr, int cpu, int group_fd)
{
	int fd = syscall(SYS_perf_event_open, attr, -1, cpu, group_fd,
			 PERF_FLAG_FD_CLOEXEC);

	return fd < 0 ? -errno : fd;
}

int counters__probe(const struct event_list *events,
		    const struct counter_opts *opts, struct counter_probe *out,
		    struct error *err)
{
	/* Per group (by its leader in the list): the fd that leads it in
	 * the trial and its CPU; and every fd open, for the PMU to count
	 * the members that already sit in the group. */
	int lead_fd[BPMC_MAX_EVENTS], lead_cpu[BPMC_MAX_EVENTS];
	int lead_ev[BPMC_MAX_EVENTS];
	int fds[BPMC_MAX_EVENTS], nr_cpus = cpus_possible(), ret = 0;
	char why[COUNTER_REASON_LEN];
	struct perf_event_attr attr;

	if (nr_cpus < 0)
		return error__set(err, nr_cpus,
				  "cannot count possible CPUs: %s",
				  strerror(-nr_cpus));
	if (nr_cpus > BPMC_MAX_CPUS)
		nr_cpus = BPMC_MAX_CPUS;
	for (int e = 0; e < events->nr; e++)
		lead_fd[e] = fds[e] = -1;
	for (int e = 0; e < events->nr; e++) {
		const struct event *ev = &events->ev[e];
		int g = ev->leader, fd, cpu;
		bool member = lead_fd[g] >= 0;

		out[e].ok = false;
		out[e].reason[0] = '\0';
		cpu = member ? lead_cpu[g] : first_cpu(ev->attr.type, nr_cpus);
		if (cpu == -ENODEV) {
			snprintf(out[e].reason, sizeof(out[e].reason),
				 "its PMU has no online CPU to count on");
			continue;
		}
		if (cpu < 0) {
			ret = error__set(
				err, cpu,
				"cannot read the CPUs of event '%s': %s",
				ev->name, strerror(-cpu));
			break;
		}
		counters__attr(&attr, ev, member, opts);
		fd = open_on(&attr, cpu, member ? lead_fd[g] : -1);
		/* A member the group refuses but that opens alone: the PMU
		 * cannot hold them all. Otherwise its own reason, alone. */
		if (fd < 0 && member && (fd == -EINVAL || fd == -ENOSPC)) {
			counters__attr(&attr, ev, false, opts);
			fd = open_on(&attr, cpu, -1);
			if (fd >= 0) {
				close(fd);
				snprintf(
					out[e].reason, sizeof(out[e].reason),
					"its group with '%s' does not fit the PMU's counters",
					events->ev[lead_ev[g]].name);
				continue;
			}
		}
		if (fd < 0) {
			snprintf(out[e].reason, sizeof(out[e].reason), "%s",
				 counters__open_reason(ev, &attr, cpu, -fd, why,
						       sizeof(why)));
			continue;
		}
		out[e].ok = true;
		fds[e] = fd;
		if (!member) {
			lead_fd[g] = fd;
			lead_cpu[g] = cpu;
			lead_ev[g] = e;
		}
	}
	for (int e = 0; e < events->nr; e++)
		if (fds[e] >= 0)
			close(fds[e]);
	return ret;
}
