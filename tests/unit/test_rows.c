// SPDX-License-Identifier: GPL-2.0
/*
 * The rows stage on hand-built map contents: grouping into thread,
 * process and cgroup rows, scaling, scopes, the system row, roll-up,
 * and errors travelling back from the sink. No BPF: the interval's
 * entries are written here as collector__take_retired() would leave
 * them, and a capture sink keeps the rows.
 */
#include <limits.h>

#include "capture_sink.h"
#include "common/scope.h"
#include "rows/drain.h"
#include "test.h"

/* An id no cgroup has: its rows carry no path. */
#define UNKNOWN_CGROUP 0xdead0000beefull

struct fixture {
	struct cgroups *cgroups;
	uint64_t root;
	struct event_list events;
	struct interval_data data;
	struct bpmc_key keys[8];
	struct bpmc_value values[8];
	struct counter_totals totals;
	struct rows_opts opts;
	struct capture cap;
	struct sink sink;
	struct drain_sums sums;
};

static void add(struct fixture *f, uint64_t cgroup, uint32_t tgid, uint32_t tid,
		const char *comm, uint64_t c0, uint64_t s0, uint64_t c1)
{
	size_t i = f->data.nr++;

	f->keys[i] = (struct bpmc_key){ cgroup, tgid, tid };
	memset(&f->values[i], 0, sizeof(f->values[i]));
	f->values[i].ev[0].count = c0;
	f->values[i].ev[0].samples = s0;
	f->values[i].ev[1].count = c1;
	snprintf(f->values[i].comm, sizeof(f->values[i].comm), "%s", comm);
}

/*
 * Four tasks in two cgroups, stored out of key order as a hash would
 * hand them: root holds pid 10 (threads 10, 11) and pid 20; an unknown
 * cgroup holds pid 30. Two events: cpu-clock (sampled) and page-faults.
 */
static bool fixture_init(struct fixture *f)
{
	struct error err = {};

	memset(f, 0, sizeof(*f));
	if (!ASSERT_OK(cgroups__new(&f->cgroups, NULL, &err), err.msg))
		return false;
	f->root = cgroups__root_id(f->cgroups);
	f->events.nr = 2;
	snprintf(f->events.ev[0].name, EVENT_NAME_LEN, "cpu-clock");
	snprintf(f->events.ev[1].name, EVENT_NAME_LEN, "page-faults");
	f->data.keys = f->keys;
	f->data.values = f->values;
	add(f, UNKNOWN_CGROUP, 30, 30, "c", 400, 4, 0);
	add(f, f->root, 10, 11, "a", 200, 2, 0);
	add(f, f->root, 20, 20, "b", 300, 3, 0);
	add(f, f->root, 10, 10, "a", 100, 1, 5);
	for (int e = 0; e < 2; e++)
		f->totals.raw[e].enabled = f->totals.raw[e].running = 1000;
	f->totals.scaled[0] = 1000;
	f->totals.scaled[1] = 5;
	f->opts = (struct rows_opts){
		.scopes = SCOPE_CGROUP | SCOPE_PROCESS | SCOPE_THREAD,
		.rollup_depth = -1,
		.cgroups = f->cgroups,
	};
	f->sink = (struct sink){ .ops = &capture_sink_ops, .priv = &f->cap };
	return true;
}

static void fixture_fini(struct fixture *f)
{
	capture__reset(&f->cap);
	cgroups__free(f->cgroups);
}

static int drain(struct fixture *f)
{
	return drain__write_rows(&f->data, &f->opts, &f->events, &f->totals,
				 &f->sink, &f->sums);
}

/* count and samples of the one row matching, or fail. */
static void expect_row(struct fixture *f, const char *scope, const char *ev,
		       int64_t pid, int64_t tid, uint64_t cgroup,
		       uint64_t count, uint64_t samples, const char *name)
{
	const struct row *r =
		capture__find(&f->cap, scope, ev, pid, tid, cgroup);

	if (!ASSERT_TRUE(r != NULL, name))
		return;
	ASSERT_EQ(r->count, count, name);
	ASSERT_EQ(r->samples, samples, name);
}

static void test_grouping(void)
{
	struct fixture f;
	const struct row *r;
	uint64_t R, U = UNKNOWN_CGROUP;

	if (!fixture_init(&f))
		return;
	R = f.root;
	if (!ASSERT_OK(drain(&f), "drain"))
		goto out;
	expect_row(&f, "thread", "cpu-clock", 10, 10, R, 100, 1, "thread 10");
	expect_row(&f, "thread", "cpu-clock", 10, 11, R, 200, 2, "thread 11");
	expect_row(&f, "thread", "cpu-clock", 20, 20, R, 300, 3, "thread 20");
	expect_row(&f, "thread", "cpu-clock", 30, 30, U, 400, 4, "thread 30");
	expect_row(&f, "thread", "page-faults", 10, 10, R, 5, 0, "pf 10");
	expect_row(&f, "process", "cpu-clock", 10, -1, R, 300, 3, "pid 10");
	expect_row(&f, "process", "cpu-clock", 20, -1, R, 300, 3, "pid 20");
	expect_row(&f, "process", "cpu-clock", 30, -1, U, 400, 4, "pid 30");
	expect_row(&f, "cgroup", "cpu-clock", -1, -1, R, 600, 6, "root");
	expect_row(&f, "cgroup", "cpu-clock", -1, -1, U, 400, 4, "unknown");
	expect_row(&f, "cgroup", "page-faults", -1, -1, R, 5, 0, "root pf");
	/* Zero counts make no rows: 4 + 1 thread, 3 + 1 process, 2 + 1
	 * cgroup, and one system row per event. */
	ASSERT_EQ(capture__count(&f.cap, "thread"), 5, "thread rows");
	ASSERT_EQ(capture__count(&f.cap, "process"), 4, "process rows");
	ASSERT_EQ(capture__count(&f.cap, "cgroup"), 3, "cgroup rows");
	ASSERT_EQ(capture__count(&f.cap, "system"), 2, "system rows");
	expect_row(&f, "system", "cpu-clock", -1, -1, 0, 1000, 10, "system");
	expect_row(&f, "system", "page-faults", -1, -1, 0, 5, 0, "system pf");

	r = capture__find(&f.cap, "cgroup", "cpu-clock", -1, -1, R);
	if (ASSERT_TRUE(r != NULL, "root row"))
		ASSERT_STREQ(r->cgroup, "/", "root path");
	r = capture__find(&f.cap, "cgroup", "cpu-clock", -1, -1, U);
	if (ASSERT_TRUE(r != NULL, "unknown row"))
		ASSERT_TRUE(r->cgroup == NULL, "unknown cgroup has no path");
	r = capture__find(&f.cap, "process", "cpu-clock", 10, -1, R);
	if (ASSERT_TRUE(r != NULL, "pid 10 row"))
		ASSERT_STREQ(r->comm, "a", "captured comm");
	r = capture__find(&f.cap, "cgroup", "cpu-clock", -1, -1, R);
	if (ASSERT_TRUE(r != NULL, "root row"))
		ASSERT_TRUE(r->comm == NULL && r->pid == -1, "no task");

	/* Every scope adds up to the system row, as --check verifies. */
	for (int s = 0; s < 3; s++) {
		ASSERT_EQ(f.sums.scope[s][0], 1000, "scope sum cpu-clock");
		ASSERT_EQ(f.sums.scope[s][1], 5, "scope sum page-faults");
	}
	ASSERT_EQ(f.sums.system[0], 1000, "system sum");
out:
	fixture_fini(&f);
}

/*
 * Sampled periods take the event's interval ratio; a key that carries
 * its own enabled/running (a counted delta) takes its own.
 */
static void test_scaling(void)
{
	struct fixture f;
	const struct row *r;

	if (!fixture_init(&f))
		return;
	f.totals.raw[0].enabled = 300;
	f.totals.raw[0].running = 100;
	f.values[1].ev[0].enabled = 200; /* (root, 10, 11): counted */
	f.values[1].ev[0].running = 100;
	if (!ASSERT_OK(drain(&f), "drain"))
		goto out;
	expect_row(&f, "thread", "cpu-clock", 10, 10, f.root, 300, 1, "x3");
	expect_row(&f, "thread", "cpu-clock", 10, 11, f.root, 400, 2,
		   "own ratio x2");
	expect_row(&f, "process", "cpu-clock", 10, -1, f.root, 700, 3,
		   "process of both");
	r = capture__find(&f.cap, "thread", "cpu-clock", 10, 10, f.root);
	if (ASSERT_TRUE(r != NULL, "row"))
		ASSERT_TRUE(r->running_pct > 33.3 && r->running_pct < 33.4,
			    "running_pct is running / enabled");
	r = capture__find(&f.cap, "thread", "page-faults", 10, 10, f.root);
	if (ASSERT_TRUE(r != NULL, "pf row"))
		ASSERT_TRUE(r->running_pct == 100.0, "unscaled event at 100%");
out:
	fixture_fini(&f);
}

/* Scopes not asked for write nothing, but the cgroup sums still feed the
 * tree's rows. */
static void test_scopes(void)
{
	struct fixture f;

	if (!fixture_init(&f))
		return;
	f.opts.scopes = SCOPE_CGROUP;
	f.opts.rollup_depth = INT_MAX;
	if (!ASSERT_OK(drain(&f), "drain"))
		goto out;
	ASSERT_EQ(capture__count(&f.cap, "thread"), 0, "no thread rows");
	ASSERT_EQ(capture__count(&f.cap, "process"), 0, "no process rows");
	ASSERT_EQ(capture__count(&f.cap, "cgroup"), 3, "cgroup rows");
	/* The unknown cgroup has no path, so no subtree to total. */
	expect_row(&f, "cgroup_total", "cpu-clock", -1, -1, f.root, 600, 6,
		   "root total");
	ASSERT_EQ(capture__count(&f.cap, "cgroup_total"), 2, "total rows");
	ASSERT_EQ(f.sums.scope[1][0], 0, "no process sums");
out:
	fixture_fini(&f);
}

/* An empty interval still has its system rows: the yardstick. */
static void test_empty(void)
{
	struct fixture f;

	if (!fixture_init(&f))
		return;
	f.data.nr = 0;
	if (!ASSERT_OK(drain(&f), "drain"))
		goto out;
	ASSERT_EQ(f.cap.nr, 2, "only system rows");
	expect_row(&f, "system", "cpu-clock", -1, -1, 0, 1000, 0, "system");
out:
	fixture_fini(&f);
}

/*
 * An event enabled and never run (a group the PMU never had room for):
 * its system row has no count rather than a zero, and running_pct 0;
 * the other event's is whole. Every key's counts are summed in keyed.
 */
static void test_never_ran(void)
{
	struct fixture f;
	const struct row *r;

	if (!fixture_init(&f))
		return;
	f.totals.raw[1].running = 0;
	f.totals.scaled[1] = 0;
	if (!ASSERT_OK(drain(&f), "drain"))
		goto out;
	r = capture__find(&f.cap, "system", "page-faults", -1, -1, 0);
	if (ASSERT_TRUE(r != NULL,
			"a system row for the event that never ran")) {
		ASSERT_TRUE(r->no_count, "without a count");
		ASSERT_TRUE(r->running_pct == 0, "running_pct 0");
	}
	r = capture__find(&f.cap, "system", "cpu-clock", -1, -1, 0);
	if (ASSERT_TRUE(r != NULL, "the other's system row"))
		ASSERT_TRUE(!r->no_count && r->count == 1000, "with its count");
	ASSERT_EQ(f.sums.keyed[0], 1000, "keyed: every key's cpu-clock");
out:
	fixture_fini(&f);
}

/* A sink that fails stops the interval and its error comes back. */
static void test_sink_error(void)
{
	struct fixture f;

	if (!fixture_init(&f))
		return;
	f.cap.fail_at = 3;
	ASSERT_EQ(drain(&f), -EIO, "error returned");
	ASSERT_EQ(f.cap.nr, 2, "nothing written after it");
	ASSERT_STREQ(f.sink.error.msg, "capture: row 3 refused", "message");
	fixture_fini(&f);
}

static const struct subtest tests[] = {
	{ "grouping", test_grouping },
	{ "scaling", test_scaling },
	{ "scopes", test_scopes },
	{ "empty", test_empty },
	{ "sink_error", test_sink_error },
	{ "never_ran", test_never_ran },
	{ 0 },
};

int main(int argc, char **argv)
{
	return test_main(argc, argv, tests);
}
