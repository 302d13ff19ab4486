// SPDX-License-Identifier: GPL-2.0
/* --rollup subtree totals. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

#include "rows/rollup.h"
#include "test.h"
#include "common/util.h"

/* Index of path in out, or -1. */
static int find(const struct rollup_out *out, int n, const char *path)
{
	for (int i = 0; i < n; i++) {
		if (!strcmp(out[i].path, path))
			return i;
	}
	return -1;
}

/* Asserts that path is in out with total ev0 for event 0. */
#define ASSERT_TOTAL(out, n, p, ev0)                                          \
	({                                                                    \
		int ___i = find(out, n, p);                                   \
		bool ___total_ok = ASSERT_TRUE(___i >= 0, p " present");      \
		if (___total_ok)                                              \
			___total_ok = ASSERT_EQ((out)[___i].count[0],         \
						(uint64_t)(ev0), p " total"); \
		___total_ok;                                                  \
	})

static void test_small_tree(void)
{
	struct rollup_in in[] = {
		{ "/", { 1, 1000 } },	  { "/a", { 2, 2000 } },
		{ "/a/b", { 4, 4000 } },  { "/a/c", { 8, 8000 } },
		{ "/ab", { 16, 16000 } }, { "/x/y/z", { 32, 32000 } },
	};
	const struct rollup_out *out;
	struct rollup *r;
	int n;

	n = rollup__compute(&r, in, ARRAY_SIZE(in), 2, -1, &out);
	/* "/", "/a", "/a/b", "/a/c", "/ab", "/x", "/x/y", "/x/y/z" */
	if (!ASSERT_EQ(n, 8, "nodes"))
		goto out;
	ASSERT_TOTAL(out, n, "/", 63);
	/* "/ab" is a sibling of "/a", not a descendant. */
	ASSERT_TOTAL(out, n, "/a", 2 + 4 + 8);
	ASSERT_TOTAL(out, n, "/a/b", 4);
	ASSERT_TOTAL(out, n, "/a/c", 8);
	ASSERT_TOTAL(out, n, "/ab", 16);
	/* Ancestors that are no input still get their descendants' sum. */
	ASSERT_TOTAL(out, n, "/x", 32);
	ASSERT_TOTAL(out, n, "/x/y", 32);
	ASSERT_TOTAL(out, n, "/x/y/z", 32);
	ASSERT_EQ(out[0].count[1], 63000, "root event 1");
	ASSERT_EQ(out[find(out, n, "/a")].count[1], 14000, "/a event 1");
	for (int i = 0; i < n; i++) {
		/* Events past nr_events stay 0. */
		ASSERT_EQ(out[i].count[2], 0, "unused event");
		ASSERT_EQ(out[i].count[BPMC_MAX_EVENTS - 1], 0, "last event");
	}
	ASSERT_EQ(out[find(out, n, "/")].depth, 0, "root depth");
	ASSERT_EQ(out[find(out, n, "/a/c")].depth, 2, "/a/c depth");
	ASSERT_EQ(out[find(out, n, "/x/y/z")].depth, 3, "/x/y/z depth");
out:
	rollup__free(r);
}

/* Is a an ancestor-or-self of b, component-wise? Both canonical. */
static bool is_under(const char *a, const char *b)
{
	size_t len = strlen(a);

	if (!strcmp(a, "/"))
		return true;
	return !strncmp(a, b, len) && (b[len] == '\0' || b[len] == '/');
}

/* xorshift: the same tree on every run and libc. */
static uint64_t rnd_state = 88172645463325252ull;

static uint64_t rnd(void)
{
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 7;
	rnd_state ^= rnd_state << 17;
	return rnd_state;
}

#define RND_NODES 500
#define RND_EVENTS 3

static void test_random_invariant(void)
{
	static char paths[RND_NODES][4096];
	static struct rollup_in in[RND_NODES + 50];
	static int parent[RND_NODES], depth[RND_NODES], order[RND_NODES];
	static bool needed[RND_NODES];
	const struct rollup_out *out;
	struct rollup *r;
	size_t nr_in = 0;
	int n, nr_needed = 0;

	/* Node 0 is the root; every other node hangs off an earlier one. */
	strcpy(paths[0], "/");
	for (int i = 1; i < RND_NODES; i++) {
		int p = rnd() % i;

		/* Deep chains come from favouring recent parents. */
		if (rnd() % 2)
			p = i - 1 - rnd() % (i < 8 ? i : 8);
		/* "n7" next to "n7-b": the names strcmp() would misorder. */
		snprintf(paths[i], sizeof(paths[i]), "%s/n%d%s",
			 p ? paths[p] : "", i / 2, i % 2 ? "-b" : "");
		parent[i] = p;
		depth[i] = depth[p] + 1;
	}
	/* About 3/4 of the nodes are inputs, in shuffled order. */
	for (int i = 0; i < RND_NODES; i++)
		order[i] = i;
	for (int i = RND_NODES - 1; i > 0; i--) {
		int j = rnd() % (i + 1), t = order[i];

		order[i] = order[j];
		order[j] = t;
	}
	for (int k = 0; k < RND_NODES; k++) {
		int i = order[k];

		if (rnd() % 4 == 0)
			continue;
		in[nr_in].path = paths[i];
		for (int e = 0; e < RND_EVENTS; e++)
			in[nr_in].count[e] = rnd() % 1000000;
		nr_in++;
		for (int a = i; !needed[a]; a = parent[a]) {
			needed[a] = true;
			nr_needed++;
			if (!a)
				break;
		}
	}
	/* Some duplicates, and some unknown cgroups. */
	for (int k = 0; k < 50; k++) {
		in[nr_in] = in[rnd() % nr_in];
		if (k % 5 == 0)
			in[nr_in].path = NULL;
		nr_in++;
	}

	n = rollup__compute(&r, in, nr_in, RND_EVENTS, -1, &out);
	if (!ASSERT_EQ(n, nr_needed, "every ancestor once"))
		goto out;
	for (int i = 0; i < n; i++) {
		uint64_t want[RND_EVENTS] = { 0 };
		int j;

		/* total == own + the totals of the direct children */
		for (size_t k = 0; k < nr_in; k++) {
			if (!in[k].path || strcmp(in[k].path, out[i].path))
				continue;
			for (int e = 0; e < RND_EVENTS; e++)
				want[e] += in[k].count[e];
		}
		for (j = 0; j < n; j++) {
			if (out[j].depth != out[i].depth + 1 ||
			    !is_under(out[i].path, out[j].path))
				continue;
			for (int e = 0; e < RND_EVENTS; e++)
				want[e] += out[j].count[e];
		}
		for (int e = 0; e < RND_EVENTS; e++) {
			if (!ASSERT_EQ(out[i].count[e], want[e], "invariant"))
				printf("    at %s event %d\n", out[i].path, e);
		}
		/* A subtree is one run right after its root. */
		for (j = i + 1; j < n && is_under(out[i].path, out[j].path);)
			j++;
		for (; j < n; j++) {
			if (!ASSERT_TRUE(!is_under(out[i].path, out[j].path),
					 "contiguous subtree"))
				printf("    %s after the end of %s\n",
				       out[j].path, out[i].path);
		}
		for (j = 0; j < i; j++)
			ASSERT_TRUE(!is_under(out[i].path, out[j].path) ||
					    !strcmp(out[i].path, out[j].path),
				    "ancestors first");
		if (i)
			ASSERT_TRUE(strcmp(out[i - 1].path, out[i].path),
				    "distinct");
	}
	for (int i = 0; i < RND_NODES; i++) {
		int j = find(out, n, paths[i]);

		if (!needed[i])
			continue;
		if (ASSERT_TRUE(j >= 0, "needed node present"))
			ASSERT_EQ(out[j].depth, depth[i], "depth");
	}
out:
	rollup__free(r);
}

static void test_depth_limits(void)
{
	struct rollup_in in[] = {
		{ "/a/b/c", { 1 } },
		{ "/a", { 2 } },
		{ "/d/e", { 4 } },
		{ "/", { 8 } },
	};
	const struct rollup_out *out;
	struct rollup *r;
	int n;

	n = rollup__compute(&r, in, ARRAY_SIZE(in), 1, 0, &out);
	if (ASSERT_EQ(n, 1, "depth 0: root only")) {
		ASSERT_STREQ(out[0].path, "/", "depth 0 path");
		ASSERT_EQ(out[0].count[0], 15, "depth 0 everything");
	}
	rollup__free(r);

	n = rollup__compute(&r, in, ARRAY_SIZE(in), 1, 1, &out);
	if (ASSERT_EQ(n, 3, "depth 1 nodes")) {
		ASSERT_STREQ(out[0].path, "/", "depth 1 [0]");
		ASSERT_STREQ(out[1].path, "/a", "depth 1 [1]");
		ASSERT_STREQ(out[2].path, "/d", "depth 1 [2]");
		ASSERT_EQ(out[0].count[0], 15, "depth 1 root");
		ASSERT_EQ(out[1].count[0], 3, "depth 1 /a");
		ASSERT_EQ(out[2].count[0], 4, "depth 1 /d");
		ASSERT_EQ(out[1].depth, 1, "depth 1 /a depth");
	}
	rollup__free(r);

	n = rollup__compute(&r, in, ARRAY_SIZE(in), 1, 2, &out);
	if (ASSERT_EQ(n, 5, "depth 2 nodes")) {
		ASSERT_TOTAL(out, n, "/a/b", 1);
		ASSERT_TOTAL(out, n, "/d/e", 4);
		ASSERT_TRUE(find(out, n, "/a/b/c") < 0, "depth 2 cut");
	}
	rollup__free(r);

	/* A limit past the deepest path changes nothing. */
	n = rollup__compute(&r, in, ARRAY_SIZE(in), 1, 100, &out);
	ASSERT_EQ(n, 6, "deep limit nodes");
	rollup__free(r);
}

static void test_null_paths(void)
{
	struct rollup_in in[] = {
		{ NULL, { 100 } }, { "/a", { 1 } },   { NULL, { 200 } },
		{ "/a/b", { 2 } }, { NULL, { 400 } },
	};
	const struct rollup_out *out;
	struct rollup *r;
	int n;

	n = rollup__compute(&r, in, ARRAY_SIZE(in), 1, -1, &out);
	if (ASSERT_EQ(n, 3, "nodes")) {
		ASSERT_TOTAL(out, n, "/", 3);
		ASSERT_TOTAL(out, n, "/a", 3);
		ASSERT_TOTAL(out, n, "/a/b", 2);
	}
	rollup__free(r);

	/* Only unknown cgroups: nothing, not even a root. */
	n = rollup__compute(&r, in, 1, 1, -1, &out);
	ASSERT_EQ(n, 0, "all null");
	rollup__free(r);
}

static void test_duplicates(void)
{
	struct rollup_in in[] = {
		{ "/a/b", { 1, 10 } }, { "/a", { 2, 20 } },
		{ "/a/b", { 4, 40 } }, { "/a", { 8, 80 } },
		{ "/", { 16, 160 } },  { "/", { 32, 320 } },
	};
	const struct rollup_out *out;
	struct rollup *r;
	int n;

	n = rollup__compute(&r, in, ARRAY_SIZE(in), 2, -1, &out);
	if (ASSERT_EQ(n, 3, "merged")) {
		ASSERT_TOTAL(out, n, "/", 63);
		ASSERT_TOTAL(out, n, "/a", 15);
		ASSERT_TOTAL(out, n, "/a/b", 5);
		ASSERT_EQ(out[find(out, n, "/a/b")].count[1], 50, "event 1");
	}
	rollup__free(r);
}

static void test_slashes(void)
{
	struct rollup_in in[] = {
		{ "/a/", { 1 } },   { "//a//b", { 2 } }, { "a/b/", { 4 } },
		{ "a", { 8 } },	    { "///", { 16 } },	 { "", { 32 } },
		{ "/c//", { 64 } },
	};
	const struct rollup_out *out;
	struct rollup *r;
	int n;

	n = rollup__compute(&r, in, ARRAY_SIZE(in), 1, -1, &out);
	if (ASSERT_EQ(n, 4, "one node per spelling")) {
		ASSERT_STREQ(out[0].path, "/", "[0]");
		ASSERT_STREQ(out[1].path, "/a", "[1]");
		ASSERT_STREQ(out[2].path, "/a/b", "[2]");
		ASSERT_STREQ(out[3].path, "/c", "[3]");
		ASSERT_EQ(out[0].count[0], 127, "root");
		ASSERT_EQ(out[1].count[0], 15, "/a");
		ASSERT_EQ(out[2].count[0], 6, "/a/b");
		ASSERT_EQ(out[3].count[0], 64, "/c");
		ASSERT_EQ(out[2].depth, 2, "/a/b depth");
	}
	rollup__free(r);
}

static void test_ordering(void)
{
	static const char *const want[] = {
		"/",	"/a",	  "/a/b", "/a/b/c", "/a/b-c",
		"/a-b", "/a-b/x", "/a.b", "/ab",    "/b",
	};
	/* Given in the worst order: reversed, deepest first. */
	struct rollup_in in[] = {
		{ "/b", { 0 } },     { "/ab", { 0 } },	  { "/a.b", { 0 } },
		{ "/a-b/x", { 0 } }, { "/a/b-c", { 0 } }, { "/a/b/c", { 0 } },
	};
	const struct rollup_out *out;
	struct rollup *r;
	int n;

	n = rollup__compute(&r, in, ARRAY_SIZE(in), 1, -1, &out);
	if (ASSERT_EQ(n, (int)ARRAY_SIZE(want), "nodes")) {
		for (int i = 0; i < n; i++)
			ASSERT_STREQ(out[i].path, want[i], "order");
	}
	rollup__free(r);
}

static void test_empty(void)
{
	struct rollup_in in[1] = { { "/a", { 1 } } };
	const struct rollup_out *out;
	struct rollup *r;

	ASSERT_EQ(rollup__compute(&r, in, 0, 1, -1, &out), 0, "nr 0");
	ASSERT_TRUE(out != NULL, "out set");
	rollup__free(r);
	ASSERT_EQ(rollup__compute(&r, NULL, 0, 1, -1, &out), 0, "NULL in");
	rollup__free(r);
	/* Freeing nothing is fine. */
	rollup__free(NULL);
}

static void test_bad_args(void)
{
	struct rollup_in in[1] = { { "/a", { 1 } } };
	const struct rollup_out *out = (void *)1;
	struct rollup *r = (void *)1;

	ASSERT_EQ(rollup__compute(&r, in, 1, BPMC_MAX_EVENTS + 1, -1, &out),
		  -EINVAL, "too many events");
	ASSERT_TRUE(!r && !out, "cleared on error");
	ASSERT_EQ(rollup__compute(&r, in, 1, -1, -1, &out), -EINVAL,
		  "negative events");
	ASSERT_EQ(rollup__compute(&r, NULL, 1, 1, -1, &out), -EINVAL,
		  "NULL in");
	rollup__free(r);
}

/*
 * 100k leaves 12 deep under a fan-out of 10: an O(n^2) merge would take
 * minutes here, the sort-and-walk well under a second.
 */
static void test_large(void)
{
	const size_t nr = 100000;
	struct rollup_in *in = calloc(nr, sizeof(*in));
	char *buf = malloc(nr * 64);
	const struct rollup_out *out;
	struct rollup *r = NULL;
	int n;

	if (!ASSERT_TRUE(in && buf, "alloc"))
		goto out;
	for (size_t i = 0; i < nr; i++) {
		char *p = buf + i * 64;

		/* Top levels shared: /s3/u7/p/q/r/l<i>... */
		snprintf(p, 64, "/s%zu/u%zu/p/q/r/w/x/y/z/v/t/l%zu", i % 10,
			 i % 100, i);
		in[i].path = p;
		in[i].count[0] = 1;
	}
	n = rollup__compute(&r, in, nr, 1, -1, &out);
	/* root + 10 + 100 + 100 * 9 chain + 100k leaves */
	if (ASSERT_EQ(n, 1 + 10 + 100 + 900 + (int)nr, "nodes")) {
		ASSERT_EQ(out[0].count[0], nr, "root");
		ASSERT_TOTAL(out, n, "/s3", nr / 10);
		ASSERT_TOTAL(out, n, "/s3/u13/p/q/r/w/x/y/z/v/t", nr / 100);
	}
out:
	rollup__free(r);
	free(buf);
	free(in);
}

static const struct subtest tests[] = {
	{ "small_tree", test_small_tree },
	{ "random_invariant", test_random_invariant },
	{ "depth_limits", test_depth_limits },
	{ "null_paths", test_null_paths },
	{ "duplicates", test_duplicates },
	{ "slashes", test_slashes },
	{ "ordering", test_ordering },
	{ "empty", test_empty },
	{ "bad_args", test_bad_args },
	{ "large", test_large },
	{ 0 },
};

int main(int argc, char **argv)
{
	return test_main(argc, argv, tests);
}
