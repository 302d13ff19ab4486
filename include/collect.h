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
 * Two generations: the BPF side writes into gen, user space drains the
 * other one after flipping. No entry is ever read while it is written.
 */
#define BPMC_GENERATIONS 2

/* One row's identity. tgid and tid are 0 when the scope is coarser. */
struct bpmc_key {
	__u64 cgroup_id;
	__u32 tgid;
	__u32 tid;
};

/* count and samples side by side: one cache line per overflow. */
struct bpmc_counts {
	__u64 count;
	__u64 samples;
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
	__u32 pad;
	struct bpmc_key key;
	struct bpmc_value value;
} __attribute__((aligned(64))); /* no two CPUs share a line */

/* Written by user space (gen) and by the cgroup-attach hook (epoch). */
struct bpmc_control {
	__u32 gen;
	__u32 cgroup_epoch;
};

/* Per-CPU loss counters, indexed by enum bpmc_drop. */
enum bpmc_drop {
	BPMC_DROP_MAP_FULL, /* samples of a key that did not fit the map */
	BPMC_DROP_NR,
};

#endif /* BPMC_COLLECT_H */
