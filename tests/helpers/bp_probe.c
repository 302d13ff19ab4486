// SPDX-License-Identifier: GPL-2.0
/*
 * bp_probe [N]: can this machine deliver a write breakpoint? Opens a
 * PERF_TYPE_BREAKPOINT HW_BREAKPOINT_W perf_event on a variable of its
 * own (this task, user space only), writes it N times (1000) and reads
 * the count. Exit 0 and "breakpoint: N of N writes counted" when it
 * counted them all; 2 and why when the machine cannot deliver one (no
 * breakpoint support, no free debug register, or a hypervisor that
 * never delivers debug-register breakpoints: the event opens and counts
 * 0, as `perf stat -e mem:ADDR:w` does there); 1 and what it saw for
 * anything else (a partial count, a refusal), which is not the
 * machine's to excuse.
 */
#include <errno.h>
#include <linux/hw_breakpoint.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

static volatile unsigned long bp_probe_target;

/* No breakpoint PMU, or no debug register left for one. */
static int machine_lacks(int e)
{
	return e == ENOENT || e == ENODEV || e == EOPNOTSUPP || e == ENOSPC;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000;
	struct perf_event_attr attr = {
		.type = PERF_TYPE_BREAKPOINT,
		.size = sizeof(attr),
		.bp_type = HW_BREAKPOINT_W,
		.bp_addr = (unsigned long)&bp_probe_target,
		.bp_len = sizeof(bp_probe_target),
		.sample_period = 1,
		.disabled = 1,
		.exclude_kernel = 1,
		.exclude_hv = 1,
	};
	unsigned long long count = 0;
	int fd;

	if (n <= 0)
		return 1;
	fd = syscall(SYS_perf_event_open, &attr, 0, -1, -1, 0);
	if (fd < 0) {
		int e = errno;

		printf("breakpoint: perf_event_open(PERF_TYPE_BREAKPOINT, HW_BREAKPOINT_W) failed: %s\n",
		       strerror(e));
		return machine_lacks(e) ? 2 : 1;
	}
	ioctl(fd, PERF_EVENT_IOC_RESET, 0);
	ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	for (long i = 0; i < n; i++)
		bp_probe_target = i;
	ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
	if (read(fd, &count, sizeof(count)) != sizeof(count)) {
		printf("breakpoint: reading the counter failed: %s\n",
		       strerror(errno));
		return 1;
	}
	close(fd);
	printf("breakpoint: %llu of %ld writes counted\n", count, n);
	if (count == 0) {
		printf("breakpoint: the event opens but never fires: this machine (its hypervisor) does not deliver debug-register breakpoints\n");
		return 2;
	}
	return count == (unsigned long long)n ? 0 : 1;
}
