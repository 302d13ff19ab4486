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
 *
 * One object, in parts: maps.bpf.h (what user space sets and reads),
 * keys.bpf.h (keys and the store), credit.bpf.h (slots and the credit
 * of a delta), switch.bpf.h (exact mode's switch); the programs here.
 */
#include "vmlinux.h"
#include <asm-generic/errno.h> /* vmlinux.h has types, no macros */
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_tracing.h>
#include "collect.h"

char LICENSE[] SEC("license") = "GPL";

#include "maps.bpf.h"
#include "keys.bpf.h"
#include "credit.bpf.h"
#include "switch.bpf.h"

/*
 * Sampling mode, a counter the kernel may multiplex (no_mux false): the
 * time it was enabled and ran on this CPU since its last overflow here,
 * credited with the period when that overflow was the same task's (the
 * time between is then the task's alone; a first overflow's period is
 * scaled by the rest), so that each key's count is scaled by the share
 * of its own time the counter ran (rows/drain.c), not by every CPU's
 * over the interval: a burner beside an idle CPU came out 4.9 % high
 * so (QEMU, 8 events on 7 counters), 1.9 % when the first overflow's
 * window, idle time before the burner, was credited, 1.1 % now. One
 * helper call an overflow, for hardware events only.
 */
static __always_inline void overflow_times(struct bpf_perf_event_data *ctx,
					   struct bpmc_counts *c, __u32 cpu,
					   __u32 ev, __u64 pid_tgid)
{
	struct bpmc_cpu *st = bpf_map_lookup_elem(&cpus, &cpu);
	struct bpf_perf_event_value now;
	struct bpmc_reading *last;
	__u32 i = ev & (BPMC_MAX_EVENTS - 1);

	if (!st || bpf_perf_prog_read_value(ctx, &now, sizeof(now)))
		return;
	last = &st->last[i];
	/* A count without its times is scaled by the key's other times,
	 * or the interval's; a share that ran no time at all would be
	 * scaled to nothing. */
	if (st->overflow_task[i] == pid_tgid && now.running != last->running) {
		c->enabled += now.enabled - last->enabled;
		c->running += now.running - last->running;
	}
	last->enabled = now.enabled;
	last->running = now.running;
	st->overflow_task[i] = pid_tgid;
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
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	struct bpmc_slot *slot = current_slot(cpu, pid_tgid);
	struct bpmc_cpu *st;

	if (!slot || slot->skip)
		return 0;
	slot->value.ev[ev].count += ctx->sample_period;
	slot->value.ev[ev].samples += 1;
	if (!no_mux)
		overflow_times(ctx, &slot->value.ev[ev], cpu, ev, pid_tgid);
	/* Group members count along with their sampling leader. */
	for (__u32 m = 0; m < BPMC_MAX_EVENTS && m < nr_events; m++) {
		if (m == ev || group_leader[m] != ev)
			continue;
		st = bpf_map_lookup_elem(&cpus, &cpu);
		if (st)
			credit_read(&slot->value, st, cpu, m, 0);
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
	struct bpf_perf_event_value now;
	struct bpmc_slot *slot;
	__u32 ok = 0;

	if (!st || cpu_off(cpu))
		return 0;
	/* Exact mode: every counter read, whatever the switches did: the
	 * interval's credits here add up to the counter's own delta. One
	 * that reads below what they credited (rq->clock a little ahead of
	 * a clock event, see switch_credit; a switch's 1 ahead) keeps its
	 * mark, and the next interval credits that much less. The same
	 * reading is the cut that user space makes the system row of. */
	slot = exact ? current_slot(cpu, bpf_get_current_pid_tgid()) : NULL;
	for (__u32 ev = 0; exact && ev < BPMC_MAX_EVENTS && ev < nr_events;
	     ev++) {
		if (bpf_perf_event_read_value(&counters, ev * nr_cpus + cpu,
					      &now, sizeof(now))) {
			drop_add(BPMC_DROP_READ, 1);
			continue;
		}
		st->cut[ev].counter = now.counter;
		st->cut[ev].enabled = now.enabled;
		st->cut[ev].running = now.running;
		ok |= 1u << ev;
		if (!slot)
			continue;
		if (no_mux)
			credit_to(&slot->value, st, ev, now.counter);
		else
			credit_value(&slot->value, st, ev, &now);
	}
	if (exact) {
		st->cut_ok = ok;
		st->cut_seq += 1;
	}
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
				       bool threadgroup, __u32 done_cpu)
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

		if (cpu == done_cpu)
			continue;
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

/*
 * Exact mode: the current task has just moved itself (`echo $$ >
 * cgroup.procs`; or a thread wrote its own process), so this CPU's
 * counters, read here, hold what it made before the move and nothing
 * after: credit their gain since the last credit to the key it had, as
 * a switch would, exactly (a split by run time is right for clocks
 * only). Its key is the slot's, if one still holds it (the epoch has not
 * moved yet), else made from the css_set it switched in with, or last
 * moved itself to, as is -G's test of it. False where that is not known
 * (a move by another CPU earlier in this stay): the move is then noted
 * for move_split, as one by another CPU.
 */
static __noinline bool move_self(void)
{
	__u32 cpu = bpf_get_smp_processor_id(), zero = 0, w;
	__u32 g = control.cpu_gen[cpu & (BPMC_MAX_CPUS - 1)] & BPMC_CPU_GEN;
	__u32 idx = (cpu * BPMC_GENERATIONS + g) * BPMC_SLOT_WAYS;
	__u32 epoch = *(volatile __u32 *)&control.cgroup_epoch;
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	struct task_struct *cur = (struct task_struct *)bpf_get_current_task();
	struct bpmc_cpu *st = bpf_map_lookup_elem(&cpus, &cpu);
	struct bpmc_value *share = NULL;
	struct bpmc_slot *slot;
	struct bpmc_move *m;
	bool in_slot = false;
	struct bpmc_key old;
	__u32 tid = pid_tgid;

	if (!st || cpu_off(cpu) || st->running_task != (__u64)cur)
		return false;
	m = bpf_map_lookup_elem(&moves, &tid);
	if (m) {
		if (m->cpu == cpu && m->running_sum == st->running_sum)
			return false;
		bpf_map_delete_elem(&moves, &tid); /* an earlier stay's */
	}
	current_key(&old, pid_tgid);
	old.cgroup_id = cset_cgroup_id((struct css_set *)st->running_cset);
	if (!old.cgroup_id)
		return false;
	if (old.cgroup_id == cset_cgroup_id(BPF_CORE_READ(cur, cgroups)))
		goto moved; /* another hierarchy's move */
	for (w = 0; w < BPMC_SLOT_WAYS; w++, idx++) {
		slot = bpf_map_lookup_elem(&slots, &idx);
		if (slot && slot->pid_tgid == pid_tgid &&
		    slot->epoch == epoch &&
		    slot->key.cgroup_id == old.cgroup_id) {
			share = &slot->value;
			in_slot = true;
			break;
		}
	}
	if (!share) {
		share = bpf_map_lookup_elem(&scratch, &zero);
		if (!share)
			return false;
		__builtin_memset(share, 0, sizeof(*share));
		key_comm(share->comm, &old);
	}
	for (__u32 ev = 0; ev < BPMC_MAX_EVENTS && ev < nr_events; ev++)
		credit_read(share, st, cpu, ev, 0);
	/* -G: read all the same, so that the new key starts here. */
	if (!in_slot &&
	    !(filter_nr &&
	      cset_filtered_out((struct css_set *)st->running_cset)))
		key_add(g, &old, share);
	/* Read here, not at a switch: the next switch reads the clock
	 * events again, in step with rq->clock. */
	st->clock_ok = 0;
moved:
	/* What it runs from now on is the new key's, from here. */
	st->running_cset = (__u64)BPF_CORE_READ(cur, cgroups);
	st->running_sum = BPF_CORE_READ(cur, se.sum_exec_runtime);
	return true;
}

/* A task changed cgroup: every slot's cached identity is now suspect. */
SEC("tp_btf/cgroup_attach_task")
int BPF_PROG(on_cgroup_attach, struct cgroup *dst_cgrp, const char *path,
	     struct task_struct *task, bool threadgroup)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	__u32 done_cpu = (__u32)-1;

	/* Before the epoch moves: the slot of the old key still matches,
	 * and a switch that sees the new epoch finds the notes. */
	if (exact) {
		if ((threadgroup ? (__u32)task->tgid == pid_tgid >> 32 :
				   (__u32)task->pid == (__u32)pid_tgid) &&
		    move_self())
			done_cpu = bpf_get_smp_processor_id();
		moves_note(task, threadgroup, done_cpu);
	}
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
