// SPDX-License-Identifier: GPL-2.0
/*
 * The one hash table: every key found after growths, removals (backward
 * shift) and renumbering, against a plain array as the truth; the grow
 * helper's doubling.
 */
#include <stdint.h>
#include <stdlib.h>

#include "common/grow.h"
#include "common/hash_index.h"
#include "test.h"

#define NR 100000

struct entry {
	uint64_t key;
	bool live;
};

static uint32_t find(const struct hash_index *x, const struct entry *e,
		     uint64_t key, struct hash_probe *p)
{
	uint32_t i;

	*p = hash_index__probe(x, hash_bytes(&key, sizeof(key)));
	while ((i = hash_index__next(x, p)) != HASH_INDEX_END)
		if (e[i].key == key)
			return i;
	return HASH_INDEX_END;
}

/* Keys with equal low bits (multiples of 2^20) and random ones. */
static uint64_t key_of(uint32_t i)
{
	return i % 2 ? (uint64_t)i << 20 : i * 0x9e3779b97f4a7c15ull;
}

static void test_add_remove_find(void)
{
	struct hash_index x = {};
	struct entry *e = calloc(NR, sizeof(*e));
	struct hash_probe p;
	uint32_t wrong = 0, live = 0;

	if (!ASSERT_TRUE(e, "alloc"))
		return;
	ASSERT_EQ(find(&x, e, 1, &p), HASH_INDEX_END, "empty finds nothing");
	for (uint32_t i = 0; i < NR; i++) {
		e[i] = (struct entry){ key_of(i), true };
		if (find(&x, e, e[i].key, &p) != HASH_INDEX_END ||
		    hash_index__make_room(&x, &p)) {
			wrong++;
			continue;
		}
		hash_index__add(&x, &p, i);
	}
	ASSERT_EQ(wrong, 0, "every key added once");
	ASSERT_EQ(x.nr, NR, "count");
	ASSERT_GE((size_t)x.mask + 1, 2 * (size_t)NR, "at most half full");
	/* Every third out, in an order that crosses clusters. */
	for (uint32_t i = 0; i < NR; i += 3) {
		hash_index__remove(&x, hash_bytes(&e[i].key, 8), i);
		e[i].live = false;
	}
	for (uint32_t i = 0; i < NR; i++) {
		uint32_t got = find(&x, e, e[i].key, &p);

		live += e[i].live;
		if (got != (e[i].live ? i : HASH_INDEX_END))
			wrong++;
	}
	ASSERT_EQ(wrong, 0, "live keys found, removed ones not");
	ASSERT_EQ(x.nr, live, "count after removals");
	/* Entry 1 moves to the place of entry 0 (removed). */
	hash_index__renumber(&x, hash_bytes(&e[1].key, 8), 1, 0);
	e[0] = e[1];
	e[1].key = ~0ull;
	ASSERT_EQ(find(&x, e, e[0].key, &p), 0, "renumbered");
	hash_index__clear(&x);
	ASSERT_EQ(find(&x, e, e[0].key, &p), HASH_INDEX_END, "cleared");
	ASSERT_EQ(x.nr, 0, "cleared count");
	hash_index__free(&x);
	free(e);
}

static void test_grow(void)
{
	int *a = NULL;
	size_t cap = 0;

	ASSERT_OK(GROW(a, cap, 3, 16), "first");
	ASSERT_EQ(cap, 16, "the minimum first");
	ASSERT_OK(GROW(a, cap, 16, 16), "fits");
	ASSERT_EQ(cap, 16, "unchanged when it fits");
	ASSERT_OK(GROW(a, cap, 17, 16), "doubles");
	ASSERT_EQ(cap, 32, "twice");
	ASSERT_OK(GROW(a, cap, 100, 16), "more than twice");
	ASSERT_EQ(cap, 100, "what was asked");
	a[99] = 1;
	ASSERT_ERR(GROW(a, cap, SIZE_MAX / 2, 16), "too large");
	ASSERT_EQ(cap, 100, "kept on failure");
	free(a);
}

static const struct subtest tests[] = {
	{ "add_remove_find", test_add_remove_find },
	{ "grow", test_grow },
	{ 0 },
};

int main(int argc, char **argv)
{
	return test_main(argc, argv, tests);
}
