// SPDX-License-Identifier: GPL-2.0
#include <math.h>

#include "rows/rare.h"

double rare_rel_err(double samples)
{
	return samples > 0 ? 1.0 / sqrt(samples) : INFINITY;
}

void rare__interval(struct rare *r, const struct drain_sums *sums,
		    int nr_events, uint64_t length_ns)
{
	if (r->judged)
		return;
	r->intervals++;
	r->length_ns += length_ns;
	for (int e = 0; e < nr_events && e < BPMC_MAX_EVENTS; e++) {
		r->samples[e] += sums->samples[e];
		r->count[e] += sums->system[e];
	}
}

int rare__judge(struct rare *r, int nr_events, uint64_t interval_ns,
		bool at_exit, struct rare_event *out)
{
	/* Intervals of the nominal length the first ones add up to. */
	double nominal = r->length_ns && interval_ns ?
				 (double)r->length_ns / (double)interval_ns :
				 (double)r->intervals;
	int n = 0;
	double per;

	if (r->judged || !r->intervals ||
	    (r->intervals < RARE_INTERVALS && !at_exit))
		return 0;
	r->judged = true;
	for (int e = 0; e < nr_events && e < BPMC_MAX_EVENTS; e++) {
		/* Nothing happened: no row to be wrong about. */
		if (!r->count[e])
			continue;
		per = (double)r->samples[e] / nominal;
		if (per >= RARE_MIN_SAMPLES)
			continue;
		out[n].event = e;
		out[n].samples_per_interval = per;
		out[n].rel_err = rare_rel_err(per);
		n++;
	}
	return n;
}
