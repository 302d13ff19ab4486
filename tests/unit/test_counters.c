// SPDX-License-Identifier: GPL-2.0
/* Multiplexing scale and wrap-safe deltas. */
#include <stdio.h>
#include <string.h>

#include "fds/counters.h"
#include "test.h"

static void test_scale_full(void)
{
	/* Ran the whole time it was enabled: the count is exact. */
	ASSERT_EQ(counter_scale(1000, 500, 500), 1000, "running == enabled");
	ASSERT_EQ(counter_scale(0, 500, 500), 0, "zero count");
	ASSERT_EQ(counter_scale(UINT64_MAX, 7, 7), UINT64_MAX, "max count");
	/* A reading can have running slightly ahead: never scale down. */
	ASSERT_EQ(counter_scale(1000, 500, 501), 1000, "running > enabled");
}

static void test_scale_never_ran(void)
{
	/* Never scheduled on the PMU: nothing is known, and no division. */
	ASSERT_EQ(counter_scale(1000, 500, 0), 0, "running 0");
	ASSERT_EQ(counter_scale(0, 0, 0), 0, "all zero");
	ASSERT_EQ(counter_scale(UINT64_MAX, UINT64_MAX, 0), 0,
		  "max, running 0");
}

static void test_scale_partial(void)
{
	ASSERT_EQ(counter_scale(1000, 200, 100), 2000, "half running doubles");
	ASSERT_EQ(counter_scale(1000, 300, 100), 3000, "a third triples");
	ASSERT_EQ(counter_scale(1000, 3, 2), 1500, "three halves");
	ASSERT_EQ(counter_scale(1, 3, 2), 1, "rounds down");
	ASSERT_EQ(counter_scale(0, 200, 100), 0, "zero stays zero");
}

static void test_scale_large(void)
{
	/* value * enabled past 64 bits, and results near the top. */
	ASSERT_EQ(counter_scale(1ull << 40, 1ull << 40, 1ull << 39), 1ull << 41,
		  "2^80 product");
	ASSERT_EQ(counter_scale(UINT64_MAX / 2, 2, 1), UINT64_MAX - 1,
		  "result near max");
	ASSERT_EQ(counter_scale(1ull << 62, 3ull << 61, 1ull << 61), 3ull << 62,
		  "3 * 2^123 product");
	/* An hour enabled (ns), 3/4 of it running, 10^15 events. */
	ASSERT_EQ(counter_scale(1000000000000000ull, 3600000000000ull,
				2700000000000ull),
		  1333333333333333ull, "realistic large");
	ASSERT_EQ(counter_scale(1ull << 32, UINT64_MAX, 1ull << 32), UINT64_MAX,
		  "max enabled");
}

static void test_delta_plain(void)
{
	struct counter_reading prev = { 40, 100, 100 };
	struct counter_reading now = { 100, 300, 250 };
	struct counter_reading d = counter_delta(&now, &prev);

	ASSERT_EQ(d.value, 60, "value");
	ASSERT_EQ(d.enabled, 200, "enabled");
	ASSERT_EQ(d.running, 150, "running");

	d = counter_delta(&now, &now);
	ASSERT_EQ(d.value, 0, "same value");
	ASSERT_EQ(d.enabled, 0, "same enabled");
	ASSERT_EQ(d.running, 0, "same running");
}

static void test_delta_first(void)
{
	/* The first read subtracts the all-zero "last" reading. */
	struct counter_reading zero = { 0 };
	struct counter_reading now = { 5, 6, 7 };
	struct counter_reading d = counter_delta(&now, &zero);

	ASSERT_EQ(d.value, 5, "value");
	ASSERT_EQ(d.enabled, 6, "enabled");
	ASSERT_EQ(d.running, 7, "running");
}

static void test_delta_wrap(void)
{
	struct counter_reading prev = { UINT64_MAX - 5, UINT64_MAX,
					UINT64_MAX - 1 };
	struct counter_reading now = { 10, 0, 1 };
	struct counter_reading d = counter_delta(&now, &prev);

	ASSERT_EQ(d.value, 16, "value across wrap");
	ASSERT_EQ(d.enabled, 1, "enabled across wrap");
	ASSERT_EQ(d.running, 3, "running across wrap");
}

static void test_scale_saturates(void)
{
	ASSERT_EQ(counter_scale(1ull << 63, 4, 1), UINT64_MAX, "saturates");
	ASSERT_EQ(counter_scale(UINT64_MAX, UINT64_MAX, UINT64_MAX - 1),
		  UINT64_MAX, "saturates near max");
}

/* Cumulative readings over intervals: deltas telescope to the total. */
static void test_deltas_across_intervals(void)
{
	static const struct counter_reading seq[] = {
		{ 0, 0, 0 },	    { 1000, 100, 100 }, /* fully running */
		{ 1500, 200, 150 }, /* half running: 500 seen in 50 */
		{ 1500, 300, 150 }, /* not running at all */
		{ 4500, 400, 250 },
	};
	uint64_t sum_scaled = 0, sum_value = 0;

	for (size_t i = 1; i < sizeof(seq) / sizeof(seq[0]); i++) {
		struct counter_reading d = counter_delta(&seq[i], &seq[i - 1]);

		sum_value += d.value;
		sum_scaled += counter_scale(d.value, d.enabled, d.running);
	}
	ASSERT_EQ(sum_value, 4500, "raw deltas add up to the last reading");
	/* 1000 + 500*2 + 0 (never ran) + 3000 */
	ASSERT_EQ(sum_scaled, 5000, "each interval scaled on its own");
}

/* Members of a group share time slices: their ratio survives scaling. */
static void test_group_ratio(void)
{
	uint64_t cycles = counter_scale(3000000, 1000, 250);
	uint64_t instructions = counter_scale(6000000, 1000, 250);

	ASSERT_EQ(cycles, 12000000, "leader scaled x4");
	ASSERT_EQ(instructions, 24000000, "member scaled x4");
	ASSERT_EQ(instructions / cycles, 2, "IPC unchanged");
}

/* CPU hotplug: a counter whose CPU went away stops its enabled time. */
static void test_stopped(void)
{
	const uint64_t ms = 1000000;

	ASSERT_EQ(counter_stopped(500 * ms, 500 * ms), false, "kept pace");
	ASSERT_EQ(counter_stopped(499 * ms, 500 * ms + 30000), false,
		  "read a little late");
	ASSERT_EQ(counter_stopped(520 * ms, 500 * ms), false,
		  "ahead: enabled before the clock started");
	ASSERT_EQ(counter_stopped(0, 500 * ms), true, "never moved");
	ASSERT_EQ(counter_stopped(300 * ms, 500 * ms), true,
		  "away for 200 ms of 500");
	ASSERT_EQ(counter_stopped(430 * ms, 500 * ms), true,
		  "away for 70 ms of 500, past the slack");
	ASSERT_EQ(counter_stopped(450 * ms, 500 * ms), false,
		  "within the slack: caught one read later");
	/* A short last interval (a signal right after a boundary). */
	ASSERT_EQ(counter_stopped(10000, 12000), false, "12 us interval");
}

static struct event soft(const char *name, __u64 config, int leader)
{
	struct event ev = {
		.attr = { .type = PERF_TYPE_SOFTWARE,
			  .size = sizeof(struct perf_event_attr),
			  .config = config },
		.leader = leader,
	};

	snprintf(ev.name, sizeof(ev.name), "%s", name);
	return ev;
}

/*
 * --best-effort's trial: what opens, and why not. An event of a type no
 * PMU has stands for one this host lacks (cycles without a PMU).
 */
static void test_probe(void)
{
	struct counter_opts opts = { .freq = 97, .sampling = true };
	struct counter_probe out[BPMC_MAX_EVENTS];
	struct event_list list = { .nr = 5 };
	struct error err = {};

	list.ev[0] = soft("cpu-clock", PERF_COUNT_SW_CPU_CLOCK, 0);
	list.ev[1] = soft("nosuch", 0, 1); /* leads {nosuch,task-clock} */
	list.ev[1].attr.type = 0x7ffffff0;
	list.ev[2] = soft("task-clock", PERF_COUNT_SW_TASK_CLOCK, 1);
	list.ev[3] = soft("page-faults", PERF_COUNT_SW_PAGE_FAULTS, 3);
	list.ev[4] = soft("bad-config", 0x7fff, 3); /* in page-faults' group */
	if (!ASSERT_OK(counters__probe(&list, &opts, out, &err), err.msg))
		return;
	if (!out[0].ok && strstr(out[0].reason, "not permitted")) {
		TEST_SKIP(
			"perf_event_open is refused: needs root, or perf_event_paranoid < 2");
		return;
	}
	ASSERT_TRUE(out[0].ok, out[0].reason);
	ASSERT_TRUE(!out[1].ok, "an unknown type does not open");
	ASSERT_STREQ(out[1].reason, "this kernel does not support the event",
		     "and says why");
	ASSERT_TRUE(out[2].ok, "a member whose leader failed leads instead");
	ASSERT_TRUE(out[3].ok, out[3].reason);
	ASSERT_TRUE(!out[4].ok, "a member that does not open");
	ASSERT_TRUE(out[4].reason[0] && !strstr(out[4].reason, "group"),
		    out[4].reason);
}

static const struct subtest tests[] = {
	{ "probe", test_probe },
	{ "stopped", test_stopped },
	{ "deltas_across_intervals", test_deltas_across_intervals },
	{ "group_ratio", test_group_ratio },
	{ "scale_saturates", test_scale_saturates },
	{ "scale_full", test_scale_full },
	{ "scale_never_ran", test_scale_never_ran },
	{ "scale_partial", test_scale_partial },
	{ "scale_large", test_scale_large },
	{ "delta_plain", test_delta_plain },
	{ "delta_first", test_delta_first },
	{ "delta_wrap", test_delta_wrap },
	{ 0 },
};

int main(int argc, char **argv)
{
	return test_main(argc, argv, tests);
}
