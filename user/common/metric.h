/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Derived metrics of `bpmc report` and `bpmc top`: arithmetic over event
 * totals (in common/ so that both reach it).
 *
 * An expression holds numbers (decimal, with an optional fraction and
 * exponent: 1000, 0.5, 1e9), + - * / and parentheses, unary minus, and
 * names. A name is an event as it was given to `-e` (it is looked up in
 * the `event` column), or the variable `seconds`: the time the report's
 * input covers for the key (docs/analysis.md). A bare name is
 * [A-Za-z_][A-Za-z0-9_.:@-]*, so `cpu-clock` is one name and subtraction
 * wants spaces (`cycles - instructions`); any other name is quoted, 'x'
 * or "x" (`'cpu/event=0x3c/'`), a quote inside doubled.
 */
#ifndef BPMC_COMMON_METRIC_H
#define BPMC_COMMON_METRIC_H

#include <stdbool.h>

#include "common/error.h"

#define METRIC_VAR_SECONDS "seconds"
/* Longer input, or parentheses nested deeper, is refused. */
#define METRIC_EXPR_MAX_LEN 4096
#define METRIC_EXPR_MAX_DEPTH 64

struct metric_expr;

/*
 * Parses text. 0 with *out set, or -EINVAL with err naming the culprit
 * and where ("bad metric 'ipc=a/(b': ')' expected at 8").
 */
int metric_expr__parse(const char *text, struct metric_expr **out,
		       struct error *err);
void metric_expr__free(struct metric_expr *e);
/* The distinct names it uses, in order of first use. */
unsigned metric_expr__nr_vars(const struct metric_expr *e);
const char *metric_expr__var(const struct metric_expr *e, unsigned i);
/*
 * Its value with vars[i] the value of metric_expr__var(e, i). A
 * division by zero, or any NaN, gives NaN.
 */
double metric_expr__eval(const struct metric_expr *e, const double *vars);

/* `--metric NAME=EXPR`: NAME is [A-Za-z_][A-Za-z0-9_]*. */
struct metric_def {
	char *name;
	char *text; /* the expression as given */
	struct metric_expr *expr;
	const char *unit; /* "" for user metrics */
	bool builtin;
};
int metric_def__parse(const char *arg, struct metric_def *def,
		      struct error *err);
void metric_def__free(struct metric_def *def);

/*
 * The built-in metrics (IPC, CPI, cache-miss %, MPKI, branch-miss %,
 * CPU share), each applied when the events of one of its spellings are
 * all present (instructions/cycles or instructions/cpu-cycles, ...).
 * has_event(name, ctx) says whether the input has that event.
 * Fills defs with the applicable ones (at most max), returns how many.
 */
unsigned
metric_builtins__resolve(bool (*has_event)(const char *name, void *ctx),
			 void *ctx, struct metric_def *defs, unsigned max);

/*
 * The unit an event counts in, for the columns' headers: "ns" for
 * cpu-clock and task-clock, "events" for the rest (docs/analysis.md has
 * the table).
 */
const char *event_unit(const char *event);

#endif
