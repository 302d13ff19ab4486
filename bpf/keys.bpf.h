/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Keys: the current task's (cgroup, tgid, tid), and where a key's
 * counts go (a store entry, or the counts hash until it has one).
 * Part of collect.bpf.c, its only includer: one BPF object.
 */
#ifndef BPMC_BPF_KEYS_BPF_H
#define BPMC_BPF_KEYS_BPF_H

static __always_inline void drop_add(__u32 why, __u64 n)
{
	__u64 *cnt = bpf_map_lookup_elem(&drops, &why);

	if (cnt)
		*cnt += n;
}

/* Counts the credits that are lost, never just the event. */
static __always_inline void drop_value(const struct bpmc_value *value,
				       __u32 why)
{
	__u64 n = 0;

	for (__u32 i = 0; i < BPMC_MAX_EVENTS && i < nr_events; i++)
		n += value->ev[i].samples;
	drop_add(why, n);
}

/* The store entry of key in generation g, if user space gave it one. */
static __always_inline struct bpmc_value *entry_of(__u32 g,
						   const struct bpmc_key *key)
{
	__u32 *idx = bpf_map_lookup_elem(&key_entry, key);

	if (!idx)
		return NULL;
	return bpf_map_lookup_elem(g ? (void *)&entries_1 : (void *)&entries_0,
				   idx);
}

/* Adds value to key's counts in generation g. */
static __always_inline void key_add(__u32 g, const struct bpmc_key *key,
				    const struct bpmc_value *value)
{
	void *map = g ? (void *)&counts_1 : (void *)&counts_0;
	struct bpmc_value *v;
	const struct bpmc_counts *s;
	struct bpmc_counts *d;
	/* int, not long: as in libbpf-tools' maps.bpf.h, a 64-bit compare
	 * with -EEXIST can be miscompiled or rejected (iovisor/bcc#4488). */
	int err;

	v = entry_of(g, key);
	if (v) {
		/* The first name of the interval, as a new hash entry would
		 * take it; two CPUs racing both write a name of the key. */
		if (!v->comm[0])
			__builtin_memcpy(v->comm, value->comm, sizeof(v->comm));
		goto add;
	}
	v = bpf_map_lookup_elem(map, key);

	if (!v) {
		err = bpf_map_update_elem(map, key, value, BPF_NOEXIST);
		if (!err)
			return;
		if (err != -EEXIST) {
			/* -E2BIG: max_entries reached; else the allocation
			 * of a hash that is not preallocated failed. */
			drop_value(value, err == -E2BIG ? BPMC_DROP_MAP_FULL :
							  BPMC_DROP_NO_MEMORY);
			return;
		}
		/* Lost a race with another CPU inserting the same key. */
		v = bpf_map_lookup_elem(map, key);
		if (!v) {
			drop_value(value, BPMC_DROP_RACE);
			return;
		}
	}
add:
	for (__u32 i = 0; i < BPMC_MAX_EVENTS && i < nr_events; i++) {
		s = &value->ev[i];
		if (!s->samples)
			continue;
		d = &v->ev[i];
		__sync_fetch_and_add(&d->count, s->count);
		__sync_fetch_and_add(&d->samples, s->samples);
		if (s->enabled) {
			__sync_fetch_and_add(&d->enabled, s->enabled);
			__sync_fetch_and_add(&d->running, s->running);
		}
	}
}

static __always_inline void counts_add(__u32 g, struct bpmc_slot *slot)
{
	if (slot->skip)
		return; /* filtered out by -G: counted only to keep readings */
	key_add(g, &slot->key, &slot->value);
}

/* cset's cgroup in the v1 hierarchy of v1_subsys (probe reads). */
static __always_inline __u64 v1_cset_cgroup_id(struct css_set *cset)
{
	struct cgroup_subsys_state *css = NULL;
	int ssid = v1_subsys;

	/* css_set->subsys has CGROUP_SUBSYS_COUNT entries on the running
	 * kernel, which need not be the count in the vmlinux.h built with. */
	if (ssid < 0 || ssid >= bpf_core_enum_value(enum cgroup_subsys_id,
						    CGROUP_SUBSYS_COUNT))
		return 0;
	bpf_core_read(&css, sizeof(css), &cset->subsys[ssid]);
	return css ? BPF_CORE_READ(css, cgroup, kn, id) : 0;
}

/* The current task's cgroup in the v1 hierarchy of v1_subsys. */
static __always_inline __u64 v1_cgroup_id(void)
{
	struct task_struct *task = (struct task_struct *)bpf_get_current_task();

	return v1_cset_cgroup_id(BPF_CORE_READ(task, cgroups));
}

/* The cgroup of a key for a task in cset, read with probe reads. */
static __always_inline __u64 cset_cgroup_id(struct css_set *cset)
{
	return v1_subsys >= 0 ? v1_cset_cgroup_id(cset) :
				BPF_CORE_READ(cset, dfl_cgrp, kn, id);
}

/* The comm of key's row: the thread's, or its process leader's. */
static __always_inline void key_comm(char *comm, const struct bpmc_key *key)
{
	struct task_struct *task;

	/* A process row is named after its leader, not whichever thread
	 * happened to be interrupted first. */
	if (key->tid || !key->tgid) {
		bpf_get_current_comm(comm, BPMC_COMM_LEN);
		return;
	}
	task = (struct task_struct *)bpf_get_current_task();
	task = BPF_CORE_READ(task, group_leader);
	bpf_core_read_str(comm, BPMC_COMM_LEN, &task->comm);
}

/* -G: is the current task outside every subtree? */
static __always_inline bool filtered_out(void)
{
	for (__u32 i = 0; i < BPMC_MAX_FILTERS && i < filter_nr; i++) {
		if (bpf_get_current_ancestor_cgroup_id(filter_level[i]) ==
		    filter_id[i])
			return false;
	}
	return filter_nr > 0;
}

/* Before Linux 6.2, struct cgroup kept its ancestors' ids. */
struct cgroup___ids {
	__u64 ancestor_ids[0];
} __attribute__((preserve_access_index));

/*
 * The id of cg's ancestor at level (cg's level or above), each way in a
 * function of its own, called only where the kernel has its field: the
 * other's relocation, which libbpf poisons, is then never reached.
 */
static __noinline __u64 ancestor_id_ptrs(struct cgroup *cg, __u32 level)
{
	struct cgroup *a = NULL;

	bpf_core_read(&a, sizeof(a), &cg->ancestors[level & 255]);
	return a ? BPF_CORE_READ(a, kn, id) : 0;
}

static __noinline __u64 ancestor_id_ids(struct cgroup *cg, __u32 level)
{
	__u64 id = 0;

	bpf_core_read(&id, sizeof(id),
		      &((struct cgroup___ids *)cg)->ancestor_ids[level & 255]);
	return id;
}

/* -G: is a task in cset (probe-read) outside every subtree? The same
 * test as filtered_out(), on a css_set the task may have left. */
static __always_inline bool cset_filtered_out(struct css_set *cset)
{
	struct cgroup *cg = BPF_CORE_READ(cset, dfl_cgrp);
	int level = BPF_CORE_READ(cg, level);
	__u64 id;

	for (__u32 i = 0; i < BPMC_MAX_FILTERS && i < filter_nr; i++) {
		if (filter_level[i] > level)
			continue;
		if (bpf_core_field_exists(cg->ancestors))
			id = ancestor_id_ptrs(cg, filter_level[i]);
		else
			id = ancestor_id_ids(cg, filter_level[i]);
		if (id == filter_id[i])
			return false;
	}
	return filter_nr > 0;
}

/* The current task's key, at the finest scope requested. */
static __always_inline void current_key(struct bpmc_key *key, __u64 pid_tgid)
{
	key->cgroup_id = v1_subsys >= 0 ? v1_cgroup_id() :
					  bpf_get_current_cgroup_id();
	key->tgid = key_tgid ? pid_tgid >> 32 : 0;
	key->tid = key_tid ? (__u32)pid_tgid : 0;
}

#endif
