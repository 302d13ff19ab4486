/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel PMU behind a libpfm uncore table. libpfm's RAPL and uncore
 * tables (rapl, amd64_rapl, snbep_unc_cbo0, amd64_fam19h_zen3_l3...) count
 * through a PMU of their own under /sys/bus/event_source/devices (power,
 * uncore_cbox_0, amd_l3...). libpfm does not say which, and where it is
 * missing encodes some of them (rapl) as raw core events, which would
 * count something else entirely: these checks refuse that.
 */
#ifndef BPMC_NAMES_KERNEL_PMU_H
#define BPMC_NAMES_KERNEL_PMU_H

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stddef.h>

#include "common/error.h"

/*
 * The kernel PMU that libpfm's uncore table needs ("power" for rapl),
 * into buf; false when bpmc knows no rule for the table's name.
 */
bool kernel_pmu__for_table(const char *table, char *buf, size_t len);

/* True when libpfm's table (any case) is an uncore or RAPL one. */
bool kernel_pmu__is_uncore_table(const char *table);

/*
 * Whether event name may go on: 0 when its libpfm table is not an uncore
 * one, or when the kernel PMU it needs is under root (NULL: the sysfs
 * default) and, if encoded (attr not NULL, fstr libpfm's qualified
 * name), carries that PMU's type. fstr, when not encoded, is the
 * TABLE::NAME that was tried (a bare name through the table bpmc uses),
 * or NULL: libpfm's look-up decides. Otherwise -ENODEV (or the errno of
 * reading sysfs) with err naming the event and the kernel PMU. A name
 * libpfm does not know at all is left to the caller's "unknown event".
 */
int kernel_pmu__check(const char *root, const char *name, const char *fstr,
		      const struct perf_event_attr *attr, struct error *err);

#endif
