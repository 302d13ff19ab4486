// SPDX-License-Identifier: GPL-2.0
/*
 * Brings about each call-specific error of pmc_control(3) and prints
 * "ERRNO CALL" for every one it got, CALL as the manual names it
 * (PMC_OP_STOP, PMC_INFO_COUNTER_VALUE, pmc_linux_profile_read): the
 * pairs test_pmc_api.sh holds the manual's ERRORS section to, both
 * ways. The generic errors (a bad ctr, op or pointer, no memory) are
 * not printed: the manual gives them for every call. Lines starting
 * "FAIL" are checks of what must work, and make the exit status 1.
 */
#include <errno.h>
#include <pmc.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

static int failures;

static const char *errno_name(int e)
{
	switch (e) {
	case EINVAL:
		return "EINVAL";
	case EFAULT:
		return "EFAULT";
	case ENXIO:
		return "ENXIO";
	case EINPROGRESS:
		return "EINPROGRESS";
	case EBUSY:
		return "EBUSY";
	case ENODEV:
		return "ENODEV";
	case ENOMEM:
		return "ENOMEM";
	case EOVERFLOW:
		return "EOVERFLOW";
	default:
		return "E?";
	}
}

/* What a call that should fail did: its errno, or "0" when it worked. */
static void got(const char *call, int ret)
{
	printf("%s %s\n", ret ? errno_name(errno) : "0", call);
}

static void must(int ok, const char *what)
{
	if (!ok) {
		printf("FAIL %s: %s\n", what, strerror(errno));
		failures++;
	}
}

#define CTL(ctr, op, arg) got(#op, pmc_control(ctr, op, arg))
#define INFO(ctr, op)                                  \
	do {                                           \
		uint64_t buf_[4];                      \
		got(#op, pmc_get_info(ctr, op, buf_)); \
	} while (0)

/* Every value and time request of a counter. */
static void value_requests(int ctr, int profiling)
{
	if (!profiling) {
		INFO(ctr, PMC_INFO_COUNTER_VALUE);
		INFO(ctr, PMC_LINUX_INFO_TIMES);
	}
	INFO(ctr, PMC_INFO_ACCUMULATED_COUNTER_VALUE);
	INFO(ctr, PMC_LINUX_INFO_ACCUMULATED_TIMES);
	INFO(ctr, PMC_LINUX_INFO_INHERITED_VALUE);
	INFO(ctr, PMC_LINUX_INFO_INHERITED_TIMES);
}

int main(void)
{
	struct pmc_counter_cfg cfg = { PMC_LINUX_EV_TASK_CLOCK, 1000000, 0 };
	struct pmc_linux_profile_entry e = { 0 };
	char path[256];
	uint64_t v, off;
	size_t total;
	int n = 0, last, t;

	must(!pmc_get_info(0, PMC_INFO_NCOUNTERS, &n) && n >= 4, "NCOUNTERS");
	last = n - 1; /* a software counter, never configured here */
	got("PMC_INFO_CPUCTR_TYPE", pmc_get_info(-2, PMC_INFO_CPUCTR_TYPE, &t));

	/* A counter never configured. */
	CTL(last, PMC_OP_START, NULL);
	CTL(last, PMC_OP_STOP, NULL);
	CTL(last, PMC_OP_PROFSTOP, NULL);
	value_requests(last, 0);
	INFO(last, PMC_LINUX_INFO_PROFILE_STATS);
	got("pmc_linux_profile_read",
	    pmc_linux_profile_read(last, &e, 1, &total));
	got("pmc_linux_profile_locate",
	    pmc_linux_profile_locate(last, &e, path, sizeof(path), &off));

	/* PROFSTART's reset_value: 0, 2^63. */
	cfg.reset_value = 0;
	CTL(last, PMC_OP_PROFSTART, &cfg);
	cfg.reset_value = 1ull << 63;
	CTL(last, PMC_OP_PROFSTART, &cfg);
	cfg.reset_value = 1000000;

	/* An id no call returned. */
	cfg.event_id = 0x7ffffff0;
	CTL(last, PMC_OP_CONFIGURE, &cfg);
	CTL(last, PMC_OP_PROFSTART, &cfg);
	cfg.event_id = PMC_LINUX_EV_TASK_CLOCK;

	/* Counter 0 running, then configured. */
	must(!pmc_control(0, PMC_OP_CONFIGURE, &cfg), "CONFIGURE 0");
	must(!pmc_control(0, PMC_OP_START, NULL), "START 0");
	CTL(0, PMC_OP_START, NULL);
	CTL(0, PMC_OP_CONFIGURE, &cfg);
	CTL(0, PMC_OP_PROFSTART, &cfg);
	must(!pmc_control(0, PMC_OP_STOP, NULL), "STOP 0");
	must(!pmc_control(0, PMC_OP_STOP, NULL), "STOP 0 again");
	CTL(0, PMC_OP_PROFSTART, &cfg);

	/* Counter 1 profiling: its own count reads, nothing else does. */
	must(!pmc_control(1, PMC_OP_PROFSTART, &cfg), "PROFSTART 1");
	CTL(1, PMC_OP_START, NULL);
	CTL(1, PMC_OP_STOP, NULL);
	CTL(1, PMC_OP_CONFIGURE, &cfg);
	CTL(1, PMC_OP_PROFSTART, &cfg);
	value_requests(1, 1);
	for (volatile int i = 0; i < 20000000; i++)
		;
	must(!pmc_get_info(1, PMC_INFO_COUNTER_VALUE, &v) && v > 0,
	     "COUNTER_VALUE of a profiling counter");
	must(!pmc_control(1, PMC_OP_PROFSTOP, NULL), "PROFSTOP 1");
	return failures > 0;
}
