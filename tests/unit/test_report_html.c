// SPDX-License-Identifier: GPL-2.0
/*
 * The HTML page of `bpmc report`, written from hand-built results: hostile
 * names stay text, the markup nests, every shown row has its area (or
 * line) and its bar, a NaN never reaches the page as "nan", nothing points
 * outside the file, and a write that fails says so.
 */
#include <ctype.h>
#include <errno.h>
#include <float.h>
#include <locale.h>
#include <math.h>
#include <stdlib.h>
#include <time.h>

#include "report/html.h"
#include "report/html_parts.h"
#include "test.h"

#define MAX_ROWS 12
#define NR_EVENTS 2
#define MAX_BUCKETS 64

static const char *const hostile = "<script>alert(1)</script>\"&'";

/* One result and everything it points to. */
struct fixture {
	struct report_result r;
	struct report_row rows[MAX_ROWS], system[2], self[2];
	const char *keys[MAX_ROWS][2], *host_keys[2][1];
	char names[MAX_ROWS][32];
	struct report_cell cells[MAX_ROWS][NR_EVENTS];
	struct report_cell sys_cells[2][NR_EVENTS], self_cells[2][1];
	struct report_value metrics[MAX_ROWS][1];
	double values[MAX_ROWS * MAX_BUCKETS];
};

static const char *key_cols[] = { "host", "cgroup" };
static struct report_event events[NR_EVENTS] = {
	{ "cpu-clock", "ns" },
	{ "page-faults", "events" },
};
static struct report_event self_events[] = { { "cpu_ns", "ns" } };
static struct report_metric metrics[] = {
	{ "cpu_share", "'cpu-clock' / (seconds * 1e9) * 100", "%" },
};

static void cell(struct report_cell *c, uint64_t count, double seconds)
{
	*c = (struct report_cell){ .count = count,
				   .per_s = count / seconds,
				   .samples = count / 1000000,
				   .rel_err = 0.01,
				   .running_pct = 100 };
}

/*
 * nr_rows keys with names of every kind (row 1 the hostile one, row 2
 * accents and an emoji), nr_buckets buckets with gaps, row 3 multiplexed.
 */
static struct report_result *fixture_init(struct fixture *f, unsigned nr_rows,
					  unsigned nr_buckets)
{
	struct report_result *r = &f->r;

	memset(f, 0, sizeof(*f));
	for (unsigned i = 0; i < nr_rows; i++) {
		struct report_row *row = &f->rows[i];
		double seconds = 10 + i;

		snprintf(f->names[i], sizeof(f->names[i]), "/bpmc/k%u", i);
		f->keys[i][0] = "host-a";
		f->keys[i][1] = f->names[i];
		if (i == 1)
			f->keys[i][1] = hostile;
		if (i == 2)
			f->keys[i][1] = "/caf\xc3\xa9/\xf0\x9f\x94\xa5";
		row->key = f->keys[i];
		row->seconds = seconds;
		cell(&f->cells[i][0], (uint64_t)(nr_rows - i) * 1000000000ull,
		     seconds);
		cell(&f->cells[i][1], 1000 * (i + 1), seconds);
		row->cells = f->cells[i];
		f->metrics[i][0] = (struct report_value){
			.value = 100.0 * (nr_rows - i) / seconds,
			.rel_err = 0.01,
			.low_running = i == 3,
		};
		if (i == 3)
			f->cells[i][0].running_pct = 40;
		row->metrics = f->metrics[i];
		for (unsigned b = 0; b < nr_buckets; b++)
			f->values[i * nr_buckets + b] =
				(b + i) % 5 == 4 ?
					NAN :
					1e8 * (nr_rows - i) + 1e6 * b;
	}
	for (unsigned h = 0; h < 2; h++) {
		f->host_keys[h][0] = h ? "host-b" : "host-a";
		f->system[h].key = f->host_keys[h];
		f->system[h].seconds = 12;
		cell(&f->sys_cells[h][0], 24000000000ull, 12);
		cell(&f->sys_cells[h][1], 5000, 12);
		f->system[h].cells = f->sys_cells[h];
		f->self[h].key = f->host_keys[h];
		f->self[h].seconds = 12;
		cell(&f->self_cells[h][0], 30000000, 12);
		f->self[h].cells = f->self_cells[h];
	}
	*r = (struct report_result){
		.scope = "cgroup",
		.nr_key_cols = 2,
		.key_cols = key_cols,
		.nr_events = NR_EVENTS,
		.events = events,
		.nr_metrics = 1,
		.metrics = metrics,
		.min_running_pct = 50,
		.nr_rows = nr_rows,
		.nr_keys = nr_rows + 3,
		.rows = f->rows,
		.nr_hosts = 2,
		.system = f->system,
		.self = f->self,
		.nr_self_events = 1,
		.self_events = self_events,
		.first_ms = 1764640000000ull,
		.last_ms = 1764640012345ull,
		.nr_files = 2,
		.nr_input_rows = 4321,
		.series = { .t0_ms = 1764640000000ull,
			    .bucket_ms = 500,
			    .nr_buckets = nr_buckets,
			    .values = nr_buckets ? f->values : NULL },
	};
	return r;
}

/* The page as a string (free it), or NULL with the test failed. */
static char *render(const struct report_result *r)
{
	struct error err = { "" };
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	int ret;

	if (!ASSERT_TRUE(f != NULL, "open_memstream"))
		return NULL;
	ret = report_html__write(r, f, "report <of> \"tests\"", &err);
	fclose(f);
	if (!ASSERT_OK(ret, "report_html__write") ||
	    !ASSERT_STREQ(err.msg, "", "no error")) {
		free(text);
		return NULL;
	}
	return text;
}

static unsigned count(const char *s, const char *what)
{
	unsigned n = 0;

	for (; (s = strstr(s, what)); s += strlen(what))
		n++;
	return n;
}

/* what as a word of its own, in any case: "nan", but not "nano". */
static bool has_word(const char *s, const char *what)
{
	size_t n = strlen(what);

	for (const char *p = s; *p; p++)
		if (!strncasecmp(p, what, n) &&
		    (p == s || !isalpha((unsigned char)p[-1])) &&
		    !isalpha((unsigned char)p[n]))
			return true;
	return false;
}

/*
 * Every element opened is closed, in order; void elements (meta, br) and
 * self-closed ones (<line/>) need no end tag. A '<' or '>' out of place
 * (a name that was not escaped) breaks the nesting or the tag's name.
 */
static bool balanced(const char *s, char *why, size_t len)
{
	char stack[64][16], name[16];
	unsigned depth = 0;
	const char *end;
	size_t n;
	bool closing;

	while ((s = strchr(s, '<'))) {
		if (!strncmp(s, "<!DOCTYPE", 9)) {
			s++;
			continue;
		}
		closing = s[1] == '/';
		s += closing ? 2 : 1;
		n = strspn(s, "abcdefghijklmnopqrstuvwxyz0123456789");
		end = strchr(s, '>');
		if (!n || n >= sizeof(name) || !end) {
			snprintf(why, len, "bad tag at \"%.20s\"", s - 1);
			return false;
		}
		memcpy(name, s, n);
		name[n] = '\0';
		if (memchr(s, '<', end - s)) {
			snprintf(why, len, "'<' inside <%s>", name);
			return false;
		}
		if (closing) {
			if (!depth || strcmp(stack[depth - 1], name)) {
				snprintf(why, len, "</%s> closes <%s>", name,
					 depth ? stack[depth - 1] : "nothing");
				return false;
			}
			depth--;
		} else if (end[-1] != '/' && strcmp(name, "meta") &&
			   strcmp(name, "br")) {
			if (depth == 64)
				return false;
			strcpy(stack[depth++], name);
		}
		s = end + 1;
	}
	if (depth)
		snprintf(why, len, "<%s> is never closed", stack[depth - 1]);
	return !depth;
}

/* What every page must hold, whatever its data. */
static void check_page(const char *page, const struct report_result *r)
{
	char why[128] = "";
	const char *url;

	ASSERT_TRUE(balanced(page, why, sizeof(why)), "balanced");
	if (why[0])
		printf("  %s\n", why);
	ASSERT_TRUE(!strstr(page, "http"), "no http");
	ASSERT_TRUE(!strstr(page, "<script"), "no script");
	ASSERT_TRUE(!strstr(page, "href") && !strstr(page, "src="), "no links");
	for (url = page; (url = strstr(url, "url(")); url++)
		ASSERT_TRUE(url[4] == '#', "url() only to the page itself");
	ASSERT_TRUE(!has_word(page, "nan") && !has_word(page, "inf") &&
			    !has_word(page, "infinity"),
		    "no nan, no inf");
	for (const unsigned char *p = (const unsigned char *)page; *p; p++)
		if (*p < 0x20 && *p != '\n') {
			ASSERT_TRUE(false, "no control byte");
			break;
		}
	ASSERT_EQ(count(page, "<svg id=\"series\""), 1, "one series chart");
	ASSERT_EQ(count(page, "<svg id=\"bars\""), 1, "one bar chart");
	ASSERT_EQ(count(page, "<rect class=\"bar\""), r->nr_rows,
		  "a bar per row");
	ASSERT_EQ(count(page, "<table id=\"keys\""), 1, "the keys' table");
	/* The keys' rows, then the hosts' in each of system and self. */
	ASSERT_EQ(count(page, "<tr>"),
		  1 + r->nr_rows + (r->nr_hosts ? 2 + 2 * r->nr_hosts : 0),
		  "table rows");
}

static void test_keys(void)
{
	static struct fixture f;
	struct report_result *r = fixture_init(&f, MAX_ROWS, 40);
	char *page = render(r);

	if (!page)
		return;
	check_page(page, r);
	ASSERT_EQ(count(page, "<path class=\"series-area\""), MAX_ROWS,
		  "an area per row");
	ASSERT_EQ(count(page, "class=\"series-line\""), 0,
		  "no lines for a rate");
	ASSERT_TRUE(strstr(page,
			   "data-key=\"host-a \xc2\xb7 &lt;script&gt;"
			   "alert(1)&lt;/script&gt;&quot;&amp;&#39;\"") != NULL,
		    "hostile key escaped");
	ASSERT_TRUE(strstr(page, "/caf\xc3\xa9/\xf0\x9f\x94\xa5") != NULL,
		    "UTF-8 as it is");
	ASSERT_TRUE(strstr(page, "<title>report &lt;of&gt; &quot;tests&quot;"
				 "</title>") != NULL,
		    "title escaped");
	ASSERT_EQ(count(page, "class=\"bar-hatch\""), 1, "one bar hatched");
	ASSERT_TRUE(strstr(page, "2025-12-02T01:46:40.000Z") &&
			    strstr(page, "2025-12-02T01:46:52.345Z"),
		    "time span in ISO 8601");
	ASSERT_TRUE(strstr(page, "<table id=\"system\"") &&
			    strstr(page, "<table id=\"self\""),
		    "system and self tables");
	ASSERT_TRUE(strstr(page, "count (ns)") && strstr(page, "(ns/s)"),
		    "units in the headers");
	free(page);
}

/* A metric is drawn as lines, and its low_running row is hatched. */
static void test_metric_lines(void)
{
	static struct fixture f;
	struct report_result *r = fixture_init(&f, 5, 20);
	char *page;

	r->sort_is_metric = true;
	r->sort_index = 0;
	page = render(r);
	if (!page)
		return;
	check_page(page, r);
	ASSERT_EQ(count(page, "<path class=\"series-line\""), 5,
		  "a line per row");
	ASSERT_EQ(count(page, "class=\"series-area\""), 0,
		  "a ratio is not stacked");
	ASSERT_EQ(count(page, "class=\"bar-hatch\""), 1, "the low one");
	ASSERT_TRUE(strstr(page, "multiplexed") != NULL, "legend note");
	free(page);
}

static void test_zero_rows(void)
{
	static struct fixture f;
	struct report_result *r = fixture_init(&f, 0, 0);
	char *page = render(r);

	if (!page)
		return;
	check_page(page, r);
	ASSERT_EQ(count(page, "<path class=\"series"), 0, "no areas");
	ASSERT_TRUE(strstr(page, ">no keys</text>") != NULL, "says so");
	free(page);
}

/* No events at all (an empty input): still a page, never a crash. */
static void test_empty_input(void)
{
	struct report_result r = { .scope = "cgroup" };
	char *page = render(&r);

	if (!page)
		return;
	check_page(page, &r);
	ASSERT_TRUE(strstr(page, "no rows") != NULL, "says there were none");
	free(page);
}

static void test_single_bucket(void)
{
	static struct fixture f;
	struct report_result *r = fixture_init(&f, 3, 1);
	char *page = render(r);

	if (!page)
		return;
	check_page(page, r);
	ASSERT_EQ(count(page, "<path class=\"series-area\""), 3,
		  "an area per row");
	ASSERT_EQ(count(page, "d=\"\""), 0, "each one drawn");
	free(page);
}

static void test_no_series(void)
{
	static struct fixture f;
	struct report_result *r = fixture_init(&f, 4, 0);
	char *page = render(r);

	if (!page)
		return;
	check_page(page, r);
	ASSERT_EQ(count(page, "<path class=\"series"), 0, "no areas");
	ASSERT_TRUE(strstr(page, "no time series") != NULL, "says so");
	free(page);
}

/* Undefined values: "n/a" and a bar of no width, never a 0 or a "nan". */
static void test_nan_values(void)
{
	static struct fixture f;
	struct report_result *r = fixture_init(&f, 4, 8);
	char *page;

	f.cells[2][0].per_s = NAN;
	f.cells[2][0].rel_err = NAN;
	f.cells[2][0].running_pct = NAN;
	f.metrics[1][0].value = NAN;
	f.metrics[2][0].value = INFINITY;
	for (unsigned b = 0; b < 8; b++)
		f.values[3 * 8 + b] = NAN; /* a row never covered */
	page = render(r);
	if (!page)
		return;
	check_page(page, r);
	ASSERT_TRUE(strstr(page, "data-value=\"n/a\" x=\"") != NULL, "bar n/a");
	ASSERT_TRUE(strstr(page, "width=\"0\" height=\"16\"") != NULL,
		    "of no width");
	ASSERT_EQ(count(page, "<path class=\"series-area\""), 4,
		  "an area per row, even an empty one");
	ASSERT_TRUE(strstr(page, "d=\"\"") != NULL, "empty one drawn empty");
	free(page);
}

/* Numbers at the ends of double: still numbers, still on the page. */
static void test_extremes(void)
{
	static struct fixture f;
	struct report_result *r = fixture_init(&f, 4, 6);
	char *page;

	f.cells[0][0].per_s = DBL_MAX;
	f.cells[1][0].per_s = DBL_MAX;
	f.cells[2][0].per_s = 1e-300;
	f.metrics[0][0].value = -DBL_MAX;
	for (unsigned b = 0; b < 6; b++) {
		f.values[b] = DBL_MAX; /* two of them stack past it */
		f.values[6 + b] = DBL_MAX;
		f.values[12 + b] = -1e300;
		f.values[18 + b] = 4.9e-324;
	}
	page = render(r);
	if (!page)
		return;
	check_page(page, r);
	free(page);
	r->sort_is_metric = true;
	page = render(r);
	if (page)
		check_page(page, r);
	free(page);
}

/* Bytes the export never holds still cannot break the page. */
static void test_control_bytes(void)
{
	static struct fixture f;
	struct report_result *r = fixture_init(&f, 3, 4);
	char *page;

	f.keys[0][1] = "a\x01"
		       "b\x7f"
		       "c\xff"
		       "d\xc2\x85"
		       "e\ng";
	page = render(r);
	if (!page)
		return;
	check_page(page, r);
	ASSERT_TRUE(strstr(page, "a&#xfffd;b&#xfffd;c&#xfffd;d&#xfffd;e"
				 "&#xfffd;g") != NULL,
		    "each one replaced");
	free(page);
}

/* The same bytes twice, and under a locale whose decimal point is ','. */
static void test_deterministic(void)
{
	static struct fixture f;
	struct report_result *r = fixture_init(&f, 6, 30);
	char *a = render(r), *b;

	if (!a)
		return;
	if (!setlocale(LC_NUMERIC, "de_DE.UTF-8") &&
	    !setlocale(LC_NUMERIC, "fr_FR.UTF-8"))
		printf("  no locale with a decimal comma here: same bytes "
		       "twice only\n");
	b = render(r);
	setlocale(LC_NUMERIC, "C");
	if (b)
		ASSERT_TRUE(!strcmp(a, b), "same bytes");
	free(a);
	free(b);
}

static void test_numbers(void)
{
	static const struct {
		double v;
		const char *si, *fixed2;
	} cases[] = {
		{ 0, "0", "0.00" },
		{ 999, "999", "999.00" },
		{ 999.6, "1k", "999.60" },
		{ 1234, "1.23k", "1234.00" },
		{ 2.5e9, "2.5G", "2500000000.00" },
		{ -0.001, "-0.001", "0.00" },
		{ 0.5, "0.5", "0.50" },
		{ 1e300, "1.000e+300", "1.000e+300" },
		{ NAN, "n/a", "n/a" },
		{ INFINITY, "n/a", "n/a" },
	};
	char buf[NUM_LEN];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		fmt_si(buf, cases[i].v);
		ASSERT_STREQ(buf, cases[i].si, "fmt_si");
		fmt_fixed(buf, cases[i].v, 2);
		ASSERT_STREQ(buf, cases[i].fixed2, "fmt_fixed");
	}
	fmt_sig(buf, 1.23456, 4);
	ASSERT_STREQ(buf, "1.235", "fmt_sig");
	fmt_iso_ms(buf, 0);
	ASSERT_STREQ(buf, "1970-01-01T00:00:00.000Z", "epoch");
}

/* A result that does not hold together is refused, not read past. */
static void test_bad_result(void)
{
	static struct fixture f;
	struct report_result *r = fixture_init(&f, 3, 4);
	struct error err = { "" };
	FILE *out = fopen("/dev/null", "w");

	if (!ASSERT_TRUE(out != NULL, "/dev/null"))
		return;
	r->sort_index = 7;
	ASSERT_EQ(report_html__write(r, out, NULL, &err), -EINVAL, "sort");
	ASSERT_TRUE(strstr(err.msg, "sort event 7") != NULL, "err names it");
	r->sort_index = 0;
	f.rows[1].cells = NULL;
	err.msg[0] = '\0';
	ASSERT_EQ(report_html__write(r, out, NULL, &err), -EINVAL, "cells");
	ASSERT_TRUE(strstr(err.msg, "row 1") != NULL, "err names the row");
	fclose(out);
}

static void test_full_device(void)
{
	static struct fixture f;
	struct report_result *r = fixture_init(&f, MAX_ROWS, 40);
	struct error err = { "" };
	FILE *out = fopen("/dev/full", "w");
	int ret;

	if (!ASSERT_TRUE(out != NULL, "/dev/full"))
		return;
	ret = report_html__write(r, out, NULL, &err);
	ASSERT_TRUE(ret == -ENOSPC || ret == -EIO, "-ENOSPC or -EIO");
	ASSERT_TRUE(strstr(err.msg, "cannot write the html report") != NULL,
		    "err set");
	fclose(out);
}

/*
 * The cost, printed for the record: the largest page a --top 12 makes.
 * With TEST_HTML_OUT=FILE the page is kept there, to be looked at.
 */
static void test_size(void)
{
	static struct fixture f;
	struct report_result *r = fixture_init(&f, MAX_ROWS, MAX_BUCKETS);
	struct timespec a, b;
	const char *keep;
	char *page;
	FILE *out;

	clock_gettime(CLOCK_MONOTONIC, &a);
	page = render(r);
	clock_gettime(CLOCK_MONOTONIC, &b);
	if (!page)
		return;
	printf("  %u keys x %u buckets: %zu bytes in %.3f ms\n", r->nr_rows,
	       r->series.nr_buckets, strlen(page),
	       (b.tv_sec - a.tv_sec) * 1e3 + (b.tv_nsec - a.tv_nsec) / 1e6);
	keep = getenv("TEST_HTML_OUT");
	if (keep && (out = fopen(keep, "w"))) {
		fputs(page, out);
		fclose(out);
	}
	free(page);
}

static const struct subtest tests[] = {
	{ "keys", test_keys },
	{ "metric_lines", test_metric_lines },
	{ "zero_rows", test_zero_rows },
	{ "empty_input", test_empty_input },
	{ "single_bucket", test_single_bucket },
	{ "no_series", test_no_series },
	{ "nan_values", test_nan_values },
	{ "extremes", test_extremes },
	{ "control_bytes", test_control_bytes },
	{ "deterministic", test_deterministic },
	{ "numbers", test_numbers },
	{ "bad_result", test_bad_result },
	{ "full_device", test_full_device },
	{ "size", test_size },
	{ 0 },
};

int main(int argc, char **argv)
{
	return test_main(argc, argv, tests);
}
