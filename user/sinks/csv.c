// SPDX-License-Identifier: GPL-2.0
#include <assert.h>
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

/* The scan's own state, in struct frame_scan's room for it. */
struct csv_scan {
	uint64_t intervals; /* whole ones, so far */
	bool bad; /* not a bpmc CSV: no frame is whole */
	bool header_done; /* past the header line */
	bool quoted;
	int field; /* of the record being read */
	/* The raw scope and event fields (3 and 9) of the record. */
	unsigned char scope_len, event_len;
	char scope[8], event[sizeof(CSV_INTERVAL_END_EVENT) + 2];
};
static_assert(sizeof(struct csv_scan) <= sizeof(((struct frame_scan *)0)->priv),
	      "struct frame_scan has room for the CSV scan");

/* A raw field, quoted or not (v4 wrote scopes bare, v5 quotes them);
 * n past the room kept means longer than anything wanted. */
static bool field_is(const char *f, size_t n, size_t room, const char *want)
{
	if (n > room)
		return false;
	if (n >= 2 && f[0] == '"' && f[n - 1] == '"') {
		f++;
		n -= 2;
	}
	return n == strlen(want) && !memcmp(f, want, n);
}

/* Appends a piece of the field to what is kept of it; the length goes
 * one past the room, for "longer than anything wanted". */
static void keep_bytes(char *f, unsigned char *n, size_t room, const char *p,
		       size_t len)
{
	size_t take = *n < room ? room - *n : 0;

	take = len < take ? len : take;
	memcpy(f + *n, p, take);
	*n = *n + len > room ? room + 1 : *n + len;
}

/* The bytes that end a run of an unquoted field. */
static const bool special[256] = { ['"'] = true, [','] = true, ['\n'] = true };

/* The next quote, comma or newline from i, or len: a field's bytes one
 * by one, and a long run (a torn file's zeros) by memchr. */
static size_t next_special(const char *data, size_t i, size_t len)
{
	size_t stop = i, near = len - i < 64 ? len : i + 64;
	const char *p;

	for (; stop < near; stop++)
		if (special[(uint8_t)data[stop]])
			return stop;
	stop = len;
	for (const char *set = "\n,\""; *set; set++)
		if ((p = memchr(data + near, *set, stop - near)))
			stop = p - data;
	return stop;
}

/*
 * Fed a file's bytes in order: where its last whole interval ends (past
 * its intervals_lost row), a record at a time, quotes holding commas and
 * newlines. Memory is the struct's, whatever the file's size; runs
 * between quotes, commas and newlines are skipped whole.
 */
void csv_frame_scan(struct frame_scan *s, const char *data, size_t len)
{
	static const char header[] = CSV_HEADER_V4_PREFIX;
	struct csv_scan *c = (struct csv_scan *)s->priv;
	const int scope = 3, event = 9; /* fixed since schema v1 */
	size_t i = 0, stop;
	bool quoted = c->quoted;
	int field = c->field;
	char ch;

	for (; i < len && s->at + i < sizeof(header) - 1 && !c->bad; i++)
		c->bad = data[i] != header[s->at + i];
	while (i < len && !c->bad) {
		if (quoted) {
			const char *q = memchr(data + i, '"', len - i);

			stop = q ? (size_t)(q - data) + 1 : len;
		} else {
			stop = next_special(data, i, len);
			if (stop < len && data[stop] == '"')
				stop++;
		}
		if (field == scope)
			keep_bytes(c->scope, &c->scope_len, sizeof(c->scope),
				   data + i, stop - i);
		else if (field == event)
			keep_bytes(c->event, &c->event_len, sizeof(c->event),
				   data + i, stop - i);
		if (stop > i && data[stop - 1] == '"') {
			quoted = !quoted; /* "" inside flips twice */
			i = stop;
			continue;
		}
		if (stop >= len) {
			i = len;
			break;
		}
		ch = data[stop];
		i = stop + 1;
		field++;
		if (ch != '\n')
			continue;
		if (c->header_done &&
		    field_is(c->scope, c->scope_len, sizeof(c->scope),
			     "self") &&
		    field_is(c->event, c->event_len, sizeof(c->event),
			     CSV_INTERVAL_END_EVENT)) {
			s->end = s->at + i;
			c->intervals++;
		}
		c->header_done = true;
		field = c->scope_len = c->event_len = 0;
	}
	s->at += len;
	c->quoted = quoted;
	c->field = field;
	if (c->bad)
		s->end = 0;
	/* The header frame counts, as a gzip file's first member does. */
	s->frames = c->bad || !c->intervals ? 0 : c->intervals + 1;
}
