// SPDX-License-Identifier: GPL-2.0
/*
 * What both charts draw with (value axes, coordinates, text), and the bar
 * chart: the sort value per key, the multiplexed ones hatched. Sizes are
 * fixed, so the page lays out the same everywhere and a screenshot can
 * be compared.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report/html_parts.h"
#include "report/svg.h"

#define BARS_W 960
#define BARS_X0 16
#define BARS_X1 820 /* the value's label goes right of the longest bar */
#define BARS_TOP 16
#define BARS_ROW 36
#define BARS_AXIS 40
/* A key longer than this is cut in a label; its <title> has it whole. */
#define LABEL_CUT 120

void axis_init(struct axis *a, double lo, double hi, unsigned want)
{
	static const char suffixes[] = " kMGTPE";
	double raw, mag, f, m;
	unsigned k = 0;

	if (!(hi > lo))
		hi = lo + 1;
	raw = (hi - lo) / want;
	if (!isfinite(raw) || raw < 1e-300) { /* sums past DBL_MAX, or 0 */
		lo = 0;
		hi = want;
		raw = 1;
	}
	mag = pow(10, floor(log10(raw)));
	f = raw / mag;
	a->step = (f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10) * mag;
	a->lo = floor(lo / a->step) * a->step;
	a->hi = ceil(hi / a->step) * a->step;
	m = fmax(fabs(a->lo), fabs(a->hi));
	a->scale = 1;
	while (m / a->scale >= 1000 && k + 1 < sizeof(suffixes) - 1) {
		a->scale *= 1000;
		k++;
	}
	a->suffix[0] = k ? suffixes[k] : '\0';
	a->suffix[1] = '\0';
	f = a->step / a->scale;
	a->decimals = f >= 1 ? 0 : (unsigned)lrint(ceil(-log10(f) - 1e-9));
}

unsigned axis_ticks(const struct axis *a)
{
	return (unsigned)llround((a->hi - a->lo) / a->step) + 1;
}

double axis_tick(const struct axis *a, unsigned i)
{
	return a->lo + i * a->step;
}

void axis_label(const struct axis *a, double v, char *buf)
{
	if (fabs(v) < a->step / 2) { /* 0, not "0.0G" or "-0.0" */
		strcpy(buf, "0");
		return;
	}
	fmt_fixed(buf, v / a->scale, a->decimals);
	strcat(buf, a->suffix);
}

void svg_coord(FILE *out, double v)
{
	long t;

	/* Only an axis that broke (above) puts a point off the chart. */
	if (!(fabs(v) < 1e6))
		v = v < 0 ? -1e6 : 1e6;
	t = lround(v * 10);
	fprintf(out, "%s%ld", t < 0 ? "-" : "", labs(t) / 10);
	if (labs(t) % 10)
		fprintf(out, ".%ld", labs(t) % 10);
}

void svg_unit(FILE *out, const char *unit)
{
	if (!unit[0])
		return;
	fputc(' ', out);
	html_text(out, unit);
}

void svg_axis_title_end(FILE *out, const struct report_result *r,
			const char *unit)
{
	html_text(out, html_sort_name(r));
	if (unit[0]) {
		fputs(", ", out);
		html_text(out, unit);
	}
	fputs("</text>\n</svg>\n", out);
}

void svg_text_at(FILE *out, double x, double y, const char *anchor,
		 const char *cls)
{
	fputs("<text x=\"", out);
	svg_coord(out, x);
	fputs("\" y=\"", out);
	svg_coord(out, y);
	fprintf(out, "\" text-anchor=\"%s\" class=\"%s\">", anchor, cls);
}

static void bar_range(const struct report_result *r, struct axis *a)
{
	double lo = 0, hi = 0, v;

	for (unsigned i = 0; i < r->nr_rows; i++) {
		v = html_sort_value(r, &r->rows[i]);
		if (isfinite(v)) {
			lo = fmin(lo, v);
			hi = fmax(hi, v);
		}
	}
	axis_init(a, lo, hi, 6);
}

static double bar_x(const struct axis *a, double v)
{
	return BARS_X0 + (v - a->lo) / (a->hi - a->lo) * (BARS_X1 - BARS_X0);
}

static void bar(FILE *out, const struct report_result *r, unsigned i,
		const struct axis *a, const char *unit)
{
	const struct report_row *row = &r->rows[i];
	double v = html_sort_value(r, row), y = BARS_TOP + i * BARS_ROW;
	double x0 = bar_x(a, 0), x1 = isfinite(v) ? bar_x(a, v) : x0;
	bool low = html_sort_low_running(r, row);
	char num[NUM_LEN];

	svg_text_at(out, BARS_X0, y + 11, "start", "label");
	html_key(out, r, row, LABEL_CUT);
	fputs("</text>\n<rect class=\"bar\" data-key=\"", out);
	html_key(out, r, row, 0);
	fmt_si(num, v);
	fprintf(out, "\" data-value=\"%s\" x=\"", num);
	svg_coord(out, fmin(x0, x1));
	fputs("\" y=\"", out);
	svg_coord(out, y + 15);
	fputs("\" width=\"", out);
	svg_coord(out, fabs(x1 - x0));
	fprintf(out, "\" height=\"16\" fill=\"%s\"%s>", html_colour(i),
		low ? " stroke=\"#000\" stroke-dasharray=\"3 2\"" : "");
	fputs("<title>", out);
	html_key(out, r, row, 0);
	fprintf(out, ": %s", num);
	if (isfinite(v))
		svg_unit(out, unit);
	fprintf(out, "%s</title></rect>\n",
		low ? " (multiplexed: counted below --min-running)" : "");
	if (low) {
		fputs("<rect class=\"bar-hatch\" x=\"", out);
		svg_coord(out, fmin(x0, x1));
		fputs("\" y=\"", out);
		svg_coord(out, y + 15);
		fputs("\" width=\"", out);
		svg_coord(out, fabs(x1 - x0));
		fputs("\" height=\"16\" fill=\"url(#hatch)\"/>\n", out);
	}
	svg_text_at(out, fmax(x0, x1) + 6, y + 28, "start", "value");
	fputs(num, out);
	if (isfinite(v))
		svg_unit(out, unit);
	fprintf(out, "%s</text>\n", low ? " *" : "");
}

int svg_bars(FILE *out, const struct report_result *r)
{
	int h = BARS_TOP + (int)r->nr_rows * BARS_ROW + BARS_AXIS;
	char unit[64], label[NUM_LEN + 2];
	struct axis a;
	double x;

	fprintf(out,
		"<svg id=\"bars\" viewBox=\"0 0 %d %d\" width=\"%d\" "
		"height=\"%d\" role=\"img\">\n",
		BARS_W, h, BARS_W, h);
	fputs("<defs><pattern id=\"hatch\" width=\"6\" height=\"6\" "
	      "patternUnits=\"userSpaceOnUse\" "
	      "patternTransform=\"rotate(45)\"><path d=\"M0 0V6\" "
	      "stroke=\"#000\" stroke-width=\"2\" stroke-opacity=\"0.6\"/>"
	      "</pattern></defs>\n",
	      out);
	html_sort_unit(r, unit, sizeof(unit));
	bar_range(r, &a);
	for (unsigned i = 0; i < axis_ticks(&a); i++) {
		x = bar_x(&a, axis_tick(&a, i));
		fputs("<line class=\"grid\" x1=\"", out);
		svg_coord(out, x);
		fputs("\" x2=\"", out);
		svg_coord(out, x);
		fprintf(out, "\" y1=\"%d\" y2=\"%d\"/>", BARS_TOP, h - 34);
		axis_label(&a, axis_tick(&a, i), label);
		svg_text_at(out, x, h - 20, "middle", "tick");
		fprintf(out, "%s</text>\n", label);
	}
	for (unsigned i = 0; i < r->nr_rows; i++)
		bar(out, r, i, &a, unit);
	svg_text_at(out, (BARS_X0 + BARS_X1) / 2, h - 4, "middle",
		    "axis-title");
	svg_axis_title_end(out, r, unit);
	return 0;
}
