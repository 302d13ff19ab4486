// SPDX-License-Identifier: GPL-2.0
/* The "outside containers" key of --by container and --by pod. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "report/outside.h"

/* The fields of cfg's key: where host and container (pod) sit; false
 * where the key holds anything else (a time, a cgroup, a process). */
static bool key_layout(const struct scan_config *cfg, int *host, int *ctr)
{
	*host = *ctr = -1;
	for (unsigned i = 0; i < cfg->nr_key; i++) {
		if (cfg->key[i] == KF_HOST)
			*host = (int)i;
		else if (cfg->key[i] == KF_CONTAINER || cfg->key[i] == KF_POD)
			*ctr = *ctr < 0 ? (int)i : -2;
		else
			return false;
	}
	return *ctr >= 0;
}

static bool field_is(const struct agg_entry *e, int i, const char *s,
		     size_t len)
{
	const char *f;
	size_t n;

	return agg_key__field(e->key, e->key_len, (unsigned)i, &f, &n) &&
	       n == len && !memcmp(f, s, len);
}

static uint64_t less(uint64_t a, uint64_t b)
{
	return a > b ? a - b : 0;
}

/*
 * The outside key of one host (host_at < 0: of all hosts together):
 * the system cells of sys[0..nr_sys) less every other key's.
 */
static int fix_host(struct agg_table *keys, struct agg_entry *const *sys,
		    size_t nr_sys, const char *host, int host_len, int host_at,
		    int ctr_at, unsigned nr_key)
{
	struct agg_key k;
	struct agg_entry *out;
	unsigned base = UINT16_MAX, end = 0;
	size_t nr = keys->nr;

	if (!nr_sys)
		return 0;
	agg_key__reset(&k);
	for (unsigned i = 0; i < nr_key; i++) {
		if ((int)i == host_at)
			agg_key__add(&k, host, (size_t)host_len);
		else
			agg_key__add(&k, "", 0);
	}
	for (size_t s = 0; s < nr_sys; s++) {
		if (sys[s]->cell_base < base)
			base = sys[s]->cell_base;
		if (sys[s]->cell_base + sys[s]->nr_cells > end)
			end = sys[s]->cell_base + sys[s]->nr_cells;
	}
	out = agg_table__get(keys, k.buf, k.len, agg_hash(k.buf, k.len));
	if (!out)
		return -ENOMEM;
	for (unsigned ev = base; ev < end; ev++) {
		struct agg_cell sum = {}, in = {}, *c;

		for (size_t s = 0; s < nr_sys; s++) {
			const struct agg_cell *x = agg_entry__find(sys[s], ev);

			if (x)
				agg_cell__add(&sum, x);
		}
		if (!sum.rows)
			continue;
		for (size_t i = 0; i < nr; i++) {
			const struct agg_entry *e = &keys->slots[i];
			const struct agg_cell *x = agg_entry__find(e, ev);

			if (!x || e == out || field_is(e, ctr_at, "", 0))
				continue;
			if (host_at >= 0 &&
			    !field_is(e, host_at, host, (size_t)host_len))
				continue;
			agg_cell__add(&in, x);
		}
		c = agg_entry__cell(out, ev);
		if (!c)
			return -ENOMEM;
		*c = (struct agg_cell){
			.count = less(sum.count, in.count),
			.samples = less(sum.samples, in.samples),
			.count_sampled =
				less(sum.count_sampled, in.count_sampled),
			.samples_sampled =
				less(sum.samples_sampled, in.samples_sampled),
			.rows = sum.rows,
		};
	}
	return 0;
}

int report_outside__fix(struct agg_table *keys, const struct agg_table *system,
			const struct scan_config *cfg)
{
	struct agg_entry **sys;
	int host_at, ctr_at, err = 0;
	size_t nr_sys = 0;

	if (!cfg->tree_scope || cfg->cgroup ||
	    !key_layout(cfg, &host_at, &ctr_at))
		return 0;
	sys = calloc(system->nr + 1, sizeof(*sys));
	if (!sys)
		return -ENOMEM;
	if (host_at < 0) {
		agg_table__for_each(system, e) sys[nr_sys++] = e;
		err = fix_host(keys, sys, nr_sys, "", 0, -1, ctr_at,
			       cfg->nr_key);
	} else {
		agg_table__for_each(system, e)
		{
			const char *h;
			size_t n;

			if (!agg_key__field(e->key, e->key_len, 0, &h, &n))
				continue;
			sys[0] = e;
			err = fix_host(keys, sys, 1, h, (int)n, host_at, ctr_at,
				       cfg->nr_key);
			if (err)
				break;
		}
	}
	free(sys);
	return err;
}
