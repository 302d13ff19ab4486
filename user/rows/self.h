/* SPDX-License-Identifier: GPL-2.0 */
/* scope=self rows: what bpmc itself cost in each interval. */
#ifndef BPMC_SELF_H
#define BPMC_SELF_H

#include <stdint.h>
#include <sys/resource.h>

#include "maps/collector.h"
#include "rows/drain.h"
#include "sinks/sink.h"

struct self {
	struct prog_stats prog; /* at the previous interval's end */
	struct rusage usage;
	const struct event_support *events; /* every event asked for */
	size_t nr_events;
};

/*
 * Takes the starting point: start is the BPF programs' statistics now
 * (collector__prog_stats(), which the engine reads: rows/ calls nothing
 * of maps/); events must outlive s.
 */
void self__init(struct self *s, const struct prog_stats *start,
		const struct event_support *events, size_t nr_events);
/*
 * Writes this interval's rows: bpf_run_time_ns (samples: the runs),
 * cpu_user_ns, cpu_system_ns, peak_rss_bytes, samples_lost and
 * samples_missed (rows/missed.h; 0 in exact mode), written even when 0,
 * then a gauge event_supported:EVENT (1 or 0) per event asked for.
 * prog: the BPF programs' statistics now.
 */
int self__write_rows(struct self *s, const struct prog_stats *prog,
		     uint64_t samples_lost, uint64_t samples_missed,
		     struct sink *sink);
/*
 * Sampling mode (v7): a gauge sampling_rel_err:EVENT per event whose
 * system row counted something this interval, the relative error its
 * rows can be expected to have at best, 1/sqrt(the system row's
 * samples) ("inf" with none), from the sums drain__write_rows made.
 */
int self__write_sampling_err(const struct event_list *events,
			     const struct drain_sums *sums, struct sink *sink);

#endif
