// SPDX-License-Identifier: GPL-2.0
/* The built-in metrics, and the unit each event counts in. */
#include <string.h>

#include "common/util.h"
#include "common/metric.h"

struct builtin {
	const char *name, *unit;
	/* Tried in order: the names events go by on different hosts. */
	const char *spellings[3];
};

static const struct builtin builtins[] = {
	{ "ipc", "", { "instructions / cycles", "instructions / cpu-cycles" } },
	{ "cpi", "", { "cycles / instructions", "cpu-cycles / instructions" } },
	{ "cache_miss_pct", "%", { "100 * cache-misses / cache-references" } },
	{ "mpki",
	  "per 1k instructions",
	  { "1000 * cache-misses / instructions" } },
	{ "branch_miss_pct",
	  "%",
	  { "100 * branch-misses / branches",
	    "100 * branch-misses / branch-instructions" } },
	{ "cpu_pct",
	  "% of one CPU",
	  { "100 * cpu-clock / (seconds * 1e9)",
	    "100 * task-clock / (seconds * 1e9)" } },
};

static bool has_all(const struct metric_expr *e,
		    bool (*has_event)(const char *name, void *ctx), void *ctx)
{
	const char *var;

	for (unsigned i = 0; i < metric_expr__nr_vars(e); i++) {
		var = metric_expr__var(e, i);
		if (strcmp(var, METRIC_VAR_SECONDS) && !has_event(var, ctx))
			return false;
	}
	return true;
}

/* The first spelling whose events are all there, or NULL. */
static const char *applicable(const struct builtin *b,
			      bool (*has_event)(const char *name, void *ctx),
			      void *ctx, struct metric_expr **expr)
{
	for (size_t i = 0; i < ARRAY_SIZE(b->spellings) && b->spellings[i];
	     i++) {
		if (metric_expr__parse(b->spellings[i], expr, NULL))
			continue;
		if (has_all(*expr, has_event, ctx))
			return b->spellings[i];
		metric_expr__free(*expr);
	}
	*expr = NULL;
	return NULL;
}

unsigned
metric_builtins__resolve(bool (*has_event)(const char *name, void *ctx),
			 void *ctx, struct metric_def *defs, unsigned max)
{
	struct metric_expr *expr;
	const char *text;
	unsigned n = 0;

	for (size_t i = 0; i < ARRAY_SIZE(builtins) && n < max; i++) {
		text = applicable(&builtins[i], has_event, ctx, &expr);
		if (!text)
			continue;
		defs[n] = (struct metric_def){
			.name = strdup(builtins[i].name),
			.text = strdup(text),
			.expr = expr,
			.unit = builtins[i].unit,
			.builtin = true,
		};
		/* Out of memory: left out, as if an event were missing. */
		if (!defs[n].name || !defs[n].text) {
			metric_def__free(&defs[n]);
			continue;
		}
		n++;
	}
	return n;
}

/* perf's modifier letters after ':', in one run or several: "u", "u:k". */
static bool is_modifier_suffix(const char *s)
{
	size_t run;

	do {
		run = strspn(s, "ukhpPGHISDWeb");
		if (!run || (s[run] && s[run] != ':'))
			return false;
		s += run;
	} while (*s++);
	return true;
}

const char *event_unit(const char *event)
{
	/* perf counts these clocks, and its tool event, in nanoseconds. */
	static const char *const in_ns[] = { "cpu-clock", "task-clock",
					     "duration_time" };
	const char *colon = strchr(event, ':');
	size_t len = colon ? (size_t)(colon - event) : strlen(event);

	if (colon && !is_modifier_suffix(colon + 1))
		return "events";
	for (size_t i = 0; i < ARRAY_SIZE(in_ns); i++)
		if (strlen(in_ns[i]) == len && !strncmp(event, in_ns[i], len))
			return "ns";
	return "events";
}
