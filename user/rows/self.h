/* SPDX-License-Identifier: GPL-2.0 */
/* scope=self rows: what bpmc itself cost in each interval. */
#ifndef BPMC_SELF_H
#define BPMC_SELF_H

#include <stdint.h>
#include <sys/resource.h>

#include "maps/collector.h"
#include "sinks/sink.h"

struct self {
	struct prog_stats prog; /* at the previous interval's end */
	struct rusage usage;
};

/* Takes the starting point. */
void self__init(struct self *s, struct collector *c);
/*
 * Writes this interval's rows: bpf_run_time_ns (samples: the runs),
 * cpu_user_ns, cpu_system_ns, peak_rss_bytes and samples_lost, which
 * is written even when 0.
 */
int self__write_rows(struct self *s, struct collector *c, uint64_t samples_lost,
		     struct sink *sink);

#endif
