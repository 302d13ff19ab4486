// SPDX-License-Identifier: GPL-2.0
/* Derived metrics: the expression grammar, its limits, the built-ins. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "common/util.h"
#include "common/metric.h"
#include "test.h"

#define ASSERT_NEAR(a, b, name)                                                \
	({                                                                     \
		double ___a = (a), ___b = (b);                                 \
		bool ___ok = fabs(___a - ___b) <= 1e-12 * fmax(1, fabs(___b)); \
		if (!___ok)                                                    \
			TEST__FAIL(name, "%s is %.17g, expected %.17g", #a,    \
				   ___a, ___b);                                \
		___ok;                                                         \
	})

/* Variables by name, for expressions over a..e and the events. */
static const struct {
	const char *name;
	double value;
} values[] = {
	{ "a", 2 },	    { "b", 3 },	       { "c", 4 },
	{ "d", 24 },	    { "zero", 0 },     { "nan", NAN },
	{ "cpu-clock", 5 }, { "seconds", 10 }, { "cycles:u", 7 },
};

static double value_of(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(values); i++)
		if (!strcmp(values[i].name, name))
			return values[i].value;
	return 1;
}

/* text's value with the vars of values[] (1 for any other); NaN with
 * the subtest failed when it does not parse. */
static double eval(const char *text)
{
	struct error err = {};
	struct metric_expr *e;
	double vars[64], v;

	if (!ASSERT_OK(metric_expr__parse(text, &e, &err), text)) {
		printf("    %s\n", err.msg);
		return NAN;
	}
	if (!ASSERT_LT(metric_expr__nr_vars(e), ARRAY_SIZE(vars), text)) {
		metric_expr__free(e);
		return NAN;
	}
	for (unsigned i = 0; i < metric_expr__nr_vars(e); i++)
		vars[i] = value_of(metric_expr__var(e, i));
	v = metric_expr__eval(e, vars);
	metric_expr__free(e);
	return v;
}

/* The message the refusal of text gives; "" when it parses. */
static const char *refusal(const char *text)
{
	static struct error err;
	struct metric_expr *e = NULL;

	memset(&err, 0, sizeof(err));
	if (!metric_expr__parse(text, &e, &err)) {
		metric_expr__free(e);
		return "";
	}
	ASSERT_TRUE(!e, "no expression on failure");
	return err.msg;
}

static void test_precedence(void)
{
	ASSERT_NEAR(eval("d - a - c"), 18, "a-b-c is (a-b)-c");
	ASSERT_NEAR(eval("d / a / c"), 3, "a/b/c is (a/b)/c");
	ASSERT_NEAR(eval("-a * b"), -6, "unary minus");
	ASSERT_NEAR(eval("-a - -b"), 1, "minus minus");
	ASSERT_NEAR(eval("a * -b"), -6, "minus after *");
	ASSERT_NEAR(eval("--a"), 2, "two minuses cancel");
	ASSERT_NEAR(eval("2*(3+4)"), 14, "parentheses");
	ASSERT_NEAR(eval("2*3+4"), 10, "* before +");
	ASSERT_NEAR(eval("2+3*4"), 14, "* before +, right");
	ASSERT_NEAR(eval("1 - 2 + 3"), 2, "+ and - left to right");
	ASSERT_NEAR(eval("8 / 2 * 4"), 16, "* and / left to right");
	ASSERT_NEAR(eval(" \t( ( a ) )\n"), 2, "whitespace, nesting");
	ASSERT_NEAR(eval("-(a + b) * -(c)"), 20, "minus over groups");
}

static void test_numbers(void)
{
	ASSERT_NEAR(eval("1000"), 1000, "integer");
	ASSERT_NEAR(eval("0.5"), 0.5, "fraction");
	ASSERT_NEAR(eval(".5"), 0.5, "fraction without integer part");
	ASSERT_NEAR(eval("5."), 5, "point without fraction");
	ASSERT_NEAR(eval("1e9"), 1e9, "exponent");
	ASSERT_NEAR(eval("1.5E-3"), 1.5e-3, "negative exponent, capital E");
	ASSERT_NEAR(eval("2e+2"), 200, "exponent with +");
	ASSERT_NEAR(eval("1e-400"), 0, "underflow is zero");
	ASSERT_NEAR(eval("100 * cpu-clock / (seconds * 1e9)"), 5e-8,
		    "cpu_pct's shape");
}

static void test_names(void)
{
	struct metric_expr *e;
	struct error err = {};
	static const struct {
		const char *text, *var;
	} one[] = {
		{ "cpu-clock", "cpu-clock" },
		{ "cycles:u", "cycles:u" },
		{ "_a.b@c:d-e9", "_a.b@c:d-e9" },
		{ "'cpu/event=0x3c/'", "cpu/event=0x3c/" },
		{ "\"cpu/event=0x3c,umask=1/\"", "cpu/event=0x3c,umask=1/" },
		{ "'it''s'", "it's" },
		{ "\"a\"\"b\"", "a\"b" },
		{ "'a\"b'", "a\"b" },
		{ "''''", "'" },
		{ "cycles-instructions", "cycles-instructions" },
	};

	for (size_t i = 0; i < ARRAY_SIZE(one); i++) {
		if (!ASSERT_OK(metric_expr__parse(one[i].text, &e, &err),
			       one[i].text))
			continue;
		ASSERT_EQ(metric_expr__nr_vars(e), 1, one[i].text);
		ASSERT_STREQ(metric_expr__var(e, 0), one[i].var, one[i].text);
		metric_expr__free(e);
	}
	ASSERT_NEAR(eval("cpu-clock - a"), 3, "spaces make a minus");
	ASSERT_NEAR(eval("'cycles:u' * cycles:u"), 49, "quoted is bare");
}

static void test_dedup(void)
{
	struct metric_expr *e;
	struct error err = {};
	static const char *const want[] = { "b", "a", "seconds", "c" };

	if (!ASSERT_OK(metric_expr__parse("b + a * b / 'a' - seconds + c * "
					  "\"seconds\" + b",
					  &e, &err),
		       "parse"))
		return;
	if (ASSERT_EQ(metric_expr__nr_vars(e), ARRAY_SIZE(want), "nr_vars"))
		for (unsigned i = 0; i < ARRAY_SIZE(want); i++)
			ASSERT_STREQ(metric_expr__var(e, i), want[i], "order");
	ASSERT_TRUE(!metric_expr__var(e, ARRAY_SIZE(want)), "past the end");
	metric_expr__free(e);

	if (!ASSERT_OK(metric_expr__parse("1 + 2", &e, &err), "constant"))
		return;
	ASSERT_EQ(metric_expr__nr_vars(e), 0, "no vars");
	ASSERT_NEAR(metric_expr__eval(e, NULL), 3, "constant value");
	metric_expr__free(e);
}

static void test_nan(void)
{
	ASSERT_TRUE(isnan(eval("a / 0")), "x/0");
	ASSERT_TRUE(isnan(eval("0 / 0")), "0/0");
	ASSERT_TRUE(isnan(eval("-a / zero")), "-x/0");
	ASSERT_TRUE(isnan(eval("a / (b - b)")), "computed zero");
	ASSERT_TRUE(isnan(eval("a / -zero")), "x/-0");
	ASSERT_TRUE(isnan(eval("1 + a / 0 * 0")), "propagates");
	ASSERT_TRUE(isnan(eval("nan * 0 + 1")), "NaN var propagates");
	ASSERT_TRUE(isnan(eval("-nan")), "negated NaN");
	ASSERT_NEAR(eval("zero / a"), 0, "0/x is 0");
}

static void test_errors(void)
{
	static const struct {
		const char *text, *msg;
	} bad[] = {
		{ "", "bad metric '': expression expected at 0" },
		{ "  ", "bad metric '  ': expression expected at 2" },
		{ "a/(b", "bad metric 'a/(b': ')' expected at 4" },
		{ "(a", "bad metric '(a': ')' expected at 2" },
		{ "a +",
		  "bad metric 'a +': number, name or '(' expected at 3" },
		{ "+a", "bad metric '+a': number, name or '(' expected at 0" },
		{ "a * ()",
		  "bad metric 'a * ()': number, name or '(' expected at 5" },
		{ "a ** b",
		  "bad metric 'a ** b': number, name or '(' expected at 3" },
		{ ".e", "bad metric '.e': number, name or '(' expected at 0" },
		{ "a b", "bad metric 'a b': operator expected at 2" },
		{ "a % b", "bad metric 'a % b': operator expected at 2" },
		{ "2x", "bad metric '2x': operator expected at 1" },
		{ "1.2.3", "bad metric '1.2.3': operator expected at 3" },
		{ "0x10", "bad metric '0x10': operator expected at 1" },
		{ "a)", "bad metric 'a)': unmatched ')' at 1" },
		{ "(a))", "bad metric '(a))': unmatched ')' at 3" },
		{ "1e",
		  "bad metric '1e': digits of the exponent expected at 2" },
		{ "1e+ 2",
		  "bad metric '1e+ 2': digits of the exponent expected at 3" },
		{ "2 * 1e999",
		  "bad metric '2 * 1e999': number out of range at 4" },
		{ "'abc", "bad metric ''abc': closing ' expected at 4" },
		{ "a / \"b''",
		  "bad metric 'a / \"b''': closing \" expected at 8" },
		{ "'it''", "bad metric ''it''': closing ' expected at 5" },
		{ "a + ''", "bad metric 'a + ''': empty quoted name at 4" },
	};

	for (size_t i = 0; i < ARRAY_SIZE(bad); i++)
		ASSERT_STREQ(refusal(bad[i].text), bad[i].msg, bad[i].text);
}

/* n opening parentheses around a + b * (...), closed again. */
static char *nested(unsigned n)
{
	char *s = malloc(n * 8 + 2), *p = s;

	for (unsigned i = 0; i < n; i++)
		p += sprintf(p, "a+b*(");
	*p++ = 'c';
	for (unsigned i = 0; i < n; i++)
		*p++ = ')';
	*p = '\0';
	return s;
}

static void test_depth(void)
{
	char *s = nested(METRIC_EXPR_MAX_DEPTH);
	double want = 4; /* c */
	char msg[64];

	/* The deepest nesting holds the most pending values. */
	for (unsigned i = 0; i < METRIC_EXPR_MAX_DEPTH; i++)
		want = 2 + 3 * want;
	ASSERT_NEAR(eval(s), want, "64 levels");
	free(s);

	s = nested(METRIC_EXPR_MAX_DEPTH + 1);
	snprintf(msg, sizeof(msg), "parentheses nested deeper than %d at %d",
		 METRIC_EXPR_MAX_DEPTH, 5 * METRIC_EXPR_MAX_DEPTH + 4);
	ASSERT_TRUE(strstr(refusal(s), msg), "65 levels refused");
	free(s);

	/* Hostile: no recursion per minus, none per ( past the limit. */
	s = malloc(METRIC_EXPR_MAX_LEN + 1);
	memset(s, '-', METRIC_EXPR_MAX_LEN - 1);
	strcpy(s + METRIC_EXPR_MAX_LEN - 1, "a");
	ASSERT_NEAR(eval(s), -2, "4095 minuses");
	memset(s, '(', METRIC_EXPR_MAX_LEN);
	ASSERT_TRUE(strstr(refusal(s), "nested deeper than"), "4096 (");
	free(s);
}

static void test_length(void)
{
	char *s = malloc(METRIC_EXPR_MAX_LEN + 2), tail[64];
	const char *msg;

	/* "a+a+...+a": as long as allowed, then one byte more. */
	for (unsigned i = 0; i < METRIC_EXPR_MAX_LEN; i++)
		s[i] = i % 2 ? '+' : 'a';
	s[METRIC_EXPR_MAX_LEN - 1] = '\0';
	ASSERT_NEAR(eval(s), 2 * (METRIC_EXPR_MAX_LEN / 2), "longest");
	s[METRIC_EXPR_MAX_LEN - 1] = ' ';
	s[METRIC_EXPR_MAX_LEN] = 'a';
	s[METRIC_EXPR_MAX_LEN + 1] = '\0';
	msg = refusal(s);
	ASSERT_TRUE(strstr(msg, "longer than 4096 bytes"), "one byte more");
	ASSERT_TRUE(!strncmp(msg, "bad metric 'a+a+", 16), "names its start");

	/* A long input is quoted cut, so that the position still shows. */
	s[METRIC_EXPR_MAX_LEN - 1] = '\0';
	s[METRIC_EXPR_MAX_LEN - 2] = '*';
	snprintf(tail, sizeof(tail), "...': number, name or '(' expected at %d",
		 METRIC_EXPR_MAX_LEN - 2);
	msg = refusal(s);
	ASSERT_TRUE(strstr(msg, tail), "cut quote, whole position");
	free(s);
}

static void test_def(void)
{
	struct metric_def def;
	struct error err = {};
	static const struct {
		const char *arg, *msg;
	} bad[] = {
		{ "=a", "bad metric '=a': metric name expected at 0" },
		{ "1x=a", "bad metric '1x=a': metric name expected at 0" },
		{ "", "bad metric '': metric name expected at 0" },
		{ "ipc", "bad metric 'ipc': '=' expected at 3" },
		{ "ip c=a", "bad metric 'ip c=a': '=' expected at 2" },
		{ "a-b=c", "bad metric 'a-b=c': '=' expected at 1" },
		{ "ipc=", "bad metric 'ipc=': expression expected at 4" },
		{ "ipc= ", "bad metric 'ipc= ': expression expected at 5" },
		{ "ipc=a/(b", "bad metric 'ipc=a/(b': ')' expected at 8" },
		{ "x=a b", "bad metric 'x=a b': operator expected at 4" },
	};

	if (ASSERT_OK(metric_def__parse("ipc_2=instructions / cycles", &def,
					&err),
		      "good")) {
		ASSERT_STREQ(def.name, "ipc_2", "name");
		ASSERT_STREQ(def.text, "instructions / cycles",
			     "text as given");
		ASSERT_STREQ(def.unit, "", "no unit");
		ASSERT_TRUE(!def.builtin, "not built in");
		ASSERT_EQ(metric_expr__nr_vars(def.expr), 2, "its vars");
		metric_def__free(&def);
		ASSERT_TRUE(!def.name && !def.expr, "freed");
	}
	if (ASSERT_OK(metric_def__parse("_=-'x=y'", &def, &err), "'=' in")) {
		ASSERT_STREQ(def.name, "_", "short name");
		ASSERT_STREQ(metric_expr__var(def.expr, 0), "x=y",
			     "quoted '='");
		metric_def__free(&def);
	}
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		memset(&err, 0, sizeof(err));
		ASSERT_EQ(metric_def__parse(bad[i].arg, &def, &err), -EINVAL,
			  bad[i].arg);
		ASSERT_STREQ(err.msg, bad[i].msg, bad[i].arg);
		ASSERT_TRUE(!def.name && !def.text && !def.expr, "left empty");
		metric_def__free(&def);
	}
}

/* has_event over a NULL-terminated list; "seconds" must not be asked. */
static bool in_list(const char *name, void *ctx)
{
	ASSERT_TRUE(strcmp(name, METRIC_VAR_SECONDS), "seconds never asked");
	for (const char *const *l = ctx; *l; l++)
		if (!strcmp(*l, name))
			return true;
	return false;
}

static void test_builtins(void)
{
	static const char *all[] = { "instructions",  "cycles",
				     "cache-misses",  "cache-references",
				     "branch-misses", "branches",
				     "cpu-clock",     NULL };
	static const char *others[] = { "instructions",	 "cpu-cycles",
					"branch-misses", "branch-instructions",
					"task-clock",	 NULL };
	static const char *few[] = { "instructions", "cache-misses",
				     "cpu-clock:u", NULL };
	static const struct {
		const char *name, *text, *unit;
	} want[] = {
		{ "ipc", "instructions / cycles", "" },
		{ "cpi", "cycles / instructions", "" },
		{ "cache_miss_pct", "100 * cache-misses / cache-references",
		  "%" },
		{ "mpki", "1000 * cache-misses / instructions",
		  "per 1k instructions" },
		{ "branch_miss_pct", "100 * branch-misses / branches", "%" },
		{ "cpu_pct", "100 * cpu-clock / (seconds * 1e9)",
		  "% of one CPU" },
	};
	struct metric_def defs[8];
	unsigned n;

	n = metric_builtins__resolve(in_list, all, defs, ARRAY_SIZE(defs));
	if (ASSERT_EQ(n, ARRAY_SIZE(want), "all present")) {
		for (unsigned i = 0; i < n; i++) {
			ASSERT_STREQ(defs[i].name, want[i].name, "name");
			ASSERT_STREQ(defs[i].text, want[i].text, "text");
			ASSERT_STREQ(defs[i].unit, want[i].unit, "unit");
			ASSERT_TRUE(defs[i].builtin && defs[i].expr,
				    "built in");
		}
	}
	for (unsigned i = 0; i < n; i++)
		metric_def__free(&defs[i]);

	n = metric_builtins__resolve(in_list, others, defs, ARRAY_SIZE(defs));
	if (ASSERT_EQ(n, 4, "second spellings")) {
		ASSERT_STREQ(defs[0].text, "instructions / cpu-cycles", "ipc");
		ASSERT_STREQ(defs[1].text, "cpu-cycles / instructions", "cpi");
		ASSERT_STREQ(defs[2].text,
			     "100 * branch-misses / branch-instructions",
			     "branch_miss_pct");
		ASSERT_STREQ(defs[3].text, "100 * task-clock / (seconds * 1e9)",
			     "cpu_pct");
	}
	for (unsigned i = 0; i < n; i++)
		metric_def__free(&defs[i]);

	/* cpu-clock:u is not cpu-clock: the metric needs the event as named. */
	n = metric_builtins__resolve(in_list, few, defs, ARRAY_SIZE(defs));
	if (ASSERT_EQ(n, 1, "one complete"))
		ASSERT_STREQ(defs[0].name, "mpki", "only mpki");
	for (unsigned i = 0; i < n; i++)
		metric_def__free(&defs[i]);

	n = metric_builtins__resolve(in_list, all, defs, 2);
	ASSERT_EQ(n, 2, "at most max");
	for (unsigned i = 0; i < n; i++)
		metric_def__free(&defs[i]);
	ASSERT_EQ(metric_builtins__resolve(in_list, all + 7, defs, 8), 0,
		  "no events, no metrics");
}

static void test_event_unit(void)
{
	static const struct {
		const char *event, *unit;
	} cases[] = {
		{ "cpu-clock", "ns" },
		{ "task-clock", "ns" },
		{ "duration_time", "ns" },
		{ "cpu-clock:u", "ns" },
		{ "cpu-clock:uk", "ns" },
		{ "task-clock:k", "ns" },
		{ "task-clock:u:k", "ns" },
		{ "cpu-clock:", "events" },
		{ "cpu-clock:u:", "events" },
		{ "cpu-clock:period=1000", "events" },
		{ "cpu-clocks", "events" },
		{ "cpu-cloc", "events" },
		{ "cpu/event=0x3c/", "events" },
		{ "cpu/cpu-clock/", "events" },
		{ "page-faults", "events" },
		{ "faults", "events" },
		{ "minor-faults", "events" },
		{ "major-faults", "events" },
		{ "context-switches", "events" },
		{ "cs", "events" },
		{ "cpu-migrations", "events" },
		{ "migrations", "events" },
		{ "cycles", "events" },
		{ "instructions:u", "events" },
		{ "r01c2", "events" },
		{ "", "events" },
	};

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++)
		ASSERT_STREQ(event_unit(cases[i].event), cases[i].unit,
			     cases[i].event);
}

static const struct subtest tests[] = {
	{ "precedence", test_precedence },
	{ "numbers", test_numbers },
	{ "names", test_names },
	{ "dedup", test_dedup },
	{ "nan", test_nan },
	{ "errors", test_errors },
	{ "depth", test_depth },
	{ "length", test_length },
	{ "def", test_def },
	{ "builtins", test_builtins },
	{ "event_unit", test_event_unit },
	{ 0 },
};

int main(int argc, char **argv)
{
	return test_main(argc, argv, tests);
}
