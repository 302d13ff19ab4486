// SPDX-License-Identifier: GPL-2.0
/* The result's columns: its key columns, its events and the sort. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/metric.h"
#include "report/columns.h"
#include "report/config.h"
#include "report/row.h"

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

static int add_key_col(struct report_result *res, const char *name)
{
	for (unsigned i = 0; i < res->nr_key_cols; i++)
		if (!strcmp(res->key_cols[i], name))
			return 0;
	res->key_cols[res->nr_key_cols++] = name;
	return 0;
}

/* key_src[i]: the key field (>= 0) or label (-1 - label) of column i. */
void report_columns__keys(struct report *r, int *key_src, bool series)
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
				    !report_config__has_key(c, KF_CONTAINER))
					continue;
				key_src[res->nr_key_cols] = -1 - l;
				add_key_col(res, label_names[l]);
			}
			labels_done = true;
		}
	}
}

static int cmp_name(const void *a, const void *b, void *ctx)
{
	const struct report_event *x = a, *y = b;

	return strcmp(x->name, y->name);
}

/* The events of a table, by name; ev_map[id] is each id's index. */
int report_columns__events(struct report *r,
			   const struct agg_table *const *tables,
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
			seen[e->cell_base + i] = true;
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

int report_columns__sort(struct report *r, const struct report_opts *o,
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
		e = report_row__event_index(res, o->sort);
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
		e = report_row__event_index(res, defaults[i]);
		if (e >= 0) {
			res->sort_index = e;
			break;
		}
	}
	return 0;
}
