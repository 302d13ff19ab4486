// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/error.h"
#include "common/escape.h"
#include "common/strbuf.h"
#include "sinks/csv.h"

/*
 * Text fields are always quoted: a sniffer (DuckDB's reads the first
 * rows) then sees quoting from the first row on, whatever comes 20,000
 * rows later. Escaping (common/escape.h) leaves no CR or LF, so a row is
 * one line; a quote is doubled.
 */
void csv_put_field(struct strbuf *b, const char *s)
{
	size_t start = b->len;

	if (!s || !*s) /* no text: an empty field, NULL to SQL */
		return;
	strbuf__putc(b, '"');
	escape_text_quoted(b, s, '"');
	strbuf__putc(b, '"');
	/* Longer than any field bpmc writes: refused, not cut. */
	if (!b->truncated && b->len - start > 4 * CSV_FIELD_MAX + 2) {
		b->len = start;
		b->buf[start] = '\0';
		b->truncated = true;
	}
}

void csv_time(char *out, size_t len, uint64_t realtime_ns)
{
	time_t sec = realtime_ns / 1000000000ull;
	unsigned ms = (realtime_ns / 1000000ull) % 1000;
	struct tm tm;
	char base[32];

	gmtime_r(&sec, &tm);
	strftime(base, sizeof(base), "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(out, len, "%s.%03uZ", base, ms);
}

static void put_id(struct strbuf *b, int64_t id)
{
	if (id >= 0)
		strbuf__put_u64(b, id);
}

/* "time,host,interval_ms," : the same for every row of an interval. */
void csv_format_prefix(struct strbuf *b, const struct interval_info *info)
{
	char t[40];

	csv_time(t, sizeof(t), info->end_realtime_ns);
	strbuf__puts(b, t);
	strbuf__putc(b, ',');
	csv_put_field(b, info->host);
	strbuf__putc(b, ',');
	strbuf__put_u64(b, (info->length_ns + 500000) / 1000000);
	strbuf__putc(b, ',');
}

/*
 * Everything after the prefix, with the newline. The runs that repeat
 * from row to row come from the cache when their texts are the same:
 * escaping the scope, path, event and six mostly empty columns again
 * for every row was half of formatting it.
 */
void csv_format_fields_cached(struct strbuf *b, const struct row *r,
			      struct csv_row_cache *cache)
{
	const char *head[] = { r->scope, r->cgroup };
	const char *event[] = { r->event };
	const char *tail[] = { r->container, r->pod,	  r->value,
			       r->namespace, r->pod_name, r->container_name };
	uint64_t pct;
	size_t start;

	if (!cache || !csv_run__put(&cache->head, b, r->cgroup_id, head, 2)) {
		start = b->len;
		csv_put_field(b, r->scope);
		strbuf__putc(b, ',');
		put_id(b, r->cgroup_id ? (int64_t)r->cgroup_id : -1);
		strbuf__putc(b, ',');
		csv_put_field(b, r->cgroup);
		strbuf__putc(b, ',');
		if (cache)
			csv_run__keep(&cache->head, b, start, r->cgroup_id,
				      head, 2);
	}
	put_id(b, r->pid);
	strbuf__putc(b, ',');
	put_id(b, r->tid);
	strbuf__putc(b, ',');
	csv_put_field(b, r->comm);
	strbuf__putc(b, ',');
	if (!cache || !csv_run__put(&cache->event, b, 0, event, 1)) {
		start = b->len;
		csv_put_field(b, r->event);
		strbuf__putc(b, ',');
		if (cache)
			csv_run__keep(&cache->event, b, start, 0, event, 1);
	}
	if (!r->no_count)
		strbuf__put_u64(b, r->count);
	strbuf__putc(b, ',');
	if (!r->no_count)
		strbuf__put_u64(b, r->samples);
	strbuf__putc(b, ',');
	memcpy(&pct, &r->running_pct, sizeof(pct));
	if (!cache || !csv_run__put(&cache->tail, b, pct, tail, 6)) {
		start = b->len;
		if (r->running_pct >= 0)
			strbuf__put_tenths(b, r->running_pct);
		strbuf__putc(b, ',');
		for (int i = 0; i < 6; i++) {
			csv_put_field(b, tail[i]);
			strbuf__putc(b, i < 5 ? ',' : '\n');
		}
		if (cache)
			csv_run__keep(&cache->tail, b, start, pct, tail, 6);
	}
}

void csv_format_fields(struct strbuf *b, const struct row *r)
{
	csv_format_fields_cached(b, r, NULL);
}

int csv_format_row(char *out, size_t len, const struct interval_info *info,
		   const struct row *r)
{
	struct strbuf b;

	strbuf__init(&b, out, len, 0);
	csv_format_prefix(&b, info);
	csv_format_fields(&b, r);
	return b.truncated ? -ENOSPC : (int)b.len;
}

/*
 * One CSV record from data[at]: quotes may hold commas and newlines.
 * Returns the offset past its newline, or 0 if it is cut short; the
 * unquoted fields' offsets are not needed, only two of them: the field
 * at index a and at index b (start and length, raw).
 */
static size_t next_record(const char *data, size_t len, size_t at, int a, int b,
			  const char **fa, size_t *la, const char **fb,
			  size_t *lb)
{
	bool quoted = false;
	size_t start = at;
	int field = 0;

	*fa = *fb = NULL;
	*la = *lb = 0;
	for (size_t i = at; i < len; i++) {
		char ch = data[i];

		if (ch == '"') {
			quoted = !quoted; /* "" inside flips twice */
			continue;
		}
		if (quoted || (ch != ',' && ch != '\n'))
			continue;
		if (field == a) {
			*fa = data + start;
			*la = i - start;
		} else if (field == b) {
			*fb = data + start;
			*lb = i - start;
		}
		field++;
		start = i + 1;
		if (ch == '\n')
			return i + 1;
	}
	return 0;
}

/* A raw field, quoted or not (v4 wrote scopes bare, v5 quotes them). */
static bool field_is(const char *f, size_t n, const char *want)
{
	if (f && n >= 2 && f[0] == '"' && f[n - 1] == '"') {
		f++;
		n -= 2;
	}
	return f && n == strlen(want) && !memcmp(f, want, n);
}

size_t csv_frame_end(const char *data, size_t len, size_t *nr_frames)
{
	static const char header[] = CSV_HEADER_V4_PREFIX;
	const int scope = 3, event = 9; /* fixed since schema v1 */
	size_t at, end = 0, next, la, lb;
	const char *fa, *fb;

	*nr_frames = 0;
	if (len < sizeof(header) - 1 ||
	    memcmp(data, header, sizeof(header) - 1))
		return 0;
	at = next_record(data, len, 0, -1, -1, &fa, &la, &fb, &lb);
	for (; at && at < len; at = next) {
		next = next_record(data, len, at, scope, event, &fa, &la, &fb,
				   &lb);
		if (next && field_is(fa, la, "self") &&
		    field_is(fb, lb, CSV_INTERVAL_END_EVENT)) {
			end = next;
			(*nr_frames)++;
		}
	}
	/* The header frame counts, as a gzip file's first member does. */
	if (*nr_frames)
		(*nr_frames)++;
	return end;
}
