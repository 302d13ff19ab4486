// SPDX-License-Identifier: GPL-2.0
/*
 * The Prometheus sink without a server: label escaping, the Accept
 * negotiation, counters that add up and never go back, one series per
 * label set, expiry, the OpenMetrics and gzip forms, the textfile, and
 * the tee that feeds it.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "common/escape.h"
#include "sinks/prom.h"
#include "sinks/prom_format.h"
#include "sinks/tee.h"
#include "sinks/textfile.h"
#include "test.h"

static const char *escaped(const char *s)
{
	static char buf[256];
	struct strbuf b;

	strbuf__init(&b, buf, sizeof(buf), 0);
	escape_prom_label(&b, s);
	return buf;
}

static void test_label_escape(void)
{
	ASSERT_STREQ(escaped("/system.slice/a.service"),
		     "/system.slice/a.service", "plain");
	ASSERT_STREQ(escaped("a\"b\\c\nd"), "a\\\"b\\\\c\\nd", "the three");
	/* Valid UTF-8 and other control characters pass as they are. */
	ASSERT_STREQ(escaped("caf\xc3\xa9 \xe2\x82\xac\t"),
		     "caf\xc3\xa9 \xe2\x82\xac\t", "utf-8, tab");
	/* Invalid bytes: the text \xHH, its backslash escaped. */
	ASSERT_STREQ(escaped("a\xff"
			     "b"),
		     "a\\\\xFFb", "invalid byte");
	ASSERT_STREQ(escaped("\xc0\xaf"), "\\\\xC0\\\\xAF", "overlong");
	ASSERT_STREQ(escaped("\xed\xa0\x80"), "\\\\xED\\\\xA0\\\\x80",
		     "surrogate");
	ASSERT_STREQ(escaped("\xe2\x82"), "\\\\xE2\\\\x82", "cut short");
}

static void test_negotiate_format(void)
{
	/* What Prometheus 2.42 sends. */
	ASSERT_EQ(
		prom_negotiate_format(
			"application/openmetrics-text;version=1.0.0,application/openmetrics-text;version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1"),
		PROM_OPENMETRICS, "prometheus");
	ASSERT_EQ(prom_negotiate_format(NULL), PROM_TEXT, "none");
	ASSERT_EQ(prom_negotiate_format(""), PROM_TEXT, "empty");
	ASSERT_EQ(prom_negotiate_format("*/*"), PROM_TEXT, "any");
	ASSERT_EQ(prom_negotiate_format("text/plain; version=0.0.4"), PROM_TEXT,
		  "text");
	ASSERT_EQ(prom_negotiate_format("Application/OpenMetrics-Text"),
		  PROM_OPENMETRICS, "case");
	ASSERT_EQ(prom_negotiate_format(
			  "application/openmetrics-text; q=0.2, text/plain"),
		  PROM_TEXT, "text preferred");
	ASSERT_EQ(prom_negotiate_format("application/openmetrics-text;q=0"),
		  PROM_TEXT, "refused");
	ASSERT_EQ(
		prom_negotiate_format(
			"application/openmetrics-text; x=\"a,b;q=0\"; q=1, text/plain;q=0.9"),
		PROM_OPENMETRICS, "quoted parameter");
	ASSERT_EQ(prom_negotiate_format("application/openmetrics-text;q=x"),
		  PROM_TEXT, "bad q");
}

static void test_negotiate_gzip(void)
{
	ASSERT_TRUE(!prom_negotiate_gzip(NULL), "none");
	ASSERT_TRUE(prom_negotiate_gzip("gzip"), "gzip");
	ASSERT_TRUE(prom_negotiate_gzip("deflate, GZIP;q=0.5"), "listed");
	ASSERT_TRUE(!prom_negotiate_gzip("gzip;q=0"), "refused");
	ASSERT_TRUE(!prom_negotiate_gzip("gzip;q=0, *"), "named wins");
	ASSERT_TRUE(prom_negotiate_gzip("*"), "star");
	ASSERT_TRUE(!prom_negotiate_gzip("identity, deflate"), "others");
	ASSERT_TRUE(prom_negotiate_gzip("x-gzip"), "x-gzip");
}

static void test_scopes_parse(void)
{
	unsigned m = 0;
	char bad[32];

	ASSERT_OK(scope_list_parse("system,cgroup,container,pod", SCOPES_ALL,
				   &m, bad, sizeof(bad)),
		  "default");
	ASSERT_EQ(m, PROM_SCOPES_DEFAULT, "default mask");
	ASSERT_OK(scope_list_parse("thread", SCOPES_ALL, &m, bad, sizeof(bad)),
		  "one");
	ASSERT_EQ(m, SCOPE_THREAD, "thread");
	ASSERT_ERR(scope_list_parse("cgroup,nope", SCOPES_ALL, &m, bad,
				    sizeof(bad)),
		   "unknown");
	ASSERT_STREQ(bad, "nope", "culprit");
	ASSERT_ERR(scope_list_parse(",", SCOPES_ALL, &m, bad, sizeof(bad)),
		   "none");
}

/* A prom sink over a latest snapshot holder, two events. */
struct fixture {
	struct sink s;
	struct prom_latest *latest;
	const char *events[2];
};

static bool fixture_new(struct fixture *f, unsigned scopes, long expire)
{
	struct prom_config cfg = {
		.events = f->events,
		.nr_events = 2,
		.scopes = scopes,
		.expire = expire,
	};

	memset(&f->s, 0, sizeof(f->s));
	f->events[0] = "cpu-clock";
	f->events[1] = "page-faults";
	if (!ASSERT_OK(prom_latest__new(&f->latest), "latest"))
		return false;
	cfg.latest = f->latest;
	return ASSERT_OK(prom_sink__new(&f->s, &cfg), "new");
}

static void fixture_free(struct fixture *f)
{
	f->s.ops->close(&f->s);
	prom_latest__free(f->latest);
}

static struct row cg_row(const char *path, uint64_t id, const char *event,
			 uint64_t count)
{
	return (struct row){ .scope = "cgroup",
			     .cgroup_id = id,
			     .cgroup = path,
			     .pid = -1,
			     .tid = -1,
			     .event = event,
			     .count = count,
			     .running_pct = 100 };
}

/* Writes the rows as one interval. */
static void interval(struct fixture *f, const struct row *rows, int nr)
{
	struct interval_info info = { .end_realtime_ns = 1500000000123456789ull,
				      .length_ns = 1000000000,
				      .host = "h" };

	ASSERT_OK(f->s.ops->begin_interval(&f->s, &info), "begin");
	for (int i = 0; i < nr; i++)
		ASSERT_OK(f->s.ops->write_row(&f->s, &rows[i]), "row");
	ASSERT_OK(f->s.ops->end_interval(&f->s), "end");
}

/* The latest exposition in format fmt, copied (NUL-terminated). */
static char *exposition(struct fixture *f, enum prom_format fmt, bool gzip,
			size_t *len)
{
	struct prom_snapshot *snap = prom_latest__get(f->latest);
	const char *data;
	char *copy = NULL;

	if (ASSERT_TRUE(snap, "snapshot") &&
	    ASSERT_OK(prom_snapshot__body(snap, fmt, gzip, &data, len),
		      "body")) {
		copy = malloc(*len + 1);
		memcpy(copy, data, *len);
		copy[*len] = '\0';
	}
	prom_snapshot__put(snap);
	return copy;
}

static char *text_of(struct fixture *f)
{
	size_t len;

	return exposition(f, PROM_TEXT, false, &len);
}

static void test_counters(void)
{
	struct fixture f;
	struct row rows[] = {
		cg_row("/a", 11, "cpu-clock", 1000),
		cg_row("/a", 11, "page-faults", 5),
		{ .scope = "system",
		  .pid = -1,
		  .tid = -1,
		  .event = "cpu-clock",
		  .count = 3000,
		  .running_pct = 50 },
		{ .scope = "process",
		  .cgroup = "/a",
		  .pid = 7,
		  .tid = -1,
		  .comm = "x",
		  .event = "cpu-clock",
		  .count = 1000 },
	};
	char *t;

	if (!fixture_new(&f, PROM_SCOPES_DEFAULT, 0))
		return;
	t = text_of(&f);
	ASSERT_TRUE(t && strstr(t, "bpmc_series 0\n"), "empty at first");
	ASSERT_TRUE(t && !strstr(t, "_total{event="), "no series yet");
	free(t);
	interval(&f, rows, 4);
	interval(&f, rows, 1); /* only /a's cpu-clock */
	t = text_of(&f);
	ASSERT_TRUE(
		t && strstr(t,
			    "bpmc_cgroup_perf_event_seconds_total{event=\"cpu-clock\",cgroup=\"/a\"} 0.000002000\n"),
		"cpu-clock adds up, in seconds");
	ASSERT_TRUE(
		t && strstr(t,
			    "bpmc_cgroup_perf_events_total{event=\"page-faults\",cgroup=\"/a\"} 5\n"),
		"page-faults kept");
	ASSERT_TRUE(
		t && strstr(t,
			    "bpmc_node_perf_event_seconds_total{event=\"cpu-clock\"} 0.000003000\n"),
		"system");
	ASSERT_TRUE(t && !strstr(t, "bpmc_node_perf_events_total{"),
		    "an event a key never counted has no series");
	ASSERT_TRUE(t && !strstr(t, "bpmc_process_"),
		    "process rows are not exported by default");
	ASSERT_TRUE(
		t && strstr(t,
			    "bpmc_event_running_ratio{event=\"cpu-clock\"} 0.500000\n"),
		"running ratio");
	ASSERT_TRUE(t && strstr(t, "bpmc_intervals_total 2\n"), "intervals");
	ASSERT_TRUE(t && strstr(t, "bpmc_series 3\n"), "series");
	ASSERT_TRUE(
		t && strstr(t,
			    "bpmc_interval_end_timestamp_seconds 1500000000.123\n"),
		"end time");
	free(t);
	fixture_free(&f);
}

/* A hostile name's labels; a path made again under a new id merges. */
static void test_labels(void)
{
	struct fixture f;
	struct row rows[] = {
		cg_row("/x\"y\\z\nw", 5, "cpu-clock", 10),
		cg_row("/x\"y\\z\nw", 6, "cpu-clock", 20),
		cg_row(NULL, 99, "cpu-clock", 1),
		{ .scope = "thread",
		  .cgroup_id = 5,
		  .cgroup = "/k",
		  .container = "containerd://abc",
		  .pod = "p-1",
		  .namespace = "shop",
		  .pod_name = "web-0",
		  .container_name = "nginx",
		  .pid = 7,
		  .tid = 8,
		  .comm = "a\xff",
		  .event = "cpu-clock",
		  .count = 4 },
		{ .scope = "pod",
		  .pid = -1,
		  .tid = -1,
		  .pod = "p-1",
		  .event = "cpu-clock",
		  .count = 4 },
	};
	char *t;

	if (!fixture_new(&f, PROM_SCOPES_DEFAULT | SCOPE_THREAD, 0))
		return;
	interval(&f, rows, 5);
	t = text_of(&f);
	ASSERT_TRUE(
		t && strstr(t,
			    "bpmc_cgroup_perf_event_seconds_total{event=\"cpu-clock\",cgroup=\"/x\\\"y\\\\z\\nw\"} 0.000000030\n"),
		"escaped, one series for both ids");
	ASSERT_TRUE(
		t && strstr(t,
			    "{event=\"cpu-clock\",cgroup_id=\"99\"} 0.000000001\n"),
		"an unknown path is its id");
	ASSERT_TRUE(
		t && strstr(t,
			    "bpmc_thread_perf_event_seconds_total{event=\"cpu-clock\",cgroup=\"/k\",namespace=\"shop\",pod=\"web-0\",container=\"nginx\",container_id=\"containerd://abc\",pod_uid=\"p-1\",pid=\"7\",tid=\"8\",comm=\"a\\\\xFF\"} 0.000000004\n"),
		"thread labels");
	ASSERT_TRUE(
		t && strstr(t,
			    "bpmc_pod_perf_event_seconds_total{event=\"cpu-clock\",pod_uid=\"p-1\"} 0.000000004\n"),
		"pod labels");
	free(t);
	fixture_free(&f);
}

/*
 * Every sample's family has its TYPE before it and all its samples in
 * one run: what the text format and OpenMetrics both require.
 */
static bool families_contiguous(const char *t)
{
	char done[64][96];
	int nr = 0;
	char cur[96] = "", typed[96] = "";

	for (const char *l = t; *l; l = strchr(l, '\n') + 1) {
		size_t n = strcspn(l, "{ \n");

		if (!strncmp(l, "# TYPE ", 7)) {
			size_t m = strcspn(l + 7, " ");

			snprintf(typed, sizeof(typed), "%.*s", (int)m, l + 7);
		} else if (*l != '#' && n) {
			char name[96];

			snprintf(name, sizeof(name), "%.*s", (int)n, l);
			if (strcmp(name, cur)) {
				for (int i = 0; i < nr; i++)
					if (!strcmp(done[i], name))
						return false; /* came back */
				if (strcmp(name, typed) || nr == 64)
					return false; /* no TYPE of its own */
				snprintf(cur, sizeof(cur), "%s", name);
				snprintf(done[nr++], sizeof(done[0]), "%s",
					 name);
			}
		}
		if (!strchr(l, '\n'))
			break;
	}
	return true;
}

/*
 * One family per scope: a container and its cgroup, whose labels read
 * the same, are two series of two families, and a sum over one family
 * adds no scope to another; the clocks in seconds, the others in events.
 */
static void test_families(void)
{
	struct fixture f;
	struct row c = cg_row("/k/c1", 3, "cpu-clock", 1500000000);
	struct row rows[] = {
		c,
		cg_row("/k/c1", 3, "page-faults", 7),
		cg_row("/other", 4, "cpu-clock", 500000000),
		{ .scope = "system",
		  .pid = -1,
		  .tid = -1,
		  .event = "cpu-clock",
		  .count = 2000000000,
		  .running_pct = 100 },
		c,
		c,
		/* The rows stage's outside keys: no container, pod, cgroup. */
		{ .scope = "container",
		  .pid = -1,
		  .tid = -1,
		  .event = "cpu-clock",
		  .count = 500000000 },
		{ .scope = "pod",
		  .pid = -1,
		  .tid = -1,
		  .event = "cpu-clock",
		  .count = 500000000 },
	};
	char *t;

	rows[4].scope = "container";
	rows[4].container = "containerd://c1";
	rows[4].container_name = "app";
	rows[5].scope = "pod";
	rows[5].cgroup = NULL;
	rows[5].cgroup_id = 0;
	rows[5].pod = "u-1";
	rows[5].pod_name = "web-0";
	rows[5].namespace = "shop";
	rows[0].container = rows[1].container = "containerd://c1";
	rows[0].container_name = rows[1].container_name = "app";
	if (!fixture_new(&f, PROM_SCOPES_DEFAULT, 0))
		return;
	interval(&f, rows, 8);
	t = text_of(&f);
	if (!ASSERT_TRUE(t, "text"))
		goto out;
	ASSERT_TRUE(
		strstr(t,
		       "\nbpmc_container_perf_event_seconds_total{event=\"cpu-clock\",container=\"(outside containers)\"} 0.500000000\n") &&
			strstr(t,
			       "\nbpmc_pod_perf_event_seconds_total{event=\"cpu-clock\",pod=\"(outside pods)\"} 0.500000000\n"),
		"the outside keys");
	ASSERT_TRUE(
		strstr(t,
		       "\nbpmc_cgroup_perf_event_seconds_total{event=\"cpu-clock\",cgroup=\"/k/c1\",container=\"app\",container_id=\"containerd://c1\"} 1.500000000\n") &&
			strstr(t,
			       "\nbpmc_container_perf_event_seconds_total{event=\"cpu-clock\",cgroup=\"/k/c1\",container=\"app\",container_id=\"containerd://c1\"} 1.500000000\n"),
		"the same labels, two families");
	ASSERT_TRUE(
		strstr(t,
		       "\nbpmc_pod_perf_event_seconds_total{event=\"cpu-clock\",namespace=\"shop\",pod=\"web-0\",pod_uid=\"u-1\"} 1.500000000\n"),
		"pod names");
	ASSERT_TRUE(
		strstr(t,
		       "\nbpmc_cgroup_perf_events_total{event=\"page-faults\",cgroup=\"/k/c1\",container=\"app\",container_id=\"containerd://c1\"} 7\n"),
		"counts in events");
	ASSERT_TRUE(strstr(t, "# HELP bpmc_node_perf_event_seconds_total ") &&
			    strstr(t, "(unit: seconds).\n") &&
			    strstr(t, "(unit: events;"),
		    "the unit in HELP");
	ASSERT_TRUE(families_contiguous(t), "each family in one run");
	ASSERT_TRUE(!strstr(t, "scope="), "no scope label");
	ASSERT_TRUE(strstr(t, "bpmc_series 8\n"), "series");
out:
	free(t);
	fixture_free(&f);
}

static void test_expire(void)
{
	struct fixture f;
	struct row a = cg_row("/a", 1, "cpu-clock", 10);
	struct row b = cg_row("/b", 2, "cpu-clock", 10);
	struct row sys = { .scope = "system",
			   .pid = -1,
			   .tid = -1,
			   .event = "cpu-clock",
			   .count = 0,
			   .running_pct = 100 };
	struct row both[] = { a, b, sys };
	char *t;

	if (!fixture_new(&f, PROM_SCOPES_DEFAULT, 2))
		return;
	interval(&f, both, 3);
	interval(&f, &b, 1); /* /a: one interval without counts */
	t = text_of(&f);
	ASSERT_TRUE(t && strstr(t, "cgroup=\"/a\"} 0.000000010\n"), "not yet");
	free(t);
	interval(&f, &b, 1); /* two: /a goes */
	t = text_of(&f);
	ASSERT_TRUE(t && !strstr(t, "cgroup=\"/a\""), "expired");
	ASSERT_TRUE(t && strstr(t, "cgroup=\"/b\"} 0.000000030\n"), "b stays");
	ASSERT_TRUE(
		t && strstr(t,
			    "bpmc_node_perf_event_seconds_total{event=\"cpu-clock\"} 0.000000000\n"),
		"system never expires");
	ASSERT_TRUE(t && strstr(t, "bpmc_keys_expired_total 1\n"), "counted");
	free(t);
	fixture_free(&f);
}

/* Same samples; counter families lose _total in TYPE; # EOF ends it. */
static void test_openmetrics_gzip(void)
{
	struct fixture f;
	struct row a = cg_row("/a", 1, "cpu-clock", 10);
	char *t, *om, *gz, out[65536];
	size_t tl, ol, gl;
	z_stream z = {};

	if (!fixture_new(&f, PROM_SCOPES_DEFAULT, 0))
		return;
	interval(&f, &a, 1);
	t = exposition(&f, PROM_TEXT, false, &tl);
	om = exposition(&f, PROM_OPENMETRICS, false, &ol);
	if (!t || !om)
		goto out;
	ASSERT_TRUE(
		strstr(t,
		       "# TYPE bpmc_cgroup_perf_event_seconds_total counter\n") &&
			!strstr(t, "# EOF"),
		"text");
	ASSERT_TRUE(
		strstr(om, "# TYPE bpmc_cgroup_perf_event_seconds counter\n") &&
			!strstr(om,
				"# TYPE bpmc_cgroup_perf_event_seconds_total") &&
			strstr(om, "# TYPE bpmc_series gauge\n") &&
			strstr(om,
			       "# TYPE bpmc_cgroup_perf_event_seconds counter\n# UNIT bpmc_cgroup_perf_event_seconds seconds\n") &&
			!strstr(t, "# UNIT"),
		"openmetrics types, the unit of the seconds");
	ASSERT_TRUE(
		strstr(om,
		       "\nbpmc_cgroup_perf_event_seconds_total{event=\"cpu-clock\",cgroup=\"/a\"} 0.000000010\n"),
		"openmetrics samples");
	ASSERT_TRUE(ol > 6 && !strcmp(om + ol - 6, "# EOF\n"), "eof last");
	for (int fmt = 0; fmt < PROM_NR_FORMATS; fmt++) {
		gz = exposition(&f, fmt, true, &gl);
		if (!gz)
			continue;
		inflateInit2(&z, 15 + 16);
		z.next_in = (Bytef *)gz;
		z.avail_in = gl;
		z.next_out = (Bytef *)out;
		z.avail_out = sizeof(out);
		ASSERT_EQ(inflate(&z, Z_FINISH), Z_STREAM_END, "inflate");
		ASSERT_EQ(z.total_out, fmt == PROM_TEXT ? tl : ol, "length");
		ASSERT_TRUE(!memcmp(out, fmt == PROM_TEXT ? t : om,
				    z.total_out),
			    "same bytes");
		inflateEnd(&z);
		free(gz);
	}
out:
	free(t);
	free(om);
	fixture_free(&f);
}

static void test_self(void)
{
	struct fixture f;
	struct row rows[] = {
		{ .scope = "self",
		  .event = "bpf_run_time_ns",
		  .count = 1500000000,
		  .samples = 9 },
		{ .scope = "self", .event = "cpu_user_ns", .count = 2000 },
		{ .scope = "self", .event = "samples_lost", .count = 3 },
		{ .scope = "self",
		  .event = "peak_rss_bytes",
		  .no_count = true,
		  .value = "4096" },
	};
	char *t;

	if (!fixture_new(&f, PROM_SCOPES_DEFAULT, 0))
		return;
	interval(&f, rows, 4);
	interval(&f, rows, 4);
	t = text_of(&f);
	ASSERT_TRUE(t && strstr(t, "bpmc_bpf_run_seconds_total 3.000000000\n"),
		    "bpf seconds");
	ASSERT_TRUE(t && strstr(t, "bpmc_bpf_runs_total 18\n"), "runs");
	ASSERT_TRUE(
		t && strstr(t,
			    "bpmc_cpu_seconds_total{mode=\"user\"} 0.000004000\n"),
		"cpu");
	ASSERT_TRUE(t && strstr(t, "bpmc_samples_lost_total 6\n"), "lost");
	ASSERT_TRUE(t && strstr(t, "bpmc_peak_rss_bytes 4096\n"), "rss gauge");
	free(t);
	fixture_free(&f);
}

static void test_textfile(void)
{
	char dir[] = "/tmp/bpmc-test-textfile-XXXXXX", path[64], buf[16];
	struct error err = {};
	struct stat st;
	FILE *fp;

	if (!ASSERT_TRUE(mkdtemp(dir), "mkdtemp"))
		return;
	snprintf(path, sizeof(path), "%s/t.prom", dir);
	ASSERT_OK(textfile__check_dir(dir, &err), "dir");
	ASSERT_ERR(textfile__check_dir(path, &err), "missing dir");
	ASSERT_OK(textfile__write(dir, "t.prom", "old\n", 4, &err), "write");
	ASSERT_OK(textfile__write(dir, "t.prom", "new\n", 4, &err), "replace");
	fp = fopen(path, "r");
	ASSERT_TRUE(fp && fgets(buf, sizeof(buf), fp) && !strcmp(buf, "new\n"),
		    "content");
	if (fp)
		fclose(fp);
	ASSERT_TRUE(!stat(path, &st) && (st.st_mode & 0777) == 0644, "0644");
	textfile__remove(dir, "t.prom");
	ASSERT_OK(rmdir(dir), "nothing else left in the directory");
	ASSERT_ERR(textfile__write(dir, "t.prom", "x", 1, &err), "no dir");
}

static int nr_rows, nr_ends;
static int count_row(struct sink *s, const struct row *r)
{
	nr_rows++;
	return 0;
}
static int count_end(struct sink *s)
{
	nr_ends++;
	return s->priv ? error__set(&s->error, EIO, "end refused") : 0;
}
static int count_begin(struct sink *s, const struct interval_info *i)
{
	return 0;
}

static void test_tee(void)
{
	static const struct sink_ops ops = { .begin_interval = count_begin,
					     .write_row = count_row,
					     .end_interval = count_end };
	struct sink a = { .ops = &ops }, b = { .ops = &ops, .priv = &b },
		    t = {};
	struct tee_output outs[2] = {
		{ .sink = &a, .drop = { "process", "pod" }, .nr_drop = 2 },
		{ .sink = &b },
	};
	struct row rows[] = { { .scope = "cgroup" },
			      { .scope = "process" },
			      { .scope = "pod" } };

	if (!ASSERT_OK(tee__new(&t, outs, 2), "new"))
		return;
	for (int i = 0; i < 3; i++)
		ASSERT_OK(t.ops->write_row(&t, &rows[i]), "row");
	ASSERT_EQ(nr_rows, 1 + 3, "a takes cgroup rows, b all");
	ASSERT_ERR(t.ops->end_interval(&t), "b refuses");
	ASSERT_EQ(nr_ends, 2, "both ended");
	ASSERT_STREQ(t.error.msg, "end refused", "the error is b's");
	t.ops->close(&t);
}

static const struct subtest tests[] = {
	{ "label_escape", test_label_escape },
	{ "negotiate_format", test_negotiate_format },
	{ "negotiate_gzip", test_negotiate_gzip },
	{ "scopes_parse", test_scopes_parse },
	{ "counters", test_counters },
	{ "labels", test_labels },
	{ "families", test_families },
	{ "expire", test_expire },
	{ "openmetrics_gzip", test_openmetrics_gzip },
	{ "self", test_self },
	{ "textfile", test_textfile },
	{ "tee", test_tee },
	{ 0 },
};

int main(int argc, char **argv)
{
	return test_main(argc, argv, tests);
}
