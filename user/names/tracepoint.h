/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Tracepoints as perf names them, "subsys:event[:mods]": the id under
 * tracefs's events/SUBSYS/EVENT/id is PERF_TYPE_TRACEPOINT's config.
 * tracefs is found in /proc/self/mountinfo ($BPMC_TRACEFS_ROOT for
 * tests), and mounted at /sys/kernel/tracing when it is nowhere.
 */
#ifndef BPMC_NAMES_TRACEPOINT_H
#define BPMC_NAMES_TRACEPOINT_H

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stddef.h>

#include "common/error.h"

#define TRACEFS_MOUNT_POINT "/sys/kernel/tracing"

/* True for "subsys:event" or "subsys:event:mods" (wildcards included). */
bool tracepoint__is_syntax(const char *name);

/*
 * Encodes name with group's modifiers added (group may be NULL) and
 * writes "subsys:event[:mods]" into fstr. -ENOENT when there is no such
 * tracepoint, with err saying where it looked.
 */
int tracepoint__encode(const char *name, const char *group,
		       struct perf_event_attr *attr, char *fstr,
		       size_t fstr_len, struct error *err);

#endif
