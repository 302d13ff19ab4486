// SPDX-License-Identifier: GPL-2.0
/*
 * The report's timeline: the ticks (intervals, or buckets of --html's
 * chart step) each host's files cover, the rows of --series at every
 * tick, the chart's values per bucket, and the step chosen when none is
 * given.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report/row.h"
#include "report/stats.h"
#include "report/timeline.h"

struct tick {
	int64_t time; /* the interval's end, or the bucket */
	int host; /* -1: every host's */
	double seconds;
};

static int cmp_tick(const void *a, const void *b)
{
	const struct tick *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->host < y->host ? -1 : x->host > y->host;
}

/*
 * Per host, then for all hosts together (host -1: the most any host
 * covered of the tick), each interval's or bucket's seconds.
 */
static int make_ticks(struct scan_thread *t, bool buckets, struct tick **out,
		      size_t *nr)
{
	size_t n = 0, cap = 2 * t->nr_cov + 1;
	struct tick *k = malloc(cap * sizeof(*k));

	if (!k)
		return -ENOMEM;
	for (size_t i = 0; i < t->nr_cov; i++)
		k[n++] = (struct tick){
			.time = buckets ? t->cov[i].bucket : t->cov[i].end_ms,
			.host = t->cov[i].host,
			.seconds = t->cov[i].sum_ms / 1000.0,
		};
	qsort(k, n, sizeof(*k), cmp_tick);
	/* Fold equal (time, host); then add the all-hosts tick of each time. */
	size_t m = 0;

	for (size_t i = 0; i < n; i++) {
		if (m && k[m - 1].time == k[i].time &&
		    k[m - 1].host == k[i].host)
			k[m - 1].seconds += k[i].seconds;
		else
			k[m++] = k[i];
	}
	n = m;
	for (size_t i = 0; i < m; i++) {
		if (n && k[n - 1].host == -1 && k[n - 1].time == k[i].time) {
			if (k[i].seconds > k[n - 1].seconds)
				k[n - 1].seconds = k[i].seconds;
		} else {
			k[n++] = (struct tick){ k[i].time, -1, k[i].seconds };
		}
	}
	qsort(k, n, sizeof(*k), cmp_tick);
	*out = k;
	*nr = n;
	return 0;
}

/*
 * KB = BASE's key with TIME appended as the scan's KF_TIME field (its
 * length byte, a zero, the eight bytes); false when it would not fit.
 */
static bool time_key(char *kb, size_t size, const struct agg_entry *base,
		     int64_t time, uint32_t *len)
{
	uint32_t n = base->key_len;

	if (n + 2 + sizeof(int64_t) > size)
		return false;
	memcpy(kb, base->key, n);
	kb[n] = sizeof(int64_t);
	kb[n + 1] = 0;
	memcpy(kb + n + 2, &time, sizeof(int64_t));
	*len = n + 2 + sizeof(int64_t);
	return true;
}

/*
 * base's values at one tick (no key columns) into *row, which the caller
 * frees: 1 if the tick is another host's or cannot hold base's key, else
 * 0 or -errno. The series and --diff's spread both read ticks this way.
 */
static int tick_row(struct report *r, const struct agg_entry *base, int host,
		    const struct tick *tick, const int *ev_map,
		    struct report_row *row)
{
	struct report_result *res = &r->result;
	char kb[sizeof(((struct agg_key *)0)->buf)];
	const char **key_cols = res->key_cols;
	unsigned nr_key_cols = res->nr_key_cols;
	uint32_t len = base->key_len;
	const struct agg_entry *e;
	int err;

	if (tick->host != host ||
	    !time_key(kb, sizeof(kb), base, tick->time, &len))
		return 1;
	e = agg_table__find(&r->scan.keys, kb, len, agg_hash(kb, len));
	res->nr_key_cols = 0; /* values only */
	err = report_row__fill(r, row, e, NULL, ev_map, e ? r->events.nr : 0,
			       tick->seconds, NULL);
	res->key_cols = key_cols;
	res->nr_key_cols = nr_key_cols;
	return err;
}

/* --series: each shown key at every tick of its host (zeros included). */
int timeline__series_rows(struct report *r, struct report_row *keys,
			  const struct agg_entry **entries, unsigned nr_keys,
			  const int *key_src, const int *ev_map)
{
	struct report_result *res = &r->result;
	struct tick *ticks;
	size_t nr_ticks, n = 0, cap = 0;
	struct report_row *rows = NULL;
	char kb[sizeof(((struct agg_key *)0)->buf)];
	unsigned nr_cols = res->nr_key_cols;
	uint64_t bucket_ms = r->cfg.bucket_ms;
	int err = make_ticks(&r->scan, bucket_ms, &ticks, &nr_ticks);

	for (size_t t = 0; !err && t < nr_ticks; t++) {
		int64_t at = bucket_ms ?
				     (ticks[t].time + 1) * (int64_t)bucket_ms :
				     ticks[t].time;
		const char *time =
			report_row__keep(r, report_row__time_text(at));

		if (!time) {
			err = -ENOMEM;
			break;
		}
		for (unsigned k = 0; k < nr_keys; k++) {
			const struct agg_entry *base = entries[k], *e;
			int host = report_row__host(r, base);
			uint32_t len = base->key_len;

			if (ticks[t].host != host)
				continue;
			if (!time_key(kb, sizeof(kb), base, ticks[t].time,
				      &len)) {
				err = -ENOMEM;
				break;
			}
			e = agg_table__find(&r->scan.keys, kb, len,
					    agg_hash(kb, len));
			if (n == cap) {
				struct report_row *g;

				cap = cap ? 2 * cap : 1024;
				g = realloc(rows, cap * sizeof(*rows));
				if (!g) {
					err = -ENOMEM;
					break;
				}
				rows = g;
			}
			memset(&rows[n], 0, sizeof(rows[n]));
			res->nr_key_cols =
				0; /* values only: the key is the base row's */
			err = report_row__fill(r, &rows[n], e, key_src, ev_map,
					       r->events.nr, ticks[t].seconds,
					       NULL);
			res->nr_key_cols = nr_cols;
			free(rows[n].key);
			rows[n].key = calloc(nr_cols, sizeof(*rows[n].key));
			if (!err && !rows[n].key)
				err = -ENOMEM;
			for (unsigned c = 0; !err && c < nr_cols; c++)
				rows[n].key[c] = c ? keys[k].key[c - 1] : time;
			n++;
			if (err)
				break;
		}
	}
	free(ticks);
	for (unsigned k = 0; k < nr_keys; k++) {
		free(keys[k].key);
		free(keys[k].cells);
		free(keys[k].metrics);
	}
	free(keys);
	res->rows = rows;
	res->nr_rows = n;
	return err;
}

/* --html: the shown keys' sort value per bucket. */
int timeline__chart(struct report *r, const struct agg_entry **entries,
		    const int *ev_map)
{
	struct report_result *res = &r->result;
	struct report_series *s = &res->series;
	struct tick *ticks;
	size_t nr_ticks;
	int64_t first = 0, last = 0;
	bool any = false;
	int err = make_ticks(&r->scan, true, &ticks, &nr_ticks);

	if (err)
		return err;
	for (size_t t = 0; t < nr_ticks; t++) {
		if (ticks[t].host != -1)
			continue;
		if (!any || ticks[t].time < first)
			first = ticks[t].time;
		if (!any || ticks[t].time > last)
			last = ticks[t].time;
		any = true;
	}
	s->bucket_ms = r->cfg.bucket_ms;
	s->t0_ms = any ? first * r->cfg.bucket_ms : 0;
	s->nr_buckets = any ? last - first + 1 : 0;
	s->values = calloc((size_t)res->nr_rows * s->nr_buckets + 1,
			   sizeof(double));
	if (!s->values) {
		free(ticks);
		return -ENOMEM;
	}
	for (size_t i = 0; i < (size_t)res->nr_rows * s->nr_buckets; i++)
		s->values[i] = NAN;
	for (unsigned k = 0; k < res->nr_rows && !err; k++) {
		const struct agg_entry *base = entries[k];
		int host = report_row__host(r, base);

		for (size_t t = 0; t < nr_ticks && !err; t++) {
			struct report_row row = {};

			err = tick_row(r, base, host, &ticks[t], ev_map, &row);
			if (err > 0) {
				err = 0;
				continue;
			}
			if (!err)
				s->values[(size_t)k * s->nr_buckets +
					  (ticks[t].time - first)] =
					res->sort_is_metric ?
						row.metrics[res->sort_index]
							.value :
					res->nr_events ?
						row.cells[res->sort_index]
							.per_s :
						NAN;
			free(row.key);
			free(row.cells);
			free(row.metrics);
		}
	}
	free(ticks);
	return err;
}

int timeline__spread(struct report *r, const struct agg_entry **entries,
		     const int *ev_map)
{
	struct report_result *res = &r->result;
	unsigned nr_cols = res->nr_events + res->nr_metrics;
	struct tick *ticks;
	size_t nr_ticks;
	double *v = NULL;
	int err = make_ticks(&r->scan, false, &ticks, &nr_ticks);

	if (!err) {
		v = calloc((size_t)(nr_cols + 1) * (nr_ticks + 1), sizeof(*v));
		err = v ? 0 : -ENOMEM;
	}
	for (unsigned k = 0; k < res->nr_rows && !err; k++) {
		const struct agg_entry *base = entries[k];
		int host = report_row__host(r, base);
		size_t n = 0;

		res->rows[k].spread =
			calloc(nr_cols + 1, sizeof(*res->rows[k].spread));
		if (!res->rows[k].spread) {
			err = -ENOMEM;
			break;
		}
		for (size_t t = 0; t < nr_ticks && !err; t++) {
			struct report_row row = {};

			if (ticks[t].seconds <= 0)
				continue;
			err = tick_row(r, base, host, &ticks[t], ev_map, &row);
			if (err > 0) {
				err = 0;
				continue;
			}
			for (unsigned c = 0; !err && c < nr_cols; c++)
				v[(size_t)c * nr_ticks + n] =
					c < res->nr_events ?
						row.cells[c].per_s :
						row.metrics[c - res->nr_events]
							.value;
			n++;
			free(row.key);
			free(row.cells);
			free(row.metrics);
		}
		for (unsigned c = 0; !err && c < nr_cols; c++)
			stats_spread(v + (size_t)c * nr_ticks, n,
				     &res->rows[k].spread[c]);
	}
	free(v);
	free(ticks);
	return err;
}

/*
 * The chart's step when none is given: a round duration that gives about
 * 200 steps over the input's span, and no less than its intervals (or
 * steps would fall between them). It takes a pass over the files that
 * reads only their system and self rows.
 */
int timeline__auto_bucket(struct report *r, char *const *operands,
			  unsigned nr_operands, unsigned threads,
			  struct error *err)
{
	static const uint64_t steps[] = {
		1000,	 2000,	  5000,	    10000,    15000,	30000,
		60000,	 120000,  300000,   600000,   900000,	1800000,
		3600000, 7200000, 21600000, 43200000, 86400000,
	};
	struct scan_config cfg = r->cfg;
	struct scan_thread t;
	struct report_input in = {};
	int64_t first = 0, last = 0;
	uint64_t want, interval;
	int ret;

	cfg.scope = "\x01"; /* no row's: keys are not wanted */
	cfg.nr_key = 0;
	cfg.bucket_ms = 0;
	cfg.keep_intervals = false;
	ret = scan_thread__init(&t, &cfg, &r->events);
	for (unsigned i = 0; !ret && i < nr_operands; i++)
		ret = report_input__add(&in, operands[i], err);
	if (!ret)
		ret = report_input__scan(&in, threads, &t, err);
	for (size_t i = 0; !ret && i < t.nr_cov; i++) {
		if (!i || t.cov[i].start_ms < first)
			first = t.cov[i].start_ms;
		if (!i || t.cov[i].end_ms > last)
			last = t.cov[i].end_ms;
	}
	if (!ret) {
		double sum = 0;

		for (size_t i = 0; i < t.nr_cov; i++)
			sum += t.cov[i].sum_ms;
		interval = t.nr_intervals ? sum / t.nr_intervals : 1000;
		want = (last - first) / 200;
		if (want < interval)
			want = interval;
		r->cfg.bucket_ms = steps[sizeof(steps) / sizeof(steps[0]) - 1];
		for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
			if (steps[i] >= want) {
				r->cfg.bucket_ms = steps[i];
				break;
			}
		}
	}
	scan_thread__free(&t);
	report_input__free(&in);
	return ret;
}
