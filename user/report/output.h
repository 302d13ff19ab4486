/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The report as text: an aligned table for a terminal, CSV and JSON for
 * scripts (docs/analysis.md gives the columns). Text from the exports is
 * written as the exports hold it (escaped: valid UTF-8, no control
 * character), quoted in CSV. Each returns 0 or -errno (a write error).
 */
#ifndef BPMC_REPORT_OUTPUT_H
#define BPMC_REPORT_OUTPUT_H

#include <stdio.h>

#include "report/result.h"

int report_write_table(const struct report_result *r, FILE *out);
int report_write_csv(const struct report_result *r, FILE *out);
int report_write_json(const struct report_result *r, FILE *out);

/* A number as the CSV writes it: integers whole, the rest %.9g, NaN empty. */
void report_put_number(FILE *out, double v);
/* A text field: quoted, quotes doubled; empty unquoted. */
void report_put_text(FILE *out, const char *s);
/* Whether a key column holds numbers (pid, tid) or a time: unquoted. */
bool report_col_is_number(const char *col);

#endif
