// SPDX-License-Identifier: GPL-2.0
/*
 * pmc_cost calls: what libpmc costs over the perf_event fd a
 * hand-written program would use. Reading a task-clock counter through
 * pmc_get_info(COUNTER_VALUE) against read(2) of a perf fd of the same
 * event; START+STOP against two ioctls. Alternated rounds, medians.
 * pmc_cost fork N: fork+wait with N configured counters (the child's
 * are opened anew), N = 0 without a call to libpmc: pmc_cost.sh runs
 * the two in turns. Prints "name value" lines.
 */
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/util.h"
#include "pmc.h"

#define ROUNDS 9
#define READS 20000
#define FORKS 200

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static uint64_t median(uint64_t *v)
{
	qsort(v, ROUNDS, sizeof(*v), cmp_u64);
	return v[ROUNDS / 2];
}

static uint64_t forks(void)
{
	uint64_t t0 = clock_ns(CLOCK_MONOTONIC);

	for (int i = 0; i < FORKS; i++) {
		pid_t pid = fork();

		if (pid == 0)
			_exit(0);
		waitpid(pid, NULL, 0);
	}
	return (clock_ns(CLOCK_MONOTONIC) - t0) / FORKS;
}

static int fork_cost(int nr)
{
	struct pmc_counter_cfg cfg = { PMC_LINUX_EV_TASK_CLOCK, 0, 0 };

	for (int c = 0; c < nr; c++)
		if (pmc_control(c, PMC_OP_CONFIGURE, &cfg) ||
		    pmc_control(c, PMC_OP_START, NULL))
			return 1;
	forks(); /* warm */
	printf("pmc_fork_%dctrs_us %.1f\n", nr, forks() / 1000.0);
	return 0;
}

static int calls_cost(void)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_SOFTWARE,
		.size = sizeof(attr),
		.config = PERF_COUNT_SW_TASK_CLOCK,
		.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED |
			       PERF_FORMAT_TOTAL_TIME_RUNNING,
	};
	struct pmc_counter_cfg cfg = { PMC_LINUX_EV_TASK_CLOCK, 0, 0 };
	uint64_t pmc_read[ROUNDS], raw_read[ROUNDS], pmc_ss[ROUNDS],
		raw_ss[ROUNDS], v[3];
	int fd = syscall(SYS_perf_event_open, &attr, 0, -1, -1, 0);

	if (fd < 0 || pmc_control(0, PMC_OP_CONFIGURE, &cfg) ||
	    pmc_control(0, PMC_OP_START, NULL)) {
		perror("pmc_cost: cannot open the counters");
		return 1;
	}
	for (int r = 0; r < ROUNDS; r++) {
		uint64_t t0 = clock_ns(CLOCK_MONOTONIC);

		for (int i = 0; i < READS; i++)
			pmc_get_info(0, PMC_INFO_COUNTER_VALUE, v);
		pmc_read[r] = (clock_ns(CLOCK_MONOTONIC) - t0) / READS;
		t0 = clock_ns(CLOCK_MONOTONIC);
		for (int i = 0; i < READS; i++)
			if (read(fd, v, sizeof(v)) < 0)
				return 1;
		raw_read[r] = (clock_ns(CLOCK_MONOTONIC) - t0) / READS;
		t0 = clock_ns(CLOCK_MONOTONIC);
		for (int i = 0; i < READS / 10; i++) {
			pmc_control(0, PMC_OP_STOP, NULL);
			pmc_control(0, PMC_OP_START, NULL);
		}
		pmc_ss[r] = (clock_ns(CLOCK_MONOTONIC) - t0) / (READS / 10);
		t0 = clock_ns(CLOCK_MONOTONIC);
		for (int i = 0; i < READS / 10; i++) {
			ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
			ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
		}
		raw_ss[r] = (clock_ns(CLOCK_MONOTONIC) - t0) / (READS / 10);
	}
	printf("pmc_value_read_ns %llu\n",
	       (unsigned long long)median(pmc_read));
	printf("pmc_raw_read_ns %llu\n", (unsigned long long)median(raw_read));
	printf("pmc_start_stop_ns %llu\n", (unsigned long long)median(pmc_ss));
	printf("pmc_raw_ioctls_ns %llu\n", (unsigned long long)median(raw_ss));
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "fork"))
		return fork_cost(atoi(argv[2]));
	if (argc == 2 && !strcmp(argv[1], "calls"))
		return calls_cost();
	fprintf(stderr, "usage: pmc_cost calls | fork N\n");
	return 2;
}
