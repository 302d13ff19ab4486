// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/hash_index.h"

#define MIN_SLOTS 1024

int hash_index__reserve(struct hash_index *x, size_t nr)
{
	size_t old = x->slots ? (size_t)x->mask + 1 : 0,
	       n = old ? old : MIN_SLOTS;
	struct hash_slot *slots;

	if (nr * 2 <= old)
		return 0;
	while (n < nr * 2)
		n *= 2;
	if (n > (size_t)UINT32_MAX + 1)
		return -ENOMEM;
	slots = calloc(n, sizeof(*slots));
	if (!slots)
		return -ENOMEM;
	for (size_t i = 0; i < old; i++) {
		size_t j = x->slots[i].hash & (n - 1);

		if (!x->slots[i].ref)
			continue;
		while (slots[j].ref)
			j = (j + 1) & (n - 1);
		slots[j] = x->slots[i];
	}
	free(x->slots);
	x->slots = slots;
	x->mask = n - 1;
	return 0;
}

int hash_index__make_room(struct hash_index *x, struct hash_probe *p)
{
	int err;

	if (x->slots && ((size_t)x->nr + 1) * 2 <= (size_t)x->mask + 1)
		return 0;
	err = hash_index__reserve(x, (size_t)x->nr + 1);
	if (err)
		return err;
	/* Grown: the key is still not there, its place is the first empty
	 * slot from its home. */
	for (p->slot = p->hash & x->mask; x->slots[p->slot].ref;
	     p->slot = (p->slot + 1) & x->mask)
		;
	return 0;
}

void hash_index__clear(struct hash_index *x)
{
	if (x->slots)
		memset(x->slots, 0, ((size_t)x->mask + 1) * sizeof(*x->slots));
	x->nr = 0;
}

void hash_index__free(struct hash_index *x)
{
	free(x->slots);
	*x = (struct hash_index){};
}

/* The slot of entry i of hash h: it is there. */
static uint32_t slot_of(const struct hash_index *x, uint64_t h, uint32_t i)
{
	uint32_t s = (uint32_t)h & x->mask;

	while (x->slots[s].ref != i + 1)
		s = (s + 1) & x->mask;
	return s;
}

void hash_index__remove(struct hash_index *x, uint64_t h, uint32_t i)
{
	uint32_t hole = slot_of(x, h, i), j = hole, home;

	x->slots[hole].ref = 0;
	x->nr--;
	for (;;) {
		j = (j + 1) & x->mask;
		if (!x->slots[j].ref)
			return;
		home = x->slots[j].hash & x->mask;
		/* Stays when its home lies cyclically in (hole, j]. */
		if (hole <= j ? (home > hole && home <= j) :
				(home > hole || home <= j))
			continue;
		x->slots[hole] = x->slots[j];
		x->slots[j].ref = 0;
		hole = j;
	}
}

void hash_index__renumber(struct hash_index *x, uint64_t h, uint32_t from,
			  uint32_t to)
{
	x->slots[slot_of(x, h, from)].ref = to + 1;
}
