// SPDX-License-Identifier: GPL-2.0
/* The --by scope list. */
#include <errno.h>

#include "common/scope.h"
#include "test.h"

static void test_scopes_ok(void)
{
	char bad[32] = "";
	unsigned mask = 0;

	ASSERT_OK(scopes_parse("cgroup,process", &mask, bad, sizeof(bad)),
		  "cgroup,process");
	ASSERT_EQ(mask, SCOPE_CGROUP | SCOPE_PROCESS, "cgroup,process mask");
	ASSERT_OK(scopes_parse("thread", &mask, bad, sizeof(bad)), "thread");
	ASSERT_EQ(mask, SCOPE_THREAD, "thread mask");
	ASSERT_OK(scopes_parse("cgroup", &mask, bad, sizeof(bad)), "cgroup");
	ASSERT_EQ(mask, SCOPE_CGROUP, "cgroup mask");
	ASSERT_OK(scopes_parse("thread,cgroup,process", &mask, bad,
			       sizeof(bad)),
		  "all, any order");
	ASSERT_EQ(mask, SCOPE_CGROUP | SCOPE_PROCESS | SCOPE_THREAD,
		  "all mask");
	ASSERT_OK(scopes_parse("process,process", &mask, bad, sizeof(bad)),
		  "repeated");
	ASSERT_EQ(mask, SCOPE_PROCESS, "repeated mask");
}

static void test_scopes_bad_name(void)
{
	char bad[32] = "";
	unsigned mask = 0x55;

	ASSERT_EQ(scopes_parse("pod", &mask, bad, sizeof(bad)), -EINVAL, "pod");
	ASSERT_STREQ(bad, "pod", "pod named");
	ASSERT_EQ(scopes_parse("cgroup,pod,thread", &mask, bad, sizeof(bad)),
		  -EINVAL, "pod in a list");
	ASSERT_STREQ(bad, "pod", "only pod named");
	ASSERT_EQ(scopes_parse("Cgroup", &mask, bad, sizeof(bad)), -EINVAL,
		  "case matters");
	ASSERT_STREQ(bad, "Cgroup", "Cgroup named");
	ASSERT_EQ(scopes_parse("cgroups", &mask, bad, sizeof(bad)), -EINVAL,
		  "plural");
	ASSERT_EQ(scopes_parse("cgroup ", &mask, bad, sizeof(bad)), -EINVAL,
		  "trailing space");
	ASSERT_EQ(mask, 0x55, "mask untouched on error");
}

static void test_scopes_bad_truncated(void)
{
	char bad[4] = "";
	unsigned mask = 0;

	ASSERT_EQ(scopes_parse("process,containers", &mask, bad, sizeof(bad)),
		  -EINVAL, "containers");
	ASSERT_STREQ(bad, "con", "bad cut to its buffer");
	ASSERT_OK(scopes_parse("cgroup,container", &mask, bad, sizeof(bad)),
		  "container is a scope");
	ASSERT_EQ(mask, SCOPE_CGROUP | SCOPE_CONTAINER, "container mask");
}

static void test_scopes_empty(void)
{
	char bad[32] = "x";
	unsigned mask = 0x55;

	ASSERT_EQ(scopes_parse("", &mask, bad, sizeof(bad)), -EINVAL, "empty");
	ASSERT_STREQ(bad, "", "empty named");
	ASSERT_EQ(scopes_parse(",", &mask, bad, sizeof(bad)), -EINVAL,
		  "lone comma");
	ASSERT_EQ(mask, 0x55, "mask untouched on error");
}

/* Every word of the scope column back and forth; others are no scope. */
static void test_scope_words(void)
{
	static const char *const words[] = { "cgroup",	  "process", "thread",
					     "container", "pod",     "system" };
	unsigned all = 0;

	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++) {
		unsigned bit = scope_of(words[i]);

		ASSERT_TRUE(bit && !(bit & (bit - 1)), "one bit");
		ASSERT_STREQ(scope_name(bit), words[i], "its word");
		all |= bit;
	}
	ASSERT_EQ(all, SCOPES_ALL, "six scopes");
	ASSERT_EQ(scope_of("self"), 0, "self is none");
	ASSERT_EQ(scope_of("meta"), 0, "meta is none");
}

static const struct subtest tests[] = {
	{ "scope_words", test_scope_words },
	{ "scopes_ok", test_scopes_ok },
	{ "scopes_bad_name", test_scopes_bad_name },
	{ "scopes_bad_truncated", test_scopes_bad_truncated },
	{ "scopes_empty", test_scopes_empty },
	{ 0 },
};

int main(int argc, char **argv)
{
	return test_main(argc, argv, tests);
}
