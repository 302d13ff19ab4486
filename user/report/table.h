/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The report's aggregation table: one entry per key (the bytes of the
 * key's fields), each with a cell per event. One table per reading
 * thread, merged at the end, so the hot path takes no lock. Memory is
 * bounded by the number of keys and events, never by the rows.
 */
#ifndef BPMC_REPORT_TABLE_H
#define BPMC_REPORT_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/hash_index.h"

/* One event's sums for one key. */
struct agg_cell {
	uint64_t count;
	uint64_t samples;
	/* The part of count (and its samples) read from sampling-mode
	 * files: the rest is exact. */
	uint64_t count_sampled;
	uint64_t samples_sampled;
	/* sum(running_pct * count) and sum(count) of the rows that had a
	 * running_pct: the count-weighted mean. */
	double running_weighted;
	uint64_t count_with_running;
	uint64_t rows;
};

/* Labels ride with a key without being part of it (the kubelet's names). */
enum agg_label {
	LABEL_NAMESPACE,
	LABEL_POD_NAME,
	LABEL_CONTAINER_NAME,
	LABEL__NR,
};

struct agg_entry {
	uint64_t hash;
	const char *key; /* in the table's arena */
	uint32_t key_len;
	/* Cells of events cell_base .. cell_base + nr_cells - 1 only: a
	 * key pays for the events it has, not for those before them. */
	uint16_t cell_base, nr_cells;
	struct agg_cell *cells;
	const char *labels[LABEL__NR]; /* in the arena, or NULL */
};

struct agg_table {
	/* The entries, in the order added (NULL before init); index finds
	 * them by key. */
	struct agg_entry *slots;
	size_t cap, nr;
	struct hash_index index;
	/* Key bytes and labels, in blocks that never move. */
	struct arena_block *arena;
	size_t arena_used;
};

int agg_table__init(struct agg_table *t);
void agg_table__free(struct agg_table *t);

/* The hash of a key's bytes (common/hash.h's). */
static inline uint64_t agg_hash(const void *data, size_t len)
{
	return hash_bytes(data, len);
}

/* The entry of key (found or added), or NULL when out of memory. */
struct agg_entry *agg_table__get(struct agg_table *t, const char *key,
				 uint32_t len, uint64_t hash);
/* The entry of key, or NULL. */
struct agg_entry *agg_table__find(const struct agg_table *t, const char *key,
				  uint32_t len, uint64_t hash);
/* The cell of event in e, growing e's cells; NULL when out of memory. */
struct agg_cell *agg_entry__cell(struct agg_entry *e, unsigned event);
/* The cell of event in e, or NULL where e has none. */
static inline const struct agg_cell *agg_entry__find(const struct agg_entry *e,
						     unsigned event)
{
	return event >= e->cell_base && event - e->cell_base < e->nr_cells ?
		       &e->cells[event - e->cell_base] :
		       NULL;
}
/* Keeps the label's greatest value (byte order), so any merge order
 * gives the same answer. -ENOMEM. */
int agg_table__set_label(struct agg_table *t, struct agg_entry *e,
			 enum agg_label l, const char *s, size_t len);

void agg_cell__add(struct agg_cell *into, const struct agg_cell *c);
/* Adds every entry of from into into. -ENOMEM. */
int agg_table__merge(struct agg_table *into, const struct agg_table *from);

/* Iteration: entries in the order added. */
#define agg_table__for_each(t, e) \
	for (struct agg_entry *e = (t)->slots; e < (t)->slots + (t)->nr; e++)

/*
 * Keys are fields, each a 16-bit length then its bytes; agg_key__field()
 * reads field i back.
 */
struct agg_key {
	char buf[8192];
	uint32_t len;
	bool overflow;
};
void agg_key__reset(struct agg_key *k);
void agg_key__add(struct agg_key *k, const char *s, size_t len);
bool agg_key__field(const char *key, uint32_t key_len, unsigned i,
		    const char **s, size_t *len);

#endif
