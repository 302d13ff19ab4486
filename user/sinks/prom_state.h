/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Inside the Prometheus sink: what prom.c accumulates from the rows and
 * prom_render.c renders. Not for other modules.
 */
#ifndef BPMC_SINKS_PROM_STATE_H
#define BPMC_SINKS_PROM_STATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/hash_index.h"

#include "sinks/sink.h"

#include "sinks/prom.h"
#include "sinks/prom_snapshot.h"

/*
 * The families' scopes, in the exposition's order: bpmc_node_*,
 * bpmc_pod_*, bpmc_container_*, bpmc_cgroup_*, bpmc_process_*,
 * bpmc_thread_*. Each scope has its own families, so that a sum() over
 * one never adds a container to its pod or to the node.
 */
enum prom_fam {
	PROM_FAM_NODE,
	PROM_FAM_POD,
	PROM_FAM_CONTAINER,
	PROM_FAM_CGROUP,
	PROM_FAM_PROCESS,
	PROM_FAM_THREAD,
	PROM_NR_FAMS,
};

/*
 * One label set of a scope's families, without its event: its series
 * are one per event that has counted. Keyed by the scope and the escaped
 * labels themselves, so that two keys that read the same (a cgroup
 * removed and made again under its path) are one series, never a
 * duplicate.
 */
struct prom_key {
	struct prom_key *prev, *after; /* in its scope's order */
	uint32_t index; /* in keys[] */
	uint64_t hash;
	uint64_t last; /* the last interval it had counts in */
	uint32_t seen; /* bit e: event e has counted */
	uint32_t len; /* of the labels */
	uint8_t fam; /* enum prom_fam */
	bool system; /* system keys never expire */
	uint64_t count[]; /* one per event, then the labels and a NUL */
};

static inline const char *prom_key__labels(const struct prom_key *k,
					   int nr_events)
{
	return (const char *)(k->count + nr_events);
}

/* The self rows' deltas, added up: bpmc's own cost since it started. */
struct prom_self {
	uint64_t bpf_ns, bpf_runs, user_ns, system_ns, samples_lost;
	uint64_t peak_rss; /* a gauge */
};

struct prom_state {
	int nr_events;
	const char *event[PROM_MAX_EVENTS];
	char *event_label[PROM_MAX_EVENTS]; /* escaped */
	size_t event_label_len[PROM_MAX_EVENTS];
	bool seconds[PROM_MAX_EVENTS]; /* counts nanoseconds: exported in s */
	unsigned scopes; /* SCOPE_*: the families with HELP and TYPE */
	struct prom_key **keys; /* index finds them by their labels */
	size_t cap_keys, nr_keys;
	struct hash_index index;
	struct prom_key *first[PROM_NR_FAMS], *last[PROM_NR_FAMS];
	double running[PROM_MAX_EVENTS]; /* the system rows', 0 to 1 */
	bool has_running[PROM_MAX_EVENTS];
	struct prom_self self;
	uint64_t intervals, intervals_lost, expired, scrapes;
	uint64_t end_realtime_ns; /* of the last interval */
	size_t series; /* bpmc_<scope>_perf_* series last rendered */
	/* Every event asked for, counted or not (--best-effort), from the
	 * interval's info: bpmc_event_supported. */
	const struct event_support *support;
	size_t nr_support;
};

/* The key of fam with these labels, made (last in its scope's order) if
 * new; NULL: no memory. */
struct prom_key *prom_keys__get(struct prom_state *st, enum prom_fam fam,
				const char *labels, size_t len);
void prom_keys__remove(struct prom_state *st, struct prom_key *k);
void prom_keys__free(struct prom_state *st);

/*
 * The exposition of st, in the text format, as a new snapshot; hint is
 * the last one's size, so that the buffer is allocated once.
 */
int prom_render(struct prom_state *st, size_t hint, struct prom_snapshot **out);

#endif
