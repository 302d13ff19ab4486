// SPDX-License-Identifier: GPL-2.0
/* Sampling mode: which sampled events are too rare for the interval. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "rows/rare.h"
#include "rows/self.h"
#include "test.h"

static void test_rel_err(void)
{
	ASSERT_TRUE(fabs(rare_rel_err(100) - 0.10) < 1e-12,
		    "100 samples: 10 %");
	ASSERT_TRUE(fabs(rare_rel_err(10000) - 0.01) < 1e-12,
		    "10000 samples: 1 %");
	ASSERT_TRUE(isinf(rare_rel_err(0)), "no sample: no bound");
	ASSERT_TRUE(rare_rel_err(RARE_MIN_SAMPLES) <= RARE_MAX_REL_ERR + 1e-12,
		    "the threshold is where the error reaches the limit");
	ASSERT_TRUE(rare_rel_err(RARE_MIN_SAMPLES - 1) > RARE_MAX_REL_ERR,
		    "one sample fewer is above it");
}

static void add(struct rare *r, uint64_t s0, uint64_t c0, uint64_t s1,
		uint64_t c1)
{
	struct drain_sums s = {};

	s.samples[0] = s0;
	s.system[0] = c0;
	s.samples[1] = s1;
	s.system[1] = c1;
	rare__interval(r, &s, 2, 1000000000ull);
}

static void test_judge(void)
{
	struct rare r = {};
	struct rare_event out[BPMC_MAX_EVENTS];

	/* event 0 dense, event 1 at 30 samples an interval */
	add(&r, 2000, 2000000000, 30, 300);
	ASSERT_EQ(rare__judge(&r, 2, 1000000000ull, false, out), 0,
		  "too early");
	add(&r, 2000, 2000000000, 20, 200);
	add(&r, 2000, 2000000000, 40, 400);
	ASSERT_EQ(rare__judge(&r, 2, 1000000000ull, false, out), 1,
		  "one rare event");
	ASSERT_EQ(out[0].event, 1, "the sparse one");
	ASSERT_TRUE(fabs(out[0].samples_per_interval - 30) < 1e-9,
		    "the mean of the first intervals");
	ASSERT_TRUE(fabs(out[0].rel_err - 1 / sqrt(30)) < 1e-9,
		    "its expected error");
	add(&r, 1, 1, 1, 1);
	ASSERT_EQ(rare__judge(&r, 2, 1000000000ull, false, out), 0,
		  "judged once");
	ASSERT_EQ(rare__judge(&r, 2, 1000000000ull, true, out), 0,
		  "and not again at exit");
	ASSERT_EQ(r.intervals, 3, "nothing added once judged");
}

static void test_at_exit(void)
{
	struct rare r = {};
	struct rare_event out[BPMC_MAX_EVENTS];

	ASSERT_EQ(rare__judge(&r, 2, 1000000000ull, true, out), 0,
		  "no interval, no verdict");
	add(&r, 99, 99, 100, 100);
	ASSERT_EQ(rare__judge(&r, 2, 1000000000ull, true, out), 1,
		  "a short run is judged at exit");
	ASSERT_EQ(out[0].event, 0, "99 samples is below, 100 is not");
}

static void test_stretched_interval(void)
{
	struct rare r = {};
	struct rare_event out[BPMC_MAX_EVENTS];
	struct drain_sums s = {};

	/* 80 samples in each of two 40 ms intervals, 130 in one of 65 ms:
	 * 97 per interval on average, 80 per 40 ms */
	s.system[0] = 1;
	s.samples[0] = 80;
	rare__interval(&r, &s, 1, 40000000);
	rare__interval(&r, &s, 1, 40000000);
	s.samples[0] = 130;
	rare__interval(&r, &s, 1, 65000000);
	ASSERT_EQ(rare__judge(&r, 1, 40000000, false, out), 1,
		  "judged per nominal interval");
	ASSERT_TRUE(fabs(out[0].samples_per_interval - 80) < 1e-9,
		    "290 samples in 145 ms are 80 per 40 ms");
}

static void test_nothing_counted(void)
{
	struct rare r = {};
	struct rare_event out[BPMC_MAX_EVENTS];

	for (int i = 0; i < RARE_INTERVALS; i++)
		add(&r, 0, 0, 0, 5);
	ASSERT_EQ(rare__judge(&r, 2, 1000000000ull, false, out), 1,
		  "an event without a count is never rare");
	ASSERT_EQ(out[0].event, 1, "counts without samples are");
	ASSERT_TRUE(isinf(out[0].rel_err), "with no bound on their error");
}

/* A sink that keeps the event and value of each row. */
struct gauges {
	int nr;
	char event[4][64], value[4][32];
	bool no_count[4];
};

static int gauges_write_row(struct sink *s, const struct row *r)
{
	struct gauges *g = s->priv;

	if (g->nr == 4)
		return -1;
	snprintf(g->event[g->nr], sizeof(g->event[0]), "%s", r->event);
	snprintf(g->value[g->nr], sizeof(g->value[0]), "%s",
		 r->value ? r->value : "(null)");
	g->no_count[g->nr++] = r->no_count && !strcmp(r->scope, "self");
	return 0;
}

static void test_self_gauges(void)
{
	static const struct sink_ops ops = { .write_row = gauges_write_row };
	struct gauges g = {};
	struct sink sink = { .ops = &ops, .priv = &g };
	struct event_list events = { .nr = 3 };
	struct drain_sums s = {};

	snprintf(events.ev[0].name, sizeof(events.ev[0].name), "cpu-clock");
	snprintf(events.ev[1].name, sizeof(events.ev[1].name), "page-faults");
	snprintf(events.ev[2].name, sizeof(events.ev[2].name),
		 "cpu-migrations");
	s.system[0] = 1000000000;
	s.samples[0] = 400;
	s.system[1] = 7; /* counted, never sampled */
	ASSERT_OK(self__write_sampling_err(&events, &s, &sink), "written");
	ASSERT_EQ(g.nr, 2, "none for the event that counted nothing");
	ASSERT_STREQ(g.event[0], "sampling_rel_err:cpu-clock", "named");
	ASSERT_STREQ(g.value[0], "0.05", "1/sqrt(400)");
	ASSERT_STREQ(g.event[1], "sampling_rel_err:page-faults", "named");
	ASSERT_STREQ(g.value[1], "inf", "no sample: inf");
	ASSERT_TRUE(g.no_count[0] && g.no_count[1], "self gauges, no count");
}

static const struct subtest tests[] = {
	{ "rel_err", test_rel_err },
	{ "judge", test_judge },
	{ "at_exit", test_at_exit },
	{ "stretched_interval", test_stretched_interval },
	{ "nothing_counted", test_nothing_counted },
	{ "self_gauges", test_self_gauges },
	{ 0 },
};

int main(int argc, char **argv)
{
	return test_main(argc, argv, tests);
}
