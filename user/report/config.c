// SPDX-License-Identifier: GPL-2.0
/* The report's options and the scan configuration they make. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "report/config.h"

static const char *const dim_names[DIM__NR] = {
	[DIM_HOST] = "host",	   [DIM_CONTAINER] = "container",
	[DIM_POD] = "pod",	   [DIM_CGROUP] = "cgroup",
	[DIM_PROCESS] = "process", [DIM_THREAD] = "thread",
	[DIM_COMM] = "comm",
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
		return error__set(err, ENOMEM,
				  "out of memory for dimensions '%s'", list);
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

bool report_config__has_key(const struct scan_config *c, enum key_field f)
{
	for (unsigned i = 0; i < c->nr_key; i++)
		if (c->key[i] == f)
			return true;
	return false;
}

/* The key's fields, and the labels that follow container and pod. */
void report_config__make(struct scan_config *c, const struct report_opts *o)
{
	memset(c, 0, sizeof(*c));
	c->scope = o->scope ? o->scope : dims_scope(o);
	c->tree_scope = !strcmp(c->scope, "container") ||
			!strcmp(c->scope, "pod");
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
	if (o->series || o->chart || o->spread) {
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
