// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: the metric grammar of common/metric.c. An input is
 * an expression up to its first NUL byte; the bytes after it, 8 at a
 * time, are the values of its vars (any double: NaN, inf, -0 too).
 *
 * A refusal is one line "bad metric '...': ... at POS" with POS inside
 * the input. An expression parses the same twice (the same vars, in the
 * same order, the same value), its vars are distinct, non-empty and, when
 * bare, in the input; with every var NaN its value is NaN. "m=INPUT"
 * through metric_def__parse is taken or refused as INPUT is, at POS + 2.
 * Links report/, sinks/ and common/ only.
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "common/metric.h"

#define CHECK(cond)                                                        \
	do {                                                               \
		if (!(cond)) {                                             \
			fprintf(stderr, "fuzz_metric_expr: %s at %s:%d\n", \
				#cond, __FILE__, __LINE__);                \
			abort();                                           \
		}                                                          \
	} while (0)

#define PREFIX "bad metric '"

/* The POS of a refusal's " at POS"; -1 for the refusal of its length. */
static long refusal_pos(const struct error *err, size_t len)
{
	const char *at = NULL, *s = err->msg;
	char *end;
	long pos;

	CHECK(memchr(err->msg, '\0', sizeof(err->msg)));
	CHECK(!strncmp(err->msg, PREFIX, strlen(PREFIX)));
	if (len > METRIC_EXPR_MAX_LEN) {
		CHECK(strstr(err->msg, "...': longer than "));
		return -1;
	}
	while ((s = strstr(s, " at ")))
		at = s++;
	CHECK(at);
	pos = strtol(at + 4, &end, 10);
	CHECK(!*end && pos >= 0 && (size_t)pos <= len);
	return pos;
}

static bool same_value(double a, double b)
{
	return (isnan(a) && isnan(b)) || !memcmp(&a, &b, sizeof(a));
}

static void check_vars(const struct metric_expr *e, const char *text)
{
	unsigned n = metric_expr__nr_vars(e);
	const char *v;

	CHECK(n <= strlen(text));
	CHECK(!metric_expr__var(e, n));
	for (unsigned i = 0; i < n; i++) {
		v = metric_expr__var(e, i);
		CHECK(v && v[0]);
		/* A quoted name is in the input only with its quotes undone. */
		if (!strchr(v, '\'') && !strchr(v, '"'))
			CHECK(strstr(text, v));
		for (unsigned j = 0; j < i; j++)
			CHECK(strcmp(metric_expr__var(e, j), v));
	}
}

static void check_parsed(struct metric_expr *e, const char *text,
			 const uint8_t *tail, size_t tail_len)
{
	unsigned n = metric_expr__nr_vars(e);
	double *vars = calloc(n + 1, sizeof(*vars)), v;
	struct metric_expr *again;
	struct error err = {};

	CHECK(vars);
	check_vars(e, text);
	CHECK(!metric_expr__parse(text, &again, &err));
	CHECK(metric_expr__nr_vars(again) == n);
	for (unsigned i = 0; i < n; i++)
		CHECK(!strcmp(metric_expr__var(e, i),
			      metric_expr__var(again, i)));

	for (unsigned i = 0; i < n; i++) {
		if ((i + 1) * sizeof(double) <= tail_len)
			memcpy(&vars[i], tail + i * sizeof(double),
			       sizeof(double));
		else
			vars[i] = i + 1;
	}
	v = metric_expr__eval(e, vars);
	CHECK(same_value(v, metric_expr__eval(again, vars)));

	/* Every var is an operand, and every operator keeps a NaN. */
	for (unsigned i = 0; i < n; i++)
		vars[i] = NAN;
	if (n)
		CHECK(isnan(metric_expr__eval(e, vars)));
	metric_expr__free(again);
	free(vars);
}

/* "m=TEXT" is taken or refused as TEXT was, two bytes further on. */
static void check_def(const char *text, int ret, long pos)
{
	size_t len = strlen(text);
	char *arg = malloc(len + 3);
	struct metric_def def;
	struct error err = {};
	int def_ret;

	CHECK(arg);
	memcpy(arg, "m=", 2);
	memcpy(arg + 2, text, len + 1);
	def_ret = metric_def__parse(arg, &def, &err);
	if (len + 2 > METRIC_EXPR_MAX_LEN) {
		CHECK(def_ret == -EINVAL);
	} else if (!ret) {
		CHECK(!def_ret);
		CHECK(!strcmp(def.name, "m") && !strcmp(def.text, text));
		CHECK(!def.builtin && def.unit && !def.unit[0]);
		check_vars(def.expr, text);
	} else {
		CHECK(def_ret == ret);
		CHECK(pos < 0 || refusal_pos(&err, len + 2) == pos + 2);
	}
	metric_def__free(&def);
	CHECK(!def.name && !def.text && !def.expr);
	free(arg);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *nul = memchr(data, '\0', size);
	size_t len = nul ? (size_t)(nul - data) : size;
	char *text = malloc(len + 1);
	struct metric_expr *e = NULL;
	struct error err = {};
	long pos = 0;
	int ret;

	CHECK(text);
	memcpy(text, data, len);
	text[len] = '\0';
	ret = metric_expr__parse(text, &e, &err);
	if (ret) {
		CHECK(ret == -EINVAL && !e);
		pos = refusal_pos(&err, len);
	} else {
		CHECK(e);
		check_parsed(e, text, nul ? nul + 1 : NULL,
			     nul ? size - len - 1 : 0);
	}
	check_def(text, ret, pos);
	metric_expr__free(e);
	free(text);
	return 0;
}
