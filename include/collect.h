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

/*
 * comm first, then one bpmc_counts per event: the counts maps hold only
 * BPMC_VALUE_SIZE(nr_events) bytes of it (set at load), so a run of one
 * event exports 48 bytes a key, not 272. Slots and the stack keep the
 * whole struct; the BPF side never touches ev[] past nr_events.
 */
struct bpmc_value {
	char comm[BPMC_COMM_LEN];
	struct bpmc_counts ev[BPMC_MAX_EVENTS];
};
#define BPMC_VALUE_SIZE(nr_events)                   \
	(__builtin_offsetof(struct bpmc_value, ev) + \
	 (nr_events) * sizeof(struct bpmc_counts))

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
	/* value before key: the owner's identity, comm and ev[0] fill the
	 * first line, all that a hit with one event touches; the key is
	 * read only on a miss. */
	struct bpmc_value value;
	struct bpmc_key key;
} __attribute__((aligned(64))); /* no two CPUs share a line */

/* A counter as bpf_perf_event_read_value() returns it. */
struct bpmc_reading {
	__u64 counter;
	__u64 enabled;
	__u64 running;
};

/*
 * Exact mode: how the context-switch program takes an event's delta, set
 * per event at load (rodata) from its attr and the kernel's features.
 * The flush at each interval's end always reads the counter itself, so
 * each interval's credits add up to the counter's own delta whichever
 * way the switches took theirs.
 */
enum bpmc_how {
	/* bpf_perf_event_read(_value): any event, ~100 ns a counter. */
	BPMC_HOW_READ,
	/* cpu-clock, task-clock without modifiers: both advance with this
	 * CPU's sched clock, which the scheduler has just read into
	 * rq->clock; one load gives every clock event's delta. */
	BPMC_HOW_CLOCK,
	/* A software event that the kernel counts as it happens (faults,
	 * switches, migrations): its count, loaded from the perf_event. */
	BPMC_HOW_COUNT,
};

/* Per-CPU state, one line-aligned entry per CPU in a plain array. */
struct bpmc_cpu {
	/* Exact mode: the task that switched in last (a kernel address,
	 * only ever probe-read) and its sum_exec_runtime then (or when it
	 * last moved itself), so that a cgroup move can split the running
	 * task's pending counts. In the first line, which the switch
	 * program writes anyway. */
	__u64 running_task;
	__u64 running_sum;
	/* And its css_set then, or since it last moved itself (only
	 * probe-read, by the cgroup-attach hook, for the cgroup it moves
	 * from), and the cgroup epoch when it switched in: a
	 * switch or flush that sees another has a move to look for. */
	__u64 running_cset;
	/* Exact mode, BPMC_HOW_CLOCK: rq->clock at the last switch, up to
	 * which the clock events are credited, and, bit per event, whether
	 * its reading is in step with it (read at a switch, and counting
	 * since). Cleared by the flush and by a cgroup move's split, which
	 * read the counter itself: the next switch reads it again. */
	__u64 clock;
	__u32 clock_ok;
	__u32 running_epoch;
	/* Exact mode and group members: each counter's reading when it was
	 * last credited on this CPU. */
	struct bpmc_reading last[BPMC_MAX_EVENTS];
	union {
		/* Exact mode: each counter's struct perf_event, found once
		 * from the counters map (0: not yet), for BPMC_HOW_CLOCK and
		 * BPMC_HOW_COUNT. Zeroed with the rest when the CPU's fds
		 * change. */
		__u64 event[BPMC_MAX_EVENTS];
		/* Sampling mode: the pid_tgid each counter last overflowed
		 * in on this CPU, whose times since are that task's alone. */
		__u64 overflow_task[BPMC_MAX_EVENTS];
	};
	/* Exact mode: each counter's reading at the last flush, in the
	 * instant of its credits (nothing runs on the CPU in between), for
	 * the system row: a read(2) after it, from user space, also saw
	 * the switches of whatever preempted bpmc meanwhile, and the rows
	 * credited them to the next interval. cut_ok: a bit per counter
	 * read; cut_seq: flushes that took the cut. */
	struct bpmc_reading cut[BPMC_MAX_EVENTS];
	__u64 cut_seq;
	__u32 cut_ok;
	__u32 cut_pad;
} __attribute__((aligned(64)));

/*
 * Exact mode: a task that was running when its cgroup changed, keyed by
 * tid. runtime_at_move - running_sum is what it ran in the old cgroup
 * since it switched in on cpu, as the kernel accounted it then (up to
 * one tick behind for a task on another CPU).
 */
struct bpmc_move {
	__u64 running_sum; /* the CPU's running_sum when it moved */
	__u64 runtime_at_move;
	__u64 old_cgroup; /* the key's cgroup it moved from, or 0 */
	__u32 cpu;
	__u32 pad;
};

/* The most CPUs bpmc runs on: the per-CPU generations are an array. */
#define BPMC_MAX_CPUS 1024

/*
 * Read by every overflow, written rarely: the epoch by the cgroup-attach
 * hook, cpu_gen[cpu] (that CPU's live generation) by the flush on it.
 * The first CPUs' generations share the epoch's cache line.
 *
 * BPMC_CPU_OFF in cpu_gen[cpu], set and cleared by user space: the CPU
 * has no counters (offline, or online and not yet reopened), so the
 * context-switch program leaves its slots and readings alone. User space
 * clears it with the CPU's live generation once the new fds are in.
 */
#define BPMC_CPU_GEN 1u
#define BPMC_CPU_OFF 2u
struct bpmc_control {
	__u32 cgroup_epoch;
	__u32 cpu_gen[BPMC_MAX_CPUS];
};

/* -G: at most this many subtrees. */
#define BPMC_MAX_FILTERS 8

/* A cgroup as it is made, sent to user space so that one created and
 * removed within an interval still has its path. A path longer than
 * BPMC_CGROUP_PATH_LEN - 1 bytes holds its start only, and says so in
 * flags: user space completes it from the tree, or marks it cut. */
#define BPMC_CGROUP_PATH_LEN 496
#define BPMC_CGROUP_PATH_CUT 1u
struct bpmc_cgroup_event {
	__u64 id;
	__u32 hierarchy_id; /* 0 is cgroup v2 */
	__u32 flags; /* BPMC_CGROUP_PATH_CUT */
	char path[BPMC_CGROUP_PATH_LEN];
};

/* Per-CPU loss counters, indexed by enum bpmc_drop. */
enum bpmc_drop {
	BPMC_DROP_MAP_FULL, /* samples of a key that did not fit the map */
	BPMC_DROP_READ, /* bpf_perf_event_read_value() failed */
	BPMC_DROP_CGROUP_PATH, /* a new cgroup's path did not fit the ring */
	BPMC_DROP_RACE, /* samples of a key whose insert lost a race with
			 * another CPU and then could not be found */
	BPMC_DROP_NO_MEMORY, /* samples of a key the kernel could not
			      * allocate (hashes not preallocated) */
	BPMC_DROP_NR, /* keep last: the drops map's size */
};

/*
 * The layouts both compilers must agree on, written out by hand so that
 * any change to a shared struct fails the build on both sides (this file
 * is compiled by clang -target bpf and by the user-side cc alike). If
 * one fires, the change was meant or it was not: fix the field, or
 * recompute the numbers and the comments here.
 */
#define BPMC_ASSERT_SIZE(type, size, align)                            \
	_Static_assert(sizeof(type) == (size), #type " size changed"); \
	_Static_assert(_Alignof(type) == (align), #type " alignment changed")
#define BPMC_ASSERT_OFFSET(type, field, off)                     \
	_Static_assert(__builtin_offsetof(type, field) == (off), \
		       #type "." #field " moved")

/* cgroup_id 8 @0, tgid 4 @8, tid 4 @12: 16, no padding */
BPMC_ASSERT_SIZE(struct bpmc_key, 16, 8);
BPMC_ASSERT_OFFSET(struct bpmc_key, tgid, 8);
BPMC_ASSERT_OFFSET(struct bpmc_key, tid, 12);
/* count, samples, enabled, running: 4 x 8 = 32 */
BPMC_ASSERT_SIZE(struct bpmc_counts, 32, 8);
/* comm 16 @0, ev 8 x 32 = 256 @16: 272 */
BPMC_ASSERT_SIZE(struct bpmc_value, 272, 8);
BPMC_ASSERT_OFFSET(struct bpmc_value, ev, 16);
_Static_assert(BPMC_VALUE_SIZE(1) == 48, "BPMC_VALUE_SIZE changed");
/* pid_tgid 8 @0, epoch 4 @8, victim 2 @12, skip 2 @14, value 272 @16
 * (its ev[0] 32 @32, in the first line), key 16 @288: 304, padded to the
 * 64-byte alignment: 320 */
BPMC_ASSERT_SIZE(struct bpmc_slot, 320, 64);
BPMC_ASSERT_OFFSET(struct bpmc_slot, epoch, 8);
BPMC_ASSERT_OFFSET(struct bpmc_slot, victim, 12);
BPMC_ASSERT_OFFSET(struct bpmc_slot, skip, 14);
BPMC_ASSERT_OFFSET(struct bpmc_slot, value, 16);
BPMC_ASSERT_OFFSET(struct bpmc_slot, key, 288);
/* counter, enabled, running: 3 x 8 = 24 */
BPMC_ASSERT_SIZE(struct bpmc_reading, 24, 8);
/* running_task 8 @0, running_sum 8 @8, running_cset 8 @16, clock 8 @24,
 * clock_ok 4 @32, running_epoch 4 @36, last 8 x 24 = 192 @40, event
 * 8 x 8 = 64 @232, cut 8 x 24 = 192 @296, cut_seq 8 @488, cut_ok 4 @496,
 * cut_pad 4 @500: 504, padded to the 64-byte alignment: 512 */
BPMC_ASSERT_SIZE(struct bpmc_cpu, 512, 64);
BPMC_ASSERT_OFFSET(struct bpmc_cpu, clock, 24);
BPMC_ASSERT_OFFSET(struct bpmc_cpu, running_epoch, 36);
BPMC_ASSERT_OFFSET(struct bpmc_cpu, last, 40);
BPMC_ASSERT_OFFSET(struct bpmc_cpu, event, 232);
BPMC_ASSERT_OFFSET(struct bpmc_cpu, cut, 296);
BPMC_ASSERT_OFFSET(struct bpmc_cpu, cut_seq, 488);
/* running_sum 8 @0, runtime_at_move 8 @8, old_cgroup 8 @16, cpu 4 @24,
 * pad 4 @28: 32 */
BPMC_ASSERT_SIZE(struct bpmc_move, 32, 8);
BPMC_ASSERT_OFFSET(struct bpmc_move, cpu, 24);
/* cgroup_epoch 4 @0, cpu_gen 1024 x 4 = 4096 @4: 4100 */
BPMC_ASSERT_SIZE(struct bpmc_control, 4100, 4);
BPMC_ASSERT_OFFSET(struct bpmc_control, cpu_gen, 4);
/* id 8 @0, hierarchy_id 4 @8, pad 4 @12, path 496 @16: 512 */
BPMC_ASSERT_SIZE(struct bpmc_cgroup_event, 512, 8);
BPMC_ASSERT_OFFSET(struct bpmc_cgroup_event, hierarchy_id, 8);
BPMC_ASSERT_OFFSET(struct bpmc_cgroup_event, path, 16);

#undef BPMC_ASSERT_SIZE
#undef BPMC_ASSERT_OFFSET

#endif /* BPMC_COLLECT_H */
