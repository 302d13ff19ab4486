/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Rows of an export into the aggregation tables: the report's hot path.
 * A file's header is read once (scan_file__layout); after it, any run of
 * whole rows may be scanned by any thread into its own scan_thread, in
 * any order: every sum is order-free, and the meta rows that change how
 * rows are read (the mode) are read before the first data row is.
 */
#ifndef BPMC_REPORT_SCAN_H
#define BPMC_REPORT_SCAN_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/error.h"
#include "report/result.h"
#include "report/table.h"

/* The columns a report reads, by name, wherever the header has them. */
enum col {
	COL_TIME,
	COL_HOST,
	COL_INTERVAL_MS,
	COL_SCOPE,
	COL_CGROUP,
	COL_PID,
	COL_TID,
	COL_COMM,
	COL_EVENT,
	COL_COUNT,
	COL_SAMPLES,
	COL_RUNNING_PCT,
	COL_CONTAINER,
	COL_POD,
	COL_VALUE,
	COL_NAMESPACE,
	COL_POD_NAME,
	COL_CONTAINER_NAME,
	COL__NR,
};

/* The fields a key is made of, in the order --by gives them. */
enum key_field {
	KF_HOST,
	KF_CONTAINER,
	KF_POD,
	KF_CGROUP,
	KF_PID,
	KF_TID,
	KF_COMM,
	KF_TIME, /* the interval's end, or its bucket: --series, --html */
	KF__NR,
};

struct scan_config {
	const char *scope; /* the one row scope keys are made from */
	/* scope is "container" or "pod": a file recorded without them
	 * (its meta row "by" lacks container) gives its cgroup rows, each
	 * a cgroup's own counts, keyed by their container and pod columns
	 * (never cgroup_total rows: those would count a cgroup twice). */
	bool tree_scope;
	enum key_field key[KF__NR];
	unsigned nr_key;
	bool labels; /* carry namespace, pod_name, container_name */
	/* Filters: fnmatch(3) patterns of hosts; a cgroup subtree; the
	 * interval's end time in (since_ms, until_ms]. */
	char **hosts;
	unsigned nr_hosts;
	const char *cgroup; /* NULL: all */
	int64_t since_ms, until_ms;
	/* KF_TIME: 0 for the interval's own end time, else the bucket. */
	uint64_t bucket_ms;
	/* Keep every interval of coverage, not only their union. */
	bool keep_intervals;
};

#define SCAN_MAX_EVENTS 1024
/* The columns a reader looks at lie among a header's first this many. */
#define SCAN_MAX_COLUMNS 64

/* The events seen, shared by the threads: a row's event is its index. */
struct event_names {
	pthread_mutex_t lock;
	unsigned nr;
	char *names[SCAN_MAX_EVENTS];
};
int event_names__init(struct event_names *n);
void event_names__free(struct event_names *n);

/* A file's layout, from its header and meta rows. */
struct report_file {
	char *path;
	int col[COL__NR]; /* position, or -1 */
	int nr_needed; /* fields up to the last column used */
	unsigned schema; /* from the meta row, else the header's columns */
	bool escaped; /* v5: text escaped, one row per line */
	bool exact; /* mode=exact: samples count credits, counts are exact */
	/* Its meta row "by" names no container: no container or pod rows,
	 * only the container and pod columns of its cgroup rows. */
	bool no_container_rows;
	bool gz;
	bool truncated; /* its last row was cut: not read */
	uint64_t rows;
	uint64_t size;
	uint64_t dev, ino; /* read once, whatever names it has */
	struct report_rejects *rejects; /* NULL: not counted */
};

/* A row longer than this is rejected (REJECT_LONG), never held whole. */
#define SCAN_MAX_ROW (64u << 10)

/*
 * Counts a rejected row of f: at byte off of the file, field (len
 * bytes) its culprit. Any thread.
 */
void scan_reject(const struct report_file *f, enum report_reject why,
		 uint64_t off, const char *field, size_t len);

/*
 * Reads the header (the first line of text, len bytes of it at most).
 * Returns its length with the newline, or -EINVAL (err names the file:
 * not a bpmc export) or -EAGAIN when no whole line is there yet.
 */
long scan_file__header(struct report_file *f, const char *text, size_t len,
		       struct error *err);

/*
 * A stretch of time the input covers on one host: intervals that abut,
 * merged. sum_ms is the sum of their interval_ms (the time they cover,
 * which the ends' millisecond rounding would blur). With buckets, a
 * stretch never crosses one: bucket is the intervals' (by their middle).
 */
struct coverage {
	uint32_t host; /* index in scan_thread's hosts */
	int64_t start_ms, end_ms, sum_ms, bucket;
};

struct scan_thread {
	const struct scan_config *cfg;
	struct event_names *events;
	struct agg_table keys, system, self;
	/* Host names, for coverage; small. */
	char **hosts;
	unsigned nr_hosts;
	struct coverage *cov;
	size_t nr_cov, cap_cov;
	uint64_t rows;
	uint64_t nr_intervals; /* intervals_lost rows read */
	int err; /* -ENOMEM once a row could not be added */
	/* Where the text scan_rows() reads lies in its file (the caller
	 * sets base), and the row being read: a rejected row's byte. */
	uint64_t base;
	const char *text, *row;
	/* Caches of the last event, time and host looked up. */
	char last_event[256];
	size_t last_event_len;
	int last_event_id;
	char last_time[32];
	size_t last_time_len;
	int64_t last_time_ms;
	char last_host[256];
	size_t last_host_len;
	int last_host_id; /* in hosts, -1: filtered out */
	/* Files before v4 have no intervals_lost rows: their intervals
	 * are their rows' times, read in order. */
	const struct report_file *interval_file;
	int64_t interval_time;
	int interval_host;
	struct agg_key key;
	char scratch[2][8192];
};

int scan_thread__init(struct scan_thread *t, const struct scan_config *cfg,
		      struct event_names *events);
void scan_thread__free(struct scan_thread *t);

/*
 * Scans the whole rows in text[0, len): returns the bytes they take (a
 * row cut at the end is left unread). Meta and encoding rows are passed
 * over.
 */
size_t scan_rows(struct scan_thread *t, const struct report_file *f,
		 const char *text, size_t len);
/*
 * Reads the meta and encoding rows that open a file (after its header)
 * into f: its schema version and mode. Returns the bytes they take; the
 * rows after them are scan_rows()'.
 */
size_t scan_meta(struct report_file *f, const char *text, size_t len);

/* The time of an ISO 8601 UTC timestamp (2026-11-30T07:14:20.123Z). */
bool parse_iso_time(const char *s, size_t len, int64_t *ms);

/* Merges from's tables, hosts and coverage into into. -ENOMEM. */
int scan_thread__merge(struct scan_thread *into, struct scan_thread *from);

#endif
