/* SPDX-License-Identifier: GPL-2.0 */
/* What report.c and timeline.c share, and no one else. */
#ifndef BPMC_REPORT_TIMELINE_H
#define BPMC_REPORT_TIMELINE_H

#include "report/report.h"

/* report.c's, for the timeline's rows. */

/* S kept until the report is freed; NULL (S freed) without memory. */
const char *report__keep(struct report *r, char *s);
/* "YYYY-MM-DDTHH:MM:SS.mmmZ", malloc'ed; NULL without memory. */
char *report__time_text(int64_t ms);
/* The index of E's host among the scan's hosts, or -1. */
int report__row_host(struct report *r, const struct agg_entry *e);
/* ROW's key, cells and metrics from E (NULL: zeros) over SECONDS. */
int report__fill_row(struct report *r, struct report_row *row,
		     const struct agg_entry *e, const int *key_src,
		     const int *ev_map, unsigned nr_ev_ids, double seconds,
		     const char *time);

/* timeline.c's; each 0 or -errno. */

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
 * The chart's step when none is given: a round duration that gives about
 * 200 steps over the input's span, and no less than its intervals (or
 * steps would fall between them). It takes a pass over the files that
 * reads only their system and self rows.
 */
int timeline__auto_bucket(struct report *r, char *const *operands,
			  unsigned nr_operands, unsigned threads,
			  struct error *err);

#endif
