/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What `bpmc report` computed, ready to be written: the table (keys,
 * event totals and rates, metrics), the per-host totals and bpmc's own
 * cost (system and self rows, kept apart from the keys), and the time
 * series of the shown keys. The writers (table, CSV, JSON, HTML) only
 * read it.
 */
#ifndef BPMC_REPORT_RESULT_H
#define BPMC_REPORT_RESULT_H

#include <stdbool.h>
#include <stdint.h>

/* One event's numbers for one key over the report's input. */
struct report_cell {
	uint64_t count; /* the sum of `count`; 0 when the key had no row */
	double per_s; /* count / the key's seconds */
	uint64_t samples; /* the sum of `samples` */
	/* Relative error of count: 1/sqrt(samples) from sampling-mode
	 * rows, 0 for exact mode; NaN when the key had no row. */
	double rel_err;
	double running_pct; /* count-weighted mean of running_pct; NaN: none */
};

struct report_value {
	double value; /* NaN: not defined here (0/0, no events) */
	double rel_err; /* propagated from its events' errors */
	/* One of its events ran below --min-running (multiplexed). */
	bool low_running;
};

/*
 * One event's rate, or one metric's value, over the key's intervals (for
 * --diff): how many intervals had a value, their mean and standard
 * deviation, their lag-1 autocorrelation (0 when negative) and the
 * independent intervals it leaves, n (1 - rho) / (1 + rho), at least 2.
 */
struct report_spread {
	unsigned n;
	double mean, sd, rho, n_eff;
};

struct report_row {
	const char *
		*key; /* [nr_key_cols], "" for none; escaped as in the export */
	double seconds; /* the time the key's input covers */
	struct report_cell *cells; /* [nr_events] */
	struct report_value *metrics; /* [nr_metrics] */
	/* [nr_events + nr_metrics] when report_opts.spread asked; else NULL */
	struct report_spread *spread;
};

struct report_event {
	const char *name; /* as in the `event` column */
	const char *unit; /* event_unit(): "ns", "events" */
};

struct report_metric {
	const char *name; /* "ipc", or --metric's NAME */
	const char *text; /* the expression */
	const char *unit; /* "", "%", "per 1k instructions" */
};

/*
 * The shown rows' value of the sort column over time: rate per second
 * for an event, the metric's value for a metric, per bucket of
 * bucket_ms ending at t0_ms + (b + 1) * bucket_ms (Unix ms). NaN where
 * the input covers no time of the bucket.
 */
struct report_series {
	uint64_t t0_ms, bucket_ms;
	unsigned nr_buckets;
	double *values; /* [nr_rows][nr_buckets] */
};

/*
 * Why a row was left out of every sum. A row with no count at all is a
 * gauge (meta, value rows), never a rejected one.
 */
enum report_reject {
	REJECT_COUNT, /* count: not a non-negative decimal integer */
	REJECT_RANGE, /* count: above 2^64 - 1 */
	REJECT_TIME, /* time: not ISO 8601 UTC (where a filter reads it) */
	REJECT_EVENT, /* event: empty, over 255 bytes, or past the 1024th */
	REJECT_LONG, /* a row over SCAN_MAX_ROW, a key over 8 KiB, a host
			name over 255 bytes */
	REJECT__NR,
};

/* One file's rejected rows, by reason; the first of each. */
struct report_rejects {
	const char *path;
	uint64_t rows; /* all reasons */
	uint64_t nr[REJECT__NR];
	/* The first such row's byte in the file (in the inflated text of
	 * a .gz), and its culprit field, printable and cut. */
	uint64_t first_byte[REJECT__NR];
	char first[REJECT__NR][40];
};

/* "with a count that is not a non-negative integer", and "not_a_count". */
extern const char *const report_reject_why[REJECT__NR];
extern const char *const report_reject_name[REJECT__NR];

struct report_result {
	const char *scope; /* the row scope it aggregated: "container" */
	unsigned nr_key_cols;
	const char **key_cols; /* "host", "container", "namespace", ... */
	unsigned nr_events;
	struct report_event *events; /* by name */
	unsigned nr_metrics;
	struct report_metric *metrics;
	/* What the rows are sorted by (descending): an event's count, or a
	 * metric's value. */
	bool sort_is_metric;
	unsigned sort_index;
	double min_running_pct; /* --min-running */
	unsigned nr_rows; /* shown: --top of them */
	unsigned nr_keys; /* all the keys there were */
	struct report_row *rows;
	/* Per host: scope=system rows, and scope=self (bpmc's own cost). */
	unsigned nr_hosts;
	struct report_row *system; /* key: [host] */
	struct report_row *self; /* key: [host]; cells over the self events */
	unsigned nr_self_events;
	struct report_event *self_events;
	uint64_t first_ms, last_ms; /* the input's time span (Unix ms) */
	unsigned nr_files;
	uint64_t nr_input_rows;
	/* Rows left out (nr_rejected files had some), and the cells whose
	 * count reached 2^64 - 1, where a sum stays (saturates). */
	uint64_t rejected_rows;
	unsigned nr_rejected;
	const struct report_rejects **rejected;
	unsigned saturated_cells;
	struct report_series series; /* filled for --html only */
};

#endif
