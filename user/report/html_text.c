// SPDX-License-Identifier: GPL-2.0
/*
 * Text and numbers for the HTML page. Numbers never go through printf's
 * %f or %g: those follow LC_NUMERIC and print "nan", and the page must be
 * the same bytes on every machine.
 */
#include <inttypes.h>
#include <math.h>
#include <string.h>
#include <time.h>

#include "common/escape.h"
#include "common/short_name.h"
#include "common/util.h"
#include "report/html_parts.h"

/*
 * Okabe and Ito's seven colours (black left out: it is the axes'), then
 * three of Paul Tol's that stay apart from them under the common colour
 * vision deficiencies.
 */
static const char *const palette[HTML_NR_COLOURS] = {
	"#0072b2", "#e69f00", "#009e73", "#cc79a7", "#56b4e9",
	"#d55e00", "#f0e442", "#332288", "#999933", "#882255",
};

const char *html_colour(unsigned i)
{
	return palette[i % HTML_NR_COLOURS];
}

static const char *entity(unsigned char c)
{
	switch (c) {
	case '&':
		return "&amp;";
	case '<':
		return "&lt;";
	case '>':
		return "&gt;";
	case '"':
		return "&quot;";
	case '\'':
		return "&#39;";
	default:
		break;
	}
	return NULL;
}

/* C0, DEL and C1: the export never holds them, but a name must not be
 * able to break the page if one slips through. */
static bool is_control(const unsigned char *p, size_t n)
{
	if (n == 1)
		return *p < 0x20 || *p == 0x7f;
	return n == 2 && p[0] == 0xc2 && p[1] < 0xa0;
}

void html_text_cut(FILE *out, const char *s, unsigned cut)
{
	const unsigned char *p = (const unsigned char *)(s ? s : "");
	unsigned chars = 0;
	const char *e;
	size_t n;

	for (; *p; p += n ? n : 1, chars++) {
		if (cut && chars == cut) {
			fputs("\xe2\x80\xa6", out);
			return;
		}
		n = utf8_len(p);
		if (!n || is_control(p, n))
			fputs("&#xfffd;", out);
		else if (n == 1 && (e = entity(*p)))
			fputs(e, out);
		else
			fwrite(p, 1, n, out);
	}
}

void html_text(FILE *out, const char *s)
{
	html_text_cut(out, s, 0);
}

const char *html_key_text(const struct report_result *r,
			  const struct report_row *row, unsigned c)
{
	const char *s = row->key[c];

	if (*s || !r->scope)
		return s;
	if (!strcmp(r->key_cols[c], "container") &&
	    !strcmp(r->scope, "container"))
		return OUTSIDE_CONTAINERS;
	if (!strcmp(r->key_cols[c], "pod") && !strcmp(r->scope, "pod"))
		return OUTSIDE_PODS;
	return s;
}

void html_key(FILE *out, const struct report_result *r,
	      const struct report_row *row, unsigned cut)
{
	char buf[4096];

	for (unsigned c = 0; c < r->nr_key_cols; c++) {
		if (c)
			fputs(HTML_KEY_SEP, out);
		if (!cut) {
			html_text(out, html_key_text(r, row, c));
			continue;
		}
		/* In the middle: ids and paths differ at their end. */
		cut_middle(html_key_text(r, row, c), cut, buf, sizeof(buf));
		html_text(out, buf);
	}
}

/* d.ddde+XX, for what no fixed form holds. */
static void fmt_exp(char *buf, double v)
{
	int e = (int)lrint(floor(log10(fabs(v))));
	long m = lround(fabs(v) / pow(10, e) * 1000);

	if (m >= 10000) { /* rounded up into the next decade */
		m = lround(m / 10.0);
		e++;
	}
	snprintf(buf, NUM_LEN, "%s%ld.%03lde%c%d", v < 0 ? "-" : "", m / 1000,
		 m % 1000, e < 0 ? '-' : '+', e < 0 ? -e : e);
}

void fmt_fixed(char *buf, double v, unsigned decimals)
{
	static const double pow10[] = { 1,   1e1, 1e2, 1e3, 1e4,
					1e5, 1e6, 1e7, 1e8, 1e9 };
	uint64_t n, p;
	double scaled;

	if (!isfinite(v)) {
		strcpy(buf, "n/a");
		return;
	}
	if (decimals >= ARRAY_SIZE(pow10))
		decimals = ARRAY_SIZE(pow10) - 1;
	scaled = round(fabs(v) * pow10[decimals]);
	if (scaled >= 9e18) {
		fmt_exp(buf, v);
		return;
	}
	n = (uint64_t)scaled;
	p = (uint64_t)pow10[decimals];
	/* -0.0 and what rounds to zero print as 0, never "-0". */
	if (decimals)
		snprintf(buf, NUM_LEN, "%s%" PRIu64 ".%0*" PRIu64,
			 v < 0 && n ? "-" : "", n / p, (int)decimals, n % p);
	else
		snprintf(buf, NUM_LEN, "%s%" PRIu64, v < 0 && n ? "-" : "", n);
}

void fmt_sig(char *buf, double v, unsigned digits)
{
	int mag, decimals;

	if (!isfinite(v) || v == 0) {
		fmt_fixed(buf, v, 0);
		return;
	}
	mag = (int)lrint(floor(log10(fabs(v))));
	decimals = (int)digits - 1 - mag;
	fmt_fixed(buf, v, decimals < 0 ? 0 : decimals);
}

void fmt_si(char *buf, double v)
{
	static const char suffix[] = " kMGTPE";
	double a = fabs(v);
	unsigned k = 0;
	size_t n;

	if (!isfinite(v)) {
		fmt_fixed(buf, v, 0);
		return;
	}
	while (a >= 999.5 && k + 1 < sizeof(suffix) - 1) {
		a /= 1000;
		k++;
	}
	if (a >= 999.5) { /* past the last suffix */
		fmt_exp(buf, v);
		return;
	}
	fmt_sig(buf, v < 0 ? -a : a, 3);
	/* 3 significant digits of 0.5 are "0.500": the zeros say nothing. */
	if (strchr(buf, '.')) {
		n = strlen(buf);
		while (buf[n - 1] == '0')
			buf[--n] = '\0';
		if (buf[n - 1] == '.')
			buf[--n] = '\0';
	}
	if (k) {
		n = strlen(buf);
		buf[n] = suffix[k];
		buf[n + 1] = '\0';
	}
}

void fmt_iso_ms(char *buf, uint64_t ms)
{
	time_t t = (time_t)(ms / 1000);
	struct tm tm;

	if (!gmtime_r(&t, &tm)) {
		strcpy(buf, "n/a");
		return;
	}
	snprintf(buf, NUM_LEN, "%04d-%02d-%02dT%02d:%02d:%02d.%03uZ",
		 tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour,
		 tm.tm_min, tm.tm_sec, (unsigned)(ms % 1000));
}

double html_sort_value(const struct report_result *r,
		       const struct report_row *row)
{
	if (r->sort_is_metric)
		return row->metrics[r->sort_index].value;
	return row->cells[r->sort_index].per_s;
}

/* Out of range only without rows (check_result()): an empty input. */
static bool sort_valid(const struct report_result *r)
{
	return r->sort_index <
	       (r->sort_is_metric ? r->nr_metrics : r->nr_events);
}

const char *html_sort_name(const struct report_result *r)
{
	if (!sort_valid(r))
		return "value";
	if (r->sort_is_metric)
		return r->metrics[r->sort_index].name;
	return r->events[r->sort_index].name;
}

void html_sort_unit(const struct report_result *r, char *buf, size_t len)
{
	const char *unit;

	if (!sort_valid(r)) {
		buf[0] = '\0';
		return;
	}
	if (r->sort_is_metric) {
		unit = r->metrics[r->sort_index].unit;
		snprintf(buf, len, "%s", unit ? unit : "");
	} else {
		unit = r->events[r->sort_index].unit;
		snprintf(buf, len, "%s/s", unit ? unit : "events");
	}
}

bool html_cell_low_running(const struct report_cell *c, double min_pct)
{
	return isfinite(c->running_pct) && c->running_pct < min_pct;
}

bool html_sort_low_running(const struct report_result *r,
			   const struct report_row *row)
{
	if (r->sort_is_metric)
		return row->metrics[r->sort_index].low_running;
	return html_cell_low_running(&row->cells[r->sort_index],
				     r->min_running_pct);
}

bool html_has_series(const struct report_result *r)
{
	return r->nr_rows && r->series.nr_buckets && r->series.bucket_ms &&
	       r->series.values;
}
