/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One interval's rows as top keeps them: an entry per key of every
 * scope the rows stage made (cgroup, process, thread, container, pod),
 * with a count per event, plus the system and self rows the header
 * reads. Strings are copied: a row's are only valid during write_row.
 */
#ifndef BPMC_TOP_TABLE_H
#define BPMC_TOP_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/hash_index.h"
#include "sinks/sink.h"

#define TOP_MAX_EVENTS 8

/* The groupings, in the order g cycles through them: each a scope of
 * common/scope.h (top_scope_name()). */
enum top_scope {
	TOP_CONTAINER,
	TOP_POD,
	TOP_CGROUP,
	TOP_PROCESS,
	TOP_THREAD,
	TOP_NR_SCOPES,
};

struct top_entry {
	enum top_scope scope;
	uint64_t cgroup_id;
	int64_t pid, tid;
	char *name; /* as shown: escaped, valid UTF-8, no control character */
	char *container, *pod; /* raw, for a process's parent; "" if none */
	bool id_name; /* name is the runtime and 12 of the id: may clash */
	/* A container's name made longer to tell it apart: 0 as made, 1
	 * with 12 of its id, 2 with its whole id; base_len: the name's
	 * bytes before that. */
	unsigned char level;
	size_t base_len;
	uint64_t count[TOP_MAX_EVENTS];
};

struct top_table {
	struct top_entry *entries; /* in the order first seen */
	size_t nr, cap;
	struct hash_index index; /* key -> entries[] */
	double seconds; /* the interval's length */
	uint64_t end_realtime_ns;
	/* Per event of -e: the system row's count and running_pct. */
	uint64_t system[TOP_MAX_EVENTS];
	double running_pct[TOP_MAX_EVENTS];
	/* bpmc's own cost this interval (self rows). */
	uint64_t self_cpu_ns, bpf_run_ns;
};

void top_table__reset(struct top_table *t);
void top_table__free(struct top_table *t);
/* Adds a row's count; ev is its event's index. 0 or -ENOMEM. */
int top_table__add(struct top_table *t, const struct row *r, int ev);
/*
 * At the interval's end: containers whose names match another's are
 * named longer until none does, so that no two keys show the same
 * string: one named by its runtime and 12 characters of its id by its
 * whole id; one named namespace/pod/container (a container restarted
 * within the interval: a new id, the same name) with 12 characters of
 * its id, then its whole id. 0 or -ENOMEM.
 */
int top_table__finish(struct top_table *t);
/* The scope of a row's word, or -1 (system, self, meta...). */
int top_scope_of(const char *scope);
/* "container", "pod", "cgroup", "process", "thread". */
const char *top_scope_name(enum top_scope s);

#endif
