// SPDX-License-Identifier: GPL-2.0
#include <assert.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "rows/key_sort.h"

static inline int key_order_cmp(const struct key_order *a,
				const struct key_order *b)
{
	if (a->cgroup_id != b->cgroup_id)
		return a->cgroup_id < b->cgroup_id ? -1 : 1;
	if (a->task != b->task)
		return a->task < b->task ? -1 : 1;
	return 0;
}

static inline void swap(struct key_order *a, struct key_order *b)
{
	struct key_order t = *a;

	*a = *b;
	*b = t;
}

static void insertion_sort(struct key_order *v, size_t n)
{
	for (size_t i = 1; i < n; i++) {
		struct key_order t = v[i];
		size_t j = i;

		for (; j && key_order_cmp(&t, &v[j - 1]) < 0; j--)
			v[j] = v[j - 1];
		v[j] = t;
	}
}

static void sift_down(struct key_order *v, size_t root, size_t n)
{
	for (size_t child; (child = 2 * root + 1) < n; root = child) {
		if (child + 1 < n &&
		    key_order_cmp(&v[child], &v[child + 1]) < 0)
			child++;
		if (key_order_cmp(&v[root], &v[child]) >= 0)
			return;
		swap(&v[root], &v[child]);
	}
}

static void heap_sort(struct key_order *v, size_t n)
{
	for (size_t i = n / 2; i-- > 0;)
		sift_down(v, i, n);
	for (size_t i = n; i-- > 1;) {
		swap(&v[0], &v[i]);
		sift_down(v, 0, i);
	}
}

/*
 * Introsort: quicksort on the median of three, heap sort past a depth
 * of 2 log2 n, so that no order of keys (pids and cgroup ids are the
 * kernel's, but their hash order is not ours to pick) goes quadratic.
 */
static void intro_sort(struct key_order *v, size_t n, int depth)
{
	while (n > 16) {
		struct key_order *lo = v, *hi = v + n - 1, *mid = v + n / 2;
		size_t left;

		if (depth-- == 0) {
			heap_sort(v, n);
			return;
		}
		if (key_order_cmp(mid, lo) < 0)
			swap(mid, lo);
		if (key_order_cmp(hi, mid) < 0) {
			swap(hi, mid);
			if (key_order_cmp(mid, lo) < 0)
				swap(mid, lo);
		}
		/* The pivot sits at the end; lo and hi are sentinels. */
		swap(mid, hi - 1);
		struct key_order *pivot = hi - 1, *i = lo, *j = hi - 1;

		for (;;) {
			while (key_order_cmp(++i, pivot) < 0)
				;
			while (key_order_cmp(--j, pivot) > 0)
				;
			if (i >= j)
				break;
			swap(i, j);
		}
		swap(i, pivot);
		/* Recurse into the smaller side, loop on the larger. */
		left = i - v;
		if (left < n - left - 1) {
			intro_sort(v, left, depth);
			v = i + 1;
			n = n - left - 1;
		} else {
			intro_sort(i + 1, n - left - 1, depth);
			n = left;
		}
	}
	insertion_sort(v, n);
}

/* Below this many keys, the radix sort's counts cost more than it saves. */
#define RADIX_MIN_KEYS 4096
/* Sort-key bytes, least significant first: task's 8, then cgroup_id's. */
#define RADIX_DIGITS 16

static inline unsigned radix_digit(const struct key_order *k, int d)
{
	return d < 8 ? (k->task >> (8 * d)) & 0xff :
		       (k->cgroup_id >> (8 * (d - 8))) & 0xff;
}

/*
 * LSD radix sort, a byte a pass, over only the bytes that differ
 * between keys: pids and cgroup ids use few of their 128 bits (100k
 * processes in one cgroup: three bytes, three passes). All the counts
 * in one read first. 7 ms of intro_sort for 100k keys here, the half of
 * the rows stage, became 2 ms. The second buffer holds the interval's
 * keys again (24 bytes a key) while it sorts; false: no memory for it,
 * and nothing done.
 */
static bool radix_sort(struct key_order *v, size_t n)
{
	uint64_t or_c = 0, and_c = ~0ull, or_t = 0, and_t = ~0ull;
	static_assert(RADIX_DIGITS * 256 * sizeof(uint32_t) <= 16384,
		      "counts fit the stack");
	uint32_t count[RADIX_DIGITS][256];
	struct key_order *tmp, *src = v, *dst, *t;
	int digits[RADIX_DIGITS], nr = 0;

	for (size_t i = 0; i < n; i++) {
		or_c |= v[i].cgroup_id;
		and_c &= v[i].cgroup_id;
		or_t |= v[i].task;
		and_t &= v[i].task;
	}
	for (int d = 0; d < RADIX_DIGITS; d++)
		if (((d < 8 ? or_t ^ and_t : or_c ^ and_c) >> (8 * (d % 8))) &
		    0xff)
			digits[nr++] = d;
	if (!nr) /* every key the same */
		return true;
	tmp = malloc(n * sizeof(*tmp));
	if (!tmp)
		return false;
	memset(count, 0, nr * sizeof(count[0]));
	for (size_t i = 0; i < n; i++)
		for (int p = 0; p < nr; p++)
			count[p][radix_digit(&v[i], digits[p])]++;
	dst = tmp;
	for (int p = 0; p < nr; p++) {
		uint32_t at = 0, c;

		for (int b = 0; b < 256; b++) { /* counts into offsets */
			c = count[p][b];
			count[p][b] = at;
			at += c;
		}
		for (size_t i = 0; i < n; i++)
			dst[count[p][radix_digit(&src[i], digits[p])]++] =
				src[i];
		t = src;
		src = dst;
		dst = t;
	}
	if (src != v)
		memcpy(v, src, n * sizeof(*v));
	free(tmp);
	return true;
}

void key_sort(const struct bpmc_key *keys, size_t n, struct key_order *out)
{
	int depth = 0;

	for (size_t i = 0; i < n; i++)
		out[i] = (struct key_order){
			.cgroup_id = keys[i].cgroup_id,
			.task = (uint64_t)keys[i].tgid << 32 | keys[i].tid,
			.index = i,
		};
	if (n >= RADIX_MIN_KEYS && radix_sort(out, n))
		return;
	for (size_t m = n; m > 1; m >>= 1)
		depth += 2;
	intro_sort(out, n, depth);
}
