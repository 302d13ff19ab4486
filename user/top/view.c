// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/escape.h"
#include "common/util.h"
#include "common/short_name.h"
#include "top/view.h"

/* The rows above and below the keys: four of header, the column
 * headers, and the bottom line. */
#define TOP_CHROME 6
#define NAME_MIN 12

static const struct {
	const char *metric, *label;
} labels[] = {
	{ "ipc", "IPC" },
	{ "cpi", "CPI" },
	{ "cache_miss_pct", "MISS%" },
	{ "mpki", "MPKI" },
	{ "branch_miss_pct", "BRMISS%" },
	{ "cpu_pct", "CPU%" },
};

static bool has_event(const char *name, void *ctx)
{
	const struct top_view *v = ctx;

	for (int e = 0; e < v->nr_events; e++)
		if (!strcmp(v->events[e], name))
			return true;
	return false;
}

static int event_index(const struct top_view *v, const char *name)
{
	for (int e = 0; e < v->nr_events; e++)
		if (!strcmp(v->events[e], name))
			return e;
	return -1;
}

int top_view__init(struct top_view *v, const char *const *events, int nr_events)
{
	struct metric_def defs[TOP_MAX_METRICS];
	struct top_metric *m;
	unsigned n;

	v->nr_events = nr_events < TOP_MAX_EVENTS ? nr_events : TOP_MAX_EVENTS;
	for (int e = 0; e < v->nr_events; e++)
		v->events[e] = events[e];
	n = metric_builtins__resolve(has_event, v, defs, TOP_MAX_METRICS);
	for (unsigned i = 0; i < n; i++) {
		m = &v->metrics[v->nr_metrics];
		m->def = defs[i];
		m->label = defs[i].name;
		for (size_t l = 0; l < ARRAY_SIZE(labels); l++)
			if (!strcmp(labels[l].metric, defs[i].name))
				m->label = labels[l].label;
		if (metric_expr__nr_vars(m->def.expr) >
		    ARRAY_SIZE(m->var_event)) {
			metric_def__free(&m->def);
			continue;
		}
		for (unsigned k = 0; k < metric_expr__nr_vars(m->def.expr); k++)
			m->var_event[k] = event_index(
				v, metric_expr__var(m->def.expr, k));
		v->nr_metrics++;
	}
	/* The CPU share first where there is one: the question top answers. */
	v->sort = 0;
	for (int i = 0; i < v->nr_metrics; i++)
		if (!strcmp(v->metrics[i].def.name, "cpu_pct"))
			v->sort = v->nr_events + i;
	v->cursor = 0;
	return 0;
}

void top_view__free(struct top_view *v)
{
	for (int i = 0; i < v->nr_metrics; i++)
		metric_def__free(&v->metrics[i].def);
	v->nr_metrics = 0;
}

int top_view__nr_columns(const struct top_view *v)
{
	return v->nr_events + v->nr_metrics;
}

void top_view__next_group(struct top_view *v)
{
	v->by = (v->by + 1) % TOP_NR_SCOPES;
	if (v->by == TOP_THREAD && !v->has_threads)
		v->by = TOP_CONTAINER;
	v->cursor = 0;
}

static double column_value(const struct top_view *v, const struct top_table *t,
			   const struct top_entry *e, int col)
{
	const struct top_metric *m;
	double vars[16];

	if (t->seconds <= 0)
		return NAN;
	if (col < v->nr_events)
		return e->count[col] / t->seconds;
	m = &v->metrics[col - v->nr_events];
	for (unsigned k = 0; k < metric_expr__nr_vars(m->def.expr); k++)
		vars[k] = m->var_event[k] < 0 ?
				  t->seconds :
				  (double)e->count[m->var_event[k]];
	return metric_expr__eval(m->def.expr, vars);
}

void top_format_si(double v, char *out, size_t len)
{
	static const char suffix[] = " kMGTPE";
	int s = 0;

	if (isnan(v)) {
		snprintf(out, len, "-");
		return;
	}
	if (v == 0 || (v < 10 && v == floor(v))) {
		snprintf(out, len, "%.0f", v);
		return;
	}
	if (v < 10) {
		snprintf(out, len, "%.2f", v);
		return;
	}
	while (v >= 999.5 && s + 1 < (int)sizeof(suffix) - 1) {
		v /= 1000;
		s++;
	}
	if (!s)
		snprintf(out, len, "%.0f", v);
	else
		snprintf(out, len, "%.*f%c",
			 v < 9.995 ? 2 :
			 v < 99.95 ? 1 :
				     0,
			 v, suffix[s]);
}

static void format_column(const struct top_view *v, int col, double value,
			  char *out, size_t len)
{
	if (col < v->nr_events)
		top_format_si(value, out, len);
	else if (isnan(value) || isinf(value))
		snprintf(out, len, "-");
	else if (!strcmp(v->metrics[col - v->nr_events].def.name, "cpu_pct"))
		snprintf(out, len, "%.1f", value);
	else
		snprintf(out, len, "%.2f", value);
}

static const char *column_label(const struct top_view *v, int col)
{
	return col < v->nr_events ? v->events[col] :
				    v->metrics[col - v->nr_events].label;
}

/* The grouping shown: by container or pod, cgroups where there is none. */
static enum top_scope shown_scope(const struct top_view *v,
				  const struct top_table *t)
{
	if (v->by != TOP_CONTAINER && v->by != TOP_POD)
		return v->by;
	/* The outside key alone is no container. */
	for (size_t i = 0; i < t->nr; i++)
		if (t->entries[i].scope == v->by &&
		    *(v->by == TOP_CONTAINER ? t->entries[i].container :
					       t->entries[i].pod))
			return v->by;
	return TOP_CGROUP;
}

static bool is_child(const struct top_entry *parent, const struct top_entry *e)
{
	switch (parent->scope) {
	case TOP_CONTAINER:
		return e->scope == TOP_PROCESS &&
		       !strcmp(e->container, parent->container);
	case TOP_POD:
		return e->scope == TOP_PROCESS && !strcmp(e->pod, parent->pod);
	case TOP_CGROUP:
		return e->scope == TOP_PROCESS &&
		       e->cgroup_id == parent->cgroup_id;
	case TOP_PROCESS:
		return e->scope == TOP_THREAD && e->pid == parent->pid &&
		       e->cgroup_id == parent->cgroup_id;
	case TOP_THREAD: /* a leaf */
	case TOP_NR_SCOPES:
	default:
		return false;
	}
}

static bool is_expanded(const struct top_view *v, const struct top_entry *e)
{
	for (int i = 0; i < v->nr_expanded; i++)
		if (!strncmp(v->expanded[i], e->name,
			     sizeof(v->expanded[i]) - 1))
			return true;
	return false;
}

struct sort_ctx {
	const struct top_view *v;
	const struct top_table *t;
};

static int by_column(const void *a, const void *b, void *arg)
{
	const struct top_entry *x = *(struct top_entry *const *)a;
	const struct top_entry *y = *(struct top_entry *const *)b;
	const struct sort_ctx *c = arg;
	bool idle_x = x->pid == 0 && x->scope >= TOP_PROCESS,
	     idle_y = y->pid == 0 && y->scope >= TOP_PROCESS;
	double vx, vy;
	int cmp;

	/* The idle task (pid 0: each CPU's swapper) is the time nothing
	 * ran, not a process to look at: last, whatever the sort. */
	if (idle_x != idle_y)
		return idle_x ? 1 : -1;
	if (c->v->sort < 0) {
		cmp = strcmp(x->name, y->name);
	} else {
		vx = column_value(c->v, c->t, x, c->v->sort);
		vy = column_value(c->v, c->t, y, c->v->sort);
		vx = isnan(vx) ? -INFINITY : vx;
		vy = isnan(vy) ? -INFINITY : vy;
		cmp = vx < vy ? 1 : vx > vy ? -1 : strcmp(x->name, y->name);
	}
	return c->v->ascending ? -cmp : cmp;
}

/* The keys shown, in order, each a group or (depth 1) one of its own. */
struct item {
	const struct top_entry *e;
	int depth;
};

static size_t collect(const struct top_view *v, const struct top_table *t,
		      enum top_scope by, struct item **out)
{
	struct sort_ctx ctx = { .v = v, .t = t };
	const struct top_entry **keys, **kids;
	size_t n = 0, nk, nr = 0;
	struct item *items;

	keys = calloc(t->nr + 1, sizeof(*keys));
	kids = calloc(t->nr + 1, sizeof(*kids));
	items = calloc(t->nr + 1, sizeof(*items));
	if (!keys || !kids || !items)
		goto out;
	for (size_t i = 0; i < t->nr; i++)
		if (t->entries[i].scope == by &&
		    (!v->filter[0] ||
		     strcasestr(t->entries[i].name, v->filter)))
			keys[n++] = &t->entries[i];
	qsort_r(keys, n, sizeof(*keys), by_column, &ctx);
	for (size_t i = 0; i < n; i++) {
		items[nr++] = (struct item){ keys[i], 0 };
		if (!is_expanded(v, keys[i]))
			continue;
		nk = 0;
		for (size_t j = 0; j < t->nr; j++)
			if (is_child(keys[i], &t->entries[j]))
				kids[nk++] = &t->entries[j];
		qsort_r(kids, nk, sizeof(*kids), by_column, &ctx);
		for (size_t j = 0; j < nk; j++)
			items[nr++] = (struct item){ kids[j], 1 };
	}
out:
	free(keys);
	free(kids);
	*out = items;
	return items ? nr : 0;
}

void top_view__toggle_expand(struct top_view *v, const struct top_table *t)
{
	struct item *items;
	size_t n;
	int i;

	if (!t)
		return;
	n = collect(v, t, shown_scope(v, t), &items);
	if (v->cursor >= 0 && (size_t)v->cursor < n) {
		const struct top_entry *e = items[v->cursor].e;

		/* A process of an expanded group folds its group. */
		for (int c = v->cursor; c >= 0 && items[c].depth; c--)
			e = items[c - 1].e;
		for (i = 0; i < v->nr_expanded; i++)
			if (!strncmp(v->expanded[i], e->name,
				     sizeof(v->expanded[i]) - 1))
				break;
		if (i < v->nr_expanded)
			memmove(v->expanded[i], v->expanded[i + 1],
				(--v->nr_expanded - i) *
					sizeof(v->expanded[0]));
		else if (v->nr_expanded < TOP_MAX_EXPANDED)
			snprintf(v->expanded[v->nr_expanded++],
				 sizeof(v->expanded[0]), "%s", e->name);
	}
	free(items);
}

/* Appends text to a line, up to width columns (code points) in all. */
static void put(char *line, int *cols, int width, const char *text)
{
	size_t at = strlen(line), n;
	const unsigned char *p = (const void *)text;

	while (*p && *cols < width && at + 4 < 1024) {
		n = utf8_len(p);
		if (!n) /* never: names are escaped; skip a stray byte */
			n = 1;
		else
			memcpy(line + at, p, n), at += n;
		p += n;
		(*cols)++;
	}
	line[at] = 0;
}

static void putf(char *line, int *cols, int width, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static void putf(char *line, int *cols, int width, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	put(line, cols, width, buf);
}

static char *new_line(struct top_lines *out)
{
	if (out->nr == out->max)
		return NULL;
	out->text[out->nr][0] = 0;
	return out->text[out->nr++];
}

static void header(const struct top_view *v, const struct top_table *t,
		   enum top_scope by, size_t nr_keys, int width,
		   struct top_lines *out)
{
	char *l = new_line(out);
	int cols = 0;
	double secs = t && t->seconds > 0 ? t->seconds : 0;

	char at[16] = "--:--:--";
	time_t end;
	struct tm tm;

	if (t && t->end_realtime_ns) {
		end = t->end_realtime_ns / 1000000000ull;
		if (localtime_r(&end, &tm))
			strftime(at, sizeof(at), "%H:%M:%S", &tm);
	}
	putf(l, &cols, width, "bpmc top - %s - %d CPUs - %s - every %ld ms",
	     v->host ? v->host : "", v->nr_cpus, at, v->interval_ms);
	l = new_line(out);
	cols = 0;
	putf(l, &cols, width, "by %s", top_scope_name(by));
	if (by != v->by)
		putf(l, &cols, width, " (no %ss here)", top_scope_name(v->by));
	putf(l, &cols, width, " - %zu keys - sort %s%s%s", nr_keys,
	     v->sort < 0 ? "name" : column_label(v, v->sort),
	     v->ascending ? " ascending" : "", v->frozen ? " - FROZEN" : "");
	if (v->filter[0])
		putf(l, &cols, width, " - filter '%s'", v->filter);
	l = new_line(out);
	cols = 0;
	put(l, &cols, width, "events:");
	for (int e = 0; e < v->nr_events; e++)
		putf(l, &cols, width, " %s (running %.1f%%)", v->events[e],
		     t ? t->running_pct[e] : 0.0);
	l = new_line(out);
	cols = 0;
	if (!secs) {
		put(l, &cols, width, "bpmc: waiting for the first interval");
		return;
	}
	putf(l, &cols, width,
	     "bpmc: cpu %.2f%% of a CPU, BPF %.3f ms/s (%.3f%% of a CPU)",
	     100.0 * t->self_cpu_ns / 1e9 / secs, t->bpf_run_ns / 1e6 / secs,
	     100.0 * t->bpf_run_ns / 1e9 / secs);
}

/*
 * Which columns fit: every one when the width allows, else those from
 * the right go first, but never the sort column, and the name keeps
 * NAME_MIN columns.
 */
static int column_width(const struct top_view *v, int c)
{
	int w = (int)strlen(column_label(v, c));

	/* Two spaces apart, and room for the sort mark. */
	return (w < 7 ? 7 : w > 16 ? 16 : w) + 3;
}

static int choose_columns(const struct top_view *v, int width, int *cols,
			  int *widths)
{
	int n = top_view__nr_columns(v), k = 0, w, used;
	/* The names are what is looked for: a third of the width. */
	int name_min = width / 3 > NAME_MIN ? width / 3 : NAME_MIN;

	used = v->sort >= 0 && v->sort < n ? column_width(v, v->sort) : 0;
	for (int c = 0; c < n; c++) {
		w = column_width(v, c);
		if (c != v->sort) {
			if (used + w + name_min > width)
				continue;
			used += w;
		}
		cols[k] = c;
		widths[k++] = w;
	}
	return k;
}

static void key_line(const struct top_view *v, const struct top_table *t,
		     const struct item *it, const int *cols, const int *widths,
		     int nr_cols, int width, char *l)
{
	char cell[64], name[1024];
	int used = 0;

	for (int k = 0; k < nr_cols; k++) {
		format_column(v, cols[k], column_value(v, t, it->e, cols[k]),
			      cell, sizeof(cell));
		putf(l, &used, width, "%*s  ", widths[k] - 2, cell);
	}
	if (it->depth)
		put(l, &used, width, "  `- ");
	/* Cut in the middle: two containers of a pod differ at the end. */
	cut_middle(it->e->name, width > used ? (unsigned)(width - used) : 0,
		   name, sizeof(name));
	put(l, &used, width, name);
}

static void column_headers(const struct top_view *v, const int *cols,
			   const int *widths, int nr_cols, int width, bool bar,
			   char *l)
{
	char label[40];
	int used = 0;

	for (int k = 0; k < nr_cols; k++) {
		snprintf(label, sizeof(label), "%s%.*s",
			 cols[k] == v->sort ? "*" : "", widths[k] - 3,
			 column_label(v, cols[k]));
		putf(l, &used, width, "%*s  ", widths[k] - 2, label);
	}
	putf(l, &used, width, "%sNAME", v->sort < 0 ? "*" : "");
	while (bar && used < width)
		put(l, &used, width, " ");
}

static void bottom_line(const struct top_view *v, int width, char *l)
{
	int used = 0;

	if (v->prompting)
		putf(l, &used, width,
		     "filter (substring, Enter applies, Esc cancels): %s_",
		     v->prompt);
	else if (v->message[0])
		put(l, &used, width, v->message);
	else
		put(l, &used, width,
		    "q quit  <> sort  r reverse  n name  g group  / filter  e expand  f freeze");
}

void top_view__layout(struct top_view *v, const struct top_table *t, int width,
		      int height, struct top_lines *out)
{
	int cols[TOP_MAX_COLUMNS], widths[TOP_MAX_COLUMNS], nr_cols, first = 0;
	enum top_scope by = t ? shown_scope(v, t) : v->by;
	int rows = height ? height - TOP_CHROME : out->max - TOP_CHROME;
	struct item *items = NULL;
	size_t n = 0;
	char *l;

	out->nr = 0;
	out->cursor_line = -1;
	if (width > 250)
		width = 250; /* 4 bytes a column fit a line */
	if (t)
		n = collect(v, t, by, &items);
	out->nr_keys = n;
	header(v, t, by, n, width, out);
	nr_cols = choose_columns(v, width, cols, widths);
	out->header_line = out->nr;
	column_headers(v, cols, widths, nr_cols, width, height, new_line(out));
	if (v->cursor >= (int)n)
		v->cursor = n ? n - 1 : 0;
	if (rows < 1)
		rows = 1;
	if (height && v->cursor >= rows)
		first = v->cursor - rows + 1;
	out->first_key_line = out->nr;
	for (int i = first; i < (int)n && i - first < rows; i++) {
		l = new_line(out);
		if (!l)
			break;
		if (height && i == v->cursor)
			out->cursor_line = out->nr - 1;
		key_line(v, t, &items[i], cols, widths, nr_cols, width, l);
	}
	free(items);
	if (height)
		while (out->nr < height - 1 && new_line(out))
			;
	l = new_line(out);
	if (l)
		bottom_line(v, width, l);
}
