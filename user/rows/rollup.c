// SPDX-License-Identifier: GPL-2.0
/*
 * Subtree totals. Rather than adding every input to each of its
 * ancestors (n * depth additions, and a look-up per ancestor), the inputs
 * are brought to one spelling, sorted so that every subtree is a
 * contiguous run that starts with its root, and walked once with a stack
 * of the open ancestors: a node's total is final when the walk leaves its
 * subtree, and is then added to its parent. O(n log n) comparisons plus
 * O(total path length).
 */
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rows/rollup.h"

struct rollup {
	size_t nr;
	struct rollup_out out[];
	/* followed by the outputs' paths, NUL-terminated */
};

struct item {
	const char *path; /* canonical: "/" or "/c1/c2", no empty component */
	int depth;
	const uint64_t *count;
};

/*
 * Writes path to dst as "/" or "/c1/c2", dropping empty components
 * (repeated, leading or trailing slashes), so that every spelling of a
 * cgroup sorts and merges as one. Keeps at most max_depth components
 * (max_depth < 0: all): a deeper cgroup's count only reaches totals down
 * to max_depth, so cutting its path there changes none of them. dst holds
 * strlen(path) + 2 bytes. Returns the depth; *len gets the bytes written,
 * NUL included.
 */
static int canon(char *dst, const char *path, int max_depth, size_t *len)
{
	char *d = dst;
	int depth = 0;

	*d++ = '/';
	for (;;) {
		while (*path == '/')
			path++;
		if (!*path || depth == max_depth)
			break;
		if (depth)
			*d++ = '/';
		while (*path && *path != '/')
			*d++ = *path++;
		depth++;
	}
	*d++ = '\0';
	*len = d - dst;
	return depth;
}

/*
 * The end of a path sorts before a separator, and a separator before any
 * other byte: this orders paths component by component, so "/a" < "/a/b"
 * < "/a-b" and the subtree of "/a" is contiguous. Plain strcmp() would
 * put "/a-b" between "/a" and "/a/b", since '-' < '/'.
 */
static int sort_key(unsigned char c)
{
	return c == '/' ? 1 : c ? c + 1 : 0;
}

static int item_cmp(const void *pa, const void *pb)
{
	const unsigned char *a =
		(const unsigned char *)((const struct item *)pa)->path;
	const unsigned char *b =
		(const unsigned char *)((const struct item *)pb)->path;

	while (*a && *a == *b) {
		a++;
		b++;
	}
	return sort_key(*a) - sort_key(*b);
}

/* Components two canonical paths share from the root: "/a/b", "/a/c": 1. */
static int shared_depth(const char *a, const char *b)
{
	int depth = 0;
	size_t i = 1, j;

	for (;;) {
		for (j = i; a[j] && a[j] != '/' && a[j] == b[j]; j++)
			;
		/* Equal only if neither component went on past j. */
		if (j == i || (a[j] && a[j] != '/') || (b[j] && b[j] != '/'))
			return depth;
		depth++;
		if (!a[j] || !b[j])
			return depth;
		i = j + 1;
	}
}

static void add_counts(uint64_t *dst, const uint64_t *src, int nr_events)
{
	for (int e = 0; e < nr_events; e++)
		dst[e] += src[e];
}

/*
 * Walks the sorted items. Without r it only counts the nodes and the
 * bytes their paths need, so that the result is one exact allocation;
 * with r it fills r->out, stack holding the out index of each open node
 * by depth.
 */
static void walk(const struct item *it, size_t nr, int nr_events,
		 struct rollup *r, size_t *stack, size_t *nr_out,
		 size_t *nr_bytes)
{
	char *str = r ? (char *)&r->out[r->nr] : NULL;
	size_t n = 0, bytes = 0;
	int top = -1; /* depth of the deepest open node */

	for (size_t i = 0; i < nr; i++) {
		const char *p = it[i].path;
		int common = i ? shared_depth(it[i - 1].path, p) : -1;
		size_t end = 1; /* the prefix "/" */

		/* Leaving a subtree: its total is complete. */
		for (; top > common; top--) {
			if (r && top > 0)
				add_counts(r->out[stack[top - 1]].count,
					   r->out[stack[top]].count, nr_events);
		}
		/* Open the ancestors no earlier input had, and p itself. */
		for (int k = 0; k <= it[i].depth; k++) {
			if (k) {
				size_t s = k == 1 ? 1 : end + 1;

				end = s + strcspn(p + s, "/");
			}
			if (k <= common)
				continue;
			if (r) {
				struct rollup_out *o = &r->out[n];

				memcpy(str + bytes, p, end);
				str[bytes + end] = '\0';
				o->path = str + bytes;
				o->depth = k;
				memset(o->count, 0, sizeof(o->count));
				stack[k] = n;
			}
			n++;
			bytes += end + 1;
		}
		top = it[i].depth;
		/* A duplicate lands here too: it opened nothing. */
		if (r)
			add_counts(r->out[stack[top]].count, it[i].count,
				   nr_events);
	}
	for (; top > 0; top--) {
		if (r)
			add_counts(r->out[stack[top - 1]].count,
				   r->out[stack[top]].count, nr_events);
	}
	*nr_out = n;
	*nr_bytes = bytes;
}

int rollup__compute(struct rollup **r, const struct rollup_in *in, size_t nr,
		    int nr_events, int max_depth, const struct rollup_out **out)
{
	struct item *it = NULL;
	size_t *stack = NULL;
	char *canon_buf = NULL, *c;
	size_t nr_it = 0, buf_len = 0, nr_out, bytes, size;
	int max_seen = 0, err;

	*r = NULL;
	*out = NULL;
	if (nr_events < 0 || nr_events > BPMC_MAX_EVENTS || (nr && !in))
		return -EINVAL;

	for (size_t i = 0; i < nr; i++) {
		if (in[i].path)
			buf_len += strlen(in[i].path) + 2;
	}
	if (nr) {
		it = malloc(nr * sizeof(*it));
		canon_buf = malloc(buf_len ? buf_len : 1);
		if (!it || !canon_buf) {
			err = -ENOMEM;
			goto out_free;
		}
	}
	c = canon_buf;
	for (size_t i = 0; i < nr; i++) {
		size_t len;

		if (!in[i].path)
			continue;
		it[nr_it].path = c;
		it[nr_it].depth = canon(c, in[i].path, max_depth, &len);
		it[nr_it].count = in[i].count;
		if (it[nr_it].depth > max_seen)
			max_seen = it[nr_it].depth;
		c += len;
		nr_it++;
	}
	if (nr_it > 1)
		qsort(it, nr_it, sizeof(*it), item_cmp);

	walk(it, nr_it, nr_events, NULL, NULL, &nr_out, &bytes);
	/* The count is returned as an int. */
	if (nr_out > INT_MAX) {
		err = -EOVERFLOW;
		goto out_free;
	}
	size = sizeof(**r) + nr_out * sizeof((*r)->out[0]);
	if (bytes > SIZE_MAX - size) {
		err = -ENOMEM;
		goto out_free;
	}
	size += bytes;
	stack = malloc((max_seen + 1) * sizeof(*stack));
	*r = malloc(size);
	if (!stack || !*r) {
		free(*r);
		*r = NULL;
		err = -ENOMEM;
		goto out_free;
	}
	(*r)->nr = nr_out;
	walk(it, nr_it, nr_events, *r, stack, &nr_out, &bytes);
	*out = (*r)->out;
	err = nr_out;
out_free:
	free(stack);
	free(canon_buf);
	free(it);
	return err;
}

void rollup__free(struct rollup *r)
{
	free(r);
}
