// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/bpf.h>

#include "common/hash_index.h"
#include "maps/entries.h"
#include "maps/interval_data.h"

enum entry_state {
	ENTRY_FREE, /* on the free list, or never handed out */
	ENTRY_KEYED, /* in key_entry: the BPF side writes it */
	/* Out of key_entry since last_touch: a program that found it just
	 * before may still write it, so it waits an interval untouched
	 * before it is handed out again. */
	ENTRY_GRACE,
};

struct entry_info {
	struct bpmc_key key;
	uint32_t last_touch; /* the interval of its last count */
	uint32_t state;
};

struct entries {
	uint32_t capacity;
	size_t value_size, stride;
	char *gen[BPMC_GENERATIONS];
	int key_entry_fd;
	bool batch;
	uint32_t interval; /* takes so far */
	struct entry_info *info; /* [high_water] */
	uint32_t high_water, info_cap;
	uint32_t *free_list, nr_free;
	/* key -> entry, of the keys in key_entry */
	struct hash_index index;
	/* what the next batch update or delete sends */
	struct bpmc_key *batch_keys;
	uint32_t *batch_values;
	size_t batch_cap;
};

static uint64_t key_hash(const struct bpmc_key *k)
{
	return hash_bytes(k, sizeof(*k));
}

static bool key_equal(const struct bpmc_key *a, const struct bpmc_key *b)
{
	return a->cgroup_id == b->cgroup_id && a->tgid == b->tgid &&
	       a->tid == b->tid;
}

/* The entry of k, or HASH_INDEX_END with p where it would go. */
static uint32_t index_find(const struct entries *e, const struct bpmc_key *k,
			   struct hash_probe *p)
{
	uint32_t idx;

	*p = hash_index__probe(&e->index, key_hash(k));
	while ((idx = hash_index__next(&e->index, p)) != HASH_INDEX_END)
		if (key_equal(&e->info[idx].key, k))
			return idx;
	return HASH_INDEX_END;
}

int entries__new(struct entries **out, uint32_t capacity, size_t value_size,
		 void *gen[BPMC_GENERATIONS], int key_entry_fd, bool batch)
{
	struct entries *e = calloc(1, sizeof(*e));

	if (!e)
		return -ENOMEM;
	e->capacity = capacity;
	e->value_size = value_size;
	e->stride = (value_size + 7) & ~(size_t)7; /* the array's */
	for (int g = 0; g < BPMC_GENERATIONS; g++)
		e->gen[g] = gen[g];
	e->key_entry_fd = key_entry_fd;
	e->batch = batch;
	if (hash_index__reserve(&e->index, 1)) {
		free(e);
		return -ENOMEM;
	}
	*out = e;
	return 0;
}

void entries__free(struct entries *e)
{
	if (!e)
		return;
	free(e->info);
	free(e->free_list);
	hash_index__free(&e->index);
	free(e->batch_keys);
	free(e->batch_values);
	free(e);
}

uint32_t entries__used(const struct entries *e)
{
	return e->index.nr;
}

uint32_t entries__high_water(const struct entries *e)
{
	return e->high_water;
}

static int batch_reserve(struct entries *e, size_t n)
{
	struct bpmc_key *k;
	uint32_t *v;

	if (n <= e->batch_cap)
		return 0;
	k = realloc(e->batch_keys, n * sizeof(*k));
	if (!k)
		return -ENOMEM;
	e->batch_keys = k;
	v = realloc(e->batch_values, n * sizeof(*v));
	if (!v)
		return -ENOMEM;
	e->batch_values = v;
	e->batch_cap = n;
	return 0;
}

/* Any byte set: a count, or a name the exec hook wrote. */
static bool touched(const char *v, size_t stride)
{
	const uint64_t *w = (const uint64_t *)v;

	for (size_t i = 0; i < stride / 8; i++)
		if (w[i])
			return true;
	return false;
}

/* Deletes batch_keys[0..n) from key_entry: every one is there. */
static int delete_keys(struct entries *e, uint32_t n)
{
	LIBBPF_OPTS(bpf_map_batch_opts, opts);
	__u32 count = n;

	if (!n)
		return 0;
	if (e->batch)
		return bpf_map_delete_batch(e->key_entry_fd, e->batch_keys,
					    &count, &opts) ?
			       -errno :
			       0;
	for (uint32_t i = 0; i < n; i++)
		if (bpf_map_delete_elem(e->key_entry_fd, &e->batch_keys[i]) &&
		    errno != ENOENT)
			return -errno;
	return 0;
}

static void free_entry(struct entries *e, uint32_t idx)
{
	e->info[idx].state = ENTRY_FREE;
	e->free_list[e->nr_free++] = idx;
}

int entries__take(struct entries *e, uint32_t g, struct interval_data *d)
{
	char *base = e->gen[g & 1];
	uint32_t nr_evict = 0;
	struct entry_info *info;
	size_t n = 0;
	int err;

	e->interval++;
	for (uint32_t idx = 0; idx < e->high_water; idx++)
		n += touched(base + idx * e->stride, e->stride);
	err = interval_data__reserve(d, d->nr + n);
	if (!err)
		err = batch_reserve(e, e->high_water);
	if (err)
		return err;
	for (uint32_t idx = 0; idx < e->high_water; idx++) {
		char *v = base + idx * e->stride;

		info = &e->info[idx];
		if (touched(v, e->stride)) {
			d->keys[d->nr] = info->key;
			memcpy((char *)d->values + d->nr * d->value_size, v,
			       d->value_size);
			d->nr++;
			memset(v, 0, e->stride);
			info->last_touch = e->interval;
			continue;
		}
		if (info->state == ENTRY_KEYED &&
		    e->interval - info->last_touch >= ENTRIES_IDLE_INTERVALS) {
			e->batch_keys[nr_evict++] = info->key;
			hash_index__remove(&e->index, key_hash(&info->key),
					   idx);
			info->state = ENTRY_GRACE;
			info->last_touch = e->interval;
		} else if (info->state == ENTRY_GRACE &&
			   e->interval > info->last_touch) {
			free_entry(e, idx);
		}
	}
	return delete_keys(e, nr_evict);
}

/* A free entry: one given back, else the next never handed out. */
static int entry_alloc(struct entries *e, uint32_t *idx)
{
	struct entry_info *info;
	uint32_t *free_list;
	uint32_t cap;

	if (e->nr_free) {
		*idx = e->free_list[--e->nr_free];
		return 0;
	}
	if (e->high_water == e->capacity)
		return -ENOSPC;
	if (e->high_water == e->info_cap) {
		cap = e->info_cap ? e->info_cap * 2 : 1024;
		if (cap > e->capacity)
			cap = e->capacity;
		info = realloc(e->info, cap * sizeof(*info));
		if (!info)
			return -ENOMEM;
		e->info = info;
		free_list = realloc(e->free_list, cap * sizeof(*free_list));
		if (!free_list)
			return -ENOMEM;
		e->free_list = free_list;
		e->info_cap = cap;
	}
	*idx = e->high_water++;
	e->info[*idx].state = ENTRY_FREE;
	return 0;
}

/* Inserts batch_keys/values[0..n) into key_entry; how many went in. */
static uint32_t insert_keys(struct entries *e, uint32_t n)
{
	LIBBPF_OPTS(bpf_map_batch_opts, opts);
	__u32 count = n, i;

	if (!n)
		return 0;
	/* Only this module inserts: none of the keys is there, so BPF_ANY
	 * (all that batch updates take) inserts like BPF_NOEXIST. */
	if (e->batch) {
		if (!bpf_map_update_batch(e->key_entry_fd, e->batch_keys,
					  e->batch_values, &count, &opts))
			return n;
		/* A failure part way says how many went in before it; one
		 * refused up front leaves count as it was. */
		return count < n ? count : 0;
	}
	for (i = 0; i < n; i++)
		if (bpf_map_update_elem(e->key_entry_fd, &e->batch_keys[i],
					&e->batch_values[i], BPF_ANY))
			break;
	return i;
}

int entries__assign(struct entries *e, const struct bpmc_key *keys, size_t nr)
{
	uint32_t n = 0, done, idx;
	struct hash_probe p;
	int err = batch_reserve(e, nr);

	for (size_t i = 0; i < nr && !err; i++) {
		if (index_find(e, &keys[i], &p) != HASH_INDEX_END)
			continue; /* keyed already, or twice in keys */
		err = hash_index__make_room(&e->index, &p);
		if (err)
			break;
		if (entry_alloc(e, &idx))
			break; /* full: the key stays in the hashes */
		e->info[idx].key = keys[i];
		e->info[idx].state = ENTRY_KEYED;
		e->info[idx].last_touch = e->interval;
		hash_index__add(&e->index, &p, idx);
		e->batch_keys[n] = keys[i];
		e->batch_values[n] = idx;
		n++;
	}
	done = insert_keys(e, n);
	/* What did not go in goes back, its key out of the index. */
	for (uint32_t i = done; i < n; i++) {
		idx = e->batch_values[i];
		hash_index__remove(&e->index, key_hash(&e->info[idx].key), idx);
		free_entry(e, idx);
	}
	return err;
}
