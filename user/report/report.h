/* SPDX-License-Identifier: GPL-2.0 */
/*
 * `bpmc report`: exports in, a report_result out. report__run() reads
 * the files, aggregates one row scope by the --by keys, applies the
 * metrics and sorts; the writers (output.h, html.h) print the result.
 */
#ifndef BPMC_REPORT_REPORT_H
#define BPMC_REPORT_REPORT_H

#include <stdbool.h>
#include <stdint.h>

#include "common/error.h"
#include "report/input.h"
#include "common/metric.h"
#include "report/result.h"
#include "report/scan.h"

/* The --by words. */
enum report_dim {
	DIM_HOST,
	DIM_CONTAINER,
	DIM_POD,
	DIM_CGROUP,
	DIM_PROCESS,
	DIM_THREAD,
	DIM_COMM,
	DIM__NR,
};

#define REPORT_MAX_METRICS 64

struct report_opts {
	enum report_dim dims[DIM__NR];
	unsigned nr_dims;
	const char *scope; /* --scope, or NULL: the dims' own */
	char **hosts; /* --host patterns */
	unsigned nr_hosts;
	const char *cgroup;
	int64_t since_ms, until_ms;
	unsigned top; /* 0: all */
	const char *sort; /* an event or metric; NULL: the default */
	struct metric_def metrics[REPORT_MAX_METRICS]; /* --metric */
	unsigned nr_metrics;
	bool no_builtins;
	double min_running_pct;
	/* --series: one row per interval (bucket_ms 0) or bucket. */
	bool series;
	/* --html: the series of the shown keys, in about this many buckets. */
	bool chart;
	uint64_t bucket_ms;
	/* --diff: each shown row's spread over the intervals (row.spread). */
	bool spread;
	unsigned threads;
};

/* "cgroup,process" into opts->dims. -EINVAL with err naming the word. */
int report_opts__parse_dims(struct report_opts *opts, const char *list,
			    struct error *err);
void report_opts__init(struct report_opts *opts);
void report_opts__free(struct report_opts *opts);

/* Everything a run keeps: the result points into it. */
struct report {
	struct report_result result;
	struct scan_config cfg;
	struct event_names events;
	struct scan_thread scan;
	struct agg_table base; /* the keys without their time */
	struct report_input input;
	struct metric_def defs[REPORT_MAX_METRICS];
	unsigned nr_defs;
	char **strings;
	unsigned nr_strings;
};

/*
 * Reads the operands (files, directories, globs) and computes the report.
 * 0, or -errno with err set (a file that is not an export, an unknown
 * --sort, ...).
 */
int report__run(struct report *r, const struct report_opts *opts,
		char *const *operands, unsigned nr_operands, struct error *err);
void report__free(struct report *r);

/* The event or metric a row is sorted by, as a number. */
double report_row__sort_value(const struct report_result *res,
			      const struct report_row *row);

#endif
