// SPDX-License-Identifier: GPL-2.0
/* The conservation check: discrepancies and the worst interval. */
#include "rows/check.h"
#include "test.h"

static void test_discrepancy(void)
{
	ASSERT_TRUE(check_discrepancy_pct(1001, 1000) > 0.0999 &&
			    check_discrepancy_pct(1001, 1000) < 0.1001,
		    "0.1 % over");
	ASSERT_TRUE(check_discrepancy_pct(999, 1000) > 0.0999 &&
			    check_discrepancy_pct(999, 1000) < 0.1001,
		    "0.1 % under is the same distance");
	ASSERT_TRUE(check_discrepancy_pct(0, 0) == 0.0, "nothing, nowhere");
	ASSERT_TRUE(check_discrepancy_pct(5, 0) == 100.0,
		    "rows without a system total");
	ASSERT_TRUE(check_discrepancy_pct(0, 5) == 100.0, "a total, no rows");
}

static void test_worst_interval(void)
{
	struct check c = { .tolerance_pct = 0.1 };
	struct drain_sums s = {};
	struct event_list events = { .nr = 1 };

	s.system[0] = 1000;
	s.scope[0][0] = 1000; /* cgroup rows */
	s.scope[1][0] = 1000; /* process rows */
	check__interval(&c, &s, SCOPE_CGROUP | SCOPE_PROCESS, 1);
	ASSERT_TRUE(check__report(&c, &events, SCOPE_CGROUP | SCOPE_PROCESS),
		    "exact sums pass");
	s.scope[1][0] = 1002; /* one interval 0.2 % off, process rows only */
	check__interval(&c, &s, SCOPE_CGROUP | SCOPE_PROCESS, 1);
	s.scope[1][0] = 1000;
	check__interval(&c, &s, SCOPE_CGROUP | SCOPE_PROCESS, 1);
	ASSERT_EQ(c.intervals, 3, "intervals counted");
	ASSERT_TRUE(c.worst[0][0] == 0.0, "cgroup rows never off");
	ASSERT_TRUE(c.worst[1][0] > 0.19, "the worst interval is kept");
	ASSERT_TRUE(!check__report(&c, &events, SCOPE_CGROUP | SCOPE_PROCESS),
		    "beyond the tolerance fails");
}

static void test_unrequested_scope(void)
{
	struct check c = { .tolerance_pct = 0.1 };
	struct drain_sums s = {};

	/* No process rows were asked for: their zero sums are not a
	 * discrepancy. */
	s.system[0] = 1000;
	s.scope[0][0] = 1000;
	check__interval(&c, &s, SCOPE_CGROUP, 1);
	ASSERT_TRUE(c.worst[1][0] == 0.0, "process rows not checked");
}

static const struct subtest tests[] = {
	{ "discrepancy", test_discrepancy },
	{ "worst_interval", test_worst_interval },
	{ "unrequested_scope", test_unrequested_scope },
	{ 0 },
};

int main(int argc, char **argv)
{
	return test_main(argc, argv, tests);
}
