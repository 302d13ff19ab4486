// SPDX-License-Identifier: GPL-2.0
/*
 * The report's reader on texts made here: timestamps, the header's
 * refusals, versions read alike (raw text of v1 escaped as v5 writes it,
 * doubled quotes), filters, the old files' intervals, and the table's
 * merge. The whole path on real exports is tests/integration/test_report.sh.
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>

#include "report/scan.h"
#include "test.h"

#define V6_HEADER                                                                \
	"time,host,interval_ms,scope,cgroup_id,cgroup,pid,tid,comm,event,count," \
	"samples,running_pct,container,pod,value,namespace,pod_name,container_name\n"

static void test_iso_time(void)
{
	int64_t ms;

	ASSERT_TRUE(parse_iso_time("1970-01-01T00:00:00.000Z", 24, &ms),
		    "epoch");
	ASSERT_EQ(ms, 0, "epoch ms");
	ASSERT_TRUE(parse_iso_time("2026-11-30T07:14:20.123Z", 24, &ms), "v6");
	ASSERT_EQ(ms, 1796022860123LL, "2026-11-30T07:14:20.123Z");
	ASSERT_TRUE(parse_iso_time("2024-02-29T23:59:59Z", 20, &ms),
		    "leap day, no ms");
	ASSERT_EQ(ms, 1709251199000LL, "2024-02-29T23:59:59Z");
	ASSERT_TRUE(!parse_iso_time("2026-13-01T00:00:00Z", 20, &ms),
		    "month 13");
	ASSERT_TRUE(!parse_iso_time("2026-11-30T07:14:20.123", 23, &ms),
		    "no Z");
	ASSERT_TRUE(!parse_iso_time("2026-11-30", 10, &ms), "date only");
	ASSERT_TRUE(!parse_iso_time("2026-11-30T07:14:20.12xZ", 24, &ms),
		    "junk");
}

static void test_header(void)
{
	static char path[] = "x.csv";
	struct report_file f = { .path = path };
	struct error err = {};
	const char *v1 =
		"time,host,interval_ms,scope,cgroup_id,cgroup,pid,tid,comm,event,count,samples\n";

	ASSERT_EQ(scan_file__header(&f, V6_HEADER, strlen(V6_HEADER), &err),
		  (long)strlen(V6_HEADER), "v6 header");
	ASSERT_EQ(f.schema, 6u, "v6 by its columns");
	ASSERT_TRUE(f.escaped, "v6 escaped");
	ASSERT_EQ(scan_file__header(&f, v1, strlen(v1), &err), (long)strlen(v1),
		  "v1 header");
	ASSERT_EQ(f.schema, 1u, "v1");
	ASSERT_EQ(f.col[COL_RUNNING_PCT], -1, "v1 has no running_pct");
	ASSERT_TRUE(!f.escaped, "v1 raw");
	ASSERT_EQ(scan_file__header(&f, "a,b,c\n1,2,3\n", 12, &err), -EINVAL,
		  "not an export");
	ASSERT_STREQ(
		err.msg,
		"x.csv: not a bpmc export (its header 'a,b,c' has no 'time' column)",
		"refusal names the file");
	ASSERT_EQ(scan_file__header(&f, "time,host", 9, &err), -EAGAIN,
		  "no whole line yet");
}

struct fixture {
	struct scan_config cfg;
	struct event_names ev;
	struct scan_thread t;
	struct report_file f;
};

static void setup(struct fixture *x, const char *scope,
		  const enum key_field *key, unsigned nr_key)
{
	static char path[] = "t.csv";

	memset(x, 0, sizeof(*x));
	x->cfg.scope = scope;
	memcpy(x->cfg.key, key, nr_key * sizeof(*key));
	x->cfg.nr_key = nr_key;
	x->cfg.since_ms = INT64_MIN;
	x->cfg.until_ms = INT64_MAX;
	event_names__init(&x->ev);
	scan_thread__init(&x->t, &x->cfg, &x->ev);
	x->f.path = path;
}

static void read_text(struct fixture *x, const char *text)
{
	struct error err = {};
	long h = scan_file__header(&x->f, text, strlen(text), &err);
	size_t start;

	if (!ASSERT_TRUE(h > 0, "header"))
		return;
	start = h + scan_meta(&x->f, text + h, strlen(text) - h);
	ASSERT_EQ(scan_rows(&x->t, &x->f, text + start, strlen(text) - start),
		  strlen(text) - start, "all rows read");
}

static void teardown(struct fixture *x)
{
	scan_thread__free(&x->t);
	event_names__free(&x->ev);
}

static uint64_t count_of(struct fixture *x, const char *k1, const char *event)
{
	struct agg_key k;
	struct agg_entry *e;
	int id = -1;

	for (unsigned i = 0; i < x->ev.nr; i++)
		if (!strcmp(x->ev.names[i], event))
			id = i;
	agg_key__reset(&k);
	agg_key__add(&k, k1, strlen(k1));
	e = agg_table__find(&x->t.keys, k.buf, k.len, agg_hash(k.buf, k.len));
	return e && id >= 0 && agg_entry__find(e, id) ?
		       agg_entry__find(e, id)->count :
		       0;
}

static void test_versions_alike(void)
{
	static const enum key_field key[] = { KF_COMM };
	struct fixture v1, v6;

	/* One process named a"b\xff with a comma: raw in v1, escaped in v6. */
	setup(&v1, "process", key, 1);
	read_text(
		&v1,
		"time,host,interval_ms,scope,cgroup_id,cgroup,pid,tid,comm,event,count,samples\n"
		"2026-11-30T07:14:20.123Z,h,1000,process,1,/,7,,\"a\"\"b\xff,\",cpu-clock,100,1\n"
		"2026-11-30T07:14:21.123Z,h,1000,process,1,/,7,,\"a\"\"b\xff,\",cpu-clock,50,1\n");
	setup(&v6, "process", key, 1);
	read_text(
		&v6, V6_HEADER
		"2026-11-30T07:14:20.123Z,\"meta\",,\"meta\",,,,,,\"schema_version\",,,,,,\"6\",,,\n"
		"2026-11-30T07:14:20.123Z,\"h\",1000,\"process\",1,\"/\",7,,\"a\"\"b\\xFF,\",\"cpu-clock\",150,2,100.0,,,,,,\n");
	ASSERT_EQ(count_of(&v1, "a\"b\\xFF,", "cpu-clock"), 150u,
		  "v1's raw name, escaped");
	ASSERT_EQ(count_of(&v6, "a\"b\\xFF,", "cpu-clock"), 150u,
		  "v6's escaped name");
	/* v1 has no intervals_lost rows: its two row times are two intervals. */
	ASSERT_EQ(v1.t.nr_intervals, 2u, "v1 intervals from row times");
	ASSERT_EQ(v6.t.nr_intervals, 0u, "v6 takes intervals_lost rows only");
	teardown(&v1);
	teardown(&v6);
}

static void test_filters(void)
{
	static const enum key_field key[] = { KF_CGROUP };
	static char web[] = "web-*";
	static char *hosts[] = { web };
	struct fixture x;
	const char *rows = V6_HEADER
		"2026-11-30T07:00:01.000Z,\"web-1\",1000,\"cgroup\",1,\"/a\",,,,\"cpu-clock\",10,1,100.0,,,,,,\n"
		"2026-11-30T07:00:01.000Z,\"web-1\",1000,\"cgroup\",1,\"/a/b\",,,,\"cpu-clock\",20,1,100.0,,,,,,\n"
		"2026-11-30T07:00:01.000Z,\"web-1\",1000,\"cgroup\",1,\"/ab\",,,,\"cpu-clock\",40,1,100.0,,,,,,\n"
		"2026-11-30T07:00:01.000Z,\"db-1\",1000,\"cgroup\",1,\"/a\",,,,\"cpu-clock\",80,1,100.0,,,,,,\n"
		"2026-11-30T07:00:02.000Z,\"web-1\",1000,\"cgroup\",1,\"/a\",,,,\"cpu-clock\",160,1,100.0,,,,,,\n"
		"2026-11-30T07:00:02.000Z,\"web-1\",1000,\"self\",,,,,,\"intervals_lost\",0,,,,,,,,\n";

	setup(&x, "cgroup", key, 1);
	x.cfg.hosts = hosts;
	x.cfg.nr_hosts = 1;
	x.cfg.cgroup = "/a/";
	x.cfg.until_ms =
		1796022001000LL; /* 07:00:01.000Z: the second interval is out */
	read_text(&x, rows);
	ASSERT_EQ(count_of(&x, "/a", "cpu-clock"), 10u,
		  "host glob, subtree, until");
	ASSERT_EQ(count_of(&x, "/a/b", "cpu-clock"), 20u,
		  "a child is under /a");
	ASSERT_EQ(count_of(&x, "/ab", "cpu-clock"), 0u, "/ab is not under /a");
	ASSERT_EQ(x.t.nr_cov, 0u, "the late interval is out of --until");
	teardown(&x);
}

static void test_merge(void)
{
	static const enum key_field key[] = { KF_HOST };
	struct fixture a, b;

	setup(&a, "cgroup", key, 1);
	setup(&b, "cgroup", key, 1);
	b.t.events = &a.ev;
	read_text(
		&a, V6_HEADER
		"2026-11-30T07:00:01.000Z,\"h1\",1000,\"system\",,,,,,\"cycles\",5,1,50.0,,,,,,\n"
		"2026-11-30T07:00:01.000Z,\"h1\",1000,\"self\",,,,,,\"intervals_lost\",0,,,,,,,,\n");
	read_text(
		&b, V6_HEADER
		"2026-11-30T07:00:02.000Z,\"h1\",1000,\"system\",,,,,,\"cycles\",15,3,100.0,,,,,,\n"
		"2026-11-30T07:00:02.000Z,\"h1\",1000,\"self\",,,,,,\"intervals_lost\",0,,,,,,,,\n");
	ASSERT_OK(scan_thread__merge(&a.t, &b.t), "merge");
	ASSERT_EQ(a.t.system.nr, 1u, "one host");
	agg_table__for_each(&a.t.system, e)
	{
		ASSERT_EQ(e->cells[0].count, 20u, "counts add");
		ASSERT_EQ(e->cells[0].samples, 4u, "samples add");
		ASSERT_TRUE(fabs(e->cells[0].running_weighted /
					 e->cells[0].count_with_running -
				 87.5) < 1e-9,
			    "running_pct weighted by count");
	}
	ASSERT_EQ(a.t.nr_cov, 2u, "both intervals kept");
	ASSERT_EQ(a.t.nr_hosts, 1u, "one host name");
	teardown(&a);
	teardown(&b);
}

/*
 * A key's cells span its own events only: met in any order (a lower
 * event after a higher one shifts them), merged into a table whose key
 * spans other events, each count lands on its event.
 */
static void test_cells_span(void)
{
	struct agg_table t, u;
	struct agg_entry *e, *f;
	const struct agg_cell *c;

	ASSERT_OK(agg_table__init(&t), "init");
	ASSERT_OK(agg_table__init(&u), "init");
	e = agg_table__get(&t, "k", 1, agg_hash("k", 1));
	ASSERT_TRUE(e != NULL, "entry");
	agg_entry__cell(e, 7)->count = 70;
	ASSERT_EQ(e->nr_cells, 1u, "one cell for event 7, none before it");
	agg_entry__cell(e, 3)->count = 30;
	agg_entry__cell(e, 9)->count = 90;
	ASSERT_EQ(e->cell_base, 3u, "the span starts at the lowest event");
	ASSERT_EQ(e->nr_cells, 7u, "events 3 to 9");
	ASSERT_EQ(agg_entry__find(e, 3)->count, 30u, "event 3 after a shift");
	ASSERT_EQ(agg_entry__find(e, 7)->count, 70u, "event 7 kept its count");
	ASSERT_EQ(agg_entry__find(e, 9)->count, 90u, "event 9");
	ASSERT_TRUE(!agg_entry__find(e, 2) && !agg_entry__find(e, 10),
		    "no cell outside the span");
	for (unsigned i = 0; i < e->nr_cells; i++)
		e->cells[i].rows = e->cells[i].count ? 1 : 0;
	f = agg_table__get(&u, "k", 1, agg_hash("k", 1));
	agg_entry__cell(f, 1)->count = 10;
	f->cells[0].rows = 1;
	agg_entry__cell(f, 7)->count = 5;
	agg_entry__cell(f, 7)->rows = 1;
	ASSERT_OK(agg_table__merge(&u, &t), "merge");
	ASSERT_EQ(agg_entry__find(f, 1)->count, 10u, "event 1 stays");
	ASSERT_EQ(agg_entry__find(f, 3)->count, 30u, "event 3 merged");
	ASSERT_EQ(agg_entry__find(f, 7)->count, 75u, "event 7 summed");
	ASSERT_EQ(agg_entry__find(f, 9)->count, 90u, "event 9 merged");
	c = agg_entry__find(f, 8);
	ASSERT_TRUE(c && !c->count && !c->rows, "event 8 empty");
	/* Saturation: a sum stays at 2^64 - 1 instead of wrapping. */
	agg_entry__cell(f, 9)->count = UINT64_MAX - 1;
	ASSERT_OK(agg_table__merge(&u, &t), "merge again");
	ASSERT_EQ(agg_entry__find(f, 9)->count, UINT64_MAX, "saturated");
	agg_table__free(&t);
	agg_table__free(&u);
}

static const struct subtest tests[] = {
	{ "iso_time", test_iso_time },
	{ "header", test_header },
	{ "versions_alike", test_versions_alike },
	{ "filters", test_filters },
	{ "merge", test_merge },
	{ "cells_span", test_cells_span },
	{ 0 },
};

int main(int argc, char **argv)
{
	return test_main(argc, argv, tests);
}
