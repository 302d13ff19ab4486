// SPDX-License-Identifier: GPL-2.0
/*
 * A report row from an aggregated entry: its key's columns, its cells
 * (counts, rates over the seconds its key covers, errors, running_pct)
 * and its metrics; what the key rows, the host rows and the timeline's
 * rows are all made with.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "report/row.h"

const char *report_row__keep(struct report *r, char *s)
{
	char **n;

	if (!s)
		return NULL;
	n = realloc(r->strings, (r->nr_strings + 1) * sizeof(*n));
	if (!n) {
		free(s);
		return NULL;
	}
	r->strings = n;
	n[r->nr_strings++] = s;
	return s;
}

static int cmp_cov(const void *a, const void *b)
{
	const struct coverage *x = a, *y = b;

	return x->start_ms < y->start_ms ? -1 : x->start_ms > y->start_ms;
}

/*
 * The time the input covers: on one host, the sum of its intervals'
 * lengths; over all hosts, for each stretch of time that some host
 * covers, the most any one host covered of it (hosts run side by side:
 * a fleet's minute is a minute, not a minute per host).
 */
double report_row__covered_seconds(struct scan_thread *t, int host)
{
	struct coverage *c = t->cov;
	size_t n = t->nr_cov;
	double total = 0;
	double *per_host;

	if (host >= 0) {
		for (size_t i = 0; i < n; i++)
			if (c[i].host == (uint32_t)host)
				total += c[i].sum_ms;
		return total / 1000;
	}
	per_host = calloc(t->nr_hosts ? t->nr_hosts : 1, sizeof(*per_host));
	if (!per_host)
		return NAN;
	qsort(c, n, sizeof(*c), cmp_cov);
	for (size_t i = 0; i < n;) {
		int64_t end = c[i].end_ms;
		size_t j = i;
		double most = 0;

		memset(per_host, 0, t->nr_hosts * sizeof(*per_host));
		for (; j < n && c[j].start_ms <= end + 5; j++) {
			if (c[j].end_ms > end)
				end = c[j].end_ms;
			per_host[c[j].host] += c[j].sum_ms;
		}
		for (unsigned h = 0; h < t->nr_hosts; h++)
			if (per_host[h] > most)
				most = per_host[h];
		total += most;
		i = j;
	}
	free(per_host);
	return total / 1000;
}

int report_row__host_index(struct scan_thread *t, const char *name, size_t len)
{
	for (unsigned i = 0; i < t->nr_hosts; i++)
		if (strlen(t->hosts[i]) == len &&
		    !memcmp(t->hosts[i], name, len))
			return i;
	return -1;
}

int report_row__event_index(const struct report_result *res, const char *name)
{
	for (unsigned i = 0; i < res->nr_events; i++)
		if (!strcmp(res->events[i].name, name))
			return i;
	return -1;
}

/* A metric's value from counts, with its error from their errors. */
static void metric_eval(const struct report_result *res,
			const struct metric_def *d,
			const struct report_row *row, double min_running,
			struct report_value *out)
{
	unsigned n = metric_expr__nr_vars(d->expr);
	double vars[64], sigma[64];
	double v, err2 = 0;

	out->low_running = false;
	if (n > 64) {
		out->value = NAN;
		out->rel_err = NAN;
		return;
	}
	for (unsigned i = 0; i < n; i++) {
		const char *name = metric_expr__var(d->expr, i);
		int e = report_row__event_index(res, name);

		sigma[i] = 0;
		if (!strcmp(name, METRIC_VAR_SECONDS)) {
			vars[i] = row->seconds;
		} else if (e < 0) {
			vars[i] = NAN;
		} else {
			const struct report_cell *c = &row->cells[e];

			vars[i] = c->count;
			sigma[i] = isnan(c->rel_err) ? 0 :
						       c->rel_err * c->count;
			if (!isnan(c->running_pct) &&
			    c->running_pct < min_running)
				out->low_running = true;
		}
	}
	v = metric_expr__eval(d->expr, vars);
	/* First-order propagation, one variable nudged by its error at a time. */
	for (unsigned i = 0; i < n && !isnan(v); i++) {
		double saved = vars[i], dv;

		if (!sigma[i])
			continue;
		vars[i] = saved + sigma[i];
		dv = metric_expr__eval(d->expr, vars) - v;
		vars[i] = saved;
		if (!isnan(dv))
			err2 += dv * dv;
	}
	out->value = v;
	out->rel_err = isnan(v) || v == 0 ? (err2 ? INFINITY : 0) :
					    sqrt(err2) / fabs(v);
}

static void cell_from(struct report_cell *out, const struct agg_cell *c,
		      double seconds)
{
	out->count = c ? c->count : 0;
	out->samples = c ? c->samples : 0;
	out->per_s = seconds > 0 ? out->count / seconds : NAN;
	out->rel_err = NAN;
	out->running_pct = NAN;
	if (!c || !c->rows)
		return;
	out->rel_err =
		c->samples_sampled && c->count ?
			(c->count_sampled / sqrt((double)c->samples_sampled)) /
				c->count :
			0;
	if (c->count_with_running)
		out->running_pct = c->running_weighted / c->count_with_running;
	else if (!c->count)
		out->running_pct = NAN;
}

double report_row__sort_value(const struct report_result *res,
			      const struct report_row *row)
{
	if (res->sort_is_metric)
		return row->metrics[res->sort_index].value;
	return res->nr_events ? (double)row->cells[res->sort_index].count : 0;
}

static char *field_dup(const char *key, uint32_t len, unsigned i)
{
	const char *s;
	size_t n;

	if (!agg_key__field(key, len, i, &s, &n))
		return strdup("");
	return strndup(s, n);
}

char *report_row__time_text(int64_t ms)
{
	time_t s = ms >= 0 ? ms / 1000 : (ms - 999) / 1000;
	struct tm tm;
	char buf[40], *out;

	gmtime_r(&s, &tm);
	strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%S", &tm);
	if (asprintf(&out, "%s.%03dZ", buf, (int)(ms - (int64_t)s * 1000)) < 0)
		return NULL;
	return out;
}

/* The key field index of KF_HOST in the scan's key, or -1. */
int report_row__host_field(const struct scan_config *c)
{
	for (unsigned i = 0; i < c->nr_key; i++)
		if (c->key[i] == KF_HOST)
			return i;
	return -1;
}

int report_row__host(struct report *r, const struct agg_entry *e)
{
	int hf = report_row__host_field(&r->cfg);
	const char *s;
	size_t n;

	if (hf < 0 || !agg_key__field(e->key, e->key_len, hf, &s, &n))
		return -1;
	return report_row__host_index(&r->scan, s, n);
}

int report_row__fill(struct report *r, struct report_row *row,
		     const struct agg_entry *e, const int *key_src,
		     const int *ev_map, unsigned nr_ev_ids, double seconds,
		     const char *time)
{
	struct report_result *res = &r->result;

	row->key = calloc(res->nr_key_cols, sizeof(*row->key));
	row->cells = calloc(res->nr_events ? res->nr_events : 1,
			    sizeof(*row->cells));
	row->metrics =
		calloc(r->nr_defs ? r->nr_defs : 1, sizeof(*row->metrics));
	if (!row->key || !row->cells || !row->metrics)
		return -ENOMEM;
	for (unsigned i = 0; i < res->nr_key_cols; i++) {
		int src = key_src ? key_src[i] : 0;

		if (!key_src)
			row->key[i] = ""; /* a sort value only: nothing kept */
		else if (src == KF_TIME && !strcmp(res->key_cols[i], "time"))
			row->key[i] = time ? time : "";
		else if (src >= 0)
			row->key[i] =
				e ? report_row__keep(r, field_dup(e->key,
								  e->key_len,
								  src)) :
				    "";
		else
			row->key[i] = e && e->labels[-1 - src] ?
					      e->labels[-1 - src] :
					      "";
		if (!row->key[i])
			return -ENOMEM;
	}
	row->seconds = seconds;
	for (unsigned i = 0; i < res->nr_events; i++)
		cell_from(&row->cells[i], NULL, seconds);
	for (unsigned i = 0; e && i < e->nr_cells; i++) {
		unsigned id = e->cell_base + i;

		if (id < nr_ev_ids && ev_map[id] >= 0 && e->cells[i].rows)
			cell_from(&row->cells[ev_map[id]], &e->cells[i],
				  seconds);
	}
	for (unsigned m = 0; m < r->nr_defs; m++)
		metric_eval(res, &r->defs[m], row, res->min_running_pct,
			    &row->metrics[m]);
	return 0;
}
