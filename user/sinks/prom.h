/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The Prometheus sink: the rows of every interval added into counters
 * that run since bpmc started, one family per scope and unit, one series
 * per (key, event) in it, and
 * rendered once an interval into an immutable snapshot (prom_snapshot.h)
 * for the HTTP side to serve, and into --textfile DIR/bpmc.prom. Metric
 * names and labels: docs/prometheus.md.
 */
#ifndef BPMC_SINKS_PROM_H
#define BPMC_SINKS_PROM_H

#include <stddef.h>
#include <stdint.h>

#include "common/scope.h"
#include "sinks/prom_snapshot.h"
#include "sinks/sink.h"

/* The scopes (common/scope.h) whose rows become series of their
 * bpmc_SCOPE_perf_* families unless --prom-scopes says otherwise. */
#define PROM_SCOPES_DEFAULT \
	(SCOPE_SYSTEM | SCOPE_CGROUP | SCOPE_CONTAINER | SCOPE_POD)
#define PROM_MAX_EVENTS 32
#define PROM_TEXTFILE_NAME "bpmc.prom"

struct prom_config {
	const char *const *events; /* the event names rows carry */
	int nr_events;
	unsigned scopes; /* SCOPE_* */
	long expire; /* intervals without counts before a key goes; 0 never */
	const char *textfile_dir; /* NULL: no textfile */
	struct prom_latest *latest; /* where snapshots go; NULL: no server */
};

/*
 * Publishes a first snapshot (no counts yet), so that a scrape before the
 * first interval's end reads a valid exposition.
 */
int prom_sink__new(struct sink *s, const struct prom_config *cfg);
/* Series of the bpmc_SCOPE_perf_* families in the last exposition. */
size_t prom_sink__series(const struct sink *s);

#endif
