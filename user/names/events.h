/* SPDX-License-Identifier: GPL-2.0 */
/* names -> perf_event_attr: the first stage of the pipeline. */
#ifndef BPMC_NAMES_EVENTS_H
#define BPMC_NAMES_EVENTS_H

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stddef.h>

#include "collect.h"
#include "common/error.h"

#define EVENT_NAME_LEN 256

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

/*
 * A naming context: which libpfm table bare names go through, derived
 * from CPUID or forced with --pmu. Handles are independent; libpfm
 * itself is initialised once per process.
 */
struct events;

/* pmu_table forces the core table (or NULL: derive it from CPUID). */
int events__new(struct events **out, const char *pmu_table, struct error *err);
void events__free(struct events *e);

/* Encodes one name; on failure err names the input and the reason. */
int events__encode(struct events *e, const char *name, struct event *ev,
		   struct error *err);

/*
 * Splits a comma-separated list (commas inside PMU/.../ stay) and encodes
 * every name. Braces make a group: "{cycles,instructions},cache-misses".
 */
int events__parse_list(struct events *e, const char *spec,
		       struct event_list *list, struct error *err);

/* The libpfm table bare names go through (derived or forced), or NULL. */
const char *events__core_table(const struct events *e);
/* With no table for this CPU: the one --pmu could force, or NULL. */
const char *events__nearest_table(const struct events *e);

/*
 * "this libpfm has no event table for this CPU ...", once per handle:
 * the text when this CPU has no table, it was not taken before, and
 * either always is set or an encoding failed for want of the table.
 * NULL otherwise.
 */
const char *events__take_warning(struct events *e, bool always);

/*
 * The events of in that keep[] marks, in order, into out; map[i] (if not
 * NULL) gets event i's index in out, or -1. A group keeps its leader if
 * it can: one whose leader is dropped is led by its first kept member,
 * so the rest still count from the same time slices.
 */
void event_list__keep(const struct event_list *in, const bool *keep,
		      struct event_list *out, int *map);

/* True when the attr needs a hardware PMU (generic HW, cache or raw). */
bool event__is_hardware(const struct event *ev);

#endif
