// SPDX-License-Identifier: GPL-2.0
/*
 * bpmc top's sink and layout without a terminal: rows in, --batch's text
 * out (order, rates, metrics, narrow widths, filters, hostile names).
 */
#include <stdlib.h>

#include "test.h"
#include "top/top.h"
#include "top/view.h"

static struct event_support events2[] = {
	{ .event = "cpu-clock", .supported = true },
	{ .event = "page-faults", .supported = true },
};

static struct event_support hw[] = {
	{ .event = "cycles", .supported = true },
	{ .event = "instructions", .supported = true },
	{ .event = "cache-misses", .supported = false, .reason = "no" },
};

struct run {
	struct top *top;
	FILE *out;
	char *text;
	size_t len;
};

static bool start(struct run *r, enum top_scope by, int width,
		  const char *filter)
{
	struct top_config cfg = {
		.host = "h",
		.nr_cpus = 2,
		.interval_ms = 1000,
		.by = by,
		.filter = filter,
		.batch_width = width,
	};
	struct error err = {};

	r->out = open_memstream(&r->text, &r->len);
	cfg.batch = r->out;
	return ASSERT_TRUE(r->out, "open_memstream") &&
	       ASSERT_EQ(top__new(&r->top, &cfg, &err), 0, "top__new");
}

static void interval(struct run *r, struct event_support *ev, size_t nr)
{
	struct interval_info info = {
		.end_realtime_ns = 1000000000ull * 3600,
		.length_ns = 2000000000ull, /* 2 s: rates are half counts */
		.host = "h",
		.events = ev,
		.nr_events = nr,
	};
	struct sink *s = top__sink(r->top);

	ASSERT_EQ(s->ops->begin_interval(s, &info), 0, "begin_interval");
}

static void row(struct run *r, const char *scope, uint64_t cg, const char *path,
		int64_t pid, const char *comm, const char *event,
		uint64_t count)
{
	struct row w = {
		.scope = scope,
		.cgroup_id = cg,
		.cgroup = path,
		.pid = pid,
		.tid = -1,
		.comm = comm,
		.event = event,
		.count = count,
		.running_pct = 100,
	};
	struct sink *s = top__sink(r->top);

	ASSERT_EQ(s->ops->write_row(s, &w), 0, "write_row");
}

static void finish(struct run *r)
{
	struct sink *s = top__sink(r->top);

	ASSERT_EQ(s->ops->end_interval(s), 0, "end_interval");
	fflush(r->out);
}

static void stop(struct run *r)
{
	top__free(r->top);
	fclose(r->out);
	free(r->text);
}

/* The line whose last word is name, or NULL. */
static const char *line_of(const char *text, const char *name)
{
	const char *l = text, *nl;
	size_t n = strlen(name);

	for (; *l; l = nl + 1) {
		nl = strchr(l, '\n');
		if (!nl)
			return NULL;
		if ((size_t)(nl - l) >= n && !strncmp(nl - n, name, n) &&
		    (nl - l == (long)n || *(nl - n - 1) == ' '))
			return l;
	}
	return NULL;
}

static void two_cgroups(struct run *r)
{
	interval(r, events2, 2);
	row(r, "system", 0, NULL, -1, NULL, "cpu-clock", 4000000000ull);
	row(r, "cgroup", 7, "/cool", -1, NULL, "cpu-clock", 400000000);
	row(r, "cgroup", 7, "/cool", -1, NULL, "page-faults", 3000);
	row(r, "cgroup", 9, "/hot", -1, NULL, "cpu-clock", 1200000000);
	row(r, "process", 9, "/hot", 42, "burner", "cpu-clock", 1200000000);
	row(r, "self", 0, NULL, 1, "bpmc", "cpu_user_ns", 20000000);
	finish(r);
}

static void test_order_and_rates(void)
{
	struct run r = {};
	const char *hot, *cool;

	if (!start(&r, TOP_CGROUP, 120, NULL))
		return;
	two_cgroups(&r);
	hot = line_of(r.text, "/hot");
	cool = line_of(r.text, "/cool");
	if (ASSERT_TRUE(hot && cool, "both cgroups shown")) {
		ASSERT_TRUE(hot < cool, "the busier first (CPU%, descending)");
		/* 1.2 s of cpu-clock in 2 s: 600M ns/s, 60.0 % of a CPU. */
		ASSERT_TRUE(strstr(hot, " 600M ") && strstr(hot, " 60.0 "),
			    "hot: 600M/s and 60.0 %");
		ASSERT_TRUE(strstr(cool, " 200M ") && strstr(cool, " 1.50k ") &&
				    strstr(cool, " 20.0 "),
			    "cool: 200M/s, 1.50k faults/s, 20.0 %");
	}
	ASSERT_TRUE(strstr(r.text, "by cgroup - 2 keys - sort CPU%") != NULL,
		    "the header's grouping, keys and sort");
	ASSERT_TRUE(strstr(r.text, "bpmc: cpu 1.00% of a CPU") != NULL,
		    "bpmc's own CPU from the self rows");
	ASSERT_TRUE(!line_of(r.text, "burner[42]"), "no process by cgroup");
	stop(&r);
}

static void test_no_containers_fall_back(void)
{
	struct run r = {};

	if (!start(&r, TOP_CONTAINER, 120, NULL))
		return;
	two_cgroups(&r);
	ASSERT_TRUE(strstr(r.text, "by cgroup (no containers here)") != NULL,
		    "without containers, cgroups, said");
	ASSERT_TRUE(line_of(r.text, "/hot") != NULL, "cgroups shown");
	stop(&r);
}

static void test_filter_and_process(void)
{
	struct run r = {};

	if (!start(&r, TOP_PROCESS, 120, "BURN"))
		return;
	two_cgroups(&r);
	ASSERT_TRUE(line_of(r.text, "burner[42]") != NULL,
		    "a process as comm[pid], the filter case-blind");
	ASSERT_TRUE(strstr(r.text, "1 keys") != NULL, "one key");
	stop(&r);
}

static void test_narrow(void)
{
	struct run r = {};
	const char *l, *nl;
	int widest = 0, cols;

	if (!start(&r, TOP_CGROUP, 30, NULL))
		return;
	two_cgroups(&r);
	for (l = r.text; (nl = strchr(l, '\n')); l = nl + 1) {
		cols = 0;
		for (const char *p = l; p < nl; p++)
			cols += ((unsigned char)*p & 0xc0) != 0x80;
		widest = cols > widest ? cols : widest;
	}
	ASSERT_TRUE(widest <= 30, "no line wider than 30 columns");
	ASSERT_TRUE(strstr(r.text, "*CPU%") && strstr(r.text, "NAME"),
		    "the sort column and the names stay");
	ASSERT_TRUE(!strstr(r.text, "page-faults  ") &&
			    !strstr(r.text, "cpu-clock  "),
		    "the columns that do not fit beside the sort column go");
	ASSERT_TRUE(line_of(r.text, "/hot") != NULL, "the names are whole");
	stop(&r);
}

static void test_hostile_name(void)
{
	struct run r = {};

	if (!start(&r, TOP_CGROUP, 120, NULL))
		return;
	interval(&r, events2, 2);
	row(&r, "cgroup", 5, "/a\x1b[2J\nb\xff", -1, NULL, "cpu-clock", 1000);
	finish(&r);
	ASSERT_TRUE(!strchr(r.text, '\x1b'), "no escape reaches the terminal");
	ASSERT_TRUE(line_of(r.text, "/a\\x1B[2J\\x0Ab\\xFF") != NULL,
		    "escaped as in the CSV");
	stop(&r);
}

static void test_metrics(void)
{
	struct run r = {};
	const char *l;

	if (!start(&r, TOP_CGROUP, 120, NULL))
		return;
	interval(&r, hw, 3);
	row(&r, "cgroup", 5, "/x", -1, NULL, "cycles", 2000);
	row(&r, "cgroup", 5, "/x", -1, NULL, "instructions", 3000);
	finish(&r);
	l = line_of(r.text, "/x");
	ASSERT_TRUE(
		strstr(r.text, "IPC") && !strstr(r.text, "MISS%"),
		"IPC from cycles and instructions; no miss ratio without its events");
	ASSERT_TRUE(l && strstr(l, " 1.50 "), "IPC 3000 / 2000");
	ASSERT_TRUE(!strstr(r.text, "cache-misses"),
		    "an event this host cannot count has no column");
	stop(&r);
}

static void test_format_si(void)
{
	char b[16];

	top_format_si(0, b, sizeof(b));
	ASSERT_STREQ(b, "0", "0");
	top_format_si(0.5, b, sizeof(b));
	ASSERT_STREQ(b, "0.50", "a fraction");
	top_format_si(999.4, b, sizeof(b));
	ASSERT_STREQ(b, "999", "below 1k");
	top_format_si(999.6, b, sizeof(b));
	ASSERT_STREQ(b, "1.00k", "rounds up into k");
	top_format_si(1.5e9, b, sizeof(b));
	ASSERT_STREQ(b, "1.50G", "G");
	top_format_si(45.6e6, b, sizeof(b));
	ASSERT_STREQ(b, "45.6M", "M");
}

static void row_ctr(struct run *r, const char *container, const char *ns,
		    const char *pod_name, const char *ctr_name, uint64_t count)
{
	struct row w = {
		.scope = "container",
		.pid = -1,
		.tid = -1,
		.container = container,
		.pod = container ? "3f2a1c0e-1b2d-4e5f-8a9b-0c1d2e3f4a5b" :
				   NULL,
		.namespace = ns,
		.pod_name = pod_name,
		.container_name = ctr_name,
		.event = "cpu-clock",
		.count = count,
		.running_pct = 100,
	};
	struct sink *s = top__sink(r->top);

	ASSERT_EQ(s->ops->write_row(s, &w), 0, "write_row");
}

/* Every name line of a --batch text (after the NAME header). */
static int names(const char *text, int width, char out[][128], int max)
{
	const char *l = strstr(text, "NAME\n"), *nl;
	int n = 0;

	if (!l)
		return 0;
	for (l = strchr(l, '\n') + 1;
	     (nl = strchr(l, '\n')) && nl > l && n < max; l = nl + 1) {
		/* The name starts past the last column: at the NAME column. */
		snprintf(out[n++], 128, "%.*s", (int)(nl - l), l);
	}
	(void)width;
	return n;
}

/*
 * Names first, never two the same: two containers of one pod whose
 * names differ at the end, at a width that must cut them; two ids that
 * share 63 digits (their 12 `docker ps` characters the same); the
 * outside key. The keys add up to the system row.
 */
static void test_container_names(void)
{
	struct run r = {};
	char got[16][128];
	int n;

	if (!start(&r, TOP_CONTAINER, 60, NULL))
		return;
	interval(&r, events2, 2);
	row(&r, "system", 0, NULL, -1, NULL, "cpu-clock", 4000000000ull);
	row_ctr(&r, "containerd://a1", "shop",
		"cart-7d9f5c6b8d-xk2lp-with-a-long-generated-suffix",
		"api-gateway", 900000000);
	row_ctr(&r, "containerd://a2", "shop",
		"cart-7d9f5c6b8d-xk2lp-with-a-long-generated-suffix",
		"api-worker", 800000000);
	row_ctr(&r,
		"docker://00000000000000000000000000000000000000000000000000"
		"00000000000001",
		NULL, NULL, NULL, 700000000);
	row_ctr(&r,
		"docker://00000000000000000000000000000000000000000000000000"
		"00000000000002",
		NULL, NULL, NULL, 600000000);
	row_ctr(&r,
		"docker://7f3c9a1b2d4e0000000000000000000000000000000000000000"
		"000000000003",
		NULL, NULL, NULL, 500000000);
	row_ctr(&r, NULL, NULL, NULL, NULL, 500000000);
	finish(&r);
	n = names(r.text, 60, got, 16);
	ASSERT_EQ(n, 6, "6 keys");
	for (int i = 0; i < n; i++)
		for (int j = i + 1; j < n; j++)
			ASSERT_TRUE(strcmp(got[i], got[j]),
				    "no two keys shown the same");
	ASSERT_TRUE(strstr(r.text, "(outside containers)") != NULL,
		    "the outside key, named");
	ASSERT_TRUE(strstr(r.text, "docker://7f3c9a1b2d4e\n") != NULL,
		    "an id as docker ps shows it");
	ASSERT_TRUE(strstr(r.text, "000000000001\n") &&
			    strstr(r.text, "000000000002\n"),
		    "ids alike in their first 12: their ends shown");
	ASSERT_TRUE(strstr(r.text, "shop/cart-") && strstr(r.text, "~") &&
			    strstr(r.text, "/api-worker\n") &&
			    strstr(r.text, "/api-gateway\n"),
		    "namespace/pod/container, cut in the middle");
	stop(&r);
}

/*
 * A container restarted within the interval: a new id, the same
 * namespace/pod/container. Both are shown, apart: with 12 of their ids,
 * or, where those match too, the whole ids.
 */
static void test_restarted_names(void)
{
	struct run r = {};

	if (!start(&r, TOP_CONTAINER, 200, NULL))
		return;
	interval(&r, events2, 2);
	row(&r, "system", 0, NULL, -1, NULL, "cpu-clock", 4000000000ull);
	row_ctr(&r, "containerd://7f3c9a1b2d4e99", "shop", "cart", "api",
		900000000);
	row_ctr(&r, "containerd://1e2d3c4b5a6988", "shop", "cart", "api",
		800000000);
	row_ctr(&r, "containerd://0000000000000001", "shop", "cart", "db",
		700000000);
	row_ctr(&r, "containerd://0000000000000002", "shop", "cart", "db",
		600000000);
	finish(&r);
	ASSERT_TRUE(line_of(r.text, "containerd://7f3c9a1b2d4e") &&
			    line_of(r.text, "containerd://1e2d3c4b5a69"),
		    "a name twice: each with 12 of its id");
	ASSERT_TRUE(strstr(r.text,
			   "shop/cart/api containerd://7f3c9a1b2d4e\n") != NULL,
		    "the name first");
	ASSERT_TRUE(line_of(r.text, "containerd://0000000000000001") &&
			    line_of(r.text, "containerd://0000000000000002"),
		    "12 alike too: the whole ids");
	stop(&r);
}

/* A host without containers has their outside row only: cgroups. */
static void test_outside_alone(void)
{
	struct run r = {};

	if (!start(&r, TOP_CONTAINER, 120, NULL))
		return;
	interval(&r, events2, 2);
	row(&r, "system", 0, NULL, -1, NULL, "cpu-clock", 4000000000ull);
	row(&r, "cgroup", 9, "/hot", -1, NULL, "cpu-clock", 1200000000);
	row_ctr(&r, NULL, NULL, NULL, NULL, 4000000000ull);
	finish(&r);
	ASSERT_TRUE(strstr(r.text, "by cgroup (no containers here)") != NULL,
		    "the outside key alone: cgroups, said");
	stop(&r);
}

/* The process view: the idle task (pid 0) after every process. */
static void test_idle_last(void)
{
	struct run r = {};
	const char *idle, *burner;

	if (!start(&r, TOP_PROCESS, 120, NULL))
		return;
	interval(&r, events2, 2);
	row(&r, "system", 0, NULL, -1, NULL, "cpu-clock", 4000000000ull);
	row(&r, "process", 1, "/", 0, "swapper/0", "cpu-clock", 3000000000ull);
	row(&r, "process", 9, "/hot", 42, "burner", "cpu-clock", 600000000);
	finish(&r);
	idle = line_of(r.text, "swapper/0[0]");
	burner = line_of(r.text, "burner[42]");
	if (ASSERT_TRUE(idle && burner, "both shown"))
		ASSERT_TRUE(burner < idle, "the idle task last");
	stop(&r);
}

static const struct subtest tests[] = {
	{ "container_names", test_container_names },
	{ "idle_last", test_idle_last },
	{ "restarted_names", test_restarted_names },
	{ "outside_alone", test_outside_alone },
	{ "order_and_rates", test_order_and_rates },
	{ "no_containers_fall_back", test_no_containers_fall_back },
	{ "filter_and_process", test_filter_and_process },
	{ "narrow", test_narrow },
	{ "hostile_name", test_hostile_name },
	{ "metrics", test_metrics },
	{ "format_si", test_format_si },
	{ 0 },
};

int main(int argc, char **argv)
{
	return test_main(argc, argv, tests);
}
