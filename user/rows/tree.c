// SPDX-License-Identifier: GPL-2.0
/* Rows derived from the cgroup tree: containers, pods, subtree totals. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/scope.h"
#include "rows/rollup.h"
#include "rows/tree.h"

/* Which grouping a pass makes: by container id, or by pod uid. */
enum group_by { BY_CONTAINER, BY_POD };

static const char *group_key(const struct cgroup_sum *s, enum group_by by)
{
	if (!s->info)
		return "";
	return by == BY_CONTAINER ? s->info->ref.container : s->info->ref.pod;
}

struct sort_ctx {
	const struct cgroup_sum *sums;
	enum group_by by;
};

static int by_key(const void *a, const void *b, void *ctx)
{
	const struct sort_ctx *s = ctx;

	return strcmp(group_key(&s->sums[*(const size_t *)a], s->by),
		      group_key(&s->sums[*(const size_t *)b], s->by));
}

void tree__set_names(const struct rows_opts *opts, const char *pod,
		     const char *container, struct row *r)
{
	struct kube_names n;

	kube__resolve(opts->kube, pod, container, &n);
	r->namespace = n.namespace;
	r->pod_name = n.pod_name;
	r->container_name = n.container_name;
}

static int write_counts(struct sink *sink, struct row *r,
			const struct event_list *events, const uint64_t *count,
			const uint64_t *samples, const double *running_pct)
{
	int err;

	for (int e = 0; e < events->nr; e++) {
		if (!count[e])
			continue;
		r->event = events->ev[e].name;
		r->count = count[e];
		r->samples = samples[e];
		r->running_pct = running_pct[e];
		err = sink->ops->write_row(sink, r);
		if (err)
			return err;
	}
	return 0;
}

/*
 * The "outside containers" (or pods) row: the system row less the
 * container (pod) rows, so that the keys of a per-container view add up
 * to the host. Its container and pod are empty. Every interval, so that
 * a sum over the rows of any stretch of time adds up too (on a host
 * without containers it is the system row again: one row an event).
 */
static int write_outside(enum group_by by, const struct event_list *events,
			 const uint64_t *system, const uint64_t *in,
			 const uint64_t *in_samples,
			 const uint64_t *all_samples, const double *running_pct,
			 struct sink *sink)
{
	uint64_t count[BPMC_MAX_EVENTS], samples[BPMC_MAX_EVENTS];
	struct row r = {
		.scope = by == BY_CONTAINER ? "container" : "pod",
		.pid = -1,
		.tid = -1,
	};

	for (int e = 0; e < events->nr; e++) {
		/* Sampled keys' scaling can pass the fds' total by a hair. */
		count[e] = system[e] > in[e] ? system[e] - in[e] : 0;
		samples[e] = all_samples[e] > in_samples[e] ?
				     all_samples[e] - in_samples[e] :
				     0;
	}
	return write_counts(sink, &r, events, count, samples, running_pct);
}

/* One row per container (or pod): the sum of the cgroups naming it. */
static int write_grouped(const struct cgroup_sum *sums, size_t nr,
			 enum group_by by, const struct rows_opts *opts,
			 const struct event_list *events,
			 const double *running_pct, const uint64_t *system,
			 const uint64_t *system_samples, struct sink *sink)
{
	uint64_t count[BPMC_MAX_EVENTS], samples[BPMC_MAX_EVENTS];
	uint64_t in[BPMC_MAX_EVENTS] = {}, in_samples[BPMC_MAX_EVENTS] = {};
	size_t *order = malloc((nr ? nr : 1) * sizeof(*order)), n = 0, i, j;
	const struct cgroup_info *info;
	char cgroup[4096];
	struct row r;
	int err = 0;

	if (!order)
		return error__set(
			&sink->error, ENOMEM,
			"out of memory for the %s rows of %zu cgroups",
			by == BY_POD ? "pod" : "container", nr);
	for (i = 0; i < nr; i++) {
		if (*group_key(&sums[i], by))
			order[n++] = i;
	}
	qsort_r(order, n, sizeof(*order), by_key,
		&(struct sort_ctx){ .sums = sums, .by = by });
	for (i = 0; i < n && !err; i = j) {
		info = sums[order[i]].info;
		memset(count, 0, sizeof(count));
		memset(samples, 0, sizeof(samples));
		for (j = i; j < n && !strcmp(group_key(&sums[order[j]], by),
					     group_key(&sums[order[i]], by));
		     j++) {
			for (int e = 0; e < events->nr; e++) {
				count[e] += sums[order[j]].count[e];
				samples[e] += sums[order[j]].samples[e];
			}
		}
		r = (struct row){
			.scope = by == BY_CONTAINER ? "container" : "pod",
			.pid = -1,
			.tid = -1,
			.pod = info->ref.pod,
		};
		if (by == BY_CONTAINER) {
			/* The container's own cgroup, not a child of it. */
			snprintf(cgroup, sizeof(cgroup), "%.*s",
				 info->ref.container_path_len, info->path);
			r.cgroup = cgroup;
			r.container = info->ref.container;
		}
		tree__set_names(opts, info->ref.pod, r.container, &r);
		for (int e = 0; e < events->nr; e++) {
			in[e] += count[e];
			in_samples[e] += samples[e];
		}
		err = write_counts(sink, &r, events, count, samples,
				   running_pct);
	}
	free(order);
	if (!err && system)
		err = write_outside(by, events, system, in, in_samples,
				    system_samples, running_pct, sink);
	return err;
}

/* --rollup: a cgroup_total row for every ancestor, its whole subtree. */
static int write_rollup(const struct cgroup_sum *sums, size_t nr,
			const struct rows_opts *opts,
			const struct event_list *events,
			const double *running_pct, struct sink *sink)
{
	struct rollup_in *in = calloc(nr ? nr : 1, sizeof(*in) * 2);
	const struct rollup_out *tot = NULL, *smp = NULL;
	struct rollup *rt = NULL, *rs = NULL;
	struct container_ref ref;
	struct row r;
	int n, m, level, err = -ENOMEM;
	uint64_t id;

	if (!in)
		return error__set(&sink->error, ENOMEM,
				  "out of memory for the rollup of %zu cgroups",
				  nr);
	/* The same paths twice: counts, then samples, in the same order. */
	for (size_t i = 0; i < nr; i++) {
		in[i].path = in[nr + i].path =
			sums[i].info ? sums[i].info->path : NULL;
		memcpy(in[i].count, sums[i].count, sizeof(in[i].count));
		memcpy(in[nr + i].count, sums[i].samples, sizeof(in[i].count));
	}
	n = rollup__compute(&rt, in, nr, events->nr, opts->rollup_depth, &tot);
	m = rollup__compute(&rs, in + nr, nr, events->nr, opts->rollup_depth,
			    &smp);
	if (n < 0 || m != n)
		goto out;
	err = 0;
	for (int i = 0; i < n && !err; i++) {
		container_parse(tot[i].path, &ref);
		r = (struct row){
			.scope = "cgroup_total",
			.cgroup_id = cgroups__resolve(opts->cgroups,
						      tot[i].path, &id,
						      &level) ?
					     0 :
					     id,
			.cgroup = tot[i].path,
			.container = ref.container,
			.pod = ref.pod,
			.pid = -1,
			.tid = -1,
		};
		tree__set_names(opts, ref.pod, ref.container, &r);
		err = write_counts(sink, &r, events, tot[i].count, smp[i].count,
				   running_pct);
	}
out:
	rollup__free(rt);
	rollup__free(rs);
	free(in);
	return err;
}

int tree__write_rows(const struct cgroup_sum *sums, size_t nr,
		     const struct rows_opts *opts,
		     const struct event_list *events, const double *running_pct,
		     const uint64_t *system, const uint64_t *system_samples,
		     struct sink *sink)
{
	int err = 0;

	if (opts->scopes & SCOPE_CONTAINER) {
		err = write_grouped(sums, nr, BY_CONTAINER, opts, events,
				    running_pct, system, system_samples, sink);
		if (!err)
			err = write_grouped(sums, nr, BY_POD, opts, events,
					    running_pct, system, system_samples,
					    sink);
	}
	if (!err && opts->rollup_depth >= 0)
		err = write_rollup(sums, nr, opts, events, running_pct, sink);
	return err;
}
