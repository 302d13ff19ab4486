// SPDX-License-Identifier: GPL-2.0
/* Sampling mode: overflows the kernel counted and no sample credited. */
#include <string.h>

#include "rows/missed.h"
#include "test.h"

/* Two sampled events, then a member of the first's group. */
static void events3(struct event_list *l)
{
	memset(l, 0, sizeof(*l));
	l->nr = 3;
	l->ev[0].leader = 0;
	l->ev[1].leader = 1;
	l->ev[2].leader = 0;
}

static uint64_t add(struct missed *m, const struct event_list *l, int e,
		    uint64_t system, uint64_t keyed, uint64_t samples,
		    uint64_t *out)
{
	struct drain_sums s = {};

	s.system[e] = system;
	s.keyed[e] = keyed;
	s.samples[e] = samples;
	return missed__interval(m, l, &s, 2, out);
}

/* A residual under a period a CPU is the next interval's credit. */
static void test_residual(void)
{
	struct missed m = {};
	struct event_list l;
	uint64_t out[BPMC_MAX_EVENTS];

	events3(&l);
	ASSERT_EQ(add(&m, &l, 0, 1000 * 100 + 180, 1000 * 100, 1000, out), 0,
		  "1.8 periods pending on 2 CPUs: nothing missed");
	ASSERT_EQ(add(&m, &l, 0, 1000 * 100 - 180, 1000 * 100 + 180, 1000, out),
		  0, "credited the next interval: nothing missed");
	ASSERT_EQ(out[0], 0, "none for the event");
}

/* An interrupt late by many periods: the overflows in between. */
static void test_lost(void)
{
	struct missed m = {};
	struct event_list l;
	uint64_t out[BPMC_MAX_EVENTS];

	events3(&l);
	/* 51 samples of 300000 credited, 2 x 10^8 counted (QEMU's
	 * instruction counter): 615 overflows missed, less 4 of residual. */
	ASSERT_EQ(add(&m, &l, 1, 200000000, 15300000, 51, out), 611,
		  "611 overflows missed");
	ASSERT_EQ(out[1], 611, "all of event 1's");
	ASSERT_EQ(out[0], 0, "none of event 0's");
	ASSERT_TRUE(missed__share(&m, 1) > 0.92 && missed__share(&m, 1) < 0.93,
		    "92 %% of its count unsampled");
	/* The next interval loses as much again: only the new ones. */
	ASSERT_EQ(add(&m, &l, 1, 200000000, 15300000, 51, out), 616,
		  "616 more (the remainder of the first)");
	ASSERT_EQ(add(&m, &l, 1, 15300000, 15300000, 51, out), 0,
		  "nothing lost in the third: nothing new");
}

/* A member is read at its leader's overflows, not sampled. */
static void test_member(void)
{
	struct missed m = {};
	struct event_list l;
	uint64_t out[BPMC_MAX_EVENTS];

	events3(&l);
	ASSERT_EQ(add(&m, &l, 2, 200000000, 100, 1, out), 0,
		  "a member's gap is not a loss");
}

/* No sample yet: no period to count in. */
static void test_no_sample(void)
{
	struct missed m = {};
	struct event_list l;
	uint64_t out[BPMC_MAX_EVENTS];

	events3(&l);
	ASSERT_EQ(add(&m, &l, 0, 5000, 0, 0, out), 0, "no samples: unknown");
	ASSERT_TRUE(missed__share(&m, 0) == 1.0, "all of it unsampled");
}

static const struct subtest tests[] = {
	{ "residual", test_residual },
	{ "lost", test_lost },
	{ "member", test_member },
	{ "no_sample", test_no_sample },
	{ 0 },
};

int main(int argc, char **argv)
{
	return test_main(argc, argv, tests);
}
