/* SPDX-License-Identifier: GPL-2.0 */
/*
 * libpfm4 look-ups with their size fields filled in, and its one-time
 * initialisation. libpfm's state is process-wide; everything above this
 * file holds its own handle.
 */
#ifndef BPMC_NAMES_PFM_H
#define BPMC_NAMES_PFM_H

#include <perfmon/pfmlib.h>
#include <stdbool.h>

#include "common/error.h"
#include "common/version.h"

/* Initialises libpfm once per process, every table encodable. */
int libpfm__init(struct error *err);

/* True on success. */
bool libpfm__pmu_get(pfm_pmu_t pmu, pfm_pmu_info_t *info);
bool libpfm__event_get(int idx, pfm_event_info_t *info);
/* True when attribute attr of event idx exists and is a unit mask. */
bool libpfm__umask_get(int idx, int attr, pfm_event_attr_info_t *info);
/* libpfm's pmu id of a table name, in any case, or -1. */
int libpfm__pmu_by_name(const char *name);
/* The core-PMU table libpfm detected for this CPU itself, or -1. */
int libpfm__detected_core(void);

/* libpfm's version, built and in use; needs no libpfm__init(). */
void libpfm__version(struct lib_version *v);

#endif
