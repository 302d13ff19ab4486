/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The context switch of exact mode: how each counter's delta is
 * taken (read, loaded from the perf_event, or the run queue's clock)
 * and credited to the task leaving.
 * Part of collect.bpf.c, its only includer: one BPF object.
 */
#ifndef BPMC_BPF_SWITCH_BPF_H
#define BPMC_BPF_SWITCH_BPF_H

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
			credit_read(&slot->value, st, cpu, ev, ev_switch[ev]);
			continue;
		}
		e = counter_event(st, cpu, ev);
		if (!e) {
			credit_read(&slot->value, st, cpu, ev, ev_switch[ev]);
			continue;
		}
		on = e->state == active;
		if (ev_how[ev] == BPMC_HOW_COUNT) {
			credit_to(&slot->value, st, ev,
				  e->count.a.a.counter + (on && ev_switch[ev]));
			continue;
		}
		if (on && (st->clock_ok & 1u << ev)) {
			c = &slot->value.ev[ev];
			c->count += d;
			c->samples += 1;
			st->last[ev].counter += d;
		} else {
			credit_read(&slot->value, st, cpu, ev, 0);
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

#endif
