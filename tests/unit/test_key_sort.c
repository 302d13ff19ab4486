// SPDX-License-Identifier: GPL-2.0
/* The rows stage's key sort against qsort, on orders that break naive
 * quicksorts as well as on hash-like random ones. */
#include <stdlib.h>

#include "rows/key_sort.h"
#include "test.h"

static int reference_cmp(const void *pa, const void *pb)
{
	const struct bpmc_key *a = pa, *b = pb;

	if (a->cgroup_id != b->cgroup_id)
		return a->cgroup_id < b->cgroup_id ? -1 : 1;
	if (a->tgid != b->tgid)
		return a->tgid < b->tgid ? -1 : 1;
	if (a->tid != b->tid)
		return a->tid < b->tid ? -1 : 1;
	return 0;
}

/* WIDE: every byte of the 128-bit sort key differs between keys, so
 * the radix sort (4096 keys and more) makes all 16 passes. */
enum pattern { RANDOM, SORTED, REVERSED, EQUAL, ORGAN_PIPE, FEW_CGROUPS, WIDE };

static uint64_t random64(void)
{
	return (uint64_t)random() << 40 ^ (uint64_t)random() << 20 ^ random();
}

static void fill(struct bpmc_key *k, size_t n, enum pattern p)
{
	for (size_t i = 0; i < n; i++) {
		size_t v = p == REVERSED   ? n - i :
			   p == ORGAN_PIPE ? (i < n / 2 ? i : n - i) :
					     i;

		k[i] = (struct bpmc_key){ .cgroup_id = p == EQUAL ? 7 : v / 3,
					  .tgid = p == EQUAL ? 1 : (uint32_t)v,
					  .tid = (uint32_t)(v * 7 % 5) };
		if (p == WIDE)
			k[i] = (struct bpmc_key){
				/* a few ids, so that tasks sort within one */
				.cgroup_id = random64() |
					     (uint64_t)(random() % 3) << 62,
				.tgid = (uint32_t)random64(),
				.tid = (uint32_t)random64(),
			};
		if (p == WIDE && i % 3)
			k[i].cgroup_id = k[i - 1].cgroup_id;
		if (p == RANDOM || p == FEW_CGROUPS)
			k[i] = (struct bpmc_key){
				.cgroup_id = p == FEW_CGROUPS ? random() % 4 :
								random() % 1000,
				.tgid = random() % 5000,
				.tid = random() % 3,
			};
	}
}

/* Sorted as qsort sorts, and each index names its own key, once. */
static bool sorts_like_qsort(size_t n, enum pattern p)
{
	struct bpmc_key *keys = calloc(n + 1, sizeof(*keys));
	struct bpmc_key *want = calloc(n + 1, sizeof(*want));
	struct key_order *got = calloc(n + 1, sizeof(*got));
	char *seen = calloc(n + 1, 1);
	bool ok = keys && want && got && seen;

	if (ok) {
		fill(keys, n, p);
		memcpy(want, keys, n * sizeof(*keys));
		qsort(want, n, sizeof(*want), reference_cmp);
		key_sort(keys, n, got);
	}
	for (size_t i = 0; ok && i < n; i++) {
		const struct bpmc_key *k = &keys[got[i].index];

		ok = got[i].index < n && !seen[got[i].index] &&
		     !reference_cmp(k, &want[i]) &&
		     got[i].cgroup_id == k->cgroup_id &&
		     key_order__tgid(&got[i]) == k->tgid &&
		     (uint32_t)got[i].task == k->tid;
		if (ok)
			seen[got[i].index] = 1;
	}
	free(keys);
	free(want);
	free(got);
	free(seen);
	return ok;
}

static void test_patterns(void)
{
	static const size_t sizes[] = { 0,   1,	   2,	 3,    16,   17,   18,
					100, 1000, 4095, 4096, 4097, 65537 };
	static const char *names[] = { "random", "sorted",     "reversed",
				       "equal",	 "organ pipe", "few cgroups",
				       "wide" };

	srandom(1);
	for (int p = RANDOM; p <= WIDE; p++)
		for (size_t i = 0; i < sizeof(sizes) / sizeof(*sizes); i++) {
			char what[64];

			snprintf(what, sizeof(what), "%s, %zu keys", names[p],
				 sizes[i]);
			ASSERT_TRUE(sorts_like_qsort(sizes[i], p), what);
		}
}

static const struct subtest tests[] = {
	{ "patterns", test_patterns },
	{ 0 },
};

int main(int argc, char **argv)
{
	return test_main(argc, argv, tests);
}
