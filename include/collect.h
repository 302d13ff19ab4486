/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Types shared by bpf/collect.bpf.c and the user side. Defined here once;
 * both sides include this file.
 */
#ifndef BPMC_COLLECT_H
#define BPMC_COLLECT_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

/* Events per run. A core PMU has at most 6-8 counters; software events
 * are cheap, but every slot widens each map value, so keep it tight. */
#define BPMC_MAX_EVENTS 8
#define BPMC_COMM_LEN 16

/*
 * Two generations: the BPF side writes into a CPU's current gen; at each
 * interval boundary the flush program flips it on that very CPU, and user
 * space drains the other one. No entry is ever read while it is written.
 */
#define BPMC_GENERATIONS 2

/*
 * Slots per CPU and generation: a CPU usually alternates between two
 * tasks (a task and idle, or two ping-ponging tasks), and two ways keep
 * both without touching the hash at every switch.
 */
#define BPMC_SLOT_WAYS 2

/* One row's identity. tgid and tid are 0 when the scope is coarser. */
struct bpmc_key {
	__u64 cgroup_id;
	__u32 tgid;
	__u32 tid;
};

/*
 * count and samples side by side: one cache line per overflow. enabled
 * and running are the counter's time deltas credited with the count
 * (exact mode and group members), for multiplexing scaling per key.
 */
struct bpmc_counts {
	__u64 count;
	__u64 samples;
	__u64 enabled;
	__u64 running;
};

struct bpmc_value {
	struct bpmc_counts ev[BPMC_MAX_EVENTS];
	char comm[BPMC_COMM_LEN];
};

/*
 * Per-CPU "current task" accumulator: consecutive overflows on a CPU
 * nearly always hit the same task, so the hash is touched only when the
 * task changes.
 */
struct bpmc_slot {
	/* Fast identity of the owner: its pid_tgid, valid while no task
	 * has changed cgroup since (cgroup_epoch). */
	__u64 pid_tgid;
	__u32 epoch;
	__u16 victim; /* way 0 only: the way to re-key on the next miss */
	__u16 skip; /* the task is outside every -G subtree */
	struct bpmc_key key;
	struct bpmc_value value;
} __attribute__((aligned(64))); /* no two CPUs share a line */

/* A counter as bpf_perf_event_read_value() returns it. */
struct bpmc_reading {
	__u64 counter;
	__u64 enabled;
	__u64 running;
};

/* Per-CPU state, one line-aligned entry per CPU in a plain array. */
struct bpmc_cpu {
	/* Exact mode and group members: each counter's reading when it was
	 * last credited on this CPU. */
	struct bpmc_reading last[BPMC_MAX_EVENTS];
} __attribute__((aligned(64)));

/* The most CPUs bpmc runs on: the per-CPU generations are an array. */
#define BPMC_MAX_CPUS 1024

/*
 * Read by every overflow, written rarely: the epoch by the cgroup-attach
 * hook, cpu_gen[cpu] (that CPU's live generation) by the flush on it.
 * The first CPUs' generations share the epoch's cache line.
 */
struct bpmc_control {
	__u32 cgroup_epoch;
	__u32 cpu_gen[BPMC_MAX_CPUS];
};

/* -G: at most this many subtrees. */
#define BPMC_MAX_FILTERS 8

/* A cgroup as it is made, sent to user space so that one created and
 * removed within an interval still has its path. */
#define BPMC_CGROUP_PATH_LEN 496
struct bpmc_cgroup_event {
	__u64 id;
	__u32 hierarchy_id; /* 0 is cgroup v2 */
	__u32 pad;
	char path[BPMC_CGROUP_PATH_LEN];
};

/* Per-CPU loss counters, indexed by enum bpmc_drop. */
enum bpmc_drop {
	BPMC_DROP_MAP_FULL, /* samples of a key that did not fit the map */
	BPMC_DROP_READ, /* bpf_perf_event_read_value() failed */
	BPMC_DROP_CGROUP_PATH, /* a new cgroup's path did not fit the ring */
	BPMC_DROP_NR,
};

#endif /* BPMC_COLLECT_H */
