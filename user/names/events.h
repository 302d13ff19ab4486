/* SPDX-License-Identifier: GPL-2.0 */
/* names -> perf_event_attr: the first stage of the pipeline. */
#ifndef BPMC_EVENTS_H
#define BPMC_EVENTS_H

#include <linux/perf_event.h>
#include <perfmon/pfmlib.h>
#include <stdbool.h>
#include <stddef.h>

#include "collect.h"

#define EVENT_NAME_LEN 256
#define EVENT_ERR_LEN 512

struct event {
	char name[EVENT_NAME_LEN]; /* as the user wrote it */
	char fstr[EVENT_NAME_LEN]; /* fully qualified, as encoded */
	struct perf_event_attr attr;
	bool own_period; /* :period= or :freq= in the name */
	int leader; /* index of its group's leader; its own if alone */
};

struct event_list {
	struct event ev[BPMC_MAX_EVENTS];
	int nr;
};

/* Initialises libpfm once; pmu_table forces the core table (or NULL). */
int events__init(const char *pmu_table);

/* Encodes one name; on failure err names the input and the reason. */
int events__encode(const char *name, struct event *ev, char *err,
		   size_t errlen);

/*
 * Splits a comma-separated list (commas inside PMU/.../ stay) and encodes
 * every name. Braces make a group: "{cycles,instructions},cache-misses".
 * On failure err holds a one-line message.
 */
int events__parse_list(const char *spec, struct event_list *list, char *err,
		       size_t errlen);

/* The libpfm table bare names go through (derived or forced), or NULL. */
const char *events__core_table(void);
/* With no table for this CPU: the one --pmu could force, or NULL. */
const char *events__nearest_table(void);
/* Says once, on stderr, that this CPU has no libpfm table. */
void events__warn_no_table(void);
/* libpfm's pmu id of a table name, or -1. */
int events__pfm_pmu_by_name(const char *name);
/* libpfm look-ups with their size fields filled in; true on success. */
bool pfm_pmu_get(pfm_pmu_t pmu, pfm_pmu_info_t *info);
bool pfm_event_get(int idx, pfm_event_info_t *info);
/* True when attribute attr of event idx exists and is a unit mask. */
bool pfm_umask_get(int idx, int attr, pfm_event_attr_info_t *info);

/*
 * Append " (did you mean A, B or C?)" to out for up to three known names
 * close to name, or nothing. Tables for --pmu likewise.
 */
void events__suggest_event(const char *name, char *out, size_t len);
void events__suggest_table(const char *table, char *out, size_t len);

/* True when the attr needs a hardware PMU (generic HW, cache or raw). */
bool event__is_hardware(const struct event *ev);

/* True when this host exposes a core PMU that can count cycles. */
bool events__host_has_pmu(void);

#endif
