// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cgroups.h"
#include "drain.h"
#include "tasks.h"
#include "util.h"

static const struct {
	const char *name;
	unsigned mask;
} scope_names[] = {
	{ "cgroup", SCOPE_CGROUP },
	{ "process", SCOPE_PROCESS },
	{ "thread", SCOPE_THREAD },
};

int scopes_parse(const char *list, unsigned *mask, char *bad, size_t badlen)
{
	char copy[256], *tok, *save;
	unsigned m = 0, found;

	snprintf(copy, sizeof(copy), "%s", list);
	for (tok = strtok_r(copy, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		found = 0;
		for (size_t i = 0; i < ARRAY_SIZE(scope_names); i++) {
			if (!strcmp(tok, scope_names[i].name))
				found = scope_names[i].mask;
		}
		if (!found) {
			snprintf(bad, badlen, "%s", tok);
			return -EINVAL;
		}
		m |= found;
	}
	if (!m) {
		snprintf(bad, badlen, "%s", list);
		return -EINVAL;
	}
	*mask = m;
	return 0;
}

static int key_cmp(const struct bpmc_key *a, const struct bpmc_key *b)
{
	if (a->cgroup_id != b->cgroup_id)
		return a->cgroup_id < b->cgroup_id ? -1 : 1;
	if (a->tgid != b->tgid)
		return a->tgid < b->tgid ? -1 : 1;
	if (a->tid != b->tid)
		return a->tid < b->tid ? -1 : 1;
	return 0;
}

static const struct interval_data *sort_data;

static int index_cmp(const void *a, const void *b)
{
	return key_cmp(&sort_data->keys[*(const size_t *)a],
		       &sort_data->keys[*(const size_t *)b]);
}

/* Does entry i belong to the same row as entry j at this scope? */
static bool same_row(const struct bpmc_key *a, const struct bpmc_key *b,
		     unsigned scope)
{
	if (a->cgroup_id != b->cgroup_id)
		return false;
	if (scope == SCOPE_CGROUP)
		return true;
	if (a->tgid != b->tgid)
		return false;
	return scope == SCOPE_PROCESS || a->tid == b->tid;
}

static const char *scope_name(unsigned scope)
{
	for (size_t i = 0; i < ARRAY_SIZE(scope_names); i++) {
		if (scope_names[i].mask == scope)
			return scope_names[i].name;
	}
	return "?";
}

static int emit(struct sink *sink, unsigned scope, const struct bpmc_key *key,
		const struct bpmc_value *sum, const char *comm,
		const struct event_list *events,
		const struct counter_reading *mux)
{
	struct row r = {
		.scope = scope_name(scope),
		.cgroup_id = key->cgroup_id,
		.cgroup = cgroups__path(key->cgroup_id),
		.pid = scope == SCOPE_CGROUP ? -1 : (int64_t)key->tgid,
		.tid = scope == SCOPE_THREAD ? (int64_t)key->tid : -1,
		.comm = scope == SCOPE_CGROUP ? NULL : comm,
	};
	int err;

	for (int e = 0; e < events->nr; e++) {
		r.count = counter_scale(sum->ev[e].count, mux[e].enabled,
					mux[e].running);
		if (!r.count)
			continue;
		r.event = events->ev[e].name;
		r.samples = sum->ev[e].samples;
		err = sink->ops->write_row(sink, &r);
		if (err)
			return err;
	}
	return 0;
}

static void value_add(struct bpmc_value *sum, const struct bpmc_value *v)
{
	for (int e = 0; e < BPMC_MAX_EVENTS; e++) {
		sum->ev[e].count += v->ev[e].count;
		sum->ev[e].samples += v->ev[e].samples;
	}
}

static int write_scope(const struct interval_data *d, const size_t *order,
		       unsigned scope, const struct event_list *events,
		       const struct counter_reading *mux, struct sink *sink)
{
	struct bpmc_value sum;
	const struct bpmc_key *first;
	char comm[BPMC_COMM_LEN];
	size_t i = 0, j;
	int err;

	while (i < d->nr) {
		first = &d->keys[order[i]];
		memset(&sum, 0, sizeof(sum));
		tasks__comm(first->tgid, first->tid, d->values[order[i]].comm,
			    comm);
		for (j = i;
		     j < d->nr && same_row(first, &d->keys[order[j]], scope);
		     j++)
			value_add(&sum, &d->values[order[j]]);
		err = emit(sink, scope, first, &sum, comm, events, mux);
		if (err)
			return err;
		i = j;
	}
	return 0;
}

int drain__write_rows(struct interval_data *d, unsigned scopes,
		      const struct event_list *events,
		      const struct counter_reading *mux, struct sink *sink)
{
	static const unsigned order_of_scopes[] = { SCOPE_CGROUP, SCOPE_PROCESS,
						    SCOPE_THREAD };
	size_t *order = malloc((d->nr ? d->nr : 1) * sizeof(*order));
	int err = 0;

	if (!order)
		return -ENOMEM;
	for (size_t i = 0; i < d->nr; i++)
		order[i] = i;
	sort_data = d;
	qsort(order, d->nr, sizeof(*order), index_cmp);
	for (size_t s = 0; s < ARRAY_SIZE(order_of_scopes) && !err; s++) {
		if (scopes & order_of_scopes[s])
			err = write_scope(d, order, order_of_scopes[s], events,
					  mux, sink);
	}
	free(order);
	return err;
}
