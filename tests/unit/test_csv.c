// SPDX-License-Identifier: GPL-2.0
/* The CSV writer's pure parts: field quoting, time, rows, path checks. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/escape.h"
#include "sinks/csv.h"
#include "test.h"

/* 2026-11-30T07:14:20Z plus ns nanoseconds, as CLOCK_REALTIME ns. */
static uint64_t known_ns(uint64_t ns)
{
	struct tm tm = {
		.tm_year = 2026 - 1900,
		.tm_mon = 11 - 1,
		.tm_mday = 30,
		.tm_hour = 7,
		.tm_min = 14,
		.tm_sec = 20,
	};

	return (uint64_t)timegm(&tm) * 1000000000ull + ns;
}

/* Formats s alone into a fresh buffer; returns its length, or -1 when
 * it did not fit. */
static long field(char *out, size_t len, const char *s)
{
	struct strbuf b;

	memset(out, 'x', len);
	strbuf__init(&b, out, len, 0);
	csv_put_field(&b, s);
	return b.truncated ? -1 : (long)b.len;
}

/* Text is always quoted (DuckDB's sniffer sees quotes from the first
 * row); an empty text is an empty field, NULL to SQL. */
static void test_field_plain(void)
{
	char buf[64];

	ASSERT_EQ(field(buf, sizeof(buf), "cpu-clock"), 11, "len");
	ASSERT_STREQ(buf, "\"cpu-clock\"", "plain");
	ASSERT_EQ(field(buf, sizeof(buf), ""), 0, "empty len");
	ASSERT_STREQ(buf, "", "empty");
	ASSERT_EQ(field(buf, sizeof(buf), " a b "), 7, "inner spaces len");
	ASSERT_STREQ(buf, "\" a b \"", "inner spaces");
}

static void test_field_quoted(void)
{
	char buf[64];

	ASSERT_EQ(field(buf, sizeof(buf), "a,b"), 5, "comma len");
	ASSERT_STREQ(buf, "\"a,b\"", "comma");
	ASSERT_EQ(field(buf, sizeof(buf), "a\"b"), 6, "quote len");
	ASSERT_STREQ(buf, "\"a\"\"b\"", "quote doubled");
	ASSERT_EQ(field(buf, sizeof(buf), "\""), 4, "lone quote len");
	ASSERT_STREQ(buf, "\"\"\"\"", "lone quote");
	ASSERT_EQ(field(buf, sizeof(buf), "x,\"y\""), 9, "mixed len");
	ASSERT_STREQ(buf, "\"x,\"\"y\"\"\"", "mixed");
}

/*
 * Every row is one line of valid UTF-8: control characters and bytes
 * that are no valid UTF-8 become \xHH, a backslash \\; valid UTF-8
 * passes as it is.
 */
static void test_field_escaped(void)
{
	static const struct {
		const char *in, *want;
	} cases[] = {
		{ "a\nb", "\"a\\x0Ab\"" },
		{ "a\rb", "\"a\\x0Db\"" },
		{ "\x01\x1f\x7f", "\"\\x01\\x1F\\x7F\"" },
		{ "\xff\xfe\n", "\"\\xFF\\xFE\\x0A\"" },
		{ "c:\\x", "\"c:\\\\x\"" }, /* a backslash is escaped */
		{ "na\xc3\xafve \xe2\x82\xac \xf0\x9f\x90\xa7", /* UTF-8 */
		  "\"na\xc3\xafve \xe2\x82\xac \xf0\x9f\x90\xa7\"" },
		{ "\xc0\xaf", "\"\\xC0\\xAF\"" }, /* overlong '/' */
		{ "\xed\xa0\x80", "\"\\xED\\xA0\\x80\"" }, /* a surrogate */
		{ "\xf4\x90\x80\x80",
		  "\"\\xF4\\x90\\x80\\x80\"" }, /* > U+10FFFF */
		{ "\xe2\x82", "\"\\xE2\\x82\"" }, /* cut sequence */
	};
	char buf[128], back[64];
	size_t n;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		field(buf, sizeof(buf), cases[i].in);
		ASSERT_STREQ(buf, cases[i].want, cases[i].in);
		/* Reversible: strip the quotes, unescape, get the bytes. */
		buf[strlen(buf) - 1] = '\0';
		if (ASSERT_OK(unescape_text(buf + 1, back, sizeof(back), &n),
			      "unescape"))
			ASSERT_STREQ(back, cases[i].in, "round trip");
	}
	ASSERT_ERR(unescape_text("\\q", back, sizeof(back), &n), "bad escape");
	ASSERT_ERR(unescape_text("\\x4", back, sizeof(back), &n), "short hex");
}

/*
 * The byte-at-a-time rules, written plainly: what the 16-byte steps of
 * escape_text_quoted() must give for any text.
 */
static void escape_by_bytes(char *out, const char *s, char quote)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n;

	for (; *p; p++) {
		if (*p == quote) {
			*out++ = quote;
			*out++ = quote;
		} else if (*p == '\\') {
			*out++ = '\\';
			*out++ = '\\';
		} else if (*p >= 0x20 && *p < 0x7f) {
			*out++ = *p;
		} else if (*p >= 0x80 && (n = utf8_len(p))) {
			memcpy(out, p, n);
			out += n;
			p += n - 1;
		} else {
			out += sprintf(out, "\\x%02X", *p);
		}
	}
	*out = '\0';
}

/*
 * Each case at every offset in texts of 1 to 48 bytes: in a 16-byte
 * block, across the end of one (a UTF-8 sequence cut by the block
 * border), in the tail shorter than a block, and alone.
 */
static void test_field_escaped_any_offset(void)
{
	static const char *const cases[] = {
		"\"",
		"\\",
		"\n",
		"\x7f",
		"\x01",
		"\xff",
		"\xc3\xa9",
		"\xe2\x82\xac",
		"\xf0\x9f\x90\xa7",
		"\xe2\x82",
		"\xc0\xaf",
		"\"\"",
		"\xed\xa0\x80",
		"~",
	};
	char in[64], want[320], got[320];
	struct strbuf b;

	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		size_t n = strlen(cases[c]);

		for (size_t len = n; len <= 48; len++) {
			for (size_t at = 0; at + n <= len; at++) {
				memset(in, 'a', len);
				memcpy(in + at, cases[c], n);
				in[len] = '\0';
				escape_by_bytes(want, in, '"');
				strbuf__init(&b, got, sizeof(got), 0);
				escape_text_quoted(&b, in, '"');
				if (!ASSERT_STREQ(got, want, cases[c]))
					return;
			}
		}
	}
}

/* Messages: control characters and bytes that are not UTF-8 as \xHH,
 * a backslash and valid UTF-8 as they are. */
static void test_message_escaped(void)
{
	char buf[64];
	struct strbuf b;

	strbuf__init(&b, buf, sizeof(buf), 0);
	escape_message(&b, "cpu\x1b[31m\nclock \\x2d \xc3\xa9\xff\x7f");
	ASSERT_STREQ(buf, "cpu\\x1B[31m\\x0Aclock \\x2d \xc3\xa9\\xFF\\x7F",
		     "escaped");
}

static void test_field_null(void)
{
	char buf[16];
	struct strbuf b;

	memcpy(buf, "ab,", 4);
	strbuf__init(&b, buf, sizeof(buf), 3);
	csv_put_field(&b, NULL);
	ASSERT_EQ(b.len, 3, "pos kept");
	ASSERT_STREQ(buf, "ab,", "untouched");
	ASSERT_EQ(field(buf, sizeof(buf), NULL), 0, "pos 0 kept");
}

static void test_field_append(void)
{
	char buf[16];
	struct strbuf b;

	strbuf__init(&b, buf, sizeof(buf), 0);
	csv_put_field(&b, "a");
	strbuf__putc(&b, ',');
	csv_put_field(&b, "b,c");
	ASSERT_EQ(b.len, 9, "len");
	ASSERT_STREQ(buf, "\"a\",\"b,c\"", "appended");
}

/*
 * A field that does not fit is refused, never cut: the bytes past the
 * buffer stay untouched and the buffer says it was truncated.
 */
static void test_field_truncated(void)
{
	char mem[16];

	memset(mem, '#', sizeof(mem));
	ASSERT_EQ(field(mem, 8, "abcdefghijkl"), -1, "plain refused");
	ASSERT_EQ(mem[8], '#', "nothing past the buffer");
	ASSERT_EQ(field(mem, 8, "a,bcdefghijkl"), -1, "quoted refused");
	ASSERT_EQ(mem[8], '#', "nothing past the buffer, quoted");
	ASSERT_TRUE(strlen(mem) < 8, "terminated inside");
}

static void test_time(void)
{
	char buf[40];

	csv_time(buf, sizeof(buf), known_ns(123456789));
	ASSERT_STREQ(buf, "2026-11-30T07:14:20.123Z", "known time");
	/* Milliseconds are cut, not rounded: .999999999 stays in .999. */
	csv_time(buf, sizeof(buf), known_ns(999999999));
	ASSERT_STREQ(buf, "2026-11-30T07:14:20.999Z", "no round up");
	csv_time(buf, sizeof(buf), known_ns(0));
	ASSERT_STREQ(buf, "2026-11-30T07:14:20.000Z", "zero ms padded");
	csv_time(buf, sizeof(buf), known_ns(7000000));
	ASSERT_STREQ(buf, "2026-11-30T07:14:20.007Z", "small ms padded");
	csv_time(buf, sizeof(buf), 0);
	ASSERT_STREQ(buf, "1970-01-01T00:00:00.000Z", "epoch");
}

static const struct interval_info info = {
	.end_realtime_ns = 0, /* set by each test through known_ns() */
	.length_ns = 1000000000,
	.host = "node1",
};

static void check_row(const struct interval_info *in, const struct row *r,
		      const char *want, const char *name)
{
	char buf[1024];
	int n;

	n = csv_format_row(buf, sizeof(buf), in, r);
	ASSERT_STREQ(buf, want, name);
	ASSERT_EQ(n, (int)strlen(want), name);
}

static void test_row_cgroup(void)
{
	struct interval_info in = info;
	struct row r = {
		.scope = "cgroup",
		.cgroup_id = 4242,
		.cgroup = "/system.slice/sshd.service",
		.pid = -1,
		.tid = -1,
		.comm = NULL,
		.event = "cpu-clock",
		.count = 123456,
		.samples = 12,
		.running_pct = 87.54,
	};

	in.end_realtime_ns = known_ns(123000000);
	check_row(
		&in, &r,
		"2026-11-30T07:14:20.123Z,\"node1\",1000,\"cgroup\",4242,"
		"\"/system.slice/sshd.service\",,,,\"cpu-clock\",123456,12,87.5,,,,,,\n",
		"cgroup row");
}

static void test_row_process(void)
{
	struct interval_info in = info;
	struct row r = {
		.scope = "process",
		.cgroup_id = 1,
		.cgroup = "/",
		.pid = 1234,
		.tid = -1,
		.comm = "nginx",
		.event = "page-faults",
		.count = 7,
		.samples = 7,
		.running_pct = 100.0,
	};

	in.end_realtime_ns = known_ns(0);
	check_row(
		&in, &r,
		"2026-11-30T07:14:20.000Z,\"node1\",1000,\"process\",1,\"/\",1234,,"
		"\"nginx\",\"page-faults\",7,7,100.0,,,,,,\n",
		"process row");
}

static void test_row_thread(void)
{
	struct interval_info in = info;
	struct row r = {
		.scope = "thread",
		.cgroup_id = 99,
		.cgroup = "/a",
		.pid = 0, /* the idle task: 0 is an id, not "none" */
		.tid = 0,
		.comm = "swapper",
		.event = "cycles",
		.count = UINT64_MAX,
		.samples = 0,
	};

	in.end_realtime_ns = known_ns(5000000);
	check_row(
		&in, &r,
		"2026-11-30T07:14:20.005Z,\"node1\",1000,\"thread\",99,\"/a\",0,0,\"swapper\","
		"\"cycles\",18446744073709551615,0,0.0,,,,,,\n",
		"thread row");
	r.pid = 4194304;
	r.tid = 4194305;
	check_row(
		&in, &r,
		"2026-11-30T07:14:20.005Z,\"node1\",1000,\"thread\",99,\"/a\",4194304,"
		"4194305,\"swapper\",\"cycles\",18446744073709551615,0,0.0,,,,,,\n",
		"large ids");
}

static void test_row_quoting(void)
{
	struct interval_info in = info;
	struct row r = {
		.scope = "thread",
		.cgroup_id = 5,
		.cgroup = "/x,y",
		.pid = 10,
		.tid = 11,
		.comm = "a,\"b\"",
		.event = "PMU/a=1,b=2/",
		.count = 1,
		.samples = 1,
	};

	in.host = "h\"1";
	in.end_realtime_ns = known_ns(0);
	check_row(
		&in, &r,
		"2026-11-30T07:14:20.000Z,\"h\"\"1\",1000,\"thread\",5,\"/x,y\","
		"10,11,\"a,\"\"b\"\"\",\"PMU/a=1,b=2/\",1,1,0.0,,,,,,\n",
		"quoted fields");
}

static void test_row_null_strings(void)
{
	struct interval_info in = info;
	struct row r = {
		.scope = "cgroup",
		.cgroup_id = 77,
		.cgroup = NULL, /* a cgroup that was never seen */
		.pid = -1,
		.tid = -1,
		.event = "e",
		.count = 1,
	};

	in.host = NULL;
	in.end_realtime_ns = known_ns(0);
	check_row(
		&in, &r,
		"2026-11-30T07:14:20.000Z,,1000,\"cgroup\",77,,,,,\"e\",1,0,0.0,,,,,,\n",
		"null strings empty");
}

static void test_row_interval_ms(void)
{
	static const struct {
		uint64_t ns;
		const char *ms;
	} cases[] = {
		{ 0, "0" },
		{ 499999, "0" },
		{ 500000, "1" },
		{ 1499999, "1" },
		{ 1500000, "2" },
		{ 999999999, "1000" },
		{ 1000499999, "1000" },
		{ 1000500000, "1001" },
	};
	struct interval_info in = info;
	struct row r = {
		.scope = "cgroup",
		.cgroup_id = 1,
		.cgroup = "/",
		.pid = -1,
		.tid = -1,
		.event = "e",
		.count = 1,
		.samples = 1,
	};
	char want[128];

	in.end_realtime_ns = known_ns(0);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		in.length_ns = cases[i].ns;
		snprintf(
			want, sizeof(want),
			"2026-11-30T07:14:20.000Z,\"node1\",%s,\"cgroup\",1,\"/\",,,,\"e\",1,1,0.0,,,,,,\n",
			cases[i].ms);
		check_row(&in, &r, want, "interval_ms");
	}
}

/* A system row: no cgroup, no task; cgroup_id 0 is written empty. */
static void test_row_system(void)
{
	struct interval_info in = info;
	struct row r = {
		.scope = "system",
		.pid = -1,
		.tid = -1,
		.event = "cpu-clock",
		.count = 2000000000,
		.samples = 1990,
		.running_pct = 50.0,
	};

	in.end_realtime_ns = known_ns(0);
	check_row(
		&in, &r,
		"2026-11-30T07:14:20.000Z,\"node1\",1000,\"system\",,,,,,\"cpu-clock\","
		"2000000000,1990,50.0,,,,,,\n",
		"system row");
}

static void test_row_container(void)
{
	struct interval_info in = info;
	struct row r = {
		.scope = "process",
		.cgroup_id = 9,
		.cgroup = "/kubepods/pod1/abc",
		.pid = 10,
		.tid = -1,
		.comm = "app",
		.event = "e",
		.count = 1,
		.samples = 1,
		.running_pct = 100.0,
		.container = "cri://abc",
		.pod = "3f2a1c0e-1b2d-4e5f-8a9b-0c1d2e3f4a5b",
	};

	in.end_realtime_ns = known_ns(0);
	check_row(
		&in, &r,
		"2026-11-30T07:14:20.000Z,\"node1\",1000,\"process\",9,"
		"\"/kubepods/pod1/abc\",10,,\"app\",\"e\",1,1,100.0,\"cri://abc\","
		"\"3f2a1c0e-1b2d-4e5f-8a9b-0c1d2e3f4a5b\",,,,\n",
		"container and pod");
}

/* (v6) Kubernetes' names, escaped like every text: any bytes a kubelet
 * directory can hold come back from the file. */
static void test_row_kube_names(void)
{
	struct interval_info in = info;
	struct row r = {
		.scope = "container",
		.pid = -1,
		.tid = -1,
		.event = "e",
		.count = 1,
		.samples = 1,
		.running_pct = 100.0,
		.container = "containerd://abc",
		.pod = "3f2a1c0e-1b2d-4e5f-8a9b-0c1d2e3f4a5b",
		.namespace = "kube-system",
		.pod_name = "po\nd,\"x\"",
		.container_name = "c\\\xff",
	};

	in.end_realtime_ns = known_ns(0);
	check_row(
		&in, &r,
		"2026-11-30T07:14:20.000Z,\"node1\",1000,\"container\",,,,,,\"e\","
		"1,1,100.0,\"containerd://abc\","
		"\"3f2a1c0e-1b2d-4e5f-8a9b-0c1d2e3f4a5b\",,\"kube-system\","
		"\"po\\x0Ad,\"\"x\"\"\",\"c\\\\\\xFF\"\n",
		"kubernetes names");
}

static void test_row_matches_header(void)
{
	struct interval_info in = info;
	struct row r = {
		.scope = "thread",
		.cgroup = "/",
		.pid = 1,
		.tid = 2,
		.comm = "c",
		.event = "e",
		.count = 1,
		.samples = 1,
	};
	char buf[256];
	int commas = 0, want = 0;

	in.end_realtime_ns = known_ns(0);
	csv_format_row(buf, sizeof(buf), &in, &r);
	for (const char *p = buf; *p; p++)
		commas += *p == ',';
	for (const char *p = CSV_HEADER; *p; p++)
		want += *p == ',';
	ASSERT_EQ(commas, want, "one field per header column");
}

/*
 * The boundary: a row that needs exactly len bytes (its NUL included)
 * fits; one byte less and it is refused, with nothing written past the
 * buffer. A 48-byte buffer once took 10 bytes too many.
 */
static void test_row_boundary(void)
{
	struct interval_info in = info;
	struct row r = {
		.scope = "process",
		.cgroup_id = 7,
		.cgroup = "/a,\"b\"",
		.pid = 10,
		.tid = -1,
		.comm = "app",
		.event = "cpu-clock",
		.count = 123456789,
		.samples = 5,
		.running_pct = 99.95,
	};
	char full[256], mem[256];
	int n, got;

	in.end_realtime_ns = known_ns(0);
	n = csv_format_row(full, sizeof(full), &in, &r);
	if (!ASSERT_TRUE(n > 0, "reference row"))
		return;
	memset(mem, '#', sizeof(mem));
	got = csv_format_row(mem, n + 1, &in, &r);
	ASSERT_EQ(got, n, "exact fit");
	ASSERT_STREQ(mem, full, "exact fit content");
	ASSERT_EQ(mem[n + 1], '#', "exact fit: nothing past");
	for (int len = 0; len <= n; len++) {
		memset(mem, '#', sizeof(mem));
		got = csv_format_row(mem, len, &in, &r);
		if (!ASSERT_EQ(got, -ENOSPC, "short buffer refused") ||
		    !ASSERT_EQ(mem[len], '#', "short buffer: nothing past") ||
		    (len && !ASSERT_TRUE(memchr(mem, '\0', len), "terminated")))
			return;
	}
	memset(mem, '#', sizeof(mem));
	csv_format_row(mem, 48, &in, &r);
	ASSERT_EQ(mem[48], '#', "48-byte buffer");
}

/* The row through the cache, and without, must be the same bytes. */
static void same_with_runs(const struct row *r, struct csv_row_cache *cache,
			   const char *name)
{
	static char want[40000], got[40000];
	struct strbuf a, b;

	strbuf__init(&a, want, sizeof(want), 0);
	csv_format_fields(&a, r);
	strbuf__init(&b, got, sizeof(got), 0);
	csv_format_fields_cached(&b, r, cache);
	if (ASSERT_TRUE(!a.truncated && !b.truncated, name) &&
	    ASSERT_STREQ(got, want, name))
		ASSERT_EQ(b.len, a.len, name);
}

/*
 * Rows that repeat runs of fields, and rows that change one thing at a
 * time: the text in the same buffer (a cache trusting the address would
 * repeat the old row), the id, the number, NULL for "", a path too long
 * to keep, a row cut short in between.
 */
static void test_row_runs(void)
{
	static struct csv_row_cache cache;
	static char path[6000], event[64];
	struct row r = {
		.scope = "process",
		.cgroup_id = 7,
		.cgroup = path,
		.pid = 10,
		.tid = -1,
		.comm = "app",
		.event = event,
		.count = 5,
		.samples = 1,
		.running_pct = 100,
	};
	char small[40];
	struct strbuf b;

	strcpy(path, "/a,\"b\\c\n\xff");
	strcpy(event, "cpu-clock");
	same_with_runs(&r, &cache, "first");
	same_with_runs(&r, &cache, "again");
	strcpy(path, "/other");
	same_with_runs(&r, &cache, "path changed in place");
	r.cgroup_id = 8;
	same_with_runs(&r, &cache, "id changed");
	r.scope = "thread";
	r.tid = 11;
	same_with_runs(&r, &cache, "scope changed");
	strcpy(event, "page-faults");
	same_with_runs(&r, &cache, "event changed in place");
	r.running_pct = 99.95;
	same_with_runs(&r, &cache, "running_pct changed");
	r.running_pct = -1;
	same_with_runs(&r, &cache, "running_pct empty");
	r.container = "containerd://abc";
	r.pod = "1b2d";
	r.namespace = "ns";
	r.pod_name = "p\"q";
	r.container_name = "c";
	same_with_runs(&r, &cache, "Kubernetes names");
	same_with_runs(&r, &cache, "Kubernetes names again");
	r.container_name = "";
	same_with_runs(&r, &cache, "\"\" for a name");
	r.container_name = NULL;
	same_with_runs(&r, &cache, "NULL for \"\"");
	r.value = "v";
	r.no_count = true;
	same_with_runs(&r, &cache, "value, no count");
	r.cgroup = NULL;
	same_with_runs(&r, &cache, "no path");
	r.cgroup = "";
	same_with_runs(&r, &cache, "empty path");
	/* Longer than a run keeps: formatted every time, still right. */
	memset(path, 'x', 5000);
	path[5000] = '\0';
	r.cgroup = path;
	same_with_runs(&r, &cache, "long path");
	same_with_runs(&r, &cache, "long path again");
	path[4000] = '\0';
	same_with_runs(&r, &cache, "path cut in place");
	/* A row refused half-way keeps nothing of itself: each of its
	 * runs new, made in a buffer already full. */
	strcpy(path, "/cut");
	strcpy(event, "cycles");
	r.running_pct = 50;
	strbuf__init(&b, small, sizeof(small), 0);
	csv_format_fields_cached(&b, &r, &cache);
	ASSERT_TRUE(b.truncated, "small buffer refused");
	same_with_runs(&r, &cache, "after a refused row");
}

static const struct subtest tests[] = {
	{ "row_kube_names", test_row_kube_names },
	{ "row_boundary", test_row_boundary },
	{ "row_runs", test_row_runs },
	{ "field_plain", test_field_plain },
	{ "field_quoted", test_field_quoted },
	{ "field_escaped", test_field_escaped },
	{ "field_escaped_any_offset", test_field_escaped_any_offset },
	{ "field_null", test_field_null },
	{ "message_escaped", test_message_escaped },
	{ "field_append", test_field_append },
	{ "field_truncated", test_field_truncated },
	{ "time", test_time },
	{ "row_cgroup", test_row_cgroup },
	{ "row_process", test_row_process },
	{ "row_thread", test_row_thread },
	{ "row_quoting", test_row_quoting },
	{ "row_null_strings", test_row_null_strings },
	{ "row_interval_ms", test_row_interval_ms },
	{ "row_matches_header", test_row_matches_header },
	{ "row_system", test_row_system },
	{ "row_container", test_row_container },
	{ 0 },
};

int main(int argc, char **argv)
{
	return test_main(argc, argv, tests);
}
