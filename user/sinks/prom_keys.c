// SPDX-License-Identifier: GPL-2.0
/* The Prometheus sink's keys: a chained hash on the escaped labels. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sinks/prom_state.h"

static uint64_t hash_labels(const char *s, size_t n)
{
	uint64_t h = 0x9e3779b97f4a7c15ull ^ n, v;

	for (; n >= 8; s += 8, n -= 8) {
		memcpy(&v, s, 8);
		h = (h ^ v) * 0xff51afd7ed558ccdull;
		h ^= h >> 32;
	}
	v = 0;
	memcpy(&v, s, n);
	h = (h ^ v) * 0xc4ceb9fe1a85ec53ull;
	return h ^ h >> 29;
}

static int grow(struct prom_state *st)
{
	size_t n = st->nr_buckets ? st->nr_buckets * 2 : 1024;
	struct prom_key **b = calloc(n, sizeof(*b)), *k;

	if (!b)
		return -ENOMEM;
	for (k = st->first; k; k = k->after) {
		k->next = b[k->hash & (n - 1)];
		b[k->hash & (n - 1)] = k;
	}
	free(st->buckets);
	st->buckets = b;
	st->nr_buckets = n;
	return 0;
}

struct prom_key *prom_keys__get(struct prom_state *st, const char *labels,
				size_t len, bool system)
{
	uint64_t h = hash_labels(labels, len);
	size_t evsz = st->nr_events * sizeof(uint64_t);
	struct prom_key *k;

	for (k = st->nr_buckets ? st->buckets[h & (st->nr_buckets - 1)] : NULL;
	     k; k = k->next)
		if (k->hash == h && k->len == len &&
		    !memcmp(prom_key__labels(k, st->nr_events), labels, len))
			return k;
	if (st->nr_keys >= st->nr_buckets && grow(st))
		return NULL;
	k = calloc(1, sizeof(*k) + evsz + len + 1);
	if (!k)
		return NULL;
	k->hash = h;
	k->len = len;
	k->system = system;
	memcpy((char *)(k->count + st->nr_events), labels, len);
	k->next = st->buckets[h & (st->nr_buckets - 1)];
	st->buckets[h & (st->nr_buckets - 1)] = k;
	k->prev = st->last;
	if (st->last)
		st->last->after = k;
	else
		st->first = k;
	st->last = k;
	st->nr_keys++;
	return k;
}

void prom_keys__remove(struct prom_state *st, struct prom_key *k)
{
	struct prom_key **pp = &st->buckets[k->hash & (st->nr_buckets - 1)];

	while (*pp != k)
		pp = &(*pp)->next;
	*pp = k->next;
	if (k->prev)
		k->prev->after = k->after;
	else
		st->first = k->after;
	if (k->after)
		k->after->prev = k->prev;
	else
		st->last = k->prev;
	st->nr_keys--;
	free(k);
}

void prom_keys__free(struct prom_state *st)
{
	struct prom_key *k, *after;

	for (k = st->first; k; k = after) {
		after = k->after;
		free(k);
	}
	free(st->buckets);
	st->buckets = NULL;
	st->first = st->last = NULL;
	st->nr_keys = st->nr_buckets = 0;
}
