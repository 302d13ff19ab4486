/* SPDX-License-Identifier: GPL-2.0 */
/* The CSV schema (docs/csv-schema.md) and its writer. */
#ifndef BPMC_SINK_CSV_H
#define BPMC_SINK_CSV_H

#include <stddef.h>
#include <stdint.h>

#include "sinks/sink.h"

#define CSV_SCHEMA_VERSION 3
#define CSV_HEADER \
	"time,host,interval_ms,scope,cgroup_id,cgroup,pid,tid,comm,event,count,samples,running_pct,container,pod"

/* Appends s to out as one RFC 4180 field; returns the new length. */
size_t csv_field(char *out, size_t len, size_t pos, const char *s);
/* ISO 8601 UTC with milliseconds: 2026-11-30T07:14:20.123Z */
void csv_time(char *out, size_t len, uint64_t realtime_ns);
/* Formats one row (with its trailing newline); returns its length. */
size_t csv_format_row(char *out, size_t len, const struct interval_info *info,
		      const struct row *r);

/* Checks that path could be created or appended to, without creating it. */
int csv_path_writable(const char *path);

#endif
