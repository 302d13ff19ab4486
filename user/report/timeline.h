/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The report's time: the rows of --series, the chart's series of --html
 * and the chart's step when none is given.
 */
#ifndef BPMC_REPORT_TIMELINE_H
#define BPMC_REPORT_TIMELINE_H

#include "report/report.h"

/* Each 0 or -errno. */

/*
 * --series: each of KEYS (with their entries in ENTRIES) at every tick
 * of its host, zeros included, become the result's rows; KEYS is freed.
 */
int timeline__series_rows(struct report *r, struct report_row *keys,
			  const struct agg_entry **entries, unsigned nr_keys,
			  const int *key_src, const int *ev_map);
/* --html: the shown rows' sort value per bucket, into result.series. */
int timeline__chart(struct report *r, const struct agg_entry **entries,
		    const int *ev_map);
/*
 * --diff: each shown row's spread (row.spread) over its host's intervals,
 * an interval where the key has no row counting 0 (as the total does).
 */
int timeline__spread(struct report *r, const struct agg_entry **entries,
		     const int *ev_map);

/*
 * The chart's step when none is given: a round duration that gives about
 * 200 steps over the input's span, and no less than its intervals (or
 * steps would fall between them). It takes a pass over the files that
 * reads only their system and self rows.
 */
int timeline__auto_bucket(struct report *r, char *const *operands,
			  unsigned nr_operands, unsigned threads,
			  struct error *err);

#endif
