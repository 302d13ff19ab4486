/* SPDX-License-Identifier: GPL-2.0 */
/* The CSV schema (docs/csv-schema.md) and its writer. */
#ifndef BPMC_SINK_CSV_H
#define BPMC_SINK_CSV_H

#include <stddef.h>
#include <stdint.h>

#include "common/strbuf.h"
#include "sinks/csv_runs.h"
#include "sinks/publish.h"
#include "sinks/sink.h"

#define CSV_SCHEMA_VERSION 8
/* The longest text a field holds: a cgroup path, at most. */
#define CSV_FIELD_MAX 4096
/* The columns up to v3's, which the repair of a file checks. */
#define CSV_HEADER_V4_PREFIX \
	"time,host,interval_ms,scope,cgroup_id,cgroup,pid,tid,comm,event,count,samples,running_pct,container,pod"
/* v4 added value, v6 the Kubernetes names. */
#define CSV_HEADER \
	CSV_HEADER_V4_PREFIX ",value,namespace,pod_name,container_name"
/*
 * Every interval of a file ends with this self row (the intervals lost
 * before it were not written): a reader, and the repair after a crash,
 * know an interval is whole when it is there.
 */
#define CSV_INTERVAL_END_EVENT "intervals_lost"

/* Appends s as one quoted RFC 4180 field, escaped (NULL: an empty,
 * unquoted field, which SQL engines read as NULL). */
void csv_put_field(struct strbuf *b, const char *s);
/* ISO 8601 UTC with milliseconds: 2026-11-30T07:14:20.123Z */
void csv_time(char *out, size_t len, uint64_t realtime_ns);
/*
 * Formats one row, with its trailing newline, into out: its length, or
 * -ENOSPC when it does not fit (out then holds a NUL-terminated part).
 */
int csv_format_row(char *out, size_t len, const struct interval_info *info,
		   const struct row *r);

/* The prefix every row of an interval shares, and the rest of a row. */
void csv_format_prefix(struct strbuf *b, const struct interval_info *info);
void csv_format_fields(struct strbuf *b, const struct row *r);

/* The runs of fields a writer's rows repeat (csv_runs.h), kept. */
struct csv_row_cache {
	struct csv_run head; /* "scope",cgroup_id,"cgroup", */
	struct csv_run event; /* "event", */
	struct csv_run tail; /* running_pct and the six text columns after */
};
/* csv_format_fields(), the same bytes, taking runs from the cache. */
void csv_format_fields_cached(struct strbuf *b, const struct row *r,
			      struct csv_row_cache *cache);

/*
 * Where the last whole interval of a plain CSV file ends (past its
 * intervals_lost row), and how many frames there are (the header, then
 * one per interval): the repair of a file cut by a crash, fed the file
 * piece by piece (publish.h's frame_scan_fn).
 */
void csv_frame_scan(struct frame_scan *s, const char *data, size_t len);

#endif
