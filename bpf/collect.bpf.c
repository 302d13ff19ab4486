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
#include "collect.h"

char LICENSE[] SEC("license") = "GPL";

/* Scopes of the finest row kind requested; coarser rows are sums. */
const volatile bool key_tgid = true;
const volatile bool key_tid = false;
const volatile __u32 nr_events = 1;

/* Flipped by user space at each interval boundary (mmap'ed .bss). */
__u32 gen;

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
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

static __always_inline void drop(__u32 why)
{
	__u64 *n = bpf_map_lookup_elem(&drops, &why);

	if (n)
		*n += 1;
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
			drop(BPMC_DROP_MAP_FULL);
			return;
		}
	}
	for (__u32 i = 0; i < BPMC_MAX_EVENTS && i < nr_events; i++) {
		if (!slot->value.samples[i])
			continue;
		__sync_fetch_and_add(&v->count[i], slot->value.count[i]);
		__sync_fetch_and_add(&v->samples[i], slot->value.samples[i]);
	}
}

static __noinline void slot_switch(struct bpmc_slot *slot, __u32 g,
				   __u64 cgroup_id, __u32 tgid, __u32 tid)
{
	struct task_struct *task;

	if (slot->key.cgroup_id)
		counts_add(g ? (void *)&counts_1 : (void *)&counts_0, slot);

	slot->key.cgroup_id = cgroup_id;
	slot->key.tgid = tgid;
	slot->key.tid = tid;
	__builtin_memset(&slot->value, 0, sizeof(slot->value));
	if (tid || !tgid) {
		bpf_get_current_comm(slot->value.comm,
				     sizeof(slot->value.comm));
		return;
	}
	/* A process row is named after its leader, not whichever thread
	 * happened to be interrupted first. */
	task = (struct task_struct *)bpf_get_current_task();
	BPF_CORE_READ_STR_INTO(&slot->value.comm, task, group_leader, comm);
}

SEC("perf_event")
int on_overflow(struct bpf_perf_event_data *ctx)
{
	__u32 g = *(volatile __u32 *)&gen & 1;
	struct bpmc_slot *slot = bpf_map_lookup_elem(&slots, &g);
	__u64 ev = bpf_get_attach_cookie(ctx);
	__u64 pid_tgid, cgroup_id;
	__u32 tgid, tid;

	if (!slot)
		return 0;
	if (ev >= BPMC_MAX_EVENTS) {
		drop(BPMC_DROP_BAD_EVENT);
		return 0;
	}
	pid_tgid = bpf_get_current_pid_tgid();
	cgroup_id = bpf_get_current_cgroup_id();
	tgid = key_tgid ? pid_tgid >> 32 : 0;
	tid = key_tid ? (__u32)pid_tgid : 0;
	if (slot->key.cgroup_id != cgroup_id || slot->key.tgid != tgid ||
	    slot->key.tid != tid)
		slot_switch(slot, g, cgroup_id, tgid, tid);
	slot->value.count[ev] += ctx->sample_period;
	slot->value.samples[ev] += 1;
	return 0;
}
