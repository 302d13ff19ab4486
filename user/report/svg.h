/* SPDX-License-Identifier: GPL-2.0 */
/* What svg.c and svg_series.c share, and no one else. */
#ifndef BPMC_REPORT_SVG_H
#define BPMC_REPORT_SVG_H

#include <stdio.h>

#include "report/result.h"

/* A value axis: ticks at 1, 2 or 5 times a power of ten. */
struct axis {
	double lo, hi, step;
	double scale; /* of the labels' suffix: 1, 1e3, 1e6, ... */
	char suffix[2];
	unsigned decimals;
};

/* Covers [lo, hi] in about want steps. */
void axis_init(struct axis *a, double lo, double hi, unsigned want);
unsigned axis_ticks(const struct axis *a);
double axis_tick(const struct axis *a, unsigned i);
/* The tick's text: the axis' decimals and suffix ("2.5G"). */
void axis_label(const struct axis *a, double v, char *buf);

/* A coordinate in tenths of a pixel: enough for any screen, and short. */
void svg_coord(FILE *out, double v);
/* Opens a <text> element at (x, y); the caller writes it and closes it. */
void svg_text_at(FILE *out, double x, double y, const char *anchor,
		 const char *cls);
/* The open <text> of a value axis: "SORT, UNIT" (the unit when there is
 * one), then the text and the chart closed. */
void svg_axis_title_end(FILE *out, const struct report_result *r,
			const char *unit);
/* " UNIT", escaped, or nothing when unit is "". */
void svg_unit(FILE *out, const char *unit);

/* The charts; 0 or -ENOMEM. */
int svg_series(FILE *out, const struct report_result *r);
int svg_bars(FILE *out, const struct report_result *r);

#endif
