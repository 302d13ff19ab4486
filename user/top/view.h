/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What top shows of a table, and how: the grouping, the sort column,
 * the filter, the expanded keys, the cursor; and the layout of one
 * screen into lines of text, which the terminal (screen.c) or --batch
 * prints. No terminal here, so that the layout can be tested.
 */
#ifndef BPMC_TOP_VIEW_H
#define BPMC_TOP_VIEW_H

#include <stdbool.h>
#include <stddef.h>

#include "common/metric.h"
#include "top/table.h"

#define TOP_MAX_METRICS 8
#define TOP_MAX_COLUMNS (TOP_MAX_EVENTS + TOP_MAX_METRICS)
#define TOP_FILTER_LEN 128
#define TOP_MAX_EXPANDED 16

struct top_metric {
	struct metric_def def;
	const char *label; /* the column's header */
	int var_event[16]; /* per variable: its event, or -1: seconds */
};

struct top_view {
	/* Fixed for the run. */
	const char *host;
	int nr_cpus;
	long interval_ms;
	const char *events[TOP_MAX_EVENTS]; /* counted, in -e's order */
	int nr_events;
	struct top_metric metrics[TOP_MAX_METRICS];
	int nr_metrics;
	bool has_threads; /* --by thread: thread rows are made */
	/* Changed by keys. */
	enum top_scope by;
	int sort; /* a column: events, then metrics; -1: the name */
	bool ascending;
	bool frozen;
	char filter[TOP_FILTER_LEN];
	bool prompting; /* '/' typed: the filter is being edited */
	char prompt[TOP_FILTER_LEN];
	char expanded[TOP_MAX_EXPANDED][96]; /* names of expanded keys */
	int nr_expanded;
	int cursor; /* the selected line among the keys */
	char message[512]; /* one line of news for the bottom line */
};

/* Sets the fixed part and the builtin metrics that apply. 0 or -ENOMEM. */
int top_view__init(struct top_view *v, const char *const *events,
		   int nr_events);
void top_view__free(struct top_view *v);

/* The next grouping, container -> pod -> cgroup -> process (-> thread). */
void top_view__next_group(struct top_view *v);
/* Toggles the expansion of the key under the cursor (one group's). */
void top_view__toggle_expand(struct top_view *v, const struct top_table *t);
int top_view__nr_columns(const struct top_view *v);

/* One screen: lines of at most width columns (UTF-8, NUL-ended). */
struct top_lines {
	char (*text)[1024];
	int nr, max;
	int header_line; /* the column headers, drawn reversed */
	int cursor_line; /* -1: none */
	int first_key_line;
	int nr_keys; /* lines of keys in all, shown or not */
};

/*
 * Lays out t (NULL: nothing yet) into at most height lines (0: all
 * the keys, for --batch) of width columns.
 */
void top_view__layout(struct top_view *v, const struct top_table *t, int width,
		      int height, struct top_lines *out);

/* "1.23G", "512M", "999", "0": a rate with an SI suffix, in 6 columns. */
void top_format_si(double v, char *out, size_t len);

#endif
