// SPDX-License-Identifier: GPL-2.0
/*
 * The time series chart: the shown keys' sort value per bucket, as steps,
 * since a bucket's value is its average.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/util.h"
#include "report/html_parts.h"
#include "report/svg.h"

#define SERIES_W 960
#define SERIES_H 360
#define SERIES_X0 76
#define SERIES_X1 920 /* room for half a time label */
#define SERIES_Y0 16
#define SERIES_Y1 312

struct frame {
	struct axis y;
	uint64_t t0_ms, span_ms;
	unsigned nr_buckets;
};

static double frame_x(const struct frame *f, double bucket)
{
	return SERIES_X0 + bucket * (SERIES_X1 - SERIES_X0) / f->nr_buckets;
}

static double frame_y(const struct frame *f, double v)
{
	return SERIES_Y1 -
	       (v - f->y.lo) / (f->y.hi - f->y.lo) * (SERIES_Y1 - SERIES_Y0);
}

static void y_grid(FILE *out, const struct frame *f)
{
	char label[NUM_LEN + 2];
	double y;

	for (unsigned i = 0; i < axis_ticks(&f->y); i++) {
		y = frame_y(f, axis_tick(&f->y, i));
		fprintf(out, "<line class=\"grid\" x1=\"%d\" x2=\"%d\" y1=\"",
			SERIES_X0, SERIES_X1);
		svg_coord(out, y);
		fputs("\" y2=\"", out);
		svg_coord(out, y);
		fputs("\"/>", out);
		axis_label(&f->y, axis_tick(&f->y, i), label);
		svg_text_at(out, SERIES_X0 - 6, y + 4, "end", "tick");
		fprintf(out, "%s</text>\n", label);
	}
}

/* Steps that divide a day, so ticks fall on round UTC times. */
static const uint64_t time_steps_ms[] = {
	1,	 2,	  5,	    10,	      20,	50,	  100,
	200,	 500,	  1000,	    2000,     5000,	10000,	  15000,
	30000,	 60000,	  120000,   300000,   600000,	900000,	  1800000,
	3600000, 7200000, 10800000, 21600000, 43200000, 86400000,
};

static void time_label(uint64_t ms, uint64_t step, char *buf)
{
	time_t t = (time_t)(ms / 1000);
	struct tm tm;

	if (!gmtime_r(&t, &tm)) {
		strcpy(buf, "?");
		return;
	}
	if (step >= 86400000)
		snprintf(buf, NUM_LEN, "%02d-%02d", tm.tm_mon + 1, tm.tm_mday);
	else if (step >= 60000)
		snprintf(buf, NUM_LEN, "%02d:%02d", tm.tm_hour, tm.tm_min);
	else if (step >= 1000)
		snprintf(buf, NUM_LEN, "%02d:%02d:%02d", tm.tm_hour, tm.tm_min,
			 tm.tm_sec);
	else
		snprintf(buf, NUM_LEN, "%02d:%02d:%02d.%03u", tm.tm_hour,
			 tm.tm_min, tm.tm_sec, (unsigned)(ms % 1000));
}

static void x_ticks(FILE *out, const struct frame *f)
{
	uint64_t step = 0, t;
	char label[NUM_LEN];
	double x;

	for (size_t i = 0; i < ARRAY_SIZE(time_steps_ms) && !step; i++)
		if (f->span_ms / time_steps_ms[i] <= 8)
			step = time_steps_ms[i];
	if (!step) /* weeks and more: whole days */
		step = (f->span_ms / 8 / 86400000 + 1) * 86400000;
	for (t = (f->t0_ms + step - 1) / step * step;
	     t <= f->t0_ms + f->span_ms; t += step) {
		x = frame_x(f, (double)(t - f->t0_ms) * f->nr_buckets /
				       f->span_ms);
		fputs("<line class=\"axis\" x1=\"", out);
		svg_coord(out, x);
		fputs("\" x2=\"", out);
		svg_coord(out, x);
		fprintf(out, "\" y1=\"%d\" y2=\"%d\"/>", SERIES_Y1,
			SERIES_Y1 + 5);
		time_label(t, step, label);
		svg_text_at(out, x, SERIES_Y1 + 18, "middle", "tick");
		fprintf(out, "%s</text>\n", label);
	}
}

static const double *row_values(const struct report_result *r, unsigned i)
{
	return r->series.values + (size_t)i * r->series.nr_buckets;
}

/*
 * Rates add up, so the rows stack, the biggest at the bottom: the top
 * edge is the shown keys' total. A metric is a ratio, and a sum of
 * ratios means nothing, so metrics are lines, each on its own.
 */
static void value_range(const struct report_result *r, double *lo, double *hi)
{
	unsigned nb = r->series.nr_buckets;
	double v, sum;

	*lo = 0;
	*hi = 0;
	for (unsigned b = 0; b < nb; b++) {
		sum = 0;
		for (unsigned i = 0; i < r->nr_rows; i++) {
			v = row_values(r, i)[b];
			if (!isfinite(v))
				continue;
			if (r->sort_is_metric) {
				*lo = fmin(*lo, v);
				*hi = fmax(*hi, v);
			} else {
				sum += fmax(v, 0);
			}
		}
		*hi = fmax(*hi, sum);
	}
}

static long tenths(double v)
{
	return lround(v * 10);
}

/*
 * Steps along buckets start..end (right to left when back) from the
 * pen's level last (in tenths of a pixel), a vertical only where the
 * level changes: a flat run of buckets is one segment, however long.
 */
static void edge(FILE *out, const struct frame *f, const double *level,
		 unsigned start, unsigned end, bool back, long last)
{
	unsigned b = 0;
	double y;

	for (unsigned i = 0; i < end - start; i++) {
		b = back ? end - 1 - i : start + i;
		y = frame_y(f, level[b]);
		if (tenths(y) == last)
			continue;
		if (i) {
			fputs("H", out);
			svg_coord(out, frame_x(f, back ? b + 1 : b));
		}
		fputs("V", out);
		svg_coord(out, y);
		last = tenths(y);
	}
	fputs("H", out);
	svg_coord(out, frame_x(f, back ? b : b + 1));
}

/* The end of the run of covered buckets from start. */
static unsigned run_end(const double *v, unsigned start, unsigned nb)
{
	while (start < nb && isfinite(v[start]))
		start++;
	return start;
}

/*
 * One subpath per run of covered buckets, from the row's top edge back
 * along the rows below it: a NaN is a gap, never a 0. top = base + the
 * row's values.
 */
/* A subpath's start, at bucket start and height y; y in tenths back. */
static long move_to(FILE *out, const struct frame *f, unsigned start, double y)
{
	fputs("M", out);
	svg_coord(out, frame_x(f, start));
	fputs(" ", out);
	svg_coord(out, y);
	return tenths(y);
}

static void area_path(FILE *out, const struct frame *f, const double *v,
		      const double *base, const double *top)
{
	unsigned nb = f->nr_buckets, start, end;
	long y;

	for (start = 0; start < nb; start = end + 1) {
		end = run_end(v, start, nb);
		if (end == start)
			continue;
		y = move_to(out, f, start, frame_y(f, top[start]));
		edge(out, f, top, start, end, false, y);
		edge(out, f, base, start, end, true,
		     tenths(frame_y(f, top[end - 1])));
		fputs("Z", out);
	}
}

static void line_path(FILE *out, const struct frame *f, const double *v)
{
	unsigned nb = f->nr_buckets, start, end;

	for (start = 0; start < nb; start = end + 1) {
		end = run_end(v, start, nb);
		if (end == start)
			continue;
		edge(out, f, v, start, end, false,
		     move_to(out, f, start, frame_y(f, v[start])));
	}
}

/* The row's peak and mean over its covered buckets, for its tooltip. */
static void row_title(FILE *out, const struct report_result *r, unsigned i,
		      const char *unit)
{
	const double *v = row_values(r, i);
	double peak = NAN, sum = 0;
	unsigned n = 0;
	char a[NUM_LEN], b[NUM_LEN];

	for (unsigned k = 0; k < r->series.nr_buckets; k++) {
		if (!isfinite(v[k]))
			continue;
		peak = n ? fmax(peak, v[k]) : v[k];
		sum += v[k];
		n++;
	}
	fmt_si(a, n ? sum / n : NAN);
	fmt_si(b, peak);
	fputs("<title>", out);
	html_key(out, r, &r->rows[i], 0);
	fprintf(out, ": mean %s, peak %s", a, b);
	svg_unit(out, unit);
	fprintf(out, ", %u of %u buckets covered</title>", n,
		r->series.nr_buckets);
}

static void series_rows(FILE *out, const struct report_result *r,
			const struct frame *f, double *base, const char *unit)
{
	const char *cls = r->sort_is_metric ? "series-line" : "series-area";
	unsigned nb = f->nr_buckets;
	double *top = base ? base + nb : NULL;
	const double *v;

	for (unsigned i = 0; i < r->nr_rows; i++) {
		v = row_values(r, i);
		for (unsigned b = 0; top && b < nb; b++)
			top[b] = base[b] + (isfinite(v[b]) ? fmax(v[b], 0) : 0);
		fprintf(out, "<path class=\"%s\" data-key=\"", cls);
		html_key(out, r, &r->rows[i], 0);
		/* Past one round of the palette, a dash tells keys apart. */
		if (r->sort_is_metric)
			fprintf(out, "\" fill=\"none\" stroke=\"%s\"%s d=\"",
				html_colour(i),
				i >= HTML_NR_COLOURS ?
					" stroke-dasharray=\"6 3\"" :
					"");
		else
			fprintf(out, "\" fill=\"%s\"%s d=\"", html_colour(i),
				i >= HTML_NR_COLOURS ? " fill-opacity=\"0.6\"" :
						       "");
		if (r->sort_is_metric)
			line_path(out, f, v);
		else
			area_path(out, f, v, base, top);
		fputs("\">", out);
		row_title(out, r, i, unit);
		fputs("</path>\n", out);
		if (top)
			memcpy(base, top, nb * sizeof(*base));
	}
}

int svg_series(FILE *out, const struct report_result *r)
{
	struct frame f = { 0 };
	double lo, hi, *base = NULL;
	char unit[64];

	fprintf(out,
		"<svg id=\"series\" viewBox=\"0 0 %d %d\" width=\"%d\" "
		"height=\"%d\" role=\"img\">\n",
		SERIES_W, SERIES_H, SERIES_W, SERIES_H);
	if (!html_has_series(r)) {
		svg_text_at(out, SERIES_W / 2, SERIES_H / 2, "middle", "none");
		fputs(r->nr_rows ? "no time series in this report" : "no keys",
		      out);
		fputs("</text>\n</svg>\n", out);
		return 0;
	}
	if (!r->sort_is_metric) {
		/* The rows below's top edge, and this row's. */
		base = calloc(2 * (size_t)r->series.nr_buckets, sizeof(*base));
		if (!base)
			return -ENOMEM;
	}
	html_sort_unit(r, unit, sizeof(unit));
	value_range(r, &lo, &hi);
	axis_init(&f.y, lo, hi, 5);
	f.t0_ms = r->series.t0_ms;
	f.nr_buckets = r->series.nr_buckets;
	f.span_ms = r->series.bucket_ms * r->series.nr_buckets;
	y_grid(out, &f);
	series_rows(out, r, &f, base, unit);
	free(base);
	fprintf(out,
		"<line class=\"axis\" x1=\"%d\" x2=\"%d\" y1=\"%d\" "
		"y2=\"%d\"/>\n",
		SERIES_X0, SERIES_X1, SERIES_Y1, SERIES_Y1);
	x_ticks(out, &f);
	svg_text_at(out, (SERIES_X0 + SERIES_X1) / 2, SERIES_H - 6, "middle",
		    "axis-title");
	fputs("time (UTC)</text>\n", out);
	fprintf(out,
		"<text transform=\"translate(14 %d) rotate(-90)\" "
		"text-anchor=\"middle\" class=\"axis-title\">",
		(SERIES_Y0 + SERIES_Y1) / 2);
	svg_axis_title_end(out, r, unit);
	return 0;
}
