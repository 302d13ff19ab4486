/* SPDX-License-Identifier: GPL-2.0 */
/*
 * User space's half of the store (bpf/keys.bpf.h): which key has
 * which entry of the two mapped counts arrays. Keys come through the
 * counts hashes in the interval they first appear; at the end of it each
 * gets an entry, which the BPF side finds from then on, and user space
 * reads and zeroes the entries in place. A key untouched for
 * ENTRIES_IDLE_INTERVALS intervals gives its entry back.
 */
#ifndef BPMC_MAPS_ENTRIES_H
#define BPMC_MAPS_ENTRIES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "collect.h"

/* Intervals without a count after which a key's entry is taken back:
 * two, so that a task that runs every other interval keeps its own. */
#define ENTRIES_IDLE_INTERVALS 2

/* What the keeping of one entry costs at most: its key, interval and
 * state (24), its place on the free list (4), and the index's 8 bytes
 * at a load of a quarter at worst (32). */
#define ENTRIES_BYTES_PER_KEY 60

struct interval_data;
struct entries;

/*
 * capacity entries of value_size bytes (the arrays' max_entries and
 * value size), gen[] each generation's mapped array, key_entry_fd the
 * BPF hash of key -> entry, which only this module writes; batch: the
 * kernel has batch updates and deletes on hashes.
 */
int entries__new(struct entries **out, uint32_t capacity, size_t value_size,
		 void *gen[BPMC_GENERATIONS], int key_entry_fd, bool batch);
void entries__free(struct entries *e);

/*
 * Appends every entry of generation g that was touched in the interval
 * that just ended to d (key and value, as a hash take would), zeroes it,
 * and takes back the entries of keys idle for too long.
 */
int entries__take(struct entries *e, uint32_t g, struct interval_data *d);

/*
 * Gives an entry to each of keys[0..nr) that has none, while entries
 * last: the keys the counts hashes held this interval.
 */
int entries__assign(struct entries *e, const struct bpmc_key *keys, size_t nr);

/* Entries held by keys now, and the most ever handed out. */
uint32_t entries__used(const struct entries *e);
uint32_t entries__high_water(const struct entries *e);

#endif
