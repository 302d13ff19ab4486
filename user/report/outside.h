/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The "outside containers" key of a per-container (or per-pod) report:
 * the key whose container (pod) is empty becomes, per host, the system
 * rows less every container's (pod's), so that the keys add up to the
 * host. Keys of host and container (pod) only; with a time, a cgroup
 * filter or finer keys nothing is changed.
 */
#ifndef BPMC_REPORT_OUTSIDE_H
#define BPMC_REPORT_OUTSIDE_H

#include "report/scan.h"
#include "report/table.h"

/* -ENOMEM. */
int report_outside__fix(struct agg_table *keys, const struct agg_table *system,
			const struct scan_config *cfg);

#endif
