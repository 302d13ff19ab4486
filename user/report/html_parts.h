/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What html.c, html_text.c and the charts (svg*.c) share, and no one
 * else: escaped text, numbers written the same on every machine (no
 * locale, no "nan"), and the palette.
 */
#ifndef BPMC_REPORT_HTML_PARTS_H
#define BPMC_REPORT_HTML_PARTS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "report/result.h"

/* Between a key's columns, in the legend, the bars and data-key. */
#define HTML_KEY_SEP " \xc2\xb7 "

/* Room for every number and time the fmt_ functions write. */
#define NUM_LEN 48

/* A fixed colour-blind-friendly palette, cycling. */
#define HTML_NR_COLOURS 10
const char *html_colour(unsigned i);

/*
 * s escaped for text and quoted attributes alike (& < > " '), every
 * control character and every byte outside valid UTF-8 as U+FFFD. cut
 * keeps that many characters and marks the cut with an ellipsis; 0 keeps
 * all.
 */
void html_text_cut(FILE *out, const char *s, unsigned cut);
void html_text(FILE *out, const char *s);
/* The row's key columns, escaped, joined by HTML_KEY_SEP; each cut in
 * the middle to cut characters (0: whole). */
void html_key(FILE *out, const struct report_result *r,
	      const struct report_row *row, unsigned cut);
/* Key column c of row as shown: the empty container (pod) of a
 * per-container (per-pod) view is the outside key. */
const char *html_key_text(const struct report_result *r,
			  const struct report_row *row, unsigned c);

/*
 * v with that many decimals (at most 9), rounded half away from zero;
 * "n/a" when v is NaN or infinite. Magnitudes too large for that many
 * decimals get an exponent (1.23e+21).
 */
void fmt_fixed(char *buf, double v, unsigned decimals);
/* v with digits significant digits, no exponent below 1e15. */
void fmt_sig(char *buf, double v, unsigned digits);
/* Three significant digits and a suffix k M G T P E: "1.23G". */
void fmt_si(char *buf, double v);
/* Unix ms as ISO 8601 UTC: 2026-12-02T01:41:39.123Z. */
void fmt_iso_ms(char *buf, uint64_t ms);

/*
 * The value the bars show and the series follow: the sort metric, or the
 * sort event's rate; its name, and its unit ("ns/s", "%", "").
 */
double html_sort_value(const struct report_result *r,
		       const struct report_row *row);
const char *html_sort_name(const struct report_result *r);
void html_sort_unit(const struct report_result *r, char *buf, size_t len);
/* Counted below --min-running (multiplexed); NaN, no rows, is not. */
bool html_cell_low_running(const struct report_cell *c, double min_pct);
/* The sort value was counted below --min-running. */
bool html_sort_low_running(const struct report_result *r,
			   const struct report_row *row);
bool html_has_series(const struct report_result *r);

#endif
