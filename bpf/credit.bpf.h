/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Per-CPU slots of the task on the CPU, and the credit of a delta
 * to them: scaled, read from a counter, split at a cgroup move.
 * Part of collect.bpf.c, its only includer: one BPF object.
 */
#ifndef BPMC_BPF_CREDIT_BPF_H
#define BPMC_BPF_CREDIT_BPF_H

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
static __always_inline void credit_to(struct bpmc_value *v, struct bpmc_cpu *st,
				      __u32 ev, __u64 now)
{
	struct bpmc_reading *last = &st->last[ev];
	struct bpmc_counts *c = &v->ev[ev];

	c->samples += 1;
	if ((__s64)(now - last->counter) <= 0)
		return;
	c->count += now - last->counter;
	last->counter = now;
}

/* Credits counter ev's change from its last reading on this CPU to now. */
static __always_inline void credit_value(struct bpmc_value *v,
					 struct bpmc_cpu *st, __u32 ev,
					 const struct bpf_perf_event_value *now)
{
	struct bpmc_reading *last = &st->last[ev];
	struct bpmc_counts *c = &v->ev[ev];

	c->count += now->counter - last->counter;
	c->enabled += now->enabled - last->enabled;
	c->running += now->running - last->running;
	c->samples += 1;
	last->counter = now->counter;
	last->enabled = now->enabled;
	last->running = now->running;
}

/*
 * Credits counter ev's change since its last reading on this CPU, plus
 * plus_one: the context switch under way, which the counter takes
 * right after.
 */
static __always_inline void credit_read(struct bpmc_value *v,
					struct bpmc_cpu *st, __u32 cpu,
					__u32 ev, __u32 plus_one)
{
	struct bpf_perf_event_value now;
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
		credit_to(v, st, ev, count + plus_one);
		return;
	}
	if (bpf_perf_event_read_value(&counters, ev * nr_cpus + cpu, &now,
				      sizeof(now))) {
		drop_add(BPMC_DROP_READ, 1);
		return;
	}
	credit_value(v, st, ev, &now);
}

#endif
