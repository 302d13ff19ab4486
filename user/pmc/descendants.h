/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ACCUMULATED_COUNTER_VALUE: NetBSD's "sum of the accumulated values of
 * the counter in all exited subprocesses", from the records an inherited
 * counter's ring buffer gets as each descendant task exits
 * (PERF_RECORD_EXIT with the parent at exit, then one PERF_RECORD_READ
 * per counter with the task's own count). NetBSD folds a process's
 * count into its parent's when it exits; so does this: an exited
 * process counts here once its parent at exit is us, or an exited
 * process that counts here. An exited grandchild of a live child waits
 * for that child; an orphan, whose parent at exit was a reaper, never
 * counts. Pure bookkeeping: state.c feeds it the records in time order
 * (a process's FORK before anything it causes).
 */
#ifndef BPMC_PMC_DESCENDANTS_H
#define BPMC_PMC_DESCENDANTS_H

#include <stdbool.h>
#include <stdint.h>

struct tally {
	uint64_t value;
	uint64_t enabled;
	uint64_t running;
};

struct descendants;

/* self: our process id; nr_slots: the counters one READ can name. */
int descendants__new(struct descendants **out, int32_t self, int nr_slots);
void descendants__free(struct descendants *d);

/* PERF_RECORD_FORK: a new process when tid == pid. */
int descendants__fork(struct descendants *d, int32_t pid, int32_t ppid,
		      int32_t tid);
/* PERF_RECORD_EXIT of task tid of process pid, whose parent was ppid. */
int descendants__exit(struct descendants *d, int32_t pid, int32_t ppid,
		      int32_t tid);
/*
 * PERF_RECORD_READ: task tid's own count of the counter in slot, from
 * one CPU's twin. The caller passes enabled from one twin only: each
 * twin was enabled for the task's whole life, and only running adds up.
 */
int descendants__read(struct descendants *d, int32_t pid, int32_t tid, int slot,
		      const struct tally *t);
/* PERF_RECORD_LOST */
void descendants__lost(struct descendants *d, uint64_t records);

/* The slot's accumulated sum; -EOVERFLOW once records were lost. */
int descendants__sum(struct descendants *d, int slot, struct tally *out);
/* The slot was configured anew: what it accumulated goes. */
void descendants__reset(struct descendants *d, int slot);

/* For the docs and tests: exited processes that will never count. */
uint64_t descendants__orphans(const struct descendants *d);

#endif
