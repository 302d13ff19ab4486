/* SPDX-License-Identifier: GPL-2.0 */
/* The CSV schema (docs/csv-schema.md) and its writer. */
#ifndef BPMC_SINK_CSV_H
#define BPMC_SINK_CSV_H

#include <stddef.h>
#include <stdint.h>

#include "common/strbuf.h"
#include "sinks/sink.h"

#define CSV_SCHEMA_VERSION 3
#define CSV_HEADER \
	"time,host,interval_ms,scope,cgroup_id,cgroup,pid,tid,comm,event,count,samples,running_pct,container,pod"

/* Appends s as one RFC 4180 field (NULL: an empty one). */
void csv_put_field(struct strbuf *b, const char *s);
/* ISO 8601 UTC with milliseconds: 2026-11-30T07:14:20.123Z */
void csv_time(char *out, size_t len, uint64_t realtime_ns);
/*
 * Formats one row, with its trailing newline, into out: its length, or
 * -ENOSPC when it does not fit (out then holds a NUL-terminated part).
 */
int csv_format_row(char *out, size_t len, const struct interval_info *info,
		   const struct row *r);

/* Checks that path could be created or appended to, without creating it. */
int csv_path_writable(const char *path);

#endif
