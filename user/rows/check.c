// SPDX-License-Identifier: GPL-2.0
#include <stdio.h>

#include "rows/check.h"
#include "common/util.h"

double check_discrepancy_pct(uint64_t sum, uint64_t system)
{
	double d = (double)sum - (double)system;

	if (!system)
		return sum ? 100.0 : 0.0;
	return 100.0 * (d < 0 ? -d : d) / (double)system;
}

void check__interval(struct check *c, const struct drain_sums *sums,
		     unsigned scopes, int nr_events)
{
	static const unsigned checked[2] = { SCOPE_CGROUP, SCOPE_PROCESS };
	double pct;

	c->intervals++;
	for (int s = 0; s < 2; s++) {
		if (!(scopes & checked[s]))
			continue;
		for (int e = 0; e < nr_events; e++) {
			pct = check_discrepancy_pct(sums->scope[s][e],
						    sums->system[e]);
			if (pct > c->worst[s][e])
				c->worst[s][e] = pct;
		}
	}
}

bool check__report(const struct check *c, const struct event_list *events,
		   unsigned scopes)
{
	bool ok = true, cg = scopes & SCOPE_CGROUP,
	     proc = scopes & SCOPE_PROCESS;

	for (int e = 0; e < events->nr; e++) {
		for (int s = 0; s < 2; s++)
			ok &= c->worst[s][e] <= c->tolerance_pct;
		fprintf(stderr,
			"bpmc: check: %s: worst discrepancy from the system row over %llu intervals: cgroup rows %s%.4f%%, process rows %s%.4f%% (tolerance %.4g%%)\n",
			events->ev[e].name, (unsigned long long)c->intervals,
			cg ? "" : "n/a ", c->worst[0][e], proc ? "" : "n/a ",
			c->worst[1][e], c->tolerance_pct);
	}
	return ok;
}
