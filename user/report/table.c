// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "report/table.h"

#define ARENA_BLOCK (1 << 20)

struct arena_block {
	struct arena_block *next;
	size_t size;
	char data[];
};

int agg_table__init(struct agg_table *t)
{
	memset(t, 0, sizeof(*t));
	t->cap = 1024;
	t->slots = calloc(t->cap, sizeof(*t->slots));
	return t->slots ? 0 : -ENOMEM;
}

void agg_table__free(struct agg_table *t)
{
	struct arena_block *b, *next;

	if (t->slots) {
		agg_table__for_each(t, e) free(e->cells);
	}
	free(t->slots);
	for (b = t->arena; b; b = next) {
		next = b->next;
		free(b);
	}
	memset(t, 0, sizeof(*t));
}

static char *arena_alloc(struct agg_table *t, size_t len)
{
	struct arena_block *b = t->arena;

	if (!b || t->arena_used + len > b->size) {
		size_t size = len > ARENA_BLOCK ? len : ARENA_BLOCK;

		b = malloc(sizeof(*b) + size);
		if (!b)
			return NULL;
		b->size = size;
		b->next = t->arena;
		t->arena = b;
		t->arena_used = 0;
	}
	t->arena_used += len;
	return b->data + t->arena_used - len;
}

/*
 * A multiply-xorshift hash over 8-byte words: keys are short (tens to a
 * few hundred bytes) and one is hashed per row read.
 */
uint64_t agg_hash(const void *data, size_t len)
{
	const unsigned char *p = data;
	uint64_t h = 0x9e3779b97f4a7c15ull ^ (len * 0xc2b2ae3d27d4eb4full);
	uint64_t v;

	for (; len >= 8; p += 8, len -= 8) {
		memcpy(&v, p, 8);
		h = (h ^ v) * 0xff51afd7ed558ccdull;
		h ^= h >> 29;
	}
	if (len) {
		v = 0;
		memcpy(&v, p, len);
		h = (h ^ v) * 0xc4ceb9fe1a85ec53ull;
	}
	h ^= h >> 32;
	h *= 0xff51afd7ed558ccdull;
	h ^= h >> 29;
	return h;
}

static int grow(struct agg_table *t)
{
	size_t cap = t->cap * 2;
	struct agg_entry *slots = calloc(cap, sizeof(*slots));

	if (!slots)
		return -ENOMEM;
	for (size_t i = 0; i < t->cap; i++) {
		struct agg_entry *e = &t->slots[i];
		size_t j;

		if (!e->key)
			continue;
		for (j = e->hash & (cap - 1); slots[j].key;
		     j = (j + 1) & (cap - 1))
			;
		slots[j] = *e;
	}
	free(t->slots);
	t->slots = slots;
	t->cap = cap;
	return 0;
}

struct agg_entry *agg_table__get(struct agg_table *t, const char *key,
				 uint32_t len, uint64_t hash)
{
	size_t mask = t->cap - 1, i;
	struct agg_entry *e;
	char *copy;

	for (i = hash & mask; t->slots[i].key; i = (i + 1) & mask) {
		e = &t->slots[i];
		if (e->hash == hash && e->key_len == len &&
		    !memcmp(e->key, key, len))
			return e;
	}
	/* At most half full: probes stay short. */
	if ((t->nr + 1) * 2 > t->cap) {
		if (grow(t))
			return NULL;
		return agg_table__get(t, key, len, hash);
	}
	copy = arena_alloc(t, len ? len : 1);
	if (!copy)
		return NULL;
	memcpy(copy, key, len);
	e = &t->slots[i];
	e->hash = hash;
	e->key = copy;
	e->key_len = len;
	t->nr++;
	return e;
}

struct agg_entry *agg_table__find(const struct agg_table *t, const char *key,
				  uint32_t len, uint64_t hash)
{
	size_t mask = t->cap - 1;

	for (size_t i = hash & mask; t->slots[i].key; i = (i + 1) & mask) {
		struct agg_entry *e = &t->slots[i];

		if (e->hash == hash && e->key_len == len &&
		    !memcmp(e->key, key, len))
			return e;
	}
	return NULL;
}

struct agg_cell *agg_entry__cell(struct agg_entry *e, unsigned event)
{
	if (event >= e->nr_cells) {
		unsigned n = event + 1 > 2 * e->nr_cells ? event + 1 :
							   2 * e->nr_cells;
		struct agg_cell *c = realloc(e->cells, n * sizeof(*c));

		if (!c)
			return NULL;
		memset(c + e->nr_cells, 0, (n - e->nr_cells) * sizeof(*c));
		e->cells = c;
		e->nr_cells = n;
	}
	return &e->cells[event];
}

int agg_table__set_label(struct agg_table *t, struct agg_entry *e,
			 enum agg_label l, const char *s, size_t len)
{
	const char *old = e->labels[l];
	char *copy;

	if (!len)
		return 0;
	if (old) {
		size_t n = strlen(old);
		int c = memcmp(old, s, n < len ? n : len);

		if (c > 0 || (c == 0 && n >= len))
			return 0;
	}
	copy = arena_alloc(t, len + 1);
	if (!copy)
		return -ENOMEM;
	memcpy(copy, s, len);
	copy[len] = 0;
	e->labels[l] = copy;
	return 0;
}

void agg_cell__add(struct agg_cell *into, const struct agg_cell *c)
{
	into->count += c->count;
	into->samples += c->samples;
	into->count_sampled += c->count_sampled;
	into->samples_sampled += c->samples_sampled;
	into->running_weighted += c->running_weighted;
	into->count_with_running += c->count_with_running;
	into->rows += c->rows;
}

int agg_table__merge(struct agg_table *into, const struct agg_table *from)
{
	agg_table__for_each(from, f)
	{
		struct agg_entry *e =
			agg_table__get(into, f->key, f->key_len, f->hash);

		if (!e)
			return -ENOMEM;
		for (unsigned i = 0; i < f->nr_cells; i++) {
			struct agg_cell *c;

			if (!f->cells[i].rows)
				continue;
			c = agg_entry__cell(e, i);
			if (!c)
				return -ENOMEM;
			agg_cell__add(c, &f->cells[i]);
		}
		for (int l = 0; l < LABEL__NR; l++) {
			if (f->labels[l] &&
			    agg_table__set_label(into, e, l, f->labels[l],
						 strlen(f->labels[l])))
				return -ENOMEM;
		}
	}
	return 0;
}

void agg_key__reset(struct agg_key *k)
{
	k->len = 0;
	k->overflow = false;
}

void agg_key__add(struct agg_key *k, const char *s, size_t len)
{
	if (len > 0xffff || k->len + 2 + len > sizeof(k->buf)) {
		k->overflow = true;
		return;
	}
	k->buf[k->len] = len & 0xff;
	k->buf[k->len + 1] = len >> 8;
	memcpy(k->buf + k->len + 2, s, len);
	k->len += 2 + len;
}

bool agg_key__field(const char *key, uint32_t key_len, unsigned i,
		    const char **s, size_t *len)
{
	uint32_t off = 0;

	for (;;) {
		size_t n;

		if (off + 2 > key_len)
			return false;
		n = (unsigned char)key[off] | (unsigned char)key[off + 1] << 8;
		if (off + 2 + n > key_len)
			return false;
		if (!i--) {
			*s = key + off + 2;
			*len = n;
			return true;
		}
		off += 2 + n;
	}
}
