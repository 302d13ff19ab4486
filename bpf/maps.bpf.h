/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What user space sets before load (rodata), shares while running
 * (control) and reads (the maps).
 * Part of collect.bpf.c, its only includer: one BPF object.
 */
#ifndef BPMC_BPF_MAPS_BPF_H
#define BPMC_BPF_MAPS_BPF_H

/* Scopes of the finest row kind requested; coarser rows are sums. */
const volatile bool key_tgid = true;
const volatile bool key_tid = false;
const volatile __u32 nr_events = 1;
const volatile __u32 nr_cpus = 1;
const volatile bool exact = false;
/* No event of the run can be multiplexed (all software): counters are
 * read without their times, and user space scales nothing. */
const volatile bool no_mux = false;
/*
 * Exact mode, all-software runs only (no_mux), with on_switch_loads:
 * enum bpmc_how of each event, and whether any is BPMC_HOW_CLOCK (the
 * switch loads rq->clock). maps/probe.c makes sure the kernel has what
 * each needs.
 */
const volatile __u8 ev_how[BPMC_MAX_EVENTS] = {};
const volatile bool use_clock = false;
/*
 * Exact mode, all-software runs: context-switches counted in kernel
 * mode, where every switch is. The switch being traced increments it
 * right after this tracepoint, IRQs still off, so nothing reads the
 * counter in between: its 1 is credited at once, to the task leaving,
 * as /proc/PID/status counts it, not at the next switch to the task
 * that came in.
 */
const volatile __u8 ev_switch[BPMC_MAX_EVENTS] = {};
/* Sampling mode: group_leader[m] is the sampling leader whose overflows
 * read member m, or m itself when m is not a member. */
const volatile __u32 group_leader[BPMC_MAX_EVENTS] = {};
/* -G: count only tasks with ancestor filter_id[i] at filter_level[i]. */
const volatile __u32 filter_nr = 0;
const volatile __u32 filter_level[BPMC_MAX_FILTERS] = {};
const volatile __u64 filter_id[BPMC_MAX_FILTERS] = {};
/* --cgroup-v1: the controller's subsystem id, or -1 for cgroup v2. */
const volatile int v1_subsys = -1;

/*
 * cgroup_epoch moves whenever a task changes cgroup, so a slot's cached
 * identity can be a bare pid_tgid. Starts at 1 so that a zeroed slot
 * never matches.
 */
struct bpmc_control control = { .cgroup_epoch = 1 };

/*
 * Linux 6.2+. Only on_switch_loads calls it, which user space loads only
 * where the kernel has it (maps/probe.c): weak, so that libbpf loads the
 * rest of the object elsewhere, and no older kernel is sent the call.
 */
extern void *bpf_rdonly_cast(const void *obj, __u32 btf_id) __ksym __weak;

/*
 * Slots of (cpu, gen) at (cpu * 2 + gen) * ways, and per-CPU state at cpu: plain
 * arrays, not per-CPU ones, because their lookups compile to arithmetic
 * on a constant where a per-CPU lookup first loads a pointer. Sizes are
 * set from the number of possible CPUs at load time.
 */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, BPMC_GENERATIONS);
	__type(key, __u32);
	__type(value, struct bpmc_slot);
} slots SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct bpmc_cpu);
} cpus SEC(".maps");

/* The counting fds, at event * nr_cpus + cpu (exact mode and members). */
struct {
	__uint(type, BPF_MAP_TYPE_PERF_EVENT_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
} counters SEC(".maps");

/*
 * One hash per generation; max_entries is set from --max-keys, and
 * value_size to BPMC_VALUE_SIZE(nr_events): a struct bpmc_value cut
 * after the run's last event. So neither key nor value has a BTF type
 * (the kernel wants the value's to match value_size, and types both or
 * none: with the key's alone it refuses the map and libbpf retries
 * without BTF, warning), and every ev[] access is bounded
 * by nr_events, which the verifier knows from the frozen rodata.
 */
struct counts_map {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16384);
	__uint(key_size, sizeof(struct bpmc_key));
	__uint(value_size, sizeof(struct bpmc_value));
};
struct counts_map counts_0 SEC(".maps");
struct counts_map counts_1 SEC(".maps");

/*
 * The store: keys that user space has given an entry of their own, and
 * each entry's counts, one array per generation, which user space maps
 * and reads in place at every interval's end: no system call and no
 * per-key kernel work for the keys that live on from one interval to
 * the next (bench/export_cost). Only user space writes key_entry; the
 * BPF side only looks keys up in it, and a key that is not there yet
 * goes to the counts hash of its generation, as above. value_size is
 * BPMC_VALUE_SIZE(nr_events), like the hashes'.
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16384);
	__type(key, struct bpmc_key);
	__type(value, __u32);
} key_entry SEC(".maps");

struct entries_map {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, 16384);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, sizeof(struct bpmc_value));
};
struct entries_map entries_0 SEC(".maps");
struct entries_map entries_1 SEC(".maps");

/* New cgroups' paths, drained by user space every interval. */
struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 256 * 1024);
} new_cgroups SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, BPMC_DROP_NR);
	__type(key, __u32);
	__type(value, __u64);
} drops SEC(".maps");

/* Exact mode: tasks moved to another cgroup while running, by tid.
 * Written only by the cgroup-attach hook, a few entries a move. */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 1024);
	__type(key, __u32);
	__type(value, struct bpmc_move);
} moves SEC(".maps");

/* Exact mode: a moved task's share before its move, where no slot holds
 * its old key (too big for the stack of the switch's call chain). */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct bpmc_value);
} scratch SEC(".maps");

#endif
