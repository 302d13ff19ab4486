/* SPDX-License-Identifier: GPL-2.0 */
/*
 * `bpmc report --diff`: two reports of the same keys, before and after
 * (a deploy), joined by key. Per key, each event's rate and each
 * metric's value before and after, the change, its error (from the
 * sampling-mode rows' samples: relative error 1/sqrt(samples); exact-mode
 * rows have none) and whether the change exceeds sigma times it.
 */
#ifndef BPMC_REPORT_DIFF_H
#define BPMC_REPORT_DIFF_H

#include <stdio.h>

#include "report/result.h"

enum diff_format { DIFF_TABLE, DIFF_CSV, DIFF_JSON };

/* The keys sorted by the sort column's change, largest first; top 0:
 * all. A change is significant at sigma's false discovery rate and at
 * least min_change_pct % in size. 0 or -errno. */
int report_write_diff(const struct report_result *before,
		      const struct report_result *after, double sigma,
		      double min_change_pct, unsigned top,
		      enum diff_format format, FILE *out);

#endif
