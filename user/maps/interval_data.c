// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "maps/interval_data.h"

int interval_data__reserve(struct interval_data *d, size_t nr)
{
	void *k, *v;
	size_t cap = d->cap ? d->cap : 1024;

	if (nr <= d->cap)
		return 0;
	while (cap < nr)
		cap *= 2;
	k = realloc(d->keys, cap * sizeof(*d->keys));
	if (!k)
		return -ENOMEM;
	d->keys = k;
	/* A whole struct past the last value: a pointer to any entry as a
	 * struct bpmc_value never points past the buffer. */
	v = realloc(d->values, cap * d->value_size + sizeof(struct bpmc_value));
	if (!v)
		return -ENOMEM;
	d->values = v;
	d->cap = cap;
	return 0;
}

void interval_data__free(struct interval_data *d)
{
	free(d->keys);
	free(d->values);
	memset(d, 0, sizeof(*d));
}
