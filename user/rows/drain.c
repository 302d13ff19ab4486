// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "identity/cgroups.h"
#include "rows/drain.h"
#include "identity/tasks.h"
#include "common/util.h"

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

struct drain_ctx {
	const struct interval_data *d;
	const size_t *order;
	const struct event_list *events;
	const struct counter_totals *totals;
	const struct drain_opts *opts;
	struct sink *sink;
	struct drain_sums *sums;
	/* One per cgroup, for the rows derived from the tree. */
	struct cgroup_sum *cgroups;
	size_t nr_cgroups;
	double running_pct[BPMC_MAX_EVENTS];
	uint64_t samples[BPMC_MAX_EVENTS]; /* all keys', for system rows */
};

/*
 * Counts read from a counter (exact mode, group members) carry their own
 * enabled/running times; sampled periods take the interval's.
 */
static uint64_t scaled_count(const struct bpmc_counts *c,
			     const struct counter_reading *mux)
{
	if (c->enabled)
		return counter_scale(c->count, c->enabled, c->running);
	return counter_scale(c->count, mux->enabled, mux->running);
}

static double running_pct(const struct counter_reading *mux)
{
	return mux->enabled ? 100.0 * mux->running / mux->enabled : 0.0;
}

static int scope_index(unsigned scope)
{
	return scope == SCOPE_CGROUP ? 0 : scope == SCOPE_PROCESS ? 1 : 2;
}

/* A cgroup's own sums, kept for the container, pod and rollup rows. */
static void keep_cgroup(struct drain_ctx *x, const struct bpmc_key *key,
			const struct cgroup_info *info, const uint64_t *count,
			const struct bpmc_value *sum)
{
	struct cgroup_sum *c = &x->cgroups[x->nr_cgroups++];

	c->id = key->cgroup_id;
	c->info = info;
	for (int e = 0; e < x->events->nr; e++) {
		c->count[e] = count[e];
		c->samples[e] = sum->ev[e].samples;
	}
}

static int emit(struct drain_ctx *x, unsigned scope, const struct bpmc_key *key,
		const struct bpmc_value *sum, const char *comm)
{
	const struct cgroup_info *info = cgroups__lookup(key->cgroup_id);
	struct row r = {
		.scope = scope_name(scope),
		.cgroup_id = key->cgroup_id,
		.cgroup = info ? info->path : NULL,
		.container = info ? info->ref.container : NULL,
		.pod = info ? info->ref.pod : NULL,
		.pid = scope == SCOPE_CGROUP ? -1 : (int64_t)key->tgid,
		.tid = scope == SCOPE_THREAD ? (int64_t)key->tid : -1,
		.comm = scope == SCOPE_CGROUP ? NULL : comm,
	};
	uint64_t count[BPMC_MAX_EVENTS];
	int err;

	for (int e = 0; e < x->events->nr; e++)
		count[e] = scaled_count(&sum->ev[e], &x->totals->raw[e]);
	if (scope == SCOPE_CGROUP)
		keep_cgroup(x, key, info, count, sum);
	if (!(x->opts->scopes & scope))
		return 0;
	for (int e = 0; e < x->events->nr; e++) {
		r.count = count[e];
		if (!r.count)
			continue;
		r.event = x->events->ev[e].name;
		r.samples = sum->ev[e].samples;
		r.running_pct = x->running_pct[e];
		x->sums->scope[scope_index(scope)][e] += r.count;
		err = x->sink->ops->write_row(x->sink, &r);
		if (err)
			return err;
	}
	return 0;
}

static void value_add(struct bpmc_value *sum, const struct bpmc_value *v,
		      int nr_events)
{
	for (int e = 0; e < nr_events; e++) {
		sum->ev[e].count += v->ev[e].count;
		sum->ev[e].samples += v->ev[e].samples;
		sum->ev[e].enabled += v->ev[e].enabled;
		sum->ev[e].running += v->ev[e].running;
	}
}

/*
 * Sums the sorted entries from i on that share entry i's row at this
 * scope, writing the finer rows on the way: one pass makes the thread,
 * process and cgroup rows, so each entry (scattered in memory, in hash
 * order) is read once. Returns the first entry past the group.
 */
static size_t group(struct drain_ctx *x, size_t i, unsigned scope,
		    struct bpmc_value *sum, int *err)
{
	const struct interval_data *d = x->d;
	const struct bpmc_key *first = &d->keys[x->order[i]];
	unsigned finer = scope == SCOPE_CGROUP ? SCOPE_PROCESS : SCOPE_THREAD;
	int nr = x->events->nr;
	char comm[BPMC_COMM_LEN] = "";
	struct bpmc_value part;
	size_t j = i;

	memset(sum, 0, sizeof(*sum));
	while (j < d->nr && !*err &&
	       same_row(first, &d->keys[x->order[j]], scope)) {
		if (scope == SCOPE_THREAD) {
			/* Values sit in hash order, keys in sorted order:
			 * fetch ahead, or each one is a cache miss. */
			if (j + 8 < d->nr)
				__builtin_prefetch(&d->values[x->order[j + 8]]);
			value_add(sum, &d->values[x->order[j++]], nr);
			continue;
		}
		j = group(x, j, finer, &part, err);
		value_add(sum, &part, nr);
	}
	if (*err)
		return j;
	if (scope != SCOPE_CGROUP)
		tasks__comm(first->tgid, first->tid,
			    d->values[x->order[i]].comm, comm);
	else
		for (int e = 0; e < nr; e++)
			x->samples[e] += sum->ev[e].samples;
	*err = emit(x, scope, first, sum, comm);
	return j;
}

/* One row per event: the fds' own total, the yardstick of the others. */
static int write_system(struct drain_ctx *x)
{
	struct row r = { .scope = "system", .pid = -1, .tid = -1 };
	int err;

	for (int e = 0; e < x->events->nr; e++) {
		r.event = x->events->ev[e].name;
		r.count = x->totals->scaled[e];
		r.running_pct = x->running_pct[e];
		r.samples = x->samples[e];
		x->sums->system[e] = r.count;
		err = x->sink->ops->write_row(x->sink, &r);
		if (err)
			return err;
	}
	return 0;
}

int drain__write_rows(struct interval_data *d, const struct drain_opts *opts,
		      const struct event_list *events,
		      const struct counter_totals *totals, struct sink *sink,
		      struct drain_sums *sums)
{
	size_t n = d->nr ? d->nr : 1;
	struct bpmc_value sum;
	struct drain_ctx x = {
		.d = d,
		.order = malloc(n * sizeof(*x.order)),
		.events = events,
		.totals = totals,
		.opts = opts,
		.sink = sink,
		.sums = sums,
		.cgroups = malloc(n * sizeof(*x.cgroups)),
	};
	size_t *order = (size_t *)x.order;
	int err = -ENOMEM;

	if (!order || !x.cgroups)
		goto out;
	memset(sums, 0, sizeof(*sums));
	for (int e = 0; e < events->nr; e++)
		x.running_pct[e] = running_pct(&totals->raw[e]);
	for (size_t i = 0; i < d->nr; i++)
		order[i] = i;
	sort_data = d;
	qsort(order, d->nr, sizeof(*order), index_cmp);
	/* Always walked: the tree's rows are made from the cgroup sums. */
	err = 0;
	for (size_t i = 0; i < d->nr && !err;)
		i = group(&x, i, SCOPE_CGROUP, &sum, &err);
	if (!err)
		err = write_system(&x);
	if (!err)
		err = drain_tree__write_rows(x.cgroups, x.nr_cgroups, opts,
					     events, x.running_pct, sink);
out:
	free(order);
	free(x.cgroups);
	return err;
}
