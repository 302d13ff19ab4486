// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/json.h"
#include "common/short_name.h"
#include "report/output.h"

static int flush_status(FILE *out)
{
	if (fflush(out) || ferror(out))
		return errno ? -errno : -EIO;
	return 0;
}

void report_put_number(FILE *out, double v)
{
	if (isnan(v) || isinf(v))
		return;
	if (v == floor(v) && fabs(v) < 1e15)
		fprintf(out, "%.0f", v);
	else
		fprintf(out, "%.9g", v);
}

void report_put_text(FILE *out, const char *s)
{
	if (!*s)
		return;
	fputc('"', out);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', out);
		fputc(*s, out);
	}
	fputc('"', out);
}

bool report_col_is_number(const char *col)
{
	return !strcmp(col, "pid") || !strcmp(col, "tid") ||
	       !strcmp(col, "time");
}

int report_write_csv(const struct report_result *r, FILE *out)
{
	for (unsigned c = 0; c < r->nr_key_cols; c++)
		fprintf(out, "%s,", r->key_cols[c]);
	fputs("seconds", out);
	for (unsigned e = 0; e < r->nr_events; e++) {
		fputc(',', out);
		report_put_text(out, r->events[e].name);
		fputc(',', out);
		/* "EVENT/s", quoted whole when the name needs it. */
		char name[600];

		snprintf(name, sizeof(name), "%s/s", r->events[e].name);
		report_put_text(out, name);
	}
	for (unsigned m = 0; m < r->nr_metrics; m++)
		fprintf(out, ",%s,%s_multiplexed", r->metrics[m].name,
			r->metrics[m].name);
	fputc('\n', out);
	for (unsigned i = 0; i < r->nr_rows; i++) {
		const struct report_row *row = &r->rows[i];

		for (unsigned c = 0; c < r->nr_key_cols; c++) {
			if (report_col_is_number(r->key_cols[c]))
				fputs(row->key[c], out);
			else
				report_put_text(out, row->key[c]);
			fputc(',', out);
		}
		report_put_number(out, row->seconds);
		for (unsigned e = 0; e < r->nr_events; e++) {
			fprintf(out, ",%" PRIu64 ",", row->cells[e].count);
			report_put_number(out, row->cells[e].per_s);
		}
		for (unsigned m = 0; m < r->nr_metrics; m++) {
			fputc(',', out);
			report_put_number(out, row->metrics[m].value);
			fprintf(out, ",%d", row->metrics[m].low_running);
		}
		fputc('\n', out);
	}
	return flush_status(out);
}

static void json_cells(struct json *j, const struct report_event *ev,
		       unsigned nr, const struct report_row *row)
{
	json_key(j, "events");
	json_object_start(j);
	for (unsigned e = 0; e < nr; e++) {
		const struct report_cell *c = &row->cells[e];

		json_key(j, ev[e].name);
		json_object_start(j);
		json_kv_uint(j, "count", c->count);
		json_kv_double(j, "per_s", c->per_s);
		json_kv_uint(j, "samples", c->samples);
		json_kv_double(j, "rel_err", c->rel_err);
		json_kv_double(j, "running_pct", c->running_pct);
		json_object_end(j);
	}
	json_object_end(j);
}

static void json_hosts(struct json *j, const char *name,
		       const struct report_row *rows, unsigned nr,
		       const struct report_event *ev, unsigned nr_ev)
{
	json_key(j, name);
	json_array_start(j);
	for (unsigned i = 0; i < nr; i++) {
		json_object_start(j);
		json_kv_string(j, "host", rows[i].key[0]);
		json_kv_double(j, "seconds", rows[i].seconds);
		json_cells(j, ev, nr_ev, &rows[i]);
		json_object_end(j);
	}
	json_array_end(j);
}

int report_write_json(const struct report_result *r, FILE *out)
{
	struct json j;

	json_init(&j, out);
	json_object_start(&j);
	json_kv_string(&j, "scope", r->scope);
	json_kv_uint(&j, "files", r->nr_files);
	json_kv_uint(&j, "rows_read", r->nr_input_rows);
	json_kv_uint(&j, "rows_rejected", r->rejected_rows);
	json_key(&j, "rejected");
	json_array_start(&j);
	for (unsigned i = 0; i < r->nr_rejected; i++) {
		const struct report_rejects *x = r->rejected[i];

		json_object_start(&j);
		json_kv_string(&j, "file", x->path);
		json_kv_uint(&j, "rows", x->rows);
		json_key(&j, "reasons");
		json_object_start(&j);
		for (int w = 0; w < REJECT__NR; w++) {
			if (!x->nr[w])
				continue;
			json_key(&j, report_reject_name[w]);
			json_object_start(&j);
			json_kv_uint(&j, "rows", x->nr[w]);
			json_kv_uint(&j, "first_byte", x->first_byte[w]);
			json_kv_string(&j, "first", x->first[w]);
			json_object_end(&j);
		}
		json_object_end(&j);
		json_object_end(&j);
	}
	json_array_end(&j);
	json_kv_uint(&j, "saturated_cells", r->saturated_cells);
	json_kv_uint(&j, "first_ms", r->first_ms);
	json_kv_uint(&j, "last_ms", r->last_ms);
	json_kv_uint(&j, "keys", r->nr_keys);
	json_kv_double(&j, "min_running_pct", r->min_running_pct);
	json_key(&j, "sort");
	json_object_start(&j);
	json_kv_string(&j, r->sort_is_metric ? "metric" : "event",
		       r->sort_is_metric ? r->metrics[r->sort_index].name :
		       r->nr_events	 ? r->events[r->sort_index].name :
					   "");
	json_object_end(&j);
	json_key(&j, "key_columns");
	json_array_start(&j);
	for (unsigned c = 0; c < r->nr_key_cols; c++)
		json_string(&j, r->key_cols[c]);
	json_array_end(&j);
	json_key(&j, "events");
	json_array_start(&j);
	for (unsigned e = 0; e < r->nr_events; e++) {
		json_object_start(&j);
		json_kv_string(&j, "name", r->events[e].name);
		json_kv_string(&j, "unit", r->events[e].unit);
		json_object_end(&j);
	}
	json_array_end(&j);
	json_key(&j, "metrics");
	json_array_start(&j);
	for (unsigned m = 0; m < r->nr_metrics; m++) {
		json_object_start(&j);
		json_kv_string(&j, "name", r->metrics[m].name);
		json_kv_string(&j, "expr", r->metrics[m].text);
		json_kv_string(&j, "unit", r->metrics[m].unit);
		json_object_end(&j);
	}
	json_array_end(&j);
	json_key(&j, "rows");
	json_array_start(&j);
	for (unsigned i = 0; i < r->nr_rows; i++) {
		const struct report_row *row = &r->rows[i];

		json_object_start(&j);
		json_key(&j, "key");
		json_object_start(&j);
		for (unsigned c = 0; c < r->nr_key_cols; c++)
			json_kv_string(&j, r->key_cols[c], row->key[c]);
		json_object_end(&j);
		json_kv_double(&j, "seconds", row->seconds);
		json_cells(&j, r->events, r->nr_events, row);
		json_key(&j, "metrics");
		json_object_start(&j);
		for (unsigned m = 0; m < r->nr_metrics; m++) {
			json_key(&j, r->metrics[m].name);
			json_object_start(&j);
			json_kv_double(&j, "value", row->metrics[m].value);
			json_kv_double(&j, "rel_err", row->metrics[m].rel_err);
			json_kv_bool(&j, "multiplexed",
				     row->metrics[m].low_running);
			json_object_end(&j);
		}
		json_object_end(&j);
		json_object_end(&j);
	}
	json_array_end(&j);
	json_hosts(&j, "system", r->system, r->nr_hosts, r->events,
		   r->nr_events);
	json_hosts(&j, "self", r->self, r->nr_hosts, r->self_events,
		   r->nr_self_events);
	json_object_end(&j);
	fputc('\n', out);
	return flush_status(out);
}

/* ---- the terminal table ---- */

/* 1234567 -> "1,234,567", as perf stat prints counts. */
static void grouped(char *buf, size_t len, uint64_t v)
{
	char digits[32];
	int n = snprintf(digits, sizeof(digits), "%" PRIu64, v), o = 0;

	for (int i = 0; i < n && o + 2 < (int)len; i++) {
		if (i && (n - i) % 3 == 0)
			buf[o++] = ',';
		buf[o++] = digits[i];
	}
	buf[o] = 0;
}

/* 1.23G, 456M, 7.89k: rates. */
static void si(char *buf, size_t len, double v)
{
	static const char *const suffix[] = { "", "k", "M", "G", "T", "P" };
	unsigned i = 0;

	if (isnan(v)) {
		snprintf(buf, len, "-");
		return;
	}
	while (fabs(v) >= 1000 && i + 1 < sizeof(suffix) / sizeof(suffix[0])) {
		v /= 1000;
		i++;
	}
	snprintf(buf, len, fabs(v) >= 100 || !i ? "%.0f%s" : "%.3g%s", v,
		 suffix[i]);
}

#define CELL 64
#define MAX_COLS 128
/* Long names (cgroup paths) keep their end, where they differ. */
#define KEY_WIDTH 56

struct grid {
	unsigned nr_cols, nr_rows;
	char (*cells)[CELL];
	int width[MAX_COLS];
	bool left[MAX_COLS];
	bool hide[MAX_COLS]; /* said by another column: not printed */
};

static char *grid_cell(struct grid *g, unsigned row, unsigned col)
{
	return g->cells[row * g->nr_cols + col];
}

/* Long names are cut in the middle: their start and end both stay. */
static void put_key(char *cell, const char *s)
{
	if (!*s)
		snprintf(cell, CELL, "-");
	else
		cut_middle(s, KEY_WIDTH, cell, CELL);
}

/* The key column named name, or -1. */
static int key_col(const struct report_result *r, const char *name)
{
	for (unsigned k = 0; k < r->nr_key_cols; k++)
		if (!strcmp(r->key_cols[k], name))
			return (int)k;
	return -1;
}

static const char *key_or_empty(const struct report_row *row, int k)
{
	return k >= 0 ? row->key[k] : "";
}

/*
 * A container as the table shows it, names first: at level 0
 * namespace/pod/container where the kubelet named it, else the runtime
 * and the first 12 characters of the id (as `docker ps` and `crictl ps`
 * show it); level 1 adds those 12 to a name, or shows the whole id;
 * level 2 a name and the whole id. The empty key is the outside one.
 */
static void container_text(const struct report_result *r,
			   const struct report_row *row, unsigned k,
			   unsigned level, char *s, size_t n)
{
	const char *id = row->key[k],
		   *ctr = key_or_empty(row, key_col(r, "container_name"));
	char idtext[256];

	short_container(id,
			level >= 1 && !*ctr ? 0 :
			level >= 2	    ? 0 :
					      12,
			idtext, sizeof(idtext));
	if (!*ctr || !*id)
		snprintf(s, n, "%s", idtext);
	else if (!level)
		snprintf(s, n, "%s/%s/%s",
			 key_or_empty(row, key_col(r, "namespace")),
			 key_or_empty(row, key_col(r, "pod_name")), ctr);
	else
		snprintf(s, n, "%s/%s/%s %s",
			 key_or_empty(row, key_col(r, "namespace")),
			 key_or_empty(row, key_col(r, "pod_name")), ctr,
			 idtext);
}

/*
 * The container column, each key at the lowest level no other key's
 * text matches (n^2 over the shown rows: --top's, 20 by default); the
 * names it shows leave the namespace, pod_name and container_name
 * columns out of the table (CSV and JSON keep them).
 */
static void put_container(struct grid *g, const struct report_result *r,
			  unsigned col, unsigned k)
{
	char a[4096], b[4096];

	for (unsigned i = 0; i < r->nr_rows; i++) {
		unsigned level = 0;
		bool clash = true;

		while (clash) {
			clash = false;
			container_text(r, &r->rows[i], k, level, a, sizeof(a));
			for (unsigned j = 0; j < r->nr_rows && !clash; j++) {
				container_text(r, &r->rows[j], k, level, b,
					       sizeof(b));
				clash = !strcmp(a, b) &&
					strcmp(r->rows[i].key[k],
					       r->rows[j].key[k]);
			}
			if (clash && level == 2)
				break;
			level += clash;
		}
		put_key(grid_cell(g, i + 1, col), a);
	}
	for (unsigned c = 0; c < r->nr_key_cols; c++)
		if (!strcmp(r->key_cols[c], "namespace") ||
		    !strcmp(r->key_cols[c], "pod_name") ||
		    !strcmp(r->key_cols[c], "container_name"))
			g->hide[c] = true;
}

/* The pod column: namespace/pod where named, else its UID; the empty
 * key of a per-pod view is the outside one. */
static void put_pod(struct grid *g, const struct report_result *r, unsigned col,
		    unsigned k)
{
	int ns = key_col(r, "namespace"), name = key_col(r, "pod_name");
	char s[4096];
	bool names = ns >= 0 && name >= 0 && key_col(r, "container") < 0;

	for (unsigned i = 0; i < r->nr_rows; i++) {
		const struct report_row *row = &r->rows[i];

		if (!*row->key[k] && !strcmp(r->scope, "pod"))
			snprintf(s, sizeof(s), "%s", OUTSIDE_PODS);
		else if (names && *row->key[name])
			snprintf(s, sizeof(s), "%s/%s", row->key[ns],
				 row->key[name]);
		else
			snprintf(s, sizeof(s), "%s", row->key[k]);
		put_key(grid_cell(g, i + 1, col), s);
	}
	if (names) {
		g->hide[ns] = true;
		g->hide[name] = true;
	}
}

static unsigned utf8_width(const char *s)
{
	unsigned w = 0;

	for (; *s; s++)
		w += ((unsigned char)*s & 0xc0) != 0x80;
	return w;
}

static void print_grid(struct grid *g, FILE *out)
{
	for (unsigned c = 0; c < g->nr_cols; c++) {
		g->width[c] = 0;
		for (unsigned r = 0; r < g->nr_rows; r++) {
			int w = utf8_width(grid_cell(g, r, c));

			if (w > g->width[c])
				g->width[c] = w;
		}
	}
	for (unsigned r = 0; r < g->nr_rows; r++) {
		bool first = true;

		for (unsigned c = 0; c < g->nr_cols; c++) {
			const char *s = grid_cell(g, r, c);
			int pad = g->width[c] - utf8_width(s);

			if (g->hide[c])
				continue;
			if (!first)
				fputs("  ", out);
			first = false;
			if (!g->left[c])
				fprintf(out, "%*s", pad, "");
			fputs(s, out);
			if (g->left[c] && c + 1 < g->nr_cols)
				fprintf(out, "%*s", pad, "");
		}
		fputc('\n', out);
	}
}

static int host_table(FILE *out, const char *title,
		      const struct report_row *rows, unsigned nr,
		      const struct report_event *ev, unsigned nr_ev)
{
	struct grid g = { .nr_cols = 2 + nr_ev, .nr_rows = nr + 1 };

	if (!nr || !nr_ev || g.nr_cols > MAX_COLS)
		return 0;
	g.cells = calloc((size_t)g.nr_cols * g.nr_rows, CELL);
	if (!g.cells)
		return -ENOMEM;
	fprintf(out, "\n%s\n", title);
	snprintf(grid_cell(&g, 0, 0), CELL, "host");
	snprintf(grid_cell(&g, 0, 1), CELL, "seconds");
	g.left[0] = true;
	for (unsigned e = 0; e < nr_ev; e++)
		snprintf(grid_cell(&g, 0, 2 + e), CELL, "%s (%s)", ev[e].name,
			 ev[e].unit);
	for (unsigned i = 0; i < nr; i++) {
		put_key(grid_cell(&g, i + 1, 0), rows[i].key[0]);
		snprintf(grid_cell(&g, i + 1, 1), CELL, "%.1f",
			 rows[i].seconds);
		for (unsigned e = 0; e < nr_ev; e++)
			grouped(grid_cell(&g, i + 1, 2 + e), CELL,
				rows[i].cells[e].count);
	}
	print_grid(&g, out);
	free(g.cells);
	return 0;
}

int report_write_table(const struct report_result *r, FILE *out)
{
	unsigned sort_ev = !r->sort_is_metric && r->nr_events ? 1 : 0;
	struct grid g = {
		.nr_cols = r->nr_key_cols + 1 + r->nr_events + sort_ev +
			   r->nr_metrics,
		.nr_rows = r->nr_rows + 1,
	};
	unsigned c = 0;
	int err;

	if (g.nr_cols > MAX_COLS)
		return -E2BIG;
	g.cells = calloc((size_t)g.nr_cols * g.nr_rows, CELL);
	if (!g.cells)
		return -ENOMEM;
	for (unsigned k = 0; k < r->nr_key_cols; k++) {
		g.left[c] = true;
		snprintf(grid_cell(&g, 0, c++), CELL, "%s", r->key_cols[k]);
	}
	snprintf(grid_cell(&g, 0, c++), CELL, "seconds");
	for (unsigned e = 0; e < r->nr_events; e++) {
		snprintf(grid_cell(&g, 0, c++), CELL, "%s (%s)",
			 r->events[e].name, r->events[e].unit);
		if (sort_ev && e == r->sort_index)
			snprintf(grid_cell(&g, 0, c++), CELL, "%s/s",
				 r->events[e].name);
	}
	for (unsigned m = 0; m < r->nr_metrics; m++)
		snprintf(grid_cell(&g, 0, c++), CELL, "%s%s%s%s",
			 r->metrics[m].name, *r->metrics[m].unit ? " (" : "",
			 r->metrics[m].unit, *r->metrics[m].unit ? ")" : "");
	for (unsigned k = 0; k < r->nr_key_cols; k++)
		if (!strcmp(r->key_cols[k], "container"))
			put_container(&g, r, k, k);
		else if (!strcmp(r->key_cols[k], "pod"))
			put_pod(&g, r, k, k);
	for (unsigned i = 0; i < r->nr_rows; i++) {
		const struct report_row *row = &r->rows[i];

		c = 0;
		for (unsigned k = 0; k < r->nr_key_cols; k++, c++)
			if (strcmp(r->key_cols[k], "container") &&
			    strcmp(r->key_cols[k], "pod"))
				put_key(grid_cell(&g, i + 1, c), row->key[k]);
		snprintf(grid_cell(&g, i + 1, c++), CELL, "%.1f", row->seconds);
		for (unsigned e = 0; e < r->nr_events; e++) {
			grouped(grid_cell(&g, i + 1, c++), CELL,
				row->cells[e].count);
			if (sort_ev && e == r->sort_index)
				si(grid_cell(&g, i + 1, c++), CELL,
				   row->cells[e].per_s);
		}
		for (unsigned m = 0; m < r->nr_metrics; m++) {
			const struct report_value *v = &row->metrics[m];
			char *cell = grid_cell(&g, i + 1, c++);

			if (isnan(v->value))
				snprintf(cell, CELL, "-");
			else
				snprintf(cell, CELL, "%.3f%s", v->value,
					 v->low_running ? " !" : "");
		}
	}
	print_grid(&g, out);
	free(g.cells);
	fprintf(out,
		"\n%u of %u %s keys shown; %" PRIu64
		" rows read from %u file%s",
		r->nr_rows, r->nr_keys, r->scope, r->nr_input_rows, r->nr_files,
		r->nr_files == 1 ? "" : "s");
	if (r->rejected_rows)
		fprintf(out, " (%" PRIu64 " rejected: see the warnings)",
			r->rejected_rows);
	for (unsigned m = 0; m < r->nr_metrics; m++) {
		bool flagged = false;

		for (unsigned i = 0; i < r->nr_rows && !flagged; i++)
			flagged = r->rows[i].metrics[m].low_running;
		if (flagged) {
			fprintf(out,
				"; '!': its events ran less than %.0f%% of the time (multiplexed)",
				r->min_running_pct);
			break;
		}
	}
	fputc('\n', out);
	err = host_table(out, "host totals (scope system)", r->system,
			 r->nr_hosts, r->events, r->nr_events);
	if (!err)
		err = host_table(out, "bpmc's own cost (scope self)", r->self,
				 r->nr_hosts, r->self_events,
				 r->nr_self_events);
	return err ? err : flush_status(out);
}
