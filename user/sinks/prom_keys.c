// SPDX-License-Identifier: GPL-2.0
/* The Prometheus sink's keys, found by their escaped labels. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/grow.h"
#include "sinks/prom_state.h"

struct prom_key *prom_keys__get(struct prom_state *st, enum prom_fam fam,
				const char *labels, size_t len)
{
	/* A container's labels are its cgroup's too: the scope tells them
	 * apart. */
	uint64_t h = hash_bytes(labels, len) ^
		     (fam + 1) * 0x9e3779b97f4a7c15ull;
	struct hash_probe p = hash_index__probe(&st->index, h);
	size_t evsz = st->nr_events * sizeof(uint64_t);
	struct prom_key *k;
	uint32_t i;

	while ((i = hash_index__next(&st->index, &p)) != HASH_INDEX_END) {
		k = st->keys[i];
		if (k->hash == h && k->fam == fam && k->len == len &&
		    !memcmp(prom_key__labels(k, st->nr_events), labels, len))
			return k;
	}
	if (hash_index__make_room(&st->index, &p) ||
	    GROW(st->keys, st->cap_keys, st->nr_keys + 1, 1024))
		return NULL;
	k = calloc(1, sizeof(*k) + evsz + len + 1);
	if (!k)
		return NULL;
	k->hash = h;
	k->len = len;
	k->fam = fam;
	k->system = fam == PROM_FAM_NODE;
	memcpy((char *)(k->count + st->nr_events), labels, len);
	k->index = st->nr_keys;
	st->keys[st->nr_keys++] = k;
	hash_index__add(&st->index, &p, k->index);
	k->prev = st->last[fam];
	if (st->last[fam])
		st->last[fam]->after = k;
	else
		st->first[fam] = k;
	st->last[fam] = k;
	return k;
}

void prom_keys__remove(struct prom_state *st, struct prom_key *k)
{
	struct prom_key *moved = st->keys[--st->nr_keys];

	hash_index__remove(&st->index, k->hash, k->index);
	/* The last key fills the hole. */
	if (moved != k) {
		hash_index__renumber(&st->index, moved->hash, moved->index,
				     k->index);
		moved->index = k->index;
		st->keys[k->index] = moved;
	}
	if (k->prev)
		k->prev->after = k->after;
	else
		st->first[k->fam] = k->after;
	if (k->after)
		k->after->prev = k->prev;
	else
		st->last[k->fam] = k->prev;
	free(k);
}

void prom_keys__free(struct prom_state *st)
{
	struct prom_key *k, *after;

	for (int f = 0; f < PROM_NR_FAMS; f++) {
		for (k = st->first[f]; k; k = after) {
			after = k->after;
			free(k);
		}
		st->first[f] = st->last[f] = NULL;
	}
	free(st->keys);
	st->keys = NULL;
	hash_index__free(&st->index);
	st->nr_keys = st->cap_keys = 0;
}
