// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "identity/cgroups.h"
#include "identity/tasks.h"
#include "rows/drain.h"
#include "rows/key_sort.h"
#include "rows/tree.h"

/* Does the sorted entry b belong to the same row as a at this scope? */
static bool same_row(const struct key_order *a, const struct key_order *b,
		     unsigned scope)
{
	if (a->cgroup_id != b->cgroup_id)
		return false;
	if (scope == SCOPE_CGROUP)
		return true;
	if (scope == SCOPE_PROCESS)
		return key_order__tgid(a) == key_order__tgid(b);
	return a->task == b->task;
}

struct drain_ctx {
	const struct interval_data *d;
	const struct key_order *order;
	const struct event_list *events;
	const struct counter_totals *totals;
	const struct rows_opts *opts;
	struct sink *sink;
	struct drain_sums *sums;
	/* One per cgroup, for the rows derived from the tree. */
	struct cgroup_sum *cgroups;
	size_t nr_cgroups;
	/*
	 * The cgroup being walked: its path, container and Kubernetes names,
	 * the same on all of its rows, looked up once for them all (a hash
	 * look-up and two name comparisons a row were a fifth of the rows
	 * stage over 1000 containers).
	 */
	const struct cgroup_info *info;
	struct row cgroup_row;
	double running_pct[BPMC_MAX_EVENTS];
	uint64_t samples[BPMC_MAX_EVENTS]; /* all keys', for system rows */
};

/* One row's sums: counts already scaled, so coarser rows add finer. */
struct row_sum {
	uint64_t count[BPMC_MAX_EVENTS];
	uint64_t samples[BPMC_MAX_EVENTS];
};

/*
 * Counts read from a counter (exact mode, group members) carry their own
 * enabled/running times, and so do sampled periods of a counter that can
 * be multiplexed (the time on their CPU since its previous overflow);
 * others take the interval's. Each entry
 * is scaled on its own before anything is added: a process whose
 * threads ran different shares of their time would otherwise not add up
 * to its threads' rows.
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
static void keep_cgroup(struct drain_ctx *x, uint64_t cgroup_id,
			const struct cgroup_info *info,
			const struct row_sum *sum)
{
	struct cgroup_sum *c = &x->cgroups[x->nr_cgroups++];

	c->id = cgroup_id;
	c->info = info;
	memset(c->count, 0, sizeof(c->count));
	memset(c->samples, 0, sizeof(c->samples));
	for (int e = 0; e < x->events->nr; e++) {
		c->count[e] = sum->count[e];
		c->samples[e] = sum->samples[e];
	}
}

/*
 * The key comes from the sorted copy: the drained keys sit in hash
 * order, and reading one there was a cache miss per row.
 */
static int emit(struct drain_ctx *x, unsigned scope,
		const struct key_order *key, const struct row_sum *sum,
		const char *comm)
{
	struct row r;
	int err;

	if (scope != SCOPE_CGROUP && !(x->opts->scopes & scope))
		return 0;
	if (scope == SCOPE_CGROUP) {
		keep_cgroup(x, key->cgroup_id, x->info, sum);
		if (!(x->opts->scopes & scope))
			return 0;
	}
	r = x->cgroup_row;
	r.scope = scope_name(scope);
	r.pid = scope == SCOPE_CGROUP ? -1 : (int64_t)key_order__tgid(key);
	r.tid = scope == SCOPE_THREAD ? (int64_t)(uint32_t)key->task : -1;
	r.comm = scope == SCOPE_CGROUP ? NULL : comm;
	for (int e = 0; e < x->events->nr; e++) {
		r.count = sum->count[e];
		if (!r.count)
			continue;
		r.event = x->events->ev[e].name;
		r.samples = sum->samples[e];
		r.running_pct = x->running_pct[e];
		x->sums->scope[scope_index(scope)][e] += r.count;
		err = x->sink->ops->write_row(x->sink, &r);
		if (err)
			return err;
	}
	return 0;
}

/* An entry of the map, scaled, into a row's sums. */
static void entry_add(struct drain_ctx *x, struct row_sum *sum,
		      const struct bpmc_value *v)
{
	for (int e = 0; e < x->events->nr; e++) {
		sum->count[e] += scaled_count(&v->ev[e], &x->totals->raw[e]);
		sum->samples[e] += v->ev[e].samples;
	}
}

static void sum_add(struct row_sum *sum, const struct row_sum *part,
		    int nr_events)
{
	for (int e = 0; e < nr_events; e++) {
		sum->count[e] += part->count[e];
		sum->samples[e] += part->samples[e];
	}
}

/* The fields every row of the cgroup at key shares. */
static void enter_cgroup(struct drain_ctx *x, const struct key_order *key)
{
	const struct cgroup_info *info =
		cgroups__lookup(x->opts->cgroups, key->cgroup_id);

	x->info = info;
	x->cgroup_row = (struct row){
		.cgroup_id = key->cgroup_id,
		.cgroup = info ? info->path : NULL,
		.container = info ? info->ref.container : NULL,
		.pod = info ? info->ref.pod : NULL,
	};
	if (info)
		tree__set_names(x->opts, info->ref.pod, info->ref.container,
				&x->cgroup_row);
}

/*
 * Sums the sorted entries from i on that share entry i's row at this
 * scope, writing the finer rows on the way: one pass makes the thread,
 * process and cgroup rows, so each entry (scattered in memory, in hash
 * order) is read once. Returns the first entry past the group.
 */
static size_t group(struct drain_ctx *x, size_t i, unsigned scope,
		    struct row_sum *sum, int *err)
{
	const struct interval_data *d = x->d;
	const struct key_order *first = &x->order[i];
	unsigned finer = scope == SCOPE_CGROUP ? SCOPE_PROCESS : SCOPE_THREAD;
	int nr = x->events->nr;
	char comm[BPMC_COMM_LEN] = "";
	/* The stride interval_data__value() steps by. */
	size_t value_size = (const char *)interval_data__value(d, 1) -
			    (const char *)interval_data__value(d, 0);
	struct row_sum part;
	size_t j = i;

	for (int e = 0; e < nr; e++)
		sum->count[e] = sum->samples[e] = 0;
	if (scope == SCOPE_CGROUP)
		enter_cgroup(x, first);
	while (j < d->nr && !*err && same_row(first, &x->order[j], scope)) {
		if (scope == SCOPE_THREAD) {
			/* Values sit in hash order, keys in sorted order:
			 * fetch ahead, or each one is a cache miss. 16
			 * ahead and both lines a value may span: 7.3 ->
			 * 5.1 ms of the rows stage at 100k keys, against
			 * 8 ahead and its first line only. */
			if (j + 16 < d->nr) {
				const char *v =
					(const char *)interval_data__value(
						d, x->order[j + 16].index);

				__builtin_prefetch(v);
				__builtin_prefetch(v + value_size - 1);
			}
			entry_add(x, sum,
				  interval_data__value(d, x->order[j++].index));
			continue;
		}
		j = group(x, j, finer, &part, err);
		sum_add(sum, &part, nr);
	}
	if (*err)
		return j;
	if (scope != SCOPE_CGROUP && (x->opts->scopes & scope))
		tasks__comm(key_order__tgid(first), (uint32_t)first->task,
			    interval_data__value(d, first->index)->comm, comm);
	else if (scope == SCOPE_CGROUP)
		for (int e = 0; e < nr; e++) {
			x->samples[e] += sum->samples[e];
			x->sums->keyed[e] += sum->count[e];
		}
	*err = emit(x, scope, first, sum, comm);
	return j;
}

/*
 * One row per event: the fds' own total, the yardstick of the others.
 * An event enabled all along that never ran (its group never found room
 * on the PMU) has no count, not a zero: nothing was measured.
 */
static int write_system(struct drain_ctx *x)
{
	struct row r = { .scope = "system", .pid = -1, .tid = -1 };
	const struct counter_reading *raw;
	int err;

	for (int e = 0; e < x->events->nr; e++) {
		raw = &x->totals->raw[e];
		r.event = x->events->ev[e].name;
		r.no_count = raw->enabled && !raw->running;
		r.count = x->totals->scaled[e];
		r.running_pct = x->running_pct[e];
		r.samples = x->samples[e];
		x->sums->system[e] = r.count;
		x->sums->samples[e] = r.samples;
		err = x->sink->ops->write_row(x->sink, &r);
		if (err)
			return err;
	}
	return 0;
}

int drain__write_rows(struct interval_data *d, const struct rows_opts *opts,
		      const struct event_list *events,
		      const struct counter_totals *totals, struct sink *sink,
		      struct drain_sums *sums)
{
	size_t n = d->nr ? d->nr : 1;
	struct row_sum sum;
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
	struct key_order *order = (struct key_order *)x.order;
	int err = -ENOMEM;

	if (!order || !x.cgroups) {
		error__set(&sink->error, ENOMEM,
			   "out of memory to sort the rows of %zu keys", n);
		goto out;
	}
	memset(sums, 0, sizeof(*sums));
	for (int e = 0; e < events->nr; e++)
		x.running_pct[e] = running_pct(&totals->raw[e]);
	key_sort(d->keys, d->nr, order);
	/* Always walked: the tree's rows are made from the cgroup sums. */
	err = 0;
	for (size_t i = 0; i < d->nr && !err;)
		i = group(&x, i, SCOPE_CGROUP, &sum, &err);
	if (!err)
		err = write_system(&x);
	if (!err)
		err = tree__write_rows(x.cgroups, x.nr_cgroups, opts, events,
				       x.running_pct, sums->system,
				       sums->samples, sink);
out:
	free(order);
	free(x.cgroups);
	return err;
}
