// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "report/timeline.h"

static const char *const dim_names[DIM__NR] = {
	[DIM_HOST] = "host",	   [DIM_CONTAINER] = "container",
	[DIM_POD] = "pod",	   [DIM_CGROUP] = "cgroup",
	[DIM_PROCESS] = "process", [DIM_THREAD] = "thread",
	[DIM_COMM] = "comm",
};

static const char *const key_field_names[KF__NR] = {
	[KF_HOST] = "host", [KF_CONTAINER] = "container",
	[KF_POD] = "pod",   [KF_CGROUP] = "cgroup",
	[KF_PID] = "pid",   [KF_TID] = "tid",
	[KF_COMM] = "comm", [KF_TIME] = "time",
};

static const char *const label_names[LABEL__NR] = {
	[LABEL_NAMESPACE] = "namespace",
	[LABEL_POD_NAME] = "pod_name",
	[LABEL_CONTAINER_NAME] = "container_name",
};

void report_opts__init(struct report_opts *opts)
{
	memset(opts, 0, sizeof(*opts));
	opts->since_ms = INT64_MIN;
	opts->until_ms = INT64_MAX;
	opts->min_running_pct = 90;
}

void report_opts__free(struct report_opts *opts)
{
	for (unsigned i = 0; i < opts->nr_metrics; i++)
		metric_def__free(&opts->metrics[i]);
	opts->nr_metrics = 0;
}

int report_opts__parse_dims(struct report_opts *opts, const char *list,
			    struct error *err)
{
	char *copy = strdup(list), *save = NULL, *w;
	int ret = 0;

	if (!copy)
		return -ENOMEM;
	opts->nr_dims = 0;
	for (w = strtok_r(copy, ",", &save); w;
	     w = strtok_r(NULL, ",", &save)) {
		int d;

		for (d = 0; d < DIM__NR && strcmp(w, dim_names[d]); d++)
			;
		if (d == DIM__NR) {
			ret = error__set(
				err, EINVAL,
				"unknown key '%s' in '--by %s' (host, container, pod, cgroup, process, thread, comm)",
				w, list);
			break;
		}
		for (unsigned i = 0; i < opts->nr_dims; i++) {
			if (opts->dims[i] == (enum report_dim)d) {
				ret = error__set(err, EINVAL,
						 "'%s' twice in '--by %s'", w,
						 list);
				break;
			}
		}
		if (ret)
			break;
		opts->dims[opts->nr_dims++] = d;
	}
	if (!ret && !opts->nr_dims)
		ret = error__set(err, EINVAL, "'--by %s' names no key", list);
	free(copy);
	return ret;
}

/* The one row scope the keys come from: the finest the dims name. */
static const char *dims_scope(const struct report_opts *o)
{
	bool has[DIM__NR] = {};

	for (unsigned i = 0; i < o->nr_dims; i++)
		has[o->dims[i]] = true;
	if (has[DIM_THREAD])
		return "thread";
	if (has[DIM_PROCESS] || has[DIM_COMM])
		return "process";
	if (has[DIM_CGROUP])
		return "cgroup";
	if (has[DIM_CONTAINER])
		return "container";
	if (has[DIM_POD])
		return "pod";
	return "system";
}

static void key_add(struct scan_config *c, enum key_field f)
{
	for (unsigned i = 0; i < c->nr_key; i++)
		if (c->key[i] == f)
			return;
	c->key[c->nr_key++] = f;
}

/* The key's fields, and the labels that follow container and pod. */
static void make_config(struct report *r, const struct report_opts *o)
{
	struct scan_config *c = &r->cfg;

	memset(c, 0, sizeof(*c));
	c->scope = o->scope ? o->scope : dims_scope(o);
	for (unsigned i = 0; i < o->nr_dims; i++) {
		switch (o->dims[i]) {
		case DIM_HOST:
			key_add(c, KF_HOST);
			break;
		case DIM_CONTAINER:
			key_add(c, KF_CONTAINER);
			c->labels = true;
			break;
		case DIM_POD:
			key_add(c, KF_POD);
			c->labels = true;
			break;
		case DIM_CGROUP:
			key_add(c, KF_CGROUP);
			break;
		case DIM_THREAD:
			key_add(c, KF_HOST);
			key_add(c, KF_PID);
			key_add(c, KF_TID);
			key_add(c, KF_COMM);
			break;
		case DIM_PROCESS:
			/* A pid means something on its own host only. */
			key_add(c, KF_HOST);
			key_add(c, KF_PID);
			key_add(c, KF_COMM);
			break;
		case DIM_COMM:
			key_add(c, KF_COMM);
			break;
		case DIM__NR:
		default:
			break;
		}
	}
	if (o->series || o->chart) {
		key_add(c, KF_TIME);
		c->bucket_ms = o->bucket_ms;
		c->keep_intervals = !o->bucket_ms;
	}
	c->hosts = o->hosts;
	c->nr_hosts = o->nr_hosts;
	c->cgroup = o->cgroup;
	c->since_ms = o->since_ms;
	c->until_ms = o->until_ms;
}

const char *report__keep(struct report *r, char *s)
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

static bool key_has(const struct scan_config *c, enum key_field f)
{
	for (unsigned i = 0; i < c->nr_key; i++)
		if (c->key[i] == f)
			return true;
	return false;
}

/* ---- coverage: the seconds a key's rates divide by ---- */

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
static double covered_seconds(struct scan_thread *t, int host)
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

static int host_index(struct scan_thread *t, const char *name, size_t len)
{
	for (unsigned i = 0; i < t->nr_hosts; i++)
		if (strlen(t->hosts[i]) == len &&
		    !memcmp(t->hosts[i], name, len))
			return i;
	return -1;
}

/* ---- metrics ---- */

static int event_index(const struct report_result *res, const char *name)
{
	for (unsigned i = 0; i < res->nr_events; i++)
		if (!strcmp(res->events[i].name, name))
			return i;
	return -1;
}

static bool has_event(const char *name, void *ctx)
{
	struct report *r = ctx;

	return event_index(&r->result, name) >= 0;
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
		int e = event_index(res, name);

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

/* ---- rows ---- */

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

static char *field_dup(const char *key, uint32_t len, unsigned i)
{
	const char *s;
	size_t n;

	if (!agg_key__field(key, len, i, &s, &n))
		return strdup("");
	return strndup(s, n);
}

char *report__time_text(int64_t ms)
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

/* ---- the result ---- */

static int add_key_col(struct report_result *res, const char *name)
{
	for (unsigned i = 0; i < res->nr_key_cols; i++)
		if (!strcmp(res->key_cols[i], name))
			return 0;
	res->key_cols[res->nr_key_cols++] = name;
	return 0;
}

/* key_src[i]: the key field (>= 0) or label (-1 - label) of column i. */
static void make_key_cols(struct report *r, int *key_src, bool series)
{
	struct report_result *res = &r->result;
	const struct scan_config *c = &r->cfg;
	bool labels_done = false;

	res->nr_key_cols = 0;
	if (series) {
		key_src[res->nr_key_cols] = KF_TIME;
		add_key_col(res, "time");
	}
	for (unsigned i = 0; i < c->nr_key; i++) {
		if (c->key[i] == KF_TIME)
			continue;
		key_src[res->nr_key_cols] = i;
		add_key_col(res, key_field_names[c->key[i]]);
		if ((c->key[i] == KF_CONTAINER || c->key[i] == KF_POD) &&
		    !labels_done) {
			for (int l = 0; l < LABEL__NR; l++) {
				if (l == LABEL_CONTAINER_NAME &&
				    !key_has(c, KF_CONTAINER))
					continue;
				key_src[res->nr_key_cols] = -1 - l;
				add_key_col(res, label_names[l]);
			}
			labels_done = true;
		}
	}
}

/* The key without its time: the fold of --series and --html. */
static uint32_t base_len(const struct scan_config *c, const struct agg_entry *e)
{
	return key_has(c, KF_TIME) ? e->key_len - 2 - sizeof(int64_t) :
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
			c = agg_entry__cell(b, i);
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

/* The key field index of KF_HOST in the scan's key, or -1. */
static int host_field(const struct scan_config *c)
{
	for (unsigned i = 0; i < c->nr_key; i++)
		if (c->key[i] == KF_HOST)
			return i;
	return -1;
}

int report__row_host(struct report *r, const struct agg_entry *e)
{
	int hf = host_field(&r->cfg);
	const char *s;
	size_t n;

	if (hf < 0 || !agg_key__field(e->key, e->key_len, hf, &s, &n))
		return -1;
	return host_index(&r->scan, s, n);
}

int report__fill_row(struct report *r, struct report_row *row,
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
		int src = key_src[i];

		if (src == KF_TIME && !strcmp(res->key_cols[i], "time"))
			row->key[i] = time ? time : "";
		else if (src >= 0)
			row->key[i] = e ? report__keep(r, field_dup(e->key,
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
	for (unsigned id = 0; e && id < nr_ev_ids && id < e->nr_cells; id++) {
		if (ev_map[id] >= 0 && e->cells[id].rows)
			cell_from(&row->cells[ev_map[id]], &e->cells[id],
				  seconds);
	}
	for (unsigned m = 0; m < r->nr_defs; m++)
		metric_eval(res, &r->defs[m], row, res->min_running_pct,
			    &row->metrics[m]);
	return 0;
}

static int cmp_name(const void *a, const void *b, void *ctx)
{
	const struct report_event *x = a, *y = b;

	return strcmp(x->name, y->name);
}

/* The events of a table, by name; ev_map[id] is each id's index. */
static int table_events(struct report *r, const struct agg_table *const *tables,
			unsigned nr_tables, struct report_event **out,
			unsigned *nr, int *ev_map)
{
	unsigned n = r->events.nr, k = 0;
	bool *seen = calloc(n ? n : 1, sizeof(*seen));
	struct report_event *ev;

	if (!seen)
		return -ENOMEM;
	for (unsigned t = 0; t < nr_tables; t++)
		agg_table__for_each(tables[t],
				    e) for (unsigned i = 0; i < e->nr_cells;
					    i++) if (e->cells[i].rows)
			seen[i] = true;
	ev = calloc(n ? n : 1, sizeof(*ev));
	if (!ev) {
		free(seen);
		return -ENOMEM;
	}
	for (unsigned i = 0; i < n; i++)
		if (seen[i])
			ev[k++] = (struct report_event){
				r->events.names[i],
				event_unit(r->events.names[i])
			};
	qsort_r(ev, k, sizeof(*ev), cmp_name, NULL);
	for (unsigned i = 0; i < n; i++)
		ev_map[i] = -1;
	for (unsigned j = 0; j < k; j++)
		for (unsigned i = 0; i < n; i++)
			if (r->events.names[i] == ev[j].name)
				ev_map[i] = j;
	free(seen);
	*out = ev;
	*nr = k;
	return 0;
}

static int choose_sort(struct report *r, const struct report_opts *o,
		       struct error *err)
{
	struct report_result *res = &r->result;
	static const char *const defaults[] = { "cycles", "cpu-cycles",
						"cpu-clock", "task-clock" };
	int e;

	if (o->sort) {
		for (unsigned m = 0; m < r->nr_defs; m++) {
			if (!strcmp(r->defs[m].name, o->sort)) {
				res->sort_is_metric = true;
				res->sort_index = m;
				return 0;
			}
		}
		e = event_index(res, o->sort);
		if (e < 0 && res->nr_events)
			return error__set(
				err, EINVAL,
				"unknown '--sort %s': no such event in the input, nor metric",
				o->sort);
		res->sort_index = e < 0 ? 0 : e;
		return 0;
	}
	res->sort_index = 0;
	for (size_t i = 0; i < sizeof(defaults) / sizeof(defaults[0]); i++) {
		e = event_index(res, defaults[i]);
		if (e >= 0) {
			res->sort_index = e;
			break;
		}
	}
	return 0;
}

static int cmp_host(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* One row per host of the input, in name order, whether or not the table
 * has one for it: system and self rows line up. */
static int host_rows(struct report *r, const struct agg_table *table,
		     struct report_row **out, const int *ev_map)
{
	struct report_result *res = &r->result;
	unsigned n = r->scan.nr_hosts;
	struct report_row *rows = calloc(n + 1, sizeof(*rows));
	char **names = calloc(n + 1, sizeof(*names));
	int key_src[1] = { 0 };
	const char **saved_cols = res->key_cols;
	unsigned saved_nr = res->nr_key_cols, saved_defs = r->nr_defs;
	static const char *host_col[] = { "host" };
	int err = 0;

	if (!rows || !names) {
		free(rows);
		free(names);
		return -ENOMEM;
	}
	memcpy(names, r->scan.hosts, n * sizeof(*names));
	qsort(names, n, sizeof(*names), cmp_host);
	res->key_cols = host_col;
	res->nr_key_cols = 1;
	r->nr_defs = 0;
	for (unsigned i = 0; i < n && !err; i++) {
		struct agg_key k;
		const struct agg_entry *e;

		agg_key__reset(&k);
		agg_key__add(&k, names[i], strlen(names[i]));
		e = agg_table__find(table, k.buf, k.len,
				    agg_hash(k.buf, k.len));
		err = report__fill_row(
			r, &rows[i], e, key_src, ev_map, e ? r->events.nr : 0,
			covered_seconds(&r->scan, host_index(&r->scan, names[i],
							     strlen(names[i]))),
			NULL);
		if (!err && !e)
			rows[i].key[0] = report__keep(r, strdup(names[i]));
		if (!err && !rows[i].key[0])
			err = -ENOMEM;
	}
	res->key_cols = saved_cols;
	res->nr_key_cols = saved_nr;
	r->nr_defs = saved_defs;
	free(names);
	*out = rows;
	res->nr_hosts = n;
	return err;
}

static int self_rows(struct report *r)
{
	struct report_result *res = &r->result;
	const struct agg_table *tables[] = { &r->scan.self };
	struct report_event *saved = res->events;
	unsigned saved_nr = res->nr_events;
	int *map = calloc(r->events.nr + 1, sizeof(*map));
	int err;

	if (!map)
		return -ENOMEM;
	err = table_events(r, tables, 1, &res->self_events,
			   &res->nr_self_events, map);
	if (!err) {
		unsigned hosts = res->nr_hosts;

		res->events = res->self_events;
		res->nr_events = res->nr_self_events;
		err = host_rows(r, &r->scan.self, &res->self, map);
		res->nr_hosts = hosts;
		res->events = saved;
		res->nr_events = saved_nr;
	}
	free(map);
	return err;
}

int report__run(struct report *r, const struct report_opts *o,
		char *const *operands, unsigned nr_operands, struct error *err)
{
	struct report_result *res = &r->result;
	const struct agg_table *tables[2];
	struct agg_table *base = &r->base;
	const struct agg_entry **entries = NULL;
	struct report_row *rows = NULL;
	int key_src[KF__NR + LABEL__NR];
	int *ev_map = NULL;
	double fleet;
	unsigned n = 0;
	int ret;

	memset(r, 0, sizeof(*r));
	make_config(r, o);
	ret = event_names__init(&r->events);
	if (!ret)
		ret = scan_thread__init(&r->scan, &r->cfg, &r->events);
	if (ret)
		return error__set(err, ret, "cannot start the report: %s",
				  strerror(-ret));
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
	ret = report_input__scan(&r->input, o->threads, &r->scan, err);
	if (ret)
		return ret;

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
	ev_map = calloc(r->events.nr + 1, sizeof(*ev_map));
	res->key_cols = calloc(KF__NR + LABEL__NR, sizeof(*res->key_cols));
	if (!ev_map || !res->key_cols)
		goto nomem;
	tables[0] = &r->scan.keys;
	tables[1] = &r->scan.system;
	if (table_events(r, tables, 2, &res->events, &res->nr_events, ev_map))
		goto nomem;

	/* The metrics: the built-ins whose events are there, then --metric's. */
	if (!o->no_builtins)
		r->nr_defs = metric_builtins__resolve(has_event, r, r->defs,
						      REPORT_MAX_METRICS);
	for (unsigned i = 0;
	     i < o->nr_metrics && r->nr_defs < REPORT_MAX_METRICS; i++) {
		struct error e = {};

		char *arg;

		/* Parsed again: the report owns its copies. */
		if (asprintf(&arg, "%s=%s", o->metrics[i].name,
			     o->metrics[i].text) < 0)
			goto nomem;
		ret = metric_def__parse(arg, &r->defs[r->nr_defs], &e);
		free(arg);
		if (ret) {
			*err = e;
			goto out;
		}
		r->nr_defs++;
	}
	res->nr_metrics = r->nr_defs;
	res->metrics = calloc(r->nr_defs + 1, sizeof(*res->metrics));
	if (!res->metrics)
		goto nomem;
	for (unsigned m = 0; m < r->nr_defs; m++)
		res->metrics[m] = (struct report_metric){ r->defs[m].name,
							  r->defs[m].text,
							  r->defs[m].unit };
	ret = choose_sort(r, o, err);
	if (ret)
		goto out;

	/* The keys, without their time. */
	make_key_cols(r, key_src, false);
	if (key_has(&r->cfg, KF_TIME)) {
		ret = fold_base(r, base);
		if (ret)
			goto nomem;
	}
	const struct agg_table *keys =
		key_has(&r->cfg, KF_TIME) ? base : &r->scan.keys;

	fleet = covered_seconds(&r->scan, -1);
	rows = calloc(keys->nr + 1, sizeof(*rows));
	entries = calloc(keys->nr + 1, sizeof(*entries));
	if (!rows || !entries)
		goto nomem;
	agg_table__for_each(keys, e)
	{
		int h = report__row_host(r, e);

		ret = report__fill_row(r, &rows[n], e, key_src, ev_map,
				       r->events.nr,
				       host_field(&r->cfg) >= 0 ?
					       covered_seconds(&r->scan, h) :
					       fleet,
				       NULL);
		n++;
		if (ret)
			goto nomem;
	}
	res->nr_keys = n;
	/* Sorted with the entries they came from (for the series). */
	{
		struct pair {
			struct report_row row;
			const struct agg_entry *e;
		} *p = calloc(n + 1, sizeof(*p));
		unsigned i = 0;

		if (!p)
			goto nomem;
		agg_table__for_each(keys, e)
		{
			p[i].row = rows[i];
			p[i].e = e;
			i++;
		}
		qsort_r(p, n, sizeof(*p), cmp_rows, res);
		for (i = 0; i < n; i++) {
			rows[i] = p[i].row;
			entries[i] = p[i].e;
		}
		free(p);
	}
	res->nr_rows = o->top && o->top < n ? o->top : n;
	for (unsigned i = res->nr_rows; i < n; i++) {
		free(rows[i].key);
		free(rows[i].cells);
		free(rows[i].metrics);
	}
	res->rows = rows;
	rows = NULL;

	if (o->chart && !o->series) {
		ret = timeline__chart(r, entries, ev_map);
		if (ret)
			goto nomem;
	}
	if (o->series) {
		int series_src[KF__NR + LABEL__NR];

		make_key_cols(r, series_src, true);
		ret = timeline__series_rows(r, res->rows, entries, res->nr_rows,
					    series_src, ev_map);
		if (ret)
			goto nomem;
	}

	ret = host_rows(r, &r->scan.system, &res->system, ev_map);
	if (!ret)
		ret = self_rows(r);
	if (ret)
		goto nomem;
	ret = 0;
	goto out;
nomem:
	ret = error__set(err, ENOMEM, "cannot hold the report: %s",
			 strerror(ENOMEM));
out:
	free(rows);
	free(entries);
	free(ev_map);
	return ret;
}

static void free_rows(struct report_row *rows, unsigned n)
{
	for (unsigned i = 0; rows && i < n; i++) {
		free(rows[i].key);
		free(rows[i].cells);
		free(rows[i].metrics);
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
