// SPDX-License-Identifier: GPL-2.0
/*
 * The store's keeping (maps/entries.c) against a real BPF hash for
 * key_entry and the two mapped BPF arrays the collector uses: keys get
 * entries, counts written in place come back once and are zeroed, idle
 * keys leave key_entry and their entries wait an interval before they
 * are handed out again, and a full store leaves keys in the hashes.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <bpf/bpf.h>

#include "maps/collector.h"
#include "maps/entries.h"
#include "test.h"

#define CAPACITY 8
#define VALUE_SIZE BPMC_VALUE_SIZE(1)

struct store {
	int key_entry, arrays[BPMC_GENERATIONS];
	void *gen[BPMC_GENERATIONS];
	size_t len;
	struct entries *e;
	struct interval_data d;
};

static bool store_open(struct store *s, bool batch)
{
	LIBBPF_OPTS(bpf_map_create_opts, mmapable, .map_flags = BPF_F_MMAPABLE);

	memset(s, 0, sizeof(*s));
	s->len = sysconf(_SC_PAGESIZE);
	s->key_entry = bpf_map_create(BPF_MAP_TYPE_HASH, "test_key_entry",
				      sizeof(struct bpmc_key), sizeof(__u32),
				      CAPACITY, NULL);
	if (s->key_entry < 0 && errno == EPERM) {
		TEST_SKIP(
			"bpf_map_create is refused: BPF maps need root (CAP_BPF)");
		return false;
	}
	if (!ASSERT_GE(s->key_entry, 0, "key_entry"))
		return false;
	for (int g = 0; g < BPMC_GENERATIONS; g++) {
		s->arrays[g] = bpf_map_create(BPF_MAP_TYPE_ARRAY,
					      "test_entries", sizeof(__u32),
					      VALUE_SIZE, CAPACITY, &mmapable);
		if (!ASSERT_GE(s->arrays[g], 0, "entries array"))
			return false;
		s->gen[g] = mmap(NULL, s->len, PROT_READ | PROT_WRITE,
				 MAP_SHARED, s->arrays[g], 0);
		if (!ASSERT_TRUE(s->gen[g] != MAP_FAILED, "mmap"))
			return false;
	}
	s->d.value_size = VALUE_SIZE;
	return ASSERT_OK(entries__new(&s->e, CAPACITY, VALUE_SIZE, s->gen,
				      s->key_entry, batch),
			 "entries__new");
}

static void store_close(struct store *s)
{
	entries__free(s->e);
	for (int g = 0; g < BPMC_GENERATIONS; g++) {
		if (s->gen[g] && s->gen[g] != MAP_FAILED)
			munmap(s->gen[g], s->len);
		if (s->arrays[g] > 0)
			close(s->arrays[g]);
	}
	if (s->key_entry > 0)
		close(s->key_entry);
	interval_data__free(&s->d);
}

static struct bpmc_key key(__u32 tgid)
{
	return (struct bpmc_key){ .cgroup_id = 42, .tgid = tgid };
}

/* key's entry per key_entry, or -1: what the BPF side would find. */
static long entry_of(struct store *s, __u32 tgid)
{
	struct bpmc_key k = key(tgid);
	__u32 idx;

	return bpf_map_lookup_elem(s->key_entry, &k, &idx) ? -1 : (long)idx;
}

/* A count in generation g, as counts_add() would add it. */
static void count(struct store *s, uint32_t g, __u32 tgid, __u64 n)
{
	long idx = entry_of(s, tgid);
	struct bpmc_value *v;

	if (idx < 0)
		return;
	v = (struct bpmc_value *)((char *)s->gen[g] + idx * VALUE_SIZE);
	v->ev[0].count += n;
	v->ev[0].samples++;
}

static bool take(struct store *s, uint32_t g)
{
	s->d.nr = 0;
	return ASSERT_OK(entries__take(s->e, g, &s->d), "entries__take");
}

static __u64 taken(struct store *s, __u32 tgid)
{
	__u64 sum = 0;

	for (size_t i = 0; i < s->d.nr; i++)
		if (s->d.keys[i].tgid == tgid)
			sum += interval_data__value(&s->d, i)->ev[0].count;
	return sum;
}

static bool assign(struct store *s, const __u32 *tgids, size_t n)
{
	struct bpmc_key keys[16];

	for (size_t i = 0; i < n; i++)
		keys[i] = key(tgids[i]);
	return ASSERT_OK(entries__assign(s->e, keys, n), "entries__assign");
}

static void run_life(bool batch)
{
	const __u32 two[] = { 1, 2 };
	struct store s;
	long first;

	if (!store_open(&s, batch))
		goto out;
	if (!assign(&s, two, 2))
		goto out;
	ASSERT_EQ(entries__used(s.e), 2, "two keys keyed");
	ASSERT_TRUE(entry_of(&s, 1) >= 0 && entry_of(&s, 2) >= 0 &&
			    entry_of(&s, 1) != entry_of(&s, 2),
		    "each its own entry in key_entry");
	/* Twice in one assign, or again: still one entry. */
	if (!assign(&s, two, 2))
		goto out;
	ASSERT_EQ(entries__used(s.e), 2, "assigning again changes nothing");

	/* Counts in generation 0 come back from its take; the live
	 * generation's from the next. */
	count(&s, 0, 1, 100);
	count(&s, 0, 2, 7);
	count(&s, 1, 1, 5);
	if (!take(&s, 0))
		goto out;
	ASSERT_EQ(taken(&s, 1), 100, "key 1's count");
	ASSERT_EQ(taken(&s, 2), 7, "key 2's count");
	if (!take(&s, 1))
		goto out;
	ASSERT_EQ(taken(&s, 1), 5, "the other generation's count");
	ASSERT_TRUE(entry_of(&s, 2) >= 0, "idle for one interval: kept");

	/* Generation 0 again: what was taken was zeroed, and key 2, idle
	 * for two intervals now, leaves key_entry. */
	first = entry_of(&s, 2);
	count(&s, 0, 1, 1);
	if (!take(&s, 0))
		goto out;
	ASSERT_EQ(taken(&s, 1), 1, "a taken entry starts from zero");
	ASSERT_EQ(taken(&s, 2), 0, "nothing of key 2");
	ASSERT_EQ(entry_of(&s, 2), -1, "idle for two intervals: out");
	ASSERT_TRUE(entry_of(&s, 1) >= 0, "the busy key stays");
	ASSERT_EQ(entries__used(s.e), 1, "one key keyed");

	/* Its entry waits one untouched interval before it is reused. */
	{
		const __u32 three[] = { 3 };

		if (!assign(&s, three, 1))
			goto out;
		ASSERT_TRUE(entry_of(&s, 3) != first,
			    "an entry in grace is not handed out");
		count(&s, 1, 1, 1);
		count(&s, 1, 3, 1);
		if (!take(&s, 1))
			goto out;
		const __u32 four[] = { 4 };

		if (!assign(&s, four, 1))
			goto out;
		ASSERT_EQ(entry_of(&s, 4), first,
			  "after an untouched interval it is handed out again");
	}
out:
	store_close(&s);
}

static void test_life_batch(void)
{
	run_life(true);
}

static void test_life_one_by_one(void)
{
	run_life(false);
}

/* A count that lands in an entry in grace is still taken, as its key. */
static void test_grace_counts(void)
{
	const __u32 one[] = { 1 }, two[] = { 2 };
	struct bpmc_value *v;
	struct store s;
	long idx;

	if (!store_open(&s, true) || !assign(&s, one, 1))
		goto out;
	idx = entry_of(&s, 1);
	if (!take(&s, 0) || !take(&s, 1))
		goto out;
	ASSERT_EQ(entry_of(&s, 1), -1, "idle: out of key_entry");
	/* A program that looked the key up just before writes it now. */
	v = (struct bpmc_value *)((char *)s.gen[0] + idx * VALUE_SIZE);
	v->ev[0].count = 9;
	v->ev[0].samples = 1;
	if (!take(&s, 0))
		goto out;
	ASSERT_EQ(taken(&s, 1), 9, "the late count, as key 1's");
	if (!assign(&s, two, 1))
		goto out;
	ASSERT_TRUE(entry_of(&s, 2) != idx,
		    "touched in grace: it waits another interval");
out:
	store_close(&s);
}

/* Full: the keys past the capacity get none and stay in the hashes. */
static void test_full(void)
{
	__u32 many[CAPACITY + 3];
	struct store s;
	int keyed = 0;

	for (__u32 i = 0; i < CAPACITY + 3; i++)
		many[i] = 100 + i;
	if (!store_open(&s, true) || !assign(&s, many, CAPACITY + 3))
		goto out;
	for (__u32 i = 0; i < CAPACITY + 3; i++)
		keyed += entry_of(&s, many[i]) >= 0;
	ASSERT_EQ(keyed, CAPACITY, "as many keyed as there are entries");
	ASSERT_EQ(entries__used(s.e), CAPACITY, "used");
	ASSERT_EQ(entries__high_water(s.e), CAPACITY, "high water");
out:
	store_close(&s);
}

static const struct subtest tests[] = {
	{ "life_batch", test_life_batch },
	{ "life_one_by_one", test_life_one_by_one },
	{ "grace_counts", test_grace_counts },
	{ "full", test_full },
	{ 0 },
};

int main(int argc, char **argv)
{
	return test_main(argc, argv, tests);
}
