// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/grow.h"
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
	/* slots is set from here on: what tells an initialised table. */
	return GROW(t->slots, t->cap, 256, 256);
}

void agg_table__free(struct agg_table *t)
{
	struct arena_block *b, *next;

	if (t->slots) {
		agg_table__for_each(t, e) free(e->cells);
	}
	free(t->slots);
	hash_index__free(&t->index);
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

static bool same_key(const struct agg_entry *e, const char *key, uint32_t len,
		     uint64_t hash)
{
	return e->hash == hash && e->key_len == len &&
	       !memcmp(e->key, key, len);
}

struct agg_entry *agg_table__get(struct agg_table *t, const char *key,
				 uint32_t len, uint64_t hash)
{
	struct hash_probe p = hash_index__probe(&t->index, hash);
	struct agg_entry *e;
	uint32_t i;
	char *copy;

	while ((i = hash_index__next(&t->index, &p)) != HASH_INDEX_END)
		if (same_key(&t->slots[i], key, len, hash))
			return &t->slots[i];
	if (hash_index__make_room(&t->index, &p) ||
	    GROW(t->slots, t->cap, t->nr + 1, 256))
		return NULL;
	copy = arena_alloc(t, len ? len : 1);
	if (!copy)
		return NULL;
	memcpy(copy, key, len);
	e = &t->slots[t->nr];
	*e = (struct agg_entry){ .hash = hash, .key = copy, .key_len = len };
	hash_index__add(&t->index, &p, t->nr++);
	return e;
}

struct agg_entry *agg_table__find(const struct agg_table *t, const char *key,
				  uint32_t len, uint64_t hash)
{
	struct hash_probe p = hash_index__probe(&t->index, hash);
	uint32_t i;

	while ((i = hash_index__next(&t->index, &p)) != HASH_INDEX_END)
		if (same_key(&t->slots[i], key, len, hash))
			return &t->slots[i];
	return NULL;
}

struct agg_cell *agg_entry__cell(struct agg_entry *e, unsigned event)
{
	unsigned lo = e->nr_cells && e->cell_base < event ? e->cell_base :
							    event,
		 hi = e->nr_cells && e->cell_base + e->nr_cells > event + 1 ?
			      e->cell_base + e->nr_cells :
			      event + 1;

	/* Exactly the span of its events: a key has a few, met once each. */
	if (hi - lo > e->nr_cells) {
		unsigned shift = e->nr_cells ? e->cell_base - lo : 0;
		struct agg_cell *c =
			hi - lo <= UINT16_MAX ?
				realloc(e->cells, (hi - lo) * sizeof(*c)) :
				NULL;

		if (!c)
			return NULL;
		memmove(c + shift, c, e->nr_cells * sizeof(*c));
		memset(c, 0, shift * sizeof(*c));
		memset(c + shift + e->nr_cells, 0,
		       (hi - lo - shift - e->nr_cells) * sizeof(*c));
		e->cells = c;
		e->cell_base = lo;
		e->nr_cells = hi - lo;
	}
	return &e->cells[event - e->cell_base];
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

static inline uint64_t sat_add(uint64_t a, uint64_t b)
{
	return a + b < a ? UINT64_MAX : a + b;
}

/* Sums saturate at 2^64 - 1, as the scan's do: never wrap. */
void agg_cell__add(struct agg_cell *into, const struct agg_cell *c)
{
	into->count = sat_add(into->count, c->count);
	into->samples = sat_add(into->samples, c->samples);
	into->count_sampled = sat_add(into->count_sampled, c->count_sampled);
	into->samples_sampled =
		sat_add(into->samples_sampled, c->samples_sampled);
	into->running_weighted += c->running_weighted;
	into->count_with_running =
		sat_add(into->count_with_running, c->count_with_running);
	into->rows = sat_add(into->rows, c->rows);
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
			c = agg_entry__cell(e, f->cell_base + i);
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
