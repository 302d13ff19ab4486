// SPDX-License-Identifier: GPL-2.0
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

void key_sort(const struct bpmc_key *keys, size_t n, struct key_order *out)
{
	int depth = 0;

	for (size_t i = 0; i < n; i++)
		out[i] = (struct key_order){
			.cgroup_id = keys[i].cgroup_id,
			.task = (uint64_t)keys[i].tgid << 32 | keys[i].tid,
			.index = i,
		};
	for (size_t m = n; m > 1; m >>= 1)
		depth += 2;
	intro_sort(out, n, depth);
}
