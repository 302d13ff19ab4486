/* SPDX-License-Identifier: GPL-2.0 */
/*
 * `bpmc report --html FILE`: one self-contained HTML5 page of a report,
 * readable offline and without JavaScript. Inline CSS and inline SVG only:
 * no script, font, image or link of any kind, so the page shows the same
 * wherever it is opened and cannot call home.
 *
 * What a test may rely on:
 *   <svg id="series">  the shown rows' sort value over time: one
 *                      <path class="series-area" data-key="KEY"> per row,
 *                      stacked, for an event's rate; one
 *                      <path class="series-line" data-key="KEY"> per row
 *                      for a metric; none when r->series is empty;
 *   <svg id="bars">    one <rect class="bar" data-key="KEY"
 *                      data-value="V"> per shown row (V "n/a" and the
 *                      width 0 where the value is not defined);
 *   <table id="keys">, <table id="system">, <table id="self">.
 * KEY is the key's columns joined by " · ", HTML-escaped.
 */
#ifndef BPMC_REPORT_HTML_H
#define BPMC_REPORT_HTML_H

#include <stdio.h>

#include "common/error.h"
#include "report/result.h"

/*
 * Writes the page of r to out, titled title (NULL: "bpmc report"), and
 * flushes it; out stays open. 0, or -errno with err set: -EINVAL for a
 * result that does not hold together, -ENOMEM, or the write's error
 * (-ENOSPC on a full disk).
 */
int report_html__write(const struct report_result *r, FILE *out,
		       const char *title, struct error *err);

#endif
