// SPDX-License-Identifier: GPL-2.0
/*
 * Attribution of perf events to (cgroup, tgid[, tid]).
 *
 * Sampling mode: every overflow credits the period that elapsed to the
 * interrupted task. Exact mode: every context switch reads the counters
 * and credits the delta since the previous reading on that CPU to the
 * task switching out. Both accumulate into a per-CPU "current task" slot
 * and touch the shared hash only when the task on that CPU changes. At
 * each interval boundary user space runs `flush` on every CPU, which
 * credits what is pending and flips that CPU's generation; the retired
 * generation is then drained without racing any writer.
 */
#include "vmlinux.h"
#include <asm-generic/errno.h> /* vmlinux.h has types, no macros */
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_tracing.h>
#include "collect.h"

char LICENSE[] SEC("license") = "GPL";

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

/* The current task's key, at the finest scope requested. */
static __always_inline void current_key(struct bpmc_key *key, __u64 pid_tgid)
{
	key->cgroup_id = v1_subsys >= 0 ? v1_cgroup_id() :
					  bpf_get_current_cgroup_id();
	key->tgid = key_tgid ? pid_tgid >> 32 : 0;
	key->tid = key_tid ? (__u32)pid_tgid : 0;
}

/*
 * bpf_perf_event_read() returns a failure as -errno in the u64 (the
 * kernel's `return err;` from a u64 helper), like an ERR_PTR: the top
 * 4095 values. A software counter (the only kind read this way) counts
 * up from 0 by events or nanoseconds and never gets there.
 */
#define BPMC_MAX_ERRNO 4095

/* delta * part / whole without overflowing 64 bits; part <= whole. */
static __always_inline __u64 scale(__u64 delta, __u64 part, __u64 whole)
{
	while (whole >> 32) {
		whole >>= 1;
		part >>= 1;
	}
	if (!whole)
		return 0;
	return delta / whole * part + delta % whole * part / whole;
}

/*
 * Exact mode, the current task was moved to another cgroup while it ran
 * here: credit the share of each counter's pending delta that it ran
 * before the move, by its runtime, to its old key: into the slot, if one
 * still holds it, else (a busy task keeps no slot once others switch
 * out on its CPU: bpmc's own flush takes two) straight to the counts,
 * under the cgroup the hook read from its css_set. The rest goes to the
 * new key like any delta. A context switch or a flush is the first
 * chance to read this CPU's counters after the move, and may come up to
 * an interval later on a CPU that nothing else wants.
 */
static __noinline void move_split(struct bpmc_slot *slot, __u32 g,
				  __u64 pid_tgid, const struct bpmc_key *key)
{
	__u32 cpu = bpf_get_smp_processor_id(), tid = pid_tgid, zero = 0;
	struct bpmc_cpu *st = bpf_map_lookup_elem(&cpus, &cpu);
	struct bpmc_move *m = bpf_map_lookup_elem(&moves, &tid);
	struct bpmc_key old = *key;
	struct bpmc_value *share;
	struct task_struct *task;
	struct bpf_perf_event_value now;
	struct bpmc_reading *last;
	struct bpmc_counts *c;
	__u64 ran, before, count;

	if (!st || !m)
		return;
	/* Moved during this stay on this CPU, not an earlier one. */
	if (m->cpu != cpu || m->running_sum != st->running_sum)
		goto done;
	if (slot->pid_tgid == pid_tgid && slot->key.cgroup_id &&
	    slot->key.cgroup_id != key->cgroup_id) {
		share = &slot->value;
	} else {
		/* -G: whether the old cgroup is kept is not known here. */
		old.cgroup_id = m->old_cgroup;
		share = bpf_map_lookup_elem(&scratch, &zero);
		if (!share || !old.cgroup_id ||
		    old.cgroup_id == key->cgroup_id || filter_nr)
			goto done;
		__builtin_memset(share, 0, sizeof(*share));
		key_comm(share->comm, &old);
	}
	task = (struct task_struct *)bpf_get_current_task();
	ran = BPF_CORE_READ(task, se.sum_exec_runtime) - m->running_sum;
	before = m->runtime_at_move - m->running_sum;
	if (before > ran)
		before = ran;
	for (__u32 ev = 0; ev < BPMC_MAX_EVENTS && ev < nr_events; ev++) {
		last = &st->last[ev];
		c = &share->ev[ev];
		if (no_mux) {
			count = bpf_perf_event_read(&counters,
						    ev * nr_cpus + cpu);
			/* At or below the mark: a switch credited ahead. */
			if (count >= (__u64)-BPMC_MAX_ERRNO ||
			    (__s64)(count - last->counter) <= 0)
				continue;
			count = scale(count - last->counter, before, ran);
			c->count += count;
			c->samples += 1;
			last->counter += count;
			continue;
		}
		if (bpf_perf_event_read_value(&counters, ev * nr_cpus + cpu,
					      &now, sizeof(now)))
			continue;
		count = scale(now.counter - last->counter, before, ran);
		c->count += count;
		last->counter += count;
		count = scale(now.enabled - last->enabled, before, ran);
		c->enabled += count;
		last->enabled += count;
		count = scale(now.running - last->running, before, ran);
		c->running += count;
		last->running += count;
		c->samples += 1;
	}
	if (share != &slot->value)
		key_add(g, &old, share);
	/* The clock events' readings moved on without rq->clock: the
	 * switch that called this reads them. */
	st->clock_ok = 0;
done:
	bpf_map_delete_elem(&moves, &tid);
}

static __noinline void slot_switch(struct bpmc_slot *slot, __u32 g,
				   __u64 pid_tgid, __u32 epoch)
{
	__u32 cpu = bpf_get_smp_processor_id();
	struct bpmc_cpu *st;
	struct bpmc_key key;
	bool skip = filtered_out();

	current_key(&key, pid_tgid);
	/* A task changed cgroup since this one switched in (the epoch
	 * moved): if this one did, split what is pending. */
	st = exact ? bpf_map_lookup_elem(&cpus, &cpu) : NULL;
	if (st && st->running_epoch != epoch && key.cgroup_id)
		move_split(slot, g, pid_tgid, &key);
	slot->pid_tgid = pid_tgid;
	slot->epoch = epoch;
	/* Another thread of the same process: same row, nothing to flush. */
	if (slot->key.cgroup_id == key.cgroup_id &&
	    slot->key.tgid == key.tgid && slot->key.tid == key.tid &&
	    slot->skip == skip)
		return;
	if (slot->key.cgroup_id)
		counts_add(g, slot);
	slot->key = key;
	slot->skip = skip;
	__builtin_memset(&slot->value, 0, sizeof(slot->value));
	key_comm(slot->value.comm, &key);
}

/*
 * The current task's slot on this CPU: the way that holds it, or the
 * least recently used way, re-keyed. pid_tgid is current's.
 */
static __always_inline struct bpmc_slot *current_slot(__u32 cpu, __u64 pid_tgid)
{
	__u32 epoch = *(volatile __u32 *)&control.cgroup_epoch;
	__u32 g = control.cpu_gen[cpu & (BPMC_MAX_CPUS - 1)] & BPMC_CPU_GEN;
	__u32 idx = (cpu * BPMC_GENERATIONS + g) * BPMC_SLOT_WAYS;
	struct bpmc_slot *way0, *way1, *slot;

	way0 = bpf_map_lookup_elem(&slots, &idx);
	if (!way0)
		return NULL;
	if (way0->pid_tgid == pid_tgid && way0->epoch == epoch) {
		way0->victim = 1;
		return way0;
	}
	idx++;
	way1 = bpf_map_lookup_elem(&slots, &idx);
	if (!way1)
		return NULL;
	if (way1->pid_tgid == pid_tgid && way1->epoch == epoch) {
		way0->victim = 0;
		return way1;
	}
	slot = way0->victim ? way1 : way0;
	way0->victim = !way0->victim;
	slot_switch(slot, g, pid_tgid, epoch);
	return slot;
}

/*
 * Credits what counter ev gained up to reading now (never multiplexed:
 * no times). A reading at or below the mark (a switch credited its 1
 * ahead, and the counter stopped before it came) credits nothing and
 * keeps the mark, which the counter's next gains make good.
 */
static __always_inline void credit_to(struct bpmc_slot *slot,
				      struct bpmc_cpu *st, __u32 ev, __u64 now)
{
	struct bpmc_reading *last = &st->last[ev];
	struct bpmc_counts *c = &slot->value.ev[ev];

	c->samples += 1;
	if ((__s64)(now - last->counter) <= 0)
		return;
	c->count += now - last->counter;
	last->counter = now;
}

/*
 * Credits counter ev's change since its last reading on this CPU, plus
 * plus_one: the context switch under way, which the counter takes
 * right after.
 */
static __always_inline void credit_read(struct bpmc_slot *slot,
					struct bpmc_cpu *st, __u32 cpu,
					__u32 ev, __u32 plus_one)
{
	struct bpf_perf_event_value now;
	struct bpmc_reading *last = &st->last[ev];
	struct bpmc_counts *c = &slot->value.ev[ev];
	__u64 count;

	/* Never multiplexed: the count alone, without the clock read that
	 * computes enabled/running; enabled stays 0 in the value, which
	 * user space scales by the fds' equal times, i.e. not at all. */
	if (no_mux) {
		count = bpf_perf_event_read(&counters, ev * nr_cpus + cpu);
		if (count >= (__u64)-BPMC_MAX_ERRNO) {
			drop_add(BPMC_DROP_READ, 1);
			return;
		}
		credit_to(slot, st, ev, count + plus_one);
		return;
	}
	if (bpf_perf_event_read_value(&counters, ev * nr_cpus + cpu, &now,
				      sizeof(now))) {
		drop_add(BPMC_DROP_READ, 1);
		return;
	}
	c->count += now.counter - last->counter;
	c->enabled += now.enabled - last->enabled;
	c->running += now.running - last->running;
	c->samples += 1;
	last->counter = now.counter;
	last->enabled = now.enabled;
	last->running = now.running;
}

/*
 * The sampling hot path. On the development VM every cache line it
 * touches costs tens of ns (one more line measured +65 ns/run), so it
 * reads the control line, one slot line and current's pid_tgid, and
 * writes the slot line. The event index is
 * a constant of each program copy rather than an attach cookie: one
 * helper call and one perf_event line fewer per overflow.
 */
static __always_inline int overflow(struct bpf_perf_event_data *ctx,
				    const __u32 ev)
{
	__u32 cpu = bpf_get_smp_processor_id();
	struct bpmc_slot *slot = current_slot(cpu, bpf_get_current_pid_tgid());
	struct bpmc_cpu *st;

	if (!slot || slot->skip)
		return 0;
	slot->value.ev[ev].count += ctx->sample_period;
	slot->value.ev[ev].samples += 1;
	/* Group members count along with their sampling leader. */
	for (__u32 m = 0; m < BPMC_MAX_EVENTS && m < nr_events; m++) {
		if (m == ev || group_leader[m] != ev)
			continue;
		st = bpf_map_lookup_elem(&cpus, &cpu);
		if (st)
			credit_read(slot, st, cpu, m, 0);
	}
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

/*
 * Is this CPU without counters (user space sets BPMC_CPU_OFF)? Only the
 * context-switch program and the flush ask: an overflow program runs
 * from an fd that is open.
 */
static __always_inline bool cpu_off(__u32 cpu)
{
	return *(volatile __u32 *)&control.cpu_gen[cpu & (BPMC_MAX_CPUS - 1)] &
	       BPMC_CPU_OFF;
}

/*
 * Exact mode: counter ev's struct perf_event on this CPU, from the
 * counters map's entry at idx (struct bpf_event_entry), or 0 while
 * there is none. Once per CPU and counter (bpmc_cpu.event), so the
 * helper read here costs nothing that matters.
 */
static __noinline __u64 event_find(__u32 idx, __u32 cpu)
{
	struct bpf_array *arr = bpf_rdonly_cast(
		&counters, bpf_core_type_id_kernel(struct bpf_array));
	struct bpf_event_entry *ee;
	struct perf_event *e;
	void *p = NULL;

	if (bpf_probe_read_kernel(&p, sizeof(p), &arr->ptrs[idx]) || !p)
		return 0;
	ee = bpf_rdonly_cast(p,
			     bpf_core_type_id_kernel(struct bpf_event_entry));
	e = ee->event;
	/* A CPU's counter, as counters/fds put it there: never another's. */
	if (!e || e->cpu != cpu)
		return 0;
	return (__u64)e;
}

/*
 * Counter ev's perf_event on this CPU, or NULL. Loads through it are
 * checked ones (bpf_rdonly_cast: PTR_UNTRUSTED), and the pointer is
 * good while the counters map holds the fd: user space replaces a CPU's
 * fds only while BPMC_CPU_OFF keeps this program away, and zeroes the
 * CPU's state, this cache included, before it lets it back.
 */
static __always_inline struct perf_event *counter_event(struct bpmc_cpu *st,
							__u32 cpu, __u32 ev)
{
	__u64 p = st->event[ev];

	if (!p) {
		p = event_find(ev * nr_cpus + cpu, cpu);
		if (!p)
			return NULL;
		st->event[ev] = p;
	}
	return bpf_rdonly_cast((void *)p,
			       bpf_core_type_id_kernel(struct perf_event));
}

/*
 * Exact mode, at a context switch: credit every counter's delta to the
 * task leaving. BPMC_HOW_READ reads (~100 ns a counter, most of it the
 * helper's own cost: the PMU read of a software event is nothing);
 * BPMC_HOW_COUNT loads the count, which is all the helper would return;
 * BPMC_HOW_CLOCK credits rq->clock's advance since the last switch, the
 * same clock (sched_clock_cpu) that cpu-clock and task-clock advance
 * with, updated by __schedule just before this tracepoint. It is not
 * the counter: each switch's share is off by the time between the clock
 * update and a read here, which the next share makes up (the sum
 * telescopes), and the flush reconciles what is left with the counter.
 * A clock event is credited so only while it counts and was read at a
 * switch since the last flush (clock_ok), so that rq->clock and its
 * reading move in step; else, and at first, it is read.
 */
static __always_inline void switch_credit(struct bpmc_slot *slot,
					  struct bpmc_cpu *st, __u32 cpu,
					  struct task_struct *prev,
					  const bool loads)
{
	int active = bpf_core_enum_value(enum perf_event_state,
					 PERF_EVENT_STATE_ACTIVE);
	__u64 now = 0, d = 0;
	struct perf_event *e;
	struct bpmc_counts *c;
	__u32 ok = 0;
	bool on;

	if (loads && use_clock) {
		/* This CPU's rq: prev runs here, so its cfs_rq is this
		 * CPU's (the root's or its group's), whatever its class. */
		now = prev->se.cfs_rq->rq->clock;
		if ((__s64)(now - st->clock) > 0)
			d = now - st->clock;
	}
	/* Unrolled, so that the verifier drops what each event does not do
	 * (ev_how[ev] and nr_events are constants to it): 3-6 ns a run less
	 * here. */
#pragma unroll
	for (__u32 ev = 0; ev < BPMC_MAX_EVENTS && ev < nr_events; ev++) {
		if (!loads || ev_how[ev] == BPMC_HOW_READ) {
			credit_read(slot, st, cpu, ev, ev_switch[ev]);
			continue;
		}
		e = counter_event(st, cpu, ev);
		if (!e) {
			credit_read(slot, st, cpu, ev, ev_switch[ev]);
			continue;
		}
		on = e->state == active;
		if (ev_how[ev] == BPMC_HOW_COUNT) {
			credit_to(slot, st, ev,
				  e->count.a.a.counter + (on && ev_switch[ev]));
			continue;
		}
		if (on && (st->clock_ok & 1u << ev)) {
			c = &slot->value.ev[ev];
			c->count += d;
			c->samples += 1;
			st->last[ev].counter += d;
		} else {
			credit_read(slot, st, cpu, ev, 0);
		}
		if (on)
			ok |= 1u << ev;
	}
	if (loads && use_clock) {
		st->clock_ok = ok;
		if (d)
			st->clock = now;
	}
}

/*
 * The exact-mode hot path. The tracepoint fires before the switch, while
 * current is still the task that is leaving the CPU: prev, whose ids
 * are two loads where the helper is a call.
 */
static __always_inline int switch_prog(struct task_struct *prev,
				       struct task_struct *next,
				       const bool loads)
{
	__u32 cpu = bpf_get_smp_processor_id();
	struct bpmc_cpu *st = bpf_map_lookup_elem(&cpus, &cpu);
	struct bpmc_slot *slot;

	if (!st)
		return 0;
	/* A CPU back online before its counters are: nothing to read,
	 * and its slot generation is stale until user space sets it. */
	if (!cpu_off(cpu)) {
		slot = current_slot(cpu,
				    (__u64)prev->tgid << 32 | (__u32)prev->pid);
		if (slot)
			switch_credit(slot, st, cpu, prev, loads);
	}
	/* One line that the credit wrote already; next's runtime is hot
	 * in the cache, the scheduler has just picked it. */
	st->running_task = (__u64)next;
	st->running_sum = next->se.sum_exec_runtime;
	st->running_cset = (__u64)next->cgroups;
	st->running_epoch = *(volatile __u32 *)&control.cgroup_epoch;
	return 0;
}

/* Every counter read: any event, any kernel. */
SEC("tp_btf/sched_switch")
int BPF_PROG(on_switch, bool preempt, struct task_struct *prev,
	     struct task_struct *next)
{
	return switch_prog(prev, next, false);
}

/*
 * The same, taking software events by BPMC_HOW_CLOCK and BPMC_HOW_COUNT
 * where ev_how says so: loaded instead of on_switch where the kernel has
 * what they need (maps/probe.c).
 */
SEC("tp_btf/sched_switch")
int BPF_PROG(on_switch_loads, bool preempt, struct task_struct *prev,
	     struct task_struct *next)
{
	return switch_prog(prev, next, true);
}

/*
 * Run by user space on each CPU in turn (BPF_PROG_TEST_RUN, which only
 * raw tracepoints allow on a chosen CPU) at every interval boundary:
 * credits the running task with what is pending, then retires this
 * CPU's generation. Nothing else runs on the CPU meanwhile.
 */
SEC("raw_tp")
int flush(void *ctx)
{
	__u32 cpu = bpf_get_smp_processor_id();
	struct bpmc_cpu *st = bpf_map_lookup_elem(&cpus, &cpu);
	struct bpmc_slot *slot;

	if (!st || cpu_off(cpu))
		return 0;
	/* Every counter read, whatever the switches did: the interval's
	 * credits here add up to the counter's own delta. One that reads
	 * below what they credited (rq->clock a little ahead of a clock
	 * event, see switch_credit) keeps its mark, and the next interval
	 * credits that much less. */
	slot = exact ? current_slot(cpu, bpf_get_current_pid_tgid()) : NULL;
	for (__u32 ev = 0; slot && ev < BPMC_MAX_EVENTS && ev < nr_events; ev++)
		credit_read(slot, st, cpu, ev, 0);
	/* Read now, not at a switch: the next switch reads the clock
	 * events again, in step with rq->clock. */
	st->clock_ok = 0;
	control.cpu_gen[cpu & (BPMC_MAX_CPUS - 1)] ^= BPMC_CPU_GEN;
	return 0;
}

/*
 * A cgroup is made: keep its path, which user space could not find any
 * more if the cgroup is gone before the interval ends.
 */
SEC("tp_btf/cgroup_mkdir")
int BPF_PROG(on_cgroup_mkdir, struct cgroup *cgrp, const char *path)
{
	struct bpmc_cgroup_event *e;
	char next = 0;
	int n;

	e = bpf_ringbuf_reserve(&new_cgroups, sizeof(*e), 0);
	if (!e) {
		drop_add(BPMC_DROP_CGROUP_PATH, 1);
		return 0;
	}
	e->id = BPF_CORE_READ(cgrp, kn, id);
	e->hierarchy_id = BPF_CORE_READ(cgrp, root, hierarchy_id);
	e->flags = 0;
	n = bpf_probe_read_kernel_str(e->path, sizeof(e->path), path);
	/* A string that filled the buffer may go on past it. */
	if (n == sizeof(e->path) &&
	    (bpf_probe_read_kernel(&next, 1, path + n - 1) || next))
		e->flags = BPMC_CGROUP_PATH_CUT;
	bpf_ringbuf_submit(e, 0);
	return 0;
}

/*
 * Exact mode: note each CPU's running task that is moving (the task, or
 * any of its threads for a threadgroup move) with what it has run since
 * it switched in, for move_split. Walks CPUs, not threads: only a task
 * on a CPU has counts pending, and a process may have any number.
 */
static __always_inline void moves_note(struct task_struct *task,
				       bool threadgroup)
{
	struct bpmc_move m = {};
	struct task_struct *t;
	struct bpmc_cpu *st;
	__u32 tid;

	/* The key is a copy: the counter itself stays in a register, where
	 * the verifier knows its value, so that no two iterations look
	 * alike to it (a spilled counter read as "infinite loop" on 6.18). */
	for (__u32 i = 0; i < BPMC_MAX_CPUS && i < nr_cpus; i++) {
		__u32 cpu = i;

		st = bpf_map_lookup_elem(&cpus, &cpu);
		if (!st || !st->running_task)
			continue;
		/* The task that switched in last there: it may have exited
		 * since, so it is only probe-read. */
		t = (struct task_struct *)st->running_task;
		tid = BPF_CORE_READ(t, pid);
		if (threadgroup ? BPF_CORE_READ(t, tgid) != task->tgid :
				  tid != task->pid)
			continue;
		m.running_sum = st->running_sum;
		m.runtime_at_move = BPF_CORE_READ(t, se.sum_exec_runtime);
		/* The css_set it switched in with, which the move has just
		 * let go of: only probe-read. */
		m.old_cgroup =
			cset_cgroup_id((struct css_set *)st->running_cset);
		m.cpu = cpu;
		bpf_map_update_elem(&moves, &tid, &m, BPF_ANY);
	}
}

/* A task changed cgroup: every slot's cached identity is now suspect. */
SEC("tp_btf/cgroup_attach_task")
int BPF_PROG(on_cgroup_attach, struct cgroup *dst_cgrp, const char *path,
	     struct task_struct *task, bool threadgroup)
{
	/* Before the epoch moves: a switch that sees the new epoch finds
	 * the note. */
	if (exact)
		moves_note(task, threadgroup);
	__sync_fetch_and_add(&control.cgroup_epoch, 1);
	return 0;
}

/*
 * A task execs: the name it had when its key was first seen this
 * interval (a fork child still carries its parent's) gives way to the
 * new program's, in the hash entry and in this CPU's slots. Runs once
 * an exec, never on a hot path.
 */
SEC("tp_btf/sched_process_exec")
int BPF_PROG(on_exec, struct task_struct *p, pid_t old_pid,
	     struct linux_binprm *bprm)
{
	__u32 cpu = bpf_get_smp_processor_id();
	__u32 g = control.cpu_gen[cpu & (BPMC_MAX_CPUS - 1)] & 1;
	__u32 idx = (cpu * BPMC_GENERATIONS + g) * BPMC_SLOT_WAYS;
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	struct bpmc_value *v, fresh;
	struct bpmc_slot *slot;
	struct bpmc_key key;
	void *map;

	if (!key_tgid)
		return 0; /* cgroup rows only: no name is written */
	current_key(&key, pid_tgid);
	map = g ? (void *)&counts_1 : (void *)&counts_0;
	v = entry_of(g, &key);
	if (!v)
		v = bpf_map_lookup_elem(map, &key);
	if (v) {
		bpf_get_current_comm(v->comm, sizeof(v->comm));
	} else {
		/* An entry with the new name and no counts: a slot of the
		 * old name that another CPU flushes later only adds to it,
		 * never names it (a child that migrated, then exec'd). */
		__builtin_memset(&fresh, 0, sizeof(fresh));
		bpf_get_current_comm(fresh.comm, sizeof(fresh.comm));
		bpf_map_update_elem(map, &key, &fresh, BPF_NOEXIST);
	}
	for (__u32 w = 0; w < BPMC_SLOT_WAYS; w++, idx++) {
		slot = bpf_map_lookup_elem(&slots, &idx);
		if (slot && slot->pid_tgid == pid_tgid)
			bpf_get_current_comm(slot->value.comm,
					     sizeof(slot->value.comm));
	}
	return 0;
}
