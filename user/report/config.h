/* SPDX-License-Identifier: GPL-2.0 */
/* The scan configuration a report's options make (report/report.h). */
#ifndef BPMC_REPORT_CONFIG_H
#define BPMC_REPORT_CONFIG_H

#include <stdbool.h>

#include "report/report.h"

/* The key's fields, and the labels that follow container and pod. */
void report_config__make(struct scan_config *c, const struct report_opts *o);
bool report_config__has_key(const struct scan_config *c, enum key_field f);

#endif
