// SPDX-License-Identifier: GPL-2.0
/* How per-container views name their keys (common/short_name.h). */
#include <string.h>

#include "common/short_name.h"
#include "test.h"

static void test_short_container(void)
{
	char out[128];
	const char *id = "containerd://3f2a9c1e0000000000000000000000000000"
			 "000000000000000000000000000001";

	short_container(id, 12, out, sizeof(out));
	ASSERT_STREQ(out, "containerd://3f2a9c1e0000",
		     "runtime and 12 of the id");
	short_container(id, 0, out, sizeof(out));
	ASSERT_STREQ(out, id, "the whole id");
	short_container("", 12, out, sizeof(out));
	ASSERT_STREQ(out, OUTSIDE_CONTAINERS, "the empty key");
}

/* Two containers of one pod, and two ids with a long shared prefix:
 * cut in the middle, they stay apart. */
static void test_cut_middle(void)
{
	char a[128], b[128];

	cut_middle("shop/cart-7d9f-5c6b8d7f9-xk2lp/api-gateway", 24, a,
		   sizeof(a));
	cut_middle("shop/cart-7d9f-5c6b8d7f9-xk2lp/api-worker", 24, b,
		   sizeof(b));
	ASSERT_EQ(strlen(a), (size_t)24, "cut to 24");
	ASSERT_STREQ(a, "shop/cart-7~/api-gateway", "head and tail kept");
	ASSERT_TRUE(strcmp(a, b), "two containers of one pod apart");
	cut_middle(
		"docker://0000000000000000000000000000000000000000000000000000000000000001",
		30, a, sizeof(a));
	cut_middle(
		"docker://0000000000000000000000000000000000000000000000000000000000000002",
		30, b, sizeof(b));
	ASSERT_TRUE(strcmp(a, b), "ids sharing 63 digits apart");
	ASSERT_TRUE(!strncmp(a, "docker://", 9), "the runtime kept");
	cut_middle("short", 24, a, sizeof(a));
	ASSERT_STREQ(a, "short", "short names whole");
	cut_middle("\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9", 3, a, sizeof(a));
	ASSERT_STREQ(a, "\xc3\xa9~\xc3\xa9", "code points, not bytes");
}

static const struct subtest tests[] = {
	{ "short_container", test_short_container },
	{ "cut_middle", test_cut_middle },
	{ 0 },
};

int main(int argc, char **argv)
{
	return test_main(argc, argv, tests);
}
