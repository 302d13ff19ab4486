/* SPDX-License-Identifier: GPL-2.0 */
/* "did you mean": the closest known names to one that did not encode. */
#ifndef BPMC_NAMES_SUGGEST_H
#define BPMC_NAMES_SUGGEST_H

#include <stddef.h>

/*
 * Writes " (did you mean A, B or C?)" into out for up to three known
 * names close to name, or "". The candidates: libpfm's core table (or
 * the present ones), the nearest table (qualified), perf's aliases and
 * every sysfs alias; core and nearest may be NULL.
 */
void suggest__event(const char *name, const char *core, const char *nearest,
		    char *out, size_t len);
/* The same for a --pmu table name. */
void suggest__table(const char *table, char *out, size_t len);

#endif
