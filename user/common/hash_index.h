/* SPDX-License-Identifier: GPL-2.0 */
/*
 * bpmc's one hash table: an index from a key's hash to the number of
 * its entry, in an array the caller keeps (dense, in the order added).
 * Open addressing with linear probing, at most half full. A slot holds
 * the entry's number and 32 bits of its hash: a probe reads an entry
 * only when those match, and the index grows and deletes (backward
 * shift, no tombstones) without asking the caller anything. 8 bytes a
 * slot: 16 to 32 a key, beside the caller's entries.
 *
 * A look-up:
 *	struct hash_probe p = hash_index__probe(&x, h);
 *	uint32_t i;
 *	while ((i = hash_index__next(&x, &p)) != HASH_INDEX_END)
 *		if (same(&entries[i], key))
 *			return &entries[i];
 *	// not there: p says where it goes
 *	if (hash_index__make_room(&x, &p))
 *		return NULL;
 *	hash_index__add(&x, &p, nr++);
 */
#ifndef BPMC_COMMON_HASH_INDEX_H
#define BPMC_COMMON_HASH_INDEX_H

#include <stddef.h>
#include <stdint.h>

#include "common/hash.h"

#define HASH_INDEX_END UINT32_MAX

struct hash_slot {
	uint32_t ref; /* entry number + 1; 0: empty */
	uint32_t hash; /* the hash's low 32 bits */
};

struct hash_index {
	struct hash_slot *slots; /* NULL until the first reserve */
	uint32_t mask; /* slots - 1, a power of two less one */
	uint32_t nr;
};

struct hash_probe {
	uint32_t slot, hash;
};

/* Room for nr entries (the index at most half full). 0 or -ENOMEM. */
int hash_index__reserve(struct hash_index *x, size_t nr);
/* Room for one more entry where p's look-up ended (it found nothing):
 * grows a full index, and then finds p's place again. 0 or -ENOMEM. */
int hash_index__make_room(struct hash_index *x, struct hash_probe *p);
/* Empties the index, keeping its memory. */
void hash_index__clear(struct hash_index *x);
void hash_index__free(struct hash_index *x);
/* Takes entry i, of hash h, out of the index. */
void hash_index__remove(struct hash_index *x, uint64_t h, uint32_t i);
/* Entry from, of hash h, is now entry to (the caller moved it). */
void hash_index__renumber(struct hash_index *x, uint64_t h, uint32_t from,
			  uint32_t to);

static inline struct hash_probe hash_index__probe(const struct hash_index *x,
						  uint64_t h)
{
	return (struct hash_probe){ (uint32_t)h & x->mask, (uint32_t)h };
}

/* The next entry whose hash may be p's, or HASH_INDEX_END at the first
 * empty slot, where p then stays. An empty index has nothing. */
static inline uint32_t hash_index__next(const struct hash_index *x,
					struct hash_probe *p)
{
	if (!x->slots)
		return HASH_INDEX_END;
	for (;;) {
		const struct hash_slot *s = &x->slots[p->slot];

		if (!s->ref)
			return HASH_INDEX_END;
		p->slot = (p->slot + 1) & x->mask;
		if (s->hash == p->hash)
			return s->ref - 1;
	}
}

/* Entry i at the empty slot where p's look-up ended. */
static inline void hash_index__add(struct hash_index *x,
				   const struct hash_probe *p, uint32_t i)
{
	x->slots[p->slot] = (struct hash_slot){ i + 1, p->hash };
	x->nr++;
}

#endif
