/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A header-only unit test harness in the style of the kernel's BPF
 * selftests. Each ASSERT_*() returns true when it holds; on failure it
 * prints "  FAIL name: <what> at file:line" and marks the subtest failed,
 * so a test may go on, or stop with: if (!ASSERT_OK(err, "x")) return;
 *
 * A test file lists its subtests and hands them to test_main():
 *
 *	static const struct subtest tests[] = {
 *		{ "parse_plain", test_parse_plain },
 *		{ 0 },
 *	};
 *	int main(int argc, char **argv) { return test_main(argc, argv, tests); }
 *
 * "test_x -t NAME" runs only the subtest NAME.
 *
 * A subtest whose subject this machine or user cannot provide (root, a
 * cgroup2 mount, BPF maps) says so with TEST_SKIP("why") and returns:
 * it ends as "skip NAME: why", which tests/run counts as skipped.
 */
#ifndef BPMC_TEST_H
#define BPMC_TEST_H

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

struct subtest {
	const char *name;
	void (*fn)(void);
};

static bool test__failed; /* the running subtest has failed */
static const char *test__skipped; /* why the running subtest skipped */

#define TEST_SKIP(why) (test__skipped = (why))

#define TEST__FAIL(name, fmt, ...)                                             \
	do {                                                                   \
		printf("  FAIL %s: " fmt " at %s:%d\n", (name), ##__VA_ARGS__, \
		       __FILE__, __LINE__);                                    \
		test__failed = true;                                           \
	} while (0)

/* Both sides are compared, and printed, in their common type. */
#define TEST__CMP(a, op, b, name)                                        \
	({                                                               \
		__typeof__((a) + (b)) ___a = (a), ___b = (b);            \
		bool ___ok = ___a op ___b;                               \
		if (!___ok) {                                            \
			if ((__typeof__(___a))-1 < (__typeof__(___a))1)  \
				TEST__FAIL(name,                         \
					   "%s is %lld, expected " #op   \
					   " %lld",                      \
					   #a, (long long)___a,          \
					   (long long)___b);             \
			else                                             \
				TEST__FAIL(name,                         \
					   "%s is %llu, expected " #op   \
					   " %llu",                      \
					   #a, (unsigned long long)___a, \
					   (unsigned long long)___b);    \
		}                                                        \
		___ok;                                                   \
	})

#define ASSERT_EQ(a, b, name) TEST__CMP(a, ==, b, name)
#define ASSERT_GE(a, b, name) TEST__CMP(a, >=, b, name)
#define ASSERT_LT(a, b, name) TEST__CMP(a, <, b, name)

#define ASSERT_STREQ(a, b, name)                                              \
	({                                                                    \
		const char *___a = (a), *___b = (b);                          \
		bool ___ok = ___a && ___b ? !strcmp(___a, ___b) :             \
					    ___a == ___b;                     \
		if (!___ok)                                                   \
			TEST__FAIL(name, "%s is \"%s\", expected \"%s\"", #a, \
				   ___a ? ___a : "(null)",                    \
				   ___b ? ___b : "(null)");                   \
		___ok;                                                        \
	})

#define ASSERT_TRUE(x, name)                                 \
	({                                                   \
		bool ___ok = (x);                            \
		if (!___ok)                                  \
			TEST__FAIL(name, "%s is false", #x); \
		___ok;                                       \
	})

#define ASSERT_OK(err, name)                                             \
	({                                                               \
		long long ___err = (err);                                \
		bool ___ok = ___err == 0;                                \
		if (!___ok)                                              \
			TEST__FAIL(name, "%s is %lld, expected 0", #err, \
				   ___err);                              \
		___ok;                                                   \
	})

#define ASSERT_ERR(err, name)                                             \
	({                                                                \
		long long ___err = (err);                                 \
		bool ___ok = ___err < 0;                                  \
		if (!___ok)                                               \
			TEST__FAIL(name, "%s is %lld, expected an error", \
				   #err, ___err);                         \
		___ok;                                                    \
	})

/*
 * Runs every subtest of the { 0 }-terminated table, or only the one that
 * "-t NAME" names. Returns the exit status: 0 if all passed, 1 if not.
 */
static inline int test_main(int argc, char **argv, const struct subtest *table)
{
	const char *only = NULL;
	bool any_failed = false, ran = false;

	if (argc == 3 && !strcmp(argv[1], "-t")) {
		only = argv[2];
	} else if (argc != 1) {
		fprintf(stderr, "usage: %s [-t SUBTEST]\n", argv[0]);
		return 1;
	}
	for (const struct subtest *t = table; t->name; t++) {
		if (only && strcmp(only, t->name))
			continue;
		test__failed = false;
		test__skipped = NULL;
		t->fn();
		if (test__skipped && !test__failed)
			printf("skip %s: %s\n", t->name, test__skipped);
		else
			printf("%s %s\n", test__failed ? "FAIL" : "ok",
			       t->name);
		fflush(stdout);
		any_failed |= test__failed;
		ran = true;
	}
	if (only && !ran) {
		fprintf(stderr, "%s: no subtest '%s'\n", argv[0], only);
		return 1;
	}
	return any_failed ? 1 : 0;
}

#endif /* BPMC_TEST_H */
