// SPDX-License-Identifier: GPL-2.0
/*
 * Sampling-mode attribution: every overflow of a perf event credits its
 * period to the interrupted task's (cgroup, tgid[, tid]).
 *
 * The overflow program is the hot path. It only touches a per-CPU slot
 * holding the task it saw last; the shared hash is updated when the task
 * on that CPU changes, and user space reads the slots of the retired
 * generation at each interval boundary.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_tracing.h>
#include "collect.h"

char LICENSE[] SEC("license") = "GPL";

/* Scopes of the finest row kind requested; coarser rows are sums. */
const volatile bool key_tgid = true;
const volatile bool key_tid = false;
const volatile __u32 nr_events = 1;

/*
 * gen is flipped by user space at each interval boundary; cgroup_epoch
 * moves whenever a task changes cgroup, so a slot's cached identity can
 * be a bare pid_tgid. Starts at 1 so that a zeroed slot never matches.
 */
struct bpmc_control control = { .cgroup_epoch = 1 };

/*
 * Slot of (cpu, gen) at cpu * 2 + gen. A plain array, not a per-CPU one:
 * its lookup compiles to arithmetic on a constant, where a per-CPU
 * lookup first loads the element's per-CPU pointer. max_entries is set
 * to 2 * possible CPUs at load time.
 */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, BPMC_GENERATIONS);
	__type(key, __u32);
	__type(value, struct bpmc_slot);
} slots SEC(".maps");

/* One hash per generation; max_entries is set from --max-keys. */
struct counts_map {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16384);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, struct bpmc_key);
	__type(value, struct bpmc_value);
};
struct counts_map counts_0 SEC(".maps");
struct counts_map counts_1 SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, BPMC_DROP_NR);
	__type(key, __u32);
	__type(value, __u64);
} drops SEC(".maps");

/* Counts the overflows whose credit is lost, never just the event. */
static __always_inline void drop(__u32 why, struct bpmc_slot *slot)
{
	__u64 *n = bpf_map_lookup_elem(&drops, &why);

	if (!n)
		return;
	for (__u32 i = 0; i < BPMC_MAX_EVENTS && i < nr_events; i++)
		*n += slot->value.ev[i].samples;
}

static __always_inline void counts_add(void *map, struct bpmc_slot *slot)
{
	struct bpmc_value *v = bpf_map_lookup_elem(map, &slot->key);
	long err;

	if (!v) {
		err = bpf_map_update_elem(map, &slot->key, &slot->value,
					  BPF_NOEXIST);
		if (!err)
			return;
		/* Lost a race with another CPU inserting the same key. */
		v = err == -17 /* EEXIST */ ?
			    bpf_map_lookup_elem(map, &slot->key) :
			    NULL;
		if (!v) {
			drop(BPMC_DROP_MAP_FULL, slot);
			return;
		}
	}
	for (__u32 i = 0; i < BPMC_MAX_EVENTS && i < nr_events; i++) {
		if (!slot->value.ev[i].samples)
			continue;
		__sync_fetch_and_add(&v->ev[i].count, slot->value.ev[i].count);
		__sync_fetch_and_add(&v->ev[i].samples,
				     slot->value.ev[i].samples);
	}
}

static __noinline void slot_switch(struct bpmc_slot *slot, __u32 g,
				   __u64 pid_tgid, __u32 epoch)
{
	struct task_struct *task;
	struct bpmc_key key = {
		.cgroup_id = bpf_get_current_cgroup_id(),
		.tgid = key_tgid ? pid_tgid >> 32 : 0,
		.tid = key_tid ? (__u32)pid_tgid : 0,
	};

	slot->pid_tgid = pid_tgid;
	slot->epoch = epoch;
	/* Another thread of the same process: same row, nothing to flush. */
	if (slot->key.cgroup_id == key.cgroup_id &&
	    slot->key.tgid == key.tgid && slot->key.tid == key.tid)
		return;
	if (slot->key.cgroup_id)
		counts_add(g ? (void *)&counts_1 : (void *)&counts_0, slot);
	slot->key = key;
	__builtin_memset(&slot->value, 0, sizeof(slot->value));
	/* A process row is named after its leader, not whichever thread
	 * happened to be interrupted first. */
	if (key.tid || !key.tgid) {
		bpf_get_current_comm(slot->value.comm,
				     sizeof(slot->value.comm));
		return;
	}
	task = (struct task_struct *)bpf_get_current_task();
	BPF_CORE_READ_STR_INTO(&slot->value.comm, task, group_leader, comm);
}

/*
 * The hot path. Measured on the development VM, every cache line it
 * touches costs tens of ns, so it reads one control line, one slot line
 * and current's pid_tgid, and writes one line. The event index is a
 * constant of each program copy rather than an attach cookie: one helper
 * call and one perf_event line fewer per overflow.
 */
static __always_inline int overflow(struct bpf_perf_event_data *ctx,
				    const __u32 ev)
{
	__u32 g = *(volatile __u32 *)&control.gen & 1;
	__u32 epoch = *(volatile __u32 *)&control.cgroup_epoch;
	__u32 idx = bpf_get_smp_processor_id() * BPMC_GENERATIONS + g;
	struct bpmc_slot *slot = bpf_map_lookup_elem(&slots, &idx);
	__u64 pid_tgid = bpf_get_current_pid_tgid();

	if (!slot)
		return 0;
	if (slot->pid_tgid != pid_tgid || slot->epoch != epoch)
		slot_switch(slot, g, pid_tgid, epoch);
	slot->value.ev[ev].count += ctx->sample_period;
	slot->value.ev[ev].samples += 1;
	return 0;
}

#define DEFINE_OVERFLOW(n)                                   \
	SEC("perf_event")                                    \
	int on_overflow_##n(struct bpf_perf_event_data *ctx) \
	{                                                    \
		return overflow(ctx, n);                     \
	}

/* One per event slot: BPMC_MAX_EVENTS of them. */
DEFINE_OVERFLOW(0)
DEFINE_OVERFLOW(1)
DEFINE_OVERFLOW(2)
DEFINE_OVERFLOW(3)
DEFINE_OVERFLOW(4)
DEFINE_OVERFLOW(5)
DEFINE_OVERFLOW(6)
DEFINE_OVERFLOW(7)
_Static_assert(BPMC_MAX_EVENTS == 8, "one on_overflow_N per event");

/* A task changed cgroup: every slot's cached identity is now suspect. */
SEC("tp_btf/cgroup_attach_task")
int BPF_PROG(on_cgroup_attach, struct cgroup *dst_cgrp, const char *path,
	     struct task_struct *task, bool threadgroup)
{
	__sync_fetch_and_add(&control.cgroup_epoch, 1);
	return 0;
}
