// SPDX-License-Identifier: GPL-2.0
/*
 * libpmc on a hardware PMU: the counters it says the host has (printed
 * for the caller to hold to the kernel's count: "ncounters N hardware H
 * class NAME"), hardware ones first, then the 16 software ones; cycles and
 * instructions on hardware counters, and EBUSY once more pinned counters
 * are started than the PMU has. Exit 2 (skip) without one.
 */
#include <errno.h>
#include <pmc.h>
#include <stdio.h>
#include <string.h>

static volatile uint64_t x;

int main(void)
{
	struct pmc_counter_cfg cfg = { PMC_LINUX_EV_CYCLES, 0, 0 };
	int cls = 0, type = 0, n = 0, busy = 0, started = 0, fails = 0;
	uint64_t cycles = 0, insns = 0;

	pmc_get_info(-1, PMC_INFO_CPUCTR_TYPE, &cls);
	pmc_get_info(0, PMC_INFO_CPUCTR_TYPE, &type);
	if (cls == PMC_LINUX_CLASS_SOFTWARE ||
	    type != PMC_LINUX_TYPE_HARDWARE) {
		printf("no hardware PMU: the class is software\n");
		return 2;
	}
	pmc_get_info(0, PMC_INFO_NCOUNTERS, &n);
	/* Hardware counters first, then the software ones, 16 of them. */
	int hw = 0, order_ok = 1;
	char name[64] = "";

	for (int i = 0; i < n; i++) {
		pmc_get_info(i, PMC_INFO_CPUCTR_TYPE, &type);
		if (type == PMC_LINUX_TYPE_HARDWARE)
			order_ok &= hw++ == i;
		else
			order_ok &= type == PMC_LINUX_TYPE_SOFTWARE;
	}
	pmc_linux_class_name(cls, name, sizeof(name));
	printf("ncounters %d hardware %d class 0x%x %s\n", n, hw, cls, name);
	printf("%s hardware counters first, then %d software ones\n",
	       order_ok && hw > 0 && n - hw == 16 ? "ok" : "FAIL", n - hw);
	fails += !(order_ok && hw > 0 && n - hw == 16);
	pmc_control(0, PMC_OP_CONFIGURE, &cfg);
	cfg.event_id = PMC_LINUX_EV_INSTRUCTIONS;
	pmc_control(1, PMC_OP_CONFIGURE, &cfg);
	pmc_control(0, PMC_OP_START, NULL);
	pmc_control(1, PMC_OP_START, NULL);
	for (int i = 0; i < 10000000; i++)
		x += i;
	pmc_control(0, PMC_OP_STOP, NULL);
	pmc_control(1, PMC_OP_STOP, NULL);
	pmc_get_info(0, PMC_INFO_COUNTER_VALUE, &cycles);
	pmc_get_info(1, PMC_INFO_COUNTER_VALUE, &insns);
	printf("%s cycles %llu instructions %llu\n",
	       cycles > 1000000 && insns > 10000000 ? "ok" : "FAIL",
	       (unsigned long long)cycles, (unsigned long long)insns);
	fails += !(cycles > 1000000 && insns > 10000000);
	/* Every hardware counter pinned with cycles, twice over (each
	 * counter also has its descendants' twin): some START is EBUSY. */
	cfg.event_id = PMC_LINUX_EV_CYCLES;
	for (int i = 0; i < n; i++) {
		pmc_get_info(i, PMC_INFO_CPUCTR_TYPE, &type);
		if (type != PMC_LINUX_TYPE_HARDWARE)
			break;
		pmc_control(i, PMC_OP_CONFIGURE, &cfg);
		if (pmc_control(i, PMC_OP_START, NULL) == 0)
			started++;
		else if (errno == EBUSY)
			busy++;
	}
	printf("%s %d pinned counters started, %d EBUSY\n",
	       busy ? "ok" : "FAIL", started, busy);
	fails += !busy;
	return fails ? 1 : 0;
}
