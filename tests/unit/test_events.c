// SPDX-License-Identifier: GPL-2.0
/* Event names -> perf_event_attr through libpfm. No PMU is opened. */
#include <errno.h>
#include <string.h>
#include <sys/stat.h>

#include "names/events.h"
#include "test.h"

static struct events *names;
static struct event_list list;
static struct error error;
static const char *err = error.msg;

static int parse(const char *spec)
{
	memset(&list, 0xa5, sizeof(list));
	error.msg[0] = '\0';
	return events__parse_list(names, spec, &list, &error);
}

static bool err_has(const char *what)
{
	return strstr(err, what) != NULL;
}

/* Handles are independent: a second one, forced, leaves the first be. */
static void test_handles(void)
{
	struct events *forced = NULL;
	struct error e = {};

	if (!ASSERT_OK(events__new(&forced, "amd64_fam19h_zen4", &e), "forced"))
		return;
	ASSERT_STREQ(events__core_table(forced), "amd64_fam19h_zen4",
		     "forced core");
	ASSERT_TRUE(events__core_table(names) == NULL ||
			    strcmp(events__core_table(names),
				   "amd64_fam19h_zen4") ||
			    events__nearest_table(names) == NULL,
		    "first handle keeps its own table");
	events__free(forced);
	ASSERT_EQ(events__new(&forced, "zen4", &e), -ENOENT, "bad table");
	ASSERT_TRUE(strstr(e.msg, "'--pmu zen4'") != NULL, "names --pmu");
	ASSERT_TRUE(strstr(e.msg, "amd64_fam19h_zen4") != NULL, "suggests");
}

static void test_two_software(void)
{
	if (!ASSERT_OK(parse("cpu-clock,page-faults"), "parse"))
		return;
	ASSERT_EQ(list.nr, 2, "nr");
	ASSERT_STREQ(list.ev[0].name, "cpu-clock", "name 0");
	ASSERT_STREQ(list.ev[1].name, "page-faults", "name 1");
	ASSERT_EQ(list.ev[0].attr.type, PERF_TYPE_SOFTWARE, "type 0");
	ASSERT_EQ(list.ev[1].attr.type, PERF_TYPE_SOFTWARE, "type 1");
	ASSERT_EQ(list.ev[0].attr.type, 1, "software is 1");
	ASSERT_EQ(list.ev[0].attr.config, PERF_COUNT_SW_CPU_CLOCK, "config 0");
	ASSERT_EQ(list.ev[1].attr.config, PERF_COUNT_SW_PAGE_FAULTS,
		  "config 1");
	ASSERT_EQ(list.ev[0].attr.config, 0, "cpu-clock is 0");
	ASSERT_EQ(list.ev[1].attr.config, 2, "page-faults is 2");
	ASSERT_EQ(list.ev[0].attr.size, sizeof(struct perf_event_attr),
		  "attr size");
	ASSERT_TRUE(!list.ev[0].own_period, "no own period 0");
	ASSERT_TRUE(!list.ev[1].own_period, "no own period 1");
	/* perf's legacy names go through perf's grammar, not libpfm. */
	ASSERT_STREQ(list.ev[0].fstr, "cpu-clock", "fstr in perf's form");
	ASSERT_EQ(list.ev[0].attr.exclude_hv, 0, "perf's default levels");
	ASSERT_TRUE(!event__is_hardware(&list.ev[0]), "software");
}

static void test_single(void)
{
	if (!ASSERT_OK(parse("page-faults"), "parse"))
		return;
	ASSERT_EQ(list.nr, 1, "nr");
	ASSERT_EQ(list.ev[0].attr.config, PERF_COUNT_SW_PAGE_FAULTS, "config");
}

static void test_empty_names(void)
{
	ASSERT_EQ(parse("cpu-clock,,page-faults"), -EINVAL, "double comma");
	ASSERT_TRUE(err_has("empty event name"), "double comma message");
	ASSERT_EQ(parse("cpu-clock,"), -EINVAL, "trailing comma");
	ASSERT_TRUE(err_has("empty event name"), "trailing comma message");
	ASSERT_EQ(parse(",cpu-clock"), -EINVAL, "leading comma");
	ASSERT_EQ(parse(","), -EINVAL, "lone comma");
	ASSERT_EQ(parse(""), -EINVAL, "empty list");
	ASSERT_TRUE(err_has("empty event list"), "empty list message");
}

static void test_unknown(void)
{
	ASSERT_EQ(parse("nosuchevent"), -ENOENT, "unknown");
	ASSERT_TRUE(err_has("'nosuchevent'"), "message names it");
	ASSERT_TRUE(!strchr(err, '\n'), "one line");
	ASSERT_EQ(parse("cpu-clock,nosuchevent2"), -ENOENT, "unknown second");
	ASSERT_TRUE(err_has("'nosuchevent2'"), "message names the second");
	ASSERT_EQ(parse("cpu-clock:nosuchmod=1"), -ENOENT, "unknown modifier");
	ASSERT_TRUE(err_has("'cpu-clock:nosuchmod=1'"), "modifier named");
}

static void test_duplicate(void)
{
	ASSERT_EQ(parse("cpu-clock,page-faults,cpu-clock"), -EINVAL,
		  "duplicate");
	ASSERT_TRUE(err_has("'cpu-clock'"), "message names it");
	ASSERT_TRUE(err_has("twice"), "message says twice");
}

static void test_too_many(void)
{
	char spec[512];
	size_t pos = 0;

	/* Distinct names: the same event with different periods. */
	for (int i = 1; i <= BPMC_MAX_EVENTS; i++)
		pos += snprintf(spec + pos, sizeof(spec) - pos,
				"%scpu-clock:period=%d", i > 1 ? "," : "", i);
	if (!ASSERT_OK(parse(spec), "exactly the maximum"))
		return;
	ASSERT_EQ(list.nr, BPMC_MAX_EVENTS, "nr");
	snprintf(spec + pos, sizeof(spec) - pos, ",page-faults");
	ASSERT_EQ(parse(spec), -E2BIG, "one more");
	ASSERT_TRUE(err_has("too many events"), "message");
}

static void test_own_period(void)
{
	if (!ASSERT_OK(parse("cpu-clock:period=1000"), "period"))
		return;
	ASSERT_STREQ(list.ev[0].name, "cpu-clock:period=1000",
		     "name as written");
	ASSERT_TRUE(list.ev[0].own_period, "own period");
	ASSERT_EQ(list.ev[0].attr.freq, 0, "not freq");
	ASSERT_EQ(list.ev[0].attr.sample_period, 1000, "sample_period");
	ASSERT_EQ(list.ev[0].attr.config, PERF_COUNT_SW_CPU_CLOCK, "config");

	if (!ASSERT_OK(parse("cpu-clock:freq=100"), "freq"))
		return;
	ASSERT_TRUE(list.ev[0].own_period, "own freq");
	ASSERT_EQ(list.ev[0].attr.freq, 1, "freq bit");
	ASSERT_EQ(list.ev[0].attr.sample_freq, 100, "sample_freq");

	ASSERT_ERR(parse("cpu-clock:period=0"), "period 0 refused");
}

static void test_hardware_encodes(void)
{
	/* Encoding needs no PMU: this runs on any host, VMs included. */
	if (!ASSERT_OK(parse("PERF_COUNT_HW_CPU_CYCLES:period=1000"), "parse"))
		return;
	ASSERT_EQ(list.ev[0].attr.type, PERF_TYPE_HARDWARE, "type");
	ASSERT_EQ(list.ev[0].attr.config, PERF_COUNT_HW_CPU_CYCLES, "config");
	ASSERT_TRUE(list.ev[0].own_period, "own period");
	ASSERT_EQ(list.ev[0].attr.sample_period, 1000, "sample_period");
	ASSERT_TRUE(event__is_hardware(&list.ev[0]), "hardware");

	if (!ASSERT_OK(parse("cycles,cpu-clock"), "alias"))
		return;
	ASSERT_EQ(list.ev[0].attr.type, PERF_TYPE_HARDWARE, "cycles type");
	ASSERT_TRUE(!list.ev[0].own_period, "cycles no own period");
	ASSERT_TRUE(!event__is_hardware(&list.ev[1]), "cpu-clock software");
}

static void test_pmu_body_not_split(void)
{
	/* A comma inside PMU/.../ belongs to the name. libpfm may or may
	 * not know the PMU; either way the name must reach it whole. */
	int ret = parse("cpu/event=0x3c,umask=0x0/,cpu-clock");

	if (ret) {
		ASSERT_TRUE(err_has("'cpu/event=0x3c,umask=0x0/'"),
			    "whole name reported");
	} else {
		ASSERT_EQ(list.nr, 2, "two events");
		ASSERT_STREQ(list.ev[0].name, "cpu/event=0x3c,umask=0x0/",
			     "whole name");
	}
}

/* The same through a PMU this kernel always has: both must encode. */
static void test_sysfs_in_list(void)
{
	ASSERT_OK(parse("software/config=0x2,config1=0x0/,cpu-clock"),
		  "sysfs name with a comma, then another");
	ASSERT_EQ(list.nr, 2, "two events");
	ASSERT_EQ(list.ev[0].attr.type, PERF_TYPE_SOFTWARE, "software type");
	ASSERT_EQ(list.ev[0].attr.config, 2, "config from the term");
	ASSERT_STREQ(list.ev[1].name, "cpu-clock", "second name");
}

static void test_encode_too_long(void)
{
	char name[EVENT_NAME_LEN + 10];
	struct event ev;

	memset(name, 'a', sizeof(name) - 1);
	name[sizeof(name) - 1] = '\0';
	ASSERT_EQ(events__encode(names, name, &ev, &error), -ENAMETOOLONG,
		  "too long");
	ASSERT_TRUE(err_has("too long"), "message");
}

/* --best-effort's list: what is dropped leaves the rest led right. */
static void test_keep(void)
{
	struct event_list out;
	int map[BPMC_MAX_EVENTS];
	bool keep[] = { false, true, true, true, false, true, true };

	/* 0 {1 2} 3 {4 5 6}: a group's leader dropped, one kept whole. */
	if (!ASSERT_OK(parse("cpu-clock,{task-clock,page-faults},"
			     "context-switches,{cpu-migrations,minor-faults,"
			     "major-faults}"),
		       "parse"))
		return;
	keep[0] = true;
	keep[4] = false;
	event_list__keep(&list, keep, &out, map);
	ASSERT_EQ(out.nr, 6, "nr");
	ASSERT_EQ(map[4], -1, "dropped");
	ASSERT_EQ(map[5], 4, "moved up");
	ASSERT_STREQ(out.ev[4].name, "minor-faults", "name follows");
	ASSERT_EQ(out.ev[0].leader, 0, "alone");
	ASSERT_EQ(out.ev[1].leader, 1, "group kept: its leader");
	ASSERT_EQ(out.ev[2].leader, 1, "group kept: its member");
	ASSERT_EQ(out.ev[3].leader, 3, "alone, shifted");
	ASSERT_EQ(out.ev[4].leader, 4, "first member leads");
	ASSERT_EQ(out.ev[5].leader, 4, "and the next follows it");

	/* Dropped in the middle of a group; then everything dropped. */
	memset(keep, 1, sizeof(keep));
	keep[2] = false;
	event_list__keep(&list, keep, &out, map);
	ASSERT_EQ(out.nr, 6, "one dropped");
	ASSERT_EQ(out.ev[1].leader, 1, "leader stays");
	ASSERT_EQ(out.ev[2].leader, 2, "next event alone");
	ASSERT_EQ(out.ev[3].leader, 3, "group after it shifted");
	ASSERT_EQ(out.ev[5].leader, 3, "its member follows");
	memset(keep, 0, sizeof(keep));
	event_list__keep(&list, keep, &out, map);
	ASSERT_EQ(out.nr, 0, "none kept");
	ASSERT_EQ(map[6], -1, "none mapped");
}

/*
 * --pmu takes a table as libpfm takes TABLE:: (any case), and a bare name
 * then goes through that table alone, found there or not, whatever the
 * tables libpfm detected say (validate_x86.c's entries, bare).
 */
static void test_forced_tables(void)
{
	struct events *h = NULL;
	struct error e = {};
	struct event ev;
	struct stat st;

	if (!ASSERT_OK(events__new(&h, "AMD64_FAM17H_ZEN2", &e), "any case"))
		return;
	ASSERT_STREQ(events__core_table(h), "amd64_fam17h_zen2",
		     "libpfm's spelling");
	/* Zen 4 has it too, but wants a unit mask: Zen 2's table decides. */
	if (ASSERT_OK(events__encode(h, "L2_PREFETCH_HIT_L2", &ev, &e),
		      "through the forced table"))
		ASSERT_EQ(ev.attr.config, 0x1f70, "zen2's default unit mask");
	events__free(h);

	/* Only cbo0 has UNC_CLOCKTICKS: unknown in cbo1, PMU or not. */
	if (!ASSERT_OK(events__new(&h, "snb_unc_cbo1", &e), "uncore table"))
		return;
	ASSERT_EQ(events__encode(h, "UNC_CLOCKTICKS", &ev, &e), -ENOENT,
		  "not in cbo1");
	ASSERT_TRUE(strstr(e.msg, "unknown event") != NULL, "unknown");
	events__free(h);

	/* Refused for the forced table's kernel PMU, not another's. */
	if (stat("/sys/bus/event_source/devices/uncore_cha_6", &st) == 0 ||
	    !ASSERT_OK(events__new(&h, "skx_unc_cha6", &e), "cha6"))
		return;
	ASSERT_EQ(events__encode(h, "UNC_C_CLOCKTICKS", &ev, &e), -ENODEV,
		  "no uncore_cha_6");
	ASSERT_TRUE(strstr(e.msg, "'uncore_cha_6'") != NULL, "names it");
	events__free(h);
}

static const struct subtest tests[] = {
	{ "forced_tables", test_forced_tables },
	{ "keep", test_keep },
	{ "handles", test_handles },
	{ "two_software", test_two_software },
	{ "single", test_single },
	{ "empty_names", test_empty_names },
	{ "unknown", test_unknown },
	{ "duplicate", test_duplicate },
	{ "too_many", test_too_many },
	{ "own_period", test_own_period },
	{ "hardware_encodes", test_hardware_encodes },
	{ "pmu_body_not_split", test_pmu_body_not_split },
	{ "encode_too_long", test_encode_too_long },
	{ "sysfs_in_list", test_sysfs_in_list },
	{ 0 },
};

int main(int argc, char **argv)
{
	/* Every subtest needs libpfm, also when run alone with -t. */
	struct error e = {};
	int ret;

	if (events__new(&names, NULL, &e)) {
		printf("FAIL init: %s\n", e.msg);
		return 1;
	}
	ret = test_main(argc, argv, tests);
	events__free(names);
	return ret;
}
