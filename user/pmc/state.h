/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The library's state: each thread's counter slots, the registry of
 * every thread's state (for fork and for the drain thread), and the
 * drain thread that empties the ring buffers before they fill.
 */
#ifndef BPMC_PMC_STATE_H
#define BPMC_PMC_STATE_H

#include <linux/perf_event.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "fds/ring.h"
#include "pmc.h"
#include "pmc/descendants.h"
#include "pmc/profile.h"

#define PMC_SOFTWARE_SLOTS 16
#define PMC_MAX_SLOTS 32

enum slot_state {
	SLOT_FREE,
	SLOT_CONFIGURED, /* stopped */
	SLOT_RUNNING,
	SLOT_PROFILING,
};

struct slot {
	enum slot_state state;
	struct pmc_counter_cfg cfg;
	struct perf_event_attr attr; /* as the own fd was opened */
	int own_fd; /* this thread alone: COUNTER_VALUE */
	/*
	 * A multiplexed counter's inherited count on any CPU, -1 for a
	 * pinned one unless it has no tree fds (PMC_LINUX_FLAG_NO_ACCUMULATE):
	 * INHERITED_VALUE and _TIMES. The tree fds' counts add
	 * up, but their enabled times take in time the task ran on other
	 * CPUs (+20 % and more, measured), so they cannot scale a count.
	 */
	int whole_fd;
	/*
	 * Inherited, with each exiting task's count reported: ACCUMULATED.
	 * One per CPU, [cpu] or -1: the kernel maps no ring of an inherited
	 * counter that follows a task across CPUs.
	 */
	int *tree_fd;
	uint64_t *tree_id;
	/* PROFSTART: one fd (the thread alone, [0]) or one per CPU. */
	int *prof_fd;
	struct ring *prof_ring;
	struct profile *prof; /* kept after PROFSTOP, until reused */
};

struct thread_state {
	pthread_mutex_t lock;
	int32_t pid, tid;
	struct slot slot[PMC_MAX_SLOTS];
	/* A dummy inherited event per CPU, [cpu] or -1: the ring that CPU's
	 * tree fds write to, and the one that asks for PERF_RECORD_EXIT. */
	int *ring_fd;
	struct ring *ring;
	struct descendants *desc;
	struct thread_state *next; /* the registry's: under its lock */
	int refs; /* under the registry's lock: the thread's, the drain's */
};

struct pmc_host {
	int nr_cpus; /* possible CPUs: the per-CPU arrays' size */
	int nr_slots;
	int nr_hardware; /* slots [0, nr_hardware) take hardware events */
	int cls;
};

const struct pmc_host *pmc_host(void);

/* The caller's state, made on first use; NULL when out of memory. */
struct thread_state *thread_state__get(void);
/*
 * Before an op that may make a counter (CONFIGURE, PROFSTART), without
 * any state's lock: starts this process's drain thread if it is not
 * running, and keeps it running until drain__release.
 */
int drain__hold(void);
/*
 * After an op, without any lock: gives back the hold if held, and
 * counts delta counters made (+) or gone (-). When the last counter of
 * the process goes, the drain thread ends and is joined.
 */
void drain__release(bool held, int delta);
/* With the state's lock: the drain thread wakes when fd is readable. */
int drain__add(int fd);

/* With ts->lock held: closes the rings of a state with no counter. */
void thread_state__idle(struct thread_state *ts);

/* With ts->lock held: (re)opens s's counters from s->attr, and closes
 * them. */
int slot__open(struct thread_state *ts, struct slot *s);
void slot__close(struct slot *s);
/* Sums a counter over the fds of a per-CPU array (-1 skipped). */
int slot__read_sum(const int *fd, int n, uint64_t *value, uint64_t *enabled,
		   uint64_t *running);

/* With ts->lock held: empties the rings into their tables. */
void thread_state__drain(struct thread_state *ts);

/* perf_event_open(2) on the calling thread: an fd or -errno. */
int perf_open_self(struct perf_event_attr *attr, int group_fd);

#endif
