/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Event ids <-> events, process-wide and thread-safe. Every id, portable
 * or looked up, is encoded by names/events.c: the library and bpmc name
 * events alike.
 */
#ifndef BPMC_PMC_EVID_H
#define BPMC_PMC_EVID_H

#include <stddef.h>

#include "common/error.h"
#include "names/events.h"
#include "pmc.h"

/* The id of name, registered on first use. -EINVAL, -ENOENT, -ENOMEM. */
int evid__lookup(const char *name, pmc_evid_t *id, struct error *err);
/* The event an id stands for. -ENODEV: no such id, or not encodable. */
int evid__event(pmc_evid_t id, struct event *ev);
int evid__name(pmc_evid_t id, char *buf, size_t len);

/* The core table's libpfm pmu id, or -1 when there is none. */
int evid__core_pmu(void);

/* fork(2): the registry's lock is held across it, and made anew in the
 * child, whose other threads are gone. */
void evid__lock(void);
void evid__unlock(void);
void evid__reinit(void);
/* dlclose(3) or exit: the registry's memory goes (no id is valid after). */
void evid__fini(void);

#endif
