// SPDX-License-Identifier: GPL-2.0
/*
 * The page of `bpmc report --html`: a header, the two charts (svg.c), the
 * table of keys and, apart from it, the per-host system and self rows.
 * Every name on the page comes from users (cgroups, processes, --metric)
 * and goes through html_text().
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "common/version.h"
#include "report/html.h"
#include "report/html_parts.h"
#include "report/svg.h"

static const char css[] =
	"body{font:14px/1.4 system-ui,sans-serif;margin:24px;color:#222;"
	"background:#fff}\n"
	"h1{font-size:20px;margin:0 0 8px}h2{font-size:16px;margin:28px 0 6px}\n"
	"dl.meta{display:grid;grid-template-columns:max-content auto;"
	"gap:2px 12px;margin:0}dl.meta dt{color:#555}dl.meta dd{margin:0}\n"
	"svg{display:block}svg text{font:11px system-ui,sans-serif;fill:#333}\n"
	"svg .axis-title{font-size:12px}svg .none{font-size:14px;fill:#777}\n"
	"svg .grid{stroke:#e4e4e4}svg .axis{stroke:#333}\n"
	"svg .series-line{stroke-width:2}\n"
	"ul.legend{list-style:none;padding:0;margin:8px 0;display:flex;"
	"flex-wrap:wrap;gap:4px 18px;max-width:960px}\n"
	"ul.legend .sw{display:inline-block;width:12px;height:12px;"
	"margin-right:6px;vertical-align:-1px}\n"
	"p.note{color:#555;font-size:13px;margin:4px 0;max-width:960px}\n"
	"table{border-collapse:collapse;font-size:13px;margin:6px 0}\n"
	"th,td{border-bottom:1px solid #ddd;padding:3px 8px;text-align:left;"
	"vertical-align:bottom}\n"
	"th{background:#f4f4f4;font-weight:600}th.sorted{background:#dde8f4}\n"
	"td.n{text-align:right;font-variant-numeric:tabular-nums;"
	"white-space:nowrap}\n"
	".low{color:#a00}small{color:#666;font-weight:400}\n";

/* A result the CLI built wrong must not make the page read past it. */
static int check_result(const struct report_result *r, struct error *err)
{
	unsigned n = r->sort_is_metric ? r->nr_metrics : r->nr_events;

	if (r->nr_rows && r->sort_index >= n)
		return error__set(err, EINVAL, "html report: sort %s %u, of %u",
				  r->sort_is_metric ? "metric" : "event",
				  r->sort_index, n);
	if ((r->nr_rows && !r->rows) || (r->nr_key_cols && !r->key_cols) ||
	    (r->nr_events && !r->events) || (r->nr_metrics && !r->metrics) ||
	    (r->nr_self_events && !r->self_events))
		return error__set(err, EINVAL,
				  "html report: a count without its array");
	for (unsigned i = 0; i < r->nr_rows; i++)
		if ((r->nr_key_cols && !r->rows[i].key) ||
		    (r->nr_events && !r->rows[i].cells) ||
		    (r->nr_metrics && !r->rows[i].metrics))
			return error__set(err, EINVAL,
					  "html report: row %u is incomplete",
					  i);
	return 0;
}

static void meta_span(FILE *out, const struct report_result *r)
{
	char a[NUM_LEN], b[NUM_LEN], d[NUM_LEN];

	if (!r->nr_input_rows || r->last_ms < r->first_ms) {
		fputs("<dd>no rows</dd>\n", out);
		return;
	}
	fmt_iso_ms(a, r->first_ms);
	fmt_iso_ms(b, r->last_ms);
	fmt_fixed(d, (double)(r->last_ms - r->first_ms) / 1000, 3);
	fprintf(out, "<dd><time>%s</time> .. <time>%s</time> (%s s)</dd>\n", a,
		b, d);
}

static void meta(FILE *out, const struct report_result *r)
{
	fputs("<dl class=\"meta\">\n<dt>scope</dt><dd>", out);
	html_text(out, r->scope);
	fprintf(out,
		"</dd>\n<dt>input</dt><dd>%u file%s, %" PRIu64
		" rows</dd>\n<dt>time span</dt>",
		r->nr_files, r->nr_files == 1 ? "" : "s", r->nr_input_rows);
	meta_span(out, r);
	fputs("<dt>sorted by</dt><dd>", out);
	if (r->sort_is_metric && r->sort_index < r->nr_metrics) {
		fputs("metric ", out);
		html_text(out, r->metrics[r->sort_index].name);
		fputs(" = ", out);
		html_text(out, r->metrics[r->sort_index].text);
	} else {
		html_text(out, html_sort_name(r));
		fputs(" count", out);
	}
	fprintf(out,
		", descending</dd>\n<dt>keys</dt><dd>%u shown of %u</dd>\n"
		"</dl>\n",
		r->nr_rows, r->nr_keys);
}

static void legend(FILE *out, const struct report_result *r)
{
	fputs("<ul class=\"legend\">\n", out);
	for (unsigned i = 0; i < r->nr_rows; i++) {
		fprintf(out,
			"<li><span class=\"sw\" style=\"background:%s%s\">"
			"</span>",
			html_colour(i),
			i >= HTML_NR_COLOURS ? ";opacity:0.6" : "");
		html_key(out, r, &r->rows[i], 0);
		fputs("</li>\n", out);
	}
	fputs("</ul>\n", out);
}

static int charts(FILE *out, const struct report_result *r)
{
	int ret;
	char bucket[NUM_LEN];
	bool low = false;

	fputs("<h2>", out);
	html_text(out, html_sort_name(r));
	fputs(" over time</h2>\n<p class=\"note\">", out);
	if (html_has_series(r)) {
		fmt_fixed(bucket, r->series.bucket_ms / 1000.0, 3);
		fprintf(out,
			"%s, one step per bucket of %s s; a gap is a "
			"bucket the input does not cover.</p>\n",
			r->sort_is_metric ?
				"Lines: a metric is a ratio, and ratios do "
				"not add up" :
				"Stacked: the top edge is the shown keys' "
				"total",
			bucket);
	} else {
		fputs("No time series.</p>\n", out);
	}
	ret = svg_series(out, r);
	if (ret)
		return ret;
	legend(out, r);
	fputs("<h2>", out);
	html_text(out, html_sort_name(r));
	fputs(" per key</h2>\n", out);
	ret = svg_bars(out, r);
	for (unsigned i = 0; i < r->nr_rows; i++)
		low |= html_sort_low_running(r, &r->rows[i]);
	if (low) {
		fmt_fixed(bucket, r->min_running_pct, 1);
		fprintf(out,
			"<p class=\"note\">Hatched, dashed and marked *: "
			"counted less than %s %% of the time (multiplexed), "
			"so scaled up from a sample.</p>\n",
			bucket);
	}
	return ret;
}

/* rates: a per-second column after each count. */
static void event_heads(FILE *out, const struct report_event *ev, unsigned n,
			int sorted, bool rates)
{
	for (unsigned i = 0; i < n; i++) {
		fprintf(out, "<th%s>",
			(int)i == sorted ? " class=\"sorted\"" : "");
		html_text(out, ev[i].name);
		fputs("<br><small>count (", out);
		html_text(out, ev[i].unit);
		fputs(")</small></th>", out);
		if (!rates)
			continue;
		fputs("<th>", out);
		html_text(out, ev[i].name);
		fputs("<br><small>per s (", out);
		html_text(out, ev[i].unit);
		fputs("/s)</small></th>", out);
	}
}

static void event_cells(FILE *out, const struct report_cell *c, unsigned n,
			double min_running, bool rates)
{
	char a[NUM_LEN], b[NUM_LEN];
	bool low;

	for (unsigned i = 0; i < n; i++) {
		fmt_fixed(a, 100 * c[i].rel_err, 2);
		fmt_fixed(b, c[i].running_pct, 1);
		low = html_cell_low_running(&c[i], min_running);
		fprintf(out,
			"<td class=\"n%s\" title=\"%" PRIu64
			" samples, error %s %%, running %s %%\">%" PRIu64
			"</td>",
			low ? " low" : "", c[i].samples, a, b, c[i].count);
		if (!rates)
			continue;
		fmt_fixed(a, c[i].per_s, 1);
		fprintf(out, "<td class=\"n\">%s</td>", a);
	}
}

static void key_cells(FILE *out, const struct report_result *r,
		      const struct report_row *row)
{
	char s[NUM_LEN];

	for (unsigned c = 0; c < r->nr_key_cols; c++) {
		fputs("<td>", out);
		html_text(out, html_key_text(r, row, c));
		fputs("</td>", out);
	}
	fmt_fixed(s, row->seconds, 3);
	fprintf(out, "<td class=\"n\">%s</td>", s);
}

static void metric_heads(FILE *out, const struct report_result *r)
{
	const struct report_metric *m;

	for (unsigned j = 0; j < r->nr_metrics; j++) {
		m = &r->metrics[j];
		fprintf(out, "<th%s title=\"",
			r->sort_is_metric && j == r->sort_index ?
				" class=\"sorted\"" :
				"");
		html_text(out, m->text);
		fputs("\">", out);
		html_text(out, m->name);
		fputs("<br><small>", out);
		html_text(out, m->unit && m->unit[0] ? m->unit : "ratio");
		fputs("</small></th>", out);
	}
}

static void metric_cells(FILE *out, const struct report_result *r,
			 const struct report_row *row)
{
	const struct report_value *v;
	char a[NUM_LEN], e[NUM_LEN];

	for (unsigned j = 0; j < r->nr_metrics; j++) {
		v = &row->metrics[j];
		fmt_sig(a, v->value, 4);
		fmt_fixed(e, 100 * v->rel_err, 2);
		fprintf(out,
			"<td class=\"n%s\" title=\"error %s %%\">%s%s</td>",
			v->low_running ? " low" : "", e, a,
			v->low_running ? " *" : "");
	}
}

/* One of the row's events, or of its metrics, was multiplexed. */
static bool row_low_running(const struct report_result *r,
			    const struct report_row *row)
{
	for (unsigned i = 0; i < r->nr_events; i++)
		if (html_cell_low_running(&row->cells[i], r->min_running_pct))
			return true;
	for (unsigned j = 0; j < r->nr_metrics; j++)
		if (row->metrics[j].low_running)
			return true;
	return false;
}

static void keys_table(FILE *out, const struct report_result *r)
{
	const struct report_row *row;
	char pct[NUM_LEN];

	fmt_fixed(pct, r->min_running_pct, 1);
	fputs("<h2>Keys</h2>\n<table id=\"keys\">\n<thead><tr>", out);
	for (unsigned c = 0; c < r->nr_key_cols; c++) {
		fputs("<th>", out);
		html_text(out, r->key_cols[c]);
		fputs("</th>", out);
	}
	fputs("<th>seconds</th>", out);
	event_heads(out, r->events, r->nr_events,
		    r->sort_is_metric ? -1 : (int)r->sort_index, true);
	metric_heads(out, r);
	fprintf(out,
		"<th>low running<br><small>below %s %%</small></th></tr>"
		"</thead>\n<tbody>\n",
		pct);
	for (unsigned i = 0; i < r->nr_rows; i++) {
		row = &r->rows[i];
		fputs("<tr>", out);
		key_cells(out, r, row);
		event_cells(out, row->cells, r->nr_events, r->min_running_pct,
			    true);
		metric_cells(out, r, row);
		fprintf(out, "<td class=\"low\">%s</td></tr>\n",
			row_low_running(r, row) ? "yes" : "");
	}
	fputs("</tbody>\n</table>\n", out);
}

/*
 * System and self rows: keyed by host alone, never among the keys. The
 * self rows are bpmc's costs and losses, totals to read as they are: a
 * rate of intervals lost adds width, not meaning.
 */
static void host_table(FILE *out, const char *id, const char *heading,
		       const struct report_row *rows, unsigned n,
		       const struct report_event *ev, unsigned nr_ev,
		       double min_running, bool rates)
{
	char s[NUM_LEN];

	if (!n || !rows) {
		fprintf(out,
			"<h2>%s</h2>\n<p class=\"note\">None in the "
			"input.</p>\n",
			heading);
		return;
	}
	fprintf(out,
		"<h2>%s</h2>\n<table id=\"%s\">\n<thead><tr><th>host</th>"
		"<th>seconds</th>",
		heading, id);
	event_heads(out, ev, nr_ev, -1, rates);
	fputs("</tr></thead>\n<tbody>\n", out);
	for (unsigned i = 0; i < n; i++) {
		fputs("<tr><td>", out);
		html_text(out, rows[i].key ? rows[i].key[0] : "");
		fmt_fixed(s, rows[i].seconds, 3);
		fprintf(out, "</td><td class=\"n\">%s</td>", s);
		if (rows[i].cells)
			event_cells(out, rows[i].cells, nr_ev, min_running,
				    rates);
		fputs("</tr>\n", out);
	}
	fputs("</tbody>\n</table>\n", out);
}

static void tables(FILE *out, const struct report_result *r)
{
	keys_table(out, r);
	host_table(out, "system", "Hosts (system rows)", r->system, r->nr_hosts,
		   r->events, r->nr_events, r->min_running_pct, true);
	host_table(out, "self", "bpmc&#39;s own cost (self rows)", r->self,
		   r->nr_hosts, r->self_events, r->nr_self_events,
		   r->min_running_pct, false);
}

static void head(FILE *out, const char *title)
{
	fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n"
	      "<meta charset=\"utf-8\">\n"
	      "<meta name=\"generator\" content=\"bpmc " BPMC_VERSION "\">\n"
	      "<title>",
	      out);
	html_text(out, title);
	fprintf(out, "</title>\n<style>\n%s</style>\n</head>\n<body>\n<h1>",
		css);
	html_text(out, title);
	fputs("</h1>\n", out);
}

/* errno is read at once: the first failed write's, not a later call's. */
static int write_error(struct error *err)
{
	int e = errno ? errno : EIO;

	return error__set(err, e, "cannot write the html report: %s",
			  strerror(e));
}

int report_html__write(const struct report_result *r, FILE *out,
		       const char *title, struct error *err)
{
	int ret;

	if (!r || !out)
		return error__set(err, EINVAL, "html report: nothing to write");
	ret = check_result(r, err);
	if (ret)
		return ret;
	errno = 0;
	head(out, title ? title : "bpmc report");
	meta(out, r);
	if (ferror(out))
		return write_error(err);
	ret = charts(out, r);
	if (ret)
		return error__set(err, ret, "html report: %s", strerror(-ret));
	if (ferror(out))
		return write_error(err);
	tables(out, r);
	fputs("</body>\n</html>\n", out);
	if (fflush(out) || ferror(out))
		return write_error(err);
	return 0;
}
