// SPDX-License-Identifier: GPL-2.0
/*
 * The system and self rows: one per host of the input, in name order,
 * whether or not the host has one, so that they line up.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "report/columns.h"
#include "report/hosts.h"
#include "report/row.h"

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
		err = report_row__fill(
			r, &rows[i], e, key_src, ev_map, e ? r->events.nr : 0,
			report_row__covered_seconds(
				&r->scan,
				report_row__host_index(&r->scan, names[i],
						       strlen(names[i]))),
			NULL);
		if (!err && !e)
			rows[i].key[0] = report_row__keep(r, strdup(names[i]));
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

int report_hosts__self(struct report *r)
{
	struct report_result *res = &r->result;
	const struct agg_table *tables[] = { &r->scan.self };
	struct report_event *saved = res->events;
	unsigned saved_nr = res->nr_events;
	int *map = calloc(r->events.nr + 1, sizeof(*map));
	int err;

	if (!map)
		return -ENOMEM;
	err = report_columns__events(r, tables, 1, &res->self_events,
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

int report_hosts__system(struct report *r, const int *ev_map)
{
	return host_rows(r, &r->scan.system, &r->result.system, ev_map);
}
