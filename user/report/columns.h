/* SPDX-License-Identifier: GPL-2.0 */
/* The result's columns: its key columns, its events and its sort. */
#ifndef BPMC_REPORT_COLUMNS_H
#define BPMC_REPORT_COLUMNS_H

#include <stdbool.h>

#include "report/report.h"

/* The key columns; key_src[i]: the key field (>= 0) or label (-1 -
 * label) of column i; series: the time first. */
void report_columns__keys(struct report *r, int *key_src, bool series);
/* The events of the tables, by name; ev_map[id] is each id's index.
 * 0 or -ENOMEM. */
int report_columns__events(struct report *r,
			   const struct agg_table *const *tables,
			   unsigned nr_tables, struct report_event **out,
			   unsigned *nr, int *ev_map);
/* --sort's event or metric, or the default; -EINVAL with err set. */
int report_columns__sort(struct report *r, const struct report_opts *o,
			 struct error *err);

#endif
