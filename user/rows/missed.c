// SPDX-License-Identifier: GPL-2.0
#include "rows/missed.h"

uint64_t missed__interval(struct missed *m, const struct event_list *events,
			  const struct drain_sums *sums, int nr_cpus,
			  uint64_t *out)
{
	uint64_t total = 0, gap, lost, allowed;
	double period;

	for (int e = 0; e < events->nr && e < BPMC_MAX_EVENTS; e++) {
		out[e] = 0;
		if (events->ev[e].leader != e)
			continue;
		m->system[e] += sums->system[e];
		m->keyed[e] += sums->keyed[e];
		m->samples[e] += sums->samples[e];
		/* No sample yet: no period to count in (the rare-event
		 * warning speaks of an event without samples). */
		if (!m->samples[e] || m->system[e] <= m->keyed[e])
			continue;
		period = (double)m->keyed[e] / (double)m->samples[e];
		gap = m->system[e] - m->keyed[e];
		lost = period > 0 ? (uint64_t)((double)gap / period) : 0;
		allowed = (uint64_t)MISSED_RESIDUAL_PERIODS *
			  (nr_cpus > 0 ? (uint64_t)nr_cpus : 1);
		lost = lost > allowed ? lost - allowed : 0;
		if (lost <= m->said[e])
			continue;
		out[e] = lost - m->said[e];
		m->said[e] = lost;
		total += out[e];
	}
	return total;
}

double missed__share(const struct missed *m, int e)
{
	if (e < 0 || e >= BPMC_MAX_EVENTS || !m->system[e] ||
	    m->system[e] <= m->keyed[e])
		return 0;
	return (double)(m->system[e] - m->keyed[e]) / (double)m->system[e];
}
