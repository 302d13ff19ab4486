/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A report row from an aggregated entry, and what making one needs: the
 * seconds a key covers, its host, the result's events by name. The key
 * rows (report.c), the host rows (hosts.c) and the timeline's rows
 * (timeline.c) are all made here.
 */
#ifndef BPMC_REPORT_ROW_H
#define BPMC_REPORT_ROW_H

#include <stddef.h>
#include <stdint.h>

#include "report/report.h"

/* S kept until the report is freed; NULL (S freed) without memory. */
const char *report_row__keep(struct report *r, char *s);
/* "YYYY-MM-DDTHH:MM:SS.mmmZ", malloc'ed; NULL without memory. */
char *report_row__time_text(int64_t ms);
/*
 * The time the input covers, in seconds: on one host (its index), the
 * sum of its intervals; over all hosts (-1), each stretch of time once.
 */
double report_row__covered_seconds(struct scan_thread *t, int host);
/* The index of the host name[len] among the scan's hosts, or -1. */
int report_row__host_index(struct scan_thread *t, const char *name, size_t len);
/* The key field index of KF_HOST in the scan's key, or -1. */
int report_row__host_field(const struct scan_config *c);
/* The index of E's host among the scan's hosts, or -1. */
int report_row__host(struct report *r, const struct agg_entry *e);
/* The result's index of the event name, or -1. */
int report_row__event_index(const struct report_result *res, const char *name);
/* ROW's key, cells and metrics from E (NULL: zeros) over SECONDS;
 * 0 or -ENOMEM. KEY_SRC NULL: the key's fields left "" (for a sort
 * value: nothing is kept until the report is freed). */
int report_row__fill(struct report *r, struct report_row *row,
		     const struct agg_entry *e, const int *key_src,
		     const int *ev_map, unsigned nr_ev_ids, double seconds,
		     const char *time);

#endif
