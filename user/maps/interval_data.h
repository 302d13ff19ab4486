/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One interval's entries as they leave the maps: what collector.c and
 * entries.c both fill, and rows/ reads. Its own module, so that neither
 * of the two calls the other back.
 */
#ifndef BPMC_MAPS_INTERVAL_DATA_H
#define BPMC_MAPS_INTERVAL_DATA_H

#include <stddef.h>
#include <stdint.h>

#include "collect.h"

/*
 * What one interval attributed: one entry per distinct key. The values
 * are packed as the counts maps hold them, value_size bytes apart (a
 * struct bpmc_value cut after the run's last event; 0 is the whole
 * struct): read them with interval_data__value(), never past nr_events.
 */
struct interval_data {
	struct bpmc_key *keys;
	void *values;
	size_t value_size;
	size_t nr, cap;
	uint64_t drops[BPMC_DROP_NR]; /* lost in this interval */
};

static inline const struct bpmc_value *
interval_data__value(const struct interval_data *d, size_t i)
{
	size_t size = d->value_size ? d->value_size : sizeof(struct bpmc_value);

	return (const struct bpmc_value *)((const char *)d->values + i * size);
}

/* Room for nr entries in all (0, or -ENOMEM). */
int interval_data__reserve(struct interval_data *data, size_t nr);
void interval_data__free(struct interval_data *data);

#endif
