// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/columns.h"
#include "report/config.h"
#include "report/hosts.h"
#include "report/outside.h"
#include "report/row.h"
#include "report/timeline.h"

static bool has_event(const char *name, void *ctx)
{
	struct report *r = ctx;

	return report_row__event_index(&r->result, name) >= 0;
}

static int cmp_keys(const struct report_row *a, const struct report_row *b,
		    unsigned nr)
{
	for (unsigned i = 0; i < nr; i++) {
		int c = strcmp(a->key[i], b->key[i]);

		if (c)
			return c;
	}
	return 0;
}

static int cmp_rows(const void *pa, const void *pb, void *ctx)
{
	const struct report_result *res = ctx;
	const struct report_row *a = pa, *b = pb;
	double x = report_row__sort_value(res, a),
	       y = report_row__sort_value(res, b);

	if (isnan(x) != isnan(y))
		return isnan(x) ? 1 : -1; /* NaN last */
	if (!isnan(x) && x != y)
		return x > y ? -1 : 1;
	return cmp_keys(a, b, res->nr_key_cols);
}

/* The key without its time: the fold of --series and --html. */
static uint32_t base_len(const struct scan_config *c, const struct agg_entry *e)
{
	return report_config__has_key(c, KF_TIME) ?
		       e->key_len - 2 - sizeof(int64_t) :
		       e->key_len;
}

static int fold_base(struct report *r, struct agg_table *base)
{
	int err = agg_table__init(base);

	if (err)
		return err;
	agg_table__for_each(&r->scan.keys, e)
	{
		uint32_t n = base_len(&r->cfg, e);
		struct agg_entry *b =
			agg_table__get(base, e->key, n, agg_hash(e->key, n));

		if (!b)
			return -ENOMEM;
		for (unsigned i = 0; i < e->nr_cells; i++) {
			struct agg_cell *c;

			if (!e->cells[i].rows)
				continue;
			c = agg_entry__cell(b, e->cell_base + i);
			if (!c)
				return -ENOMEM;
			agg_cell__add(c, &e->cells[i]);
		}
		for (int l = 0; l < LABEL__NR; l++)
			if (e->labels[l] &&
			    agg_table__set_label(base, b, l, e->labels[l],
						 strlen(e->labels[l])))
				return -ENOMEM;
	}
	return 0;
}

/* A step that failed for want of something: what it was, and why. */
static int failed(struct error *err, int ret, const char *what)
{
	return error__set(err, ret, "cannot %s: %s", what, strerror(-ret));
}

/* The scan's configuration and state, then every operand scanned. */
static int scan_inputs(struct report *r, const struct report_opts *o,
		       char *const *operands, unsigned nr_operands,
		       struct error *err)
{
	int ret;

	report_config__make(&r->cfg, o);
	ret = event_names__init(&r->events);
	if (!ret)
		ret = scan_thread__init(&r->scan, &r->cfg, &r->events);
	if (ret)
		return failed(err, ret, "start the report");
	if (o->chart && !o->series && !o->bucket_ms) {
		ret = timeline__auto_bucket(r, operands, nr_operands,
					    o->threads, err);
		if (ret)
			return ret;
		r->cfg.keep_intervals = false;
	}
	for (unsigned i = 0; i < nr_operands; i++) {
		ret = report_input__add(&r->input, operands[i], err);
		if (ret)
			return ret;
	}
	if (!r->input.nr_files)
		return error__set(
			err, ENOENT,
			"no export among the operands (*.csv, *.csv.gz)");
	return report_input__scan(&r->input, o->threads, &r->scan, err);
}

/* The cells whose count reached 2^64 - 1, where sums saturate. */
static unsigned saturated_cells(const struct agg_table *t)
{
	unsigned n = 0;

	agg_table__for_each(t, e)
	{
		for (unsigned i = 0; i < e->nr_cells; i++)
			n += e->cells[i].count == UINT64_MAX;
	}
	return n;
}

/* What the input was: its files, rows, rejected rows and time span. */
static int describe_input(struct report *r, const struct report_opts *o)
{
	struct report_result *res = &r->result;

	res->rejected = calloc(r->input.nr_files + 1, sizeof(*res->rejected));
	if (!res->rejected)
		return -ENOMEM;
	for (unsigned i = 0; i < r->input.nr_files; i++) {
		const struct report_rejects *x = r->input.files[i].rejects;

		if (x && x->rows) {
			res->rejected[res->nr_rejected++] = x;
			res->rejected_rows += x->rows;
		}
	}
	res->saturated_cells = saturated_cells(&r->scan.keys) +
			       saturated_cells(&r->scan.system) +
			       saturated_cells(&r->scan.self);

	res->scope = r->cfg.scope;
	res->min_running_pct = o->min_running_pct;
	res->nr_files = r->input.nr_files;
	res->nr_input_rows = r->scan.rows;
	for (size_t i = 0; i < r->scan.nr_cov; i++) {
		if (!i || r->scan.cov[i].start_ms < (int64_t)res->first_ms)
			res->first_ms = r->scan.cov[i].start_ms;
		if (!i || r->scan.cov[i].end_ms > (int64_t)res->last_ms)
			res->last_ms = r->scan.cov[i].end_ms;
	}
	return 0;
}

/* The metrics: the built-ins whose events are there, then --metric's. */
static int make_metrics(struct report *r, const struct report_opts *o,
			struct error *err)
{
	struct report_result *res = &r->result;
	char *arg;
	int ret;

	if (!o->no_builtins)
		r->nr_defs = metric_builtins__resolve(has_event, r, r->defs,
						      REPORT_MAX_METRICS);
	for (unsigned i = 0;
	     i < o->nr_metrics && r->nr_defs < REPORT_MAX_METRICS; i++) {
		/* Parsed again: the report owns its copies. */
		if (asprintf(&arg, "%s=%s", o->metrics[i].name,
			     o->metrics[i].text) < 0)
			return failed(err, -ENOMEM, "hold the metrics");
		ret = metric_def__parse(arg, &r->defs[r->nr_defs], err);
		free(arg);
		if (ret)
			return ret;
		r->nr_defs++;
	}
	res->nr_metrics = r->nr_defs;
	res->metrics = calloc(r->nr_defs + 1, sizeof(*res->metrics));
	if (!res->metrics)
		return failed(err, -ENOMEM, "hold the metrics");
	for (unsigned m = 0; m < r->nr_defs; m++)
		res->metrics[m] = (struct report_metric){ r->defs[m].name,
							  r->defs[m].text,
							  r->defs[m].unit };
	return 0;
}

/* A key's sort value, and its entry: what --top chooses by. */
struct ranked {
	double v;
	const struct agg_entry *e;
};

/* Descending, NaN last: cmp_rows without the keys' tie-break. */
static int cmp_value(double x, double y)
{
	if (isnan(x) != isnan(y))
		return isnan(x) ? 1 : -1;
	if (!isnan(x) && x != y)
		return x > y ? -1 : 1;
	return 0;
}

static int cmp_ranked(const void *pa, const void *pb)
{
	const struct ranked *a = pa, *b = pb;

	return cmp_value(a->v, b->v);
}

static double key_seconds(struct report *r, const struct agg_entry *e,
			  bool per_host, double fleet)
{
	return per_host ? report_row__covered_seconds(&r->scan,
						      report_row__host(r, e)) :
			  fleet;
}

/*
 * With --top N of many keys, the entries that can be among the first N:
 * every key's sort value is computed (a row made and freed), and only
 * the keys up to the Nth's value, ties included, are kept in *out, so
 * that full rows are made for those only (16 bytes a key instead of a
 * row's few hundred). *nr_out: how many; 0 and *out NULL to make all.
 */
static int top_candidates(struct report *r, const struct agg_table *keys,
			  unsigned top, const int *ev_map, bool per_host,
			  double fleet, const struct agg_entry ***out,
			  size_t *nr_out)
{
	struct ranked *c = malloc((keys->nr + 1) * sizeof(*c));
	size_t n = 0, m;
	int ret = 0;

	*out = NULL;
	*nr_out = 0;
	if (!c)
		return -ENOMEM;
	agg_table__for_each(keys, e)
	{
		struct report_row row = {};

		ret = report_row__fill(r, &row, e, NULL, ev_map, r->events.nr,
				       key_seconds(r, e, per_host, fleet),
				       NULL);
		if (!ret)
			c[n++] = (struct ranked){
				report_row__sort_value(&r->result, &row), e
			};
		free(row.key);
		free(row.cells);
		free(row.metrics);
		if (ret)
			break;
	}
	if (!ret) {
		qsort(c, n, sizeof(*c), cmp_ranked);
		for (m = top; m < n && !cmp_value(c[m].v, c[top - 1].v); m++)
			;
		*out = malloc((m + 1) * sizeof(**out));
		if (!*out)
			ret = -ENOMEM;
		for (size_t i = 0; !ret && i < m; i++)
			(*out)[i] = c[i].e;
		*nr_out = ret ? 0 : m;
	}
	free(c);
	return ret;
}

/*
 * A row per key of keys, sorted, kept up to --top; entries gets the
 * entry each sorted row came from (for the series).
 */
static int key_rows(struct report *r, const struct report_opts *o,
		    const struct agg_table *keys, const int *key_src,
		    const int *ev_map, const struct agg_entry **entries)
{
	struct report_result *res = &r->result;
	double fleet = report_row__covered_seconds(&r->scan, -1);
	bool per_host = report_row__host_field(&r->cfg) >= 0;
	const struct agg_entry **cand = NULL;
	size_t nr = keys->nr;
	struct pair {
		struct report_row row;
		const struct agg_entry *e;
	} * p;
	struct report_row *rows;
	unsigned n = 0;
	int ret = 0;

	if (o->top && o->top < keys->nr) {
		ret = top_candidates(r, keys, o->top, ev_map, per_host, fleet,
				     &cand, &nr);
		if (ret)
			return ret;
	}
	p = calloc(nr + 1, sizeof(*p));
	rows = calloc(nr + 1, sizeof(*rows));
	if (!p || !rows) {
		free(p);
		free(rows);
		free(cand);
		return -ENOMEM;
	}
	for (size_t i = 0; i < nr; i++) {
		const struct agg_entry *e = cand ? cand[i] : &keys->slots[i];

		p[n].e = e;
		ret = report_row__fill(r, &p[n].row, e, key_src, ev_map,
				       r->events.nr,
				       key_seconds(r, e, per_host, fleet),
				       NULL);
		n++;
		if (ret)
			break;
	}
	free(cand);
	if (!ret)
		qsort_r(p, n, sizeof(*p), cmp_rows, res);
	for (unsigned i = 0; i < n; i++) {
		rows[i] = p[i].row;
		entries[i] = p[i].e;
	}
	free(p);
	res->nr_keys = keys->nr;
	res->nr_rows = !ret && o->top && o->top < n ? o->top : n;
	for (unsigned i = res->nr_rows; i < n; i++) {
		free(rows[i].key);
		free(rows[i].cells);
		free(rows[i].metrics);
	}
	res->rows = rows;
	return ret;
}

static int make_rows(struct report *r, const struct report_opts *o,
		     const int *ev_map, struct error *err)
{
	struct report_result *res = &r->result;
	int key_src[KF__NR + LABEL__NR], series_src[KF__NR + LABEL__NR];
	bool timed = report_config__has_key(&r->cfg, KF_TIME);
	const struct agg_table *keys = timed ? &r->base : &r->scan.keys;
	const struct agg_entry **entries;
	int ret = 0;

	/* The keys, without their time. */
	report_columns__keys(r, key_src, false);
	if (timed) {
		ret = fold_base(r, &r->base);
		if (ret)
			return failed(err, ret, "fold the keys' times");
	}
	entries = calloc(keys->nr + 1, sizeof(*entries));
	if (!entries)
		return failed(err, -ENOMEM, "hold the report's rows");
	ret = key_rows(r, o, keys, key_src, ev_map, entries);
	if (ret)
		ret = failed(err, ret, "hold the report's rows");
	if (!ret && o->chart && !o->series) {
		ret = timeline__chart(r, entries, ev_map);
		if (ret)
			ret = failed(err, ret, "chart the shown keys");
	}
	if (!ret && o->spread && !o->series && !o->chart) {
		ret = timeline__spread(r, entries, ev_map);
		if (ret)
			ret = failed(err, ret, "take the keys' spread");
	}
	if (!ret && o->series) {
		report_columns__keys(r, series_src, true);
		ret = timeline__series_rows(r, res->rows, entries, res->nr_rows,
					    series_src, ev_map);
		if (ret)
			ret = failed(err, ret, "make the series' rows");
	}
	free(entries);
	return ret;
}

int report__run(struct report *r, const struct report_opts *o,
		char *const *operands, unsigned nr_operands, struct error *err)
{
	struct report_result *res = &r->result;
	const struct agg_table *tables[2] = { &r->scan.keys, &r->scan.system };
	int *ev_map = NULL;
	int ret;

	memset(r, 0, sizeof(*r));
	ret = scan_inputs(r, o, operands, nr_operands, err);
	if (ret)
		return ret;
	ret = report_outside__fix(&r->scan.keys, &r->scan.system, &r->cfg);
	if (ret)
		return failed(err, ret, "hold the outside containers key");
	ret = describe_input(r, o);
	ev_map = calloc(r->events.nr + 1, sizeof(*ev_map));
	res->key_cols = calloc(KF__NR + LABEL__NR, sizeof(*res->key_cols));
	ret = !ret && ev_map && res->key_cols ? 0 : -ENOMEM;
	if (!ret)
		ret = report_columns__events(r, tables, 2, &res->events,
					     &res->nr_events, ev_map);
	if (ret) {
		ret = failed(err, ret, "hold the report's events");
		goto out;
	}
	ret = make_metrics(r, o, err);
	if (!ret)
		ret = report_columns__sort(r, o, err);
	if (!ret)
		ret = make_rows(r, o, ev_map, err);
	if (ret)
		goto out;
	ret = report_hosts__system(r, ev_map);
	if (!ret)
		ret = report_hosts__self(r);
	if (ret)
		ret = failed(err, ret, "hold the system and self rows");
out:
	free(ev_map);
	return ret;
}

static void free_rows(struct report_row *rows, unsigned n)
{
	for (unsigned i = 0; rows && i < n; i++) {
		free(rows[i].key);
		free(rows[i].cells);
		free(rows[i].metrics);
		free(rows[i].spread);
	}
	free(rows);
}

void report__free(struct report *r)
{
	struct report_result *res = &r->result;

	free_rows(res->rows, res->nr_rows);
	free_rows(res->system, res->nr_hosts);
	free_rows(res->self, res->nr_hosts);
	free(res->events);
	free(res->self_events);
	free(res->metrics);
	free(res->key_cols);
	free(res->rejected);
	free(res->series.values);
	for (unsigned i = 0; i < r->nr_defs; i++)
		metric_def__free(&r->defs[i]);
	for (unsigned i = 0; i < r->nr_strings; i++)
		free(r->strings[i]);
	free(r->strings);
	if (r->base.slots)
		agg_table__free(&r->base);
	scan_thread__free(&r->scan);
	event_names__free(&r->events);
	report_input__free(&r->input);
	memset(r, 0, sizeof(*r));
}
