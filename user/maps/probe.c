// SPDX-License-Identifier: GPL-2.0
/*
 * What the running kernel can do, probed before anything is loaded:
 * libbpf's probes where they tell, a small load or call where they do
 * not (tp_btf on a given tracepoint, BPF_F_TEST_RUN_ON_CPU, batch ops).
 */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "common/util.h"
#include "maps/collector.h"

/* Test-only: BPMC_TEST_PROBE_FAIL=name[,name...] reports those missing. */
static bool forced_missing(const char *name)
{
	return comma_list_has(getenv("BPMC_TEST_PROBE_FAIL"), name);
}

/* r0 = 0; exit */
static const struct bpf_insn ret0[] = {
	{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0 },
	{ .code = BPF_JMP | BPF_EXIT },
};

static bool has_btf(void)
{
	struct btf *btf = btf__load_vmlinux_btf();

	if (!btf)
		return false;
	btf__free(btf);
	return true;
}

/* A tp_btf program on this tracepoint loads. */
static bool has_tp_btf(const char *tp)
{
	LIBBPF_OPTS(bpf_prog_load_opts, opts,
		    .expected_attach_type = BPF_TRACE_RAW_TP);
	int id = libbpf_find_vmlinux_btf_id(tp, BPF_TRACE_RAW_TP), fd;

	if (id <= 0)
		return false;
	opts.attach_btf_id = id;
	fd = bpf_prog_load(BPF_PROG_TYPE_TRACING, "bpmc_probe", "GPL", ret0, 2,
			   &opts);
	if (fd < 0)
		return false;
	close(fd);
	return true;
}

/* A raw_tp program runs through BPF_PROG_TEST_RUN on a chosen CPU. */
static bool has_test_run_on_cpu(void)
{
	int fd = bpf_prog_load(BPF_PROG_TYPE_RAW_TRACEPOINT, "bpmc_probe",
			       "GPL", ret0, 2, NULL);
	int cpu = sched_getcpu(), err;
	LIBBPF_OPTS(bpf_test_run_opts, run, .flags = BPF_F_TEST_RUN_ON_CPU,
		    .cpu = cpu < 0 ? 0 : cpu);

	if (fd < 0)
		return false;
	err = bpf_prog_test_run_opts(fd, &run);
	close(fd);
	return !err;
}

/* Batch look-up and delete on an empty hash: ENOENT where it exists. */
static bool has_batch(void)
{
	LIBBPF_OPTS(bpf_map_batch_opts, opts);
	__u64 out_batch, key, value;
	__u32 count = 1;
	int fd = bpf_map_create(BPF_MAP_TYPE_HASH, "bpmc_probe", sizeof(key),
				sizeof(value), 1, NULL);
	bool ok;

	if (fd < 0)
		return false;
	ok = !bpf_map_lookup_and_delete_batch(fd, NULL, &out_batch, &key,
					      &value, &count, &opts) ||
	     errno == ENOENT;
	close(fd);
	return ok;
}

/*
 * A perf_event program that looks up a hash made with BPF_F_NO_PREALLOC
 * loads: before the BPF memory allocator (Linux 6.1) the verifier
 * refused it, for allocating in NMI context could deadlock.
 */
static bool has_no_prealloc(void)
{
	LIBBPF_OPTS(bpf_map_create_opts, mopts, .map_flags = BPF_F_NO_PREALLOC);
	int map = bpf_map_create(BPF_MAP_TYPE_HASH, "bpmc_probe", 8, 8, 1,
				 &mopts),
	    fd;
	/* *(u64 *)(r10 - 8) = 0; r1 = map; r2 = r10 - 8;
	 * call bpf_map_lookup_elem; r0 = 0; exit */
	struct bpf_insn insns[] = {
		{ .code = BPF_ST | BPF_MEM | BPF_DW,
		  .dst_reg = BPF_REG_10,
		  .off = -8 },
		{ .code = BPF_LD | BPF_DW | BPF_IMM,
		  .dst_reg = BPF_REG_1,
		  .src_reg = BPF_PSEUDO_MAP_FD,
		  .imm = map },
		{},
		{ .code = BPF_ALU64 | BPF_MOV | BPF_X,
		  .dst_reg = BPF_REG_2,
		  .src_reg = BPF_REG_10 },
		{ .code = BPF_ALU64 | BPF_ADD | BPF_K,
		  .dst_reg = BPF_REG_2,
		  .imm = -8 },
		{ .code = BPF_JMP | BPF_CALL, .imm = BPF_FUNC_map_lookup_elem },
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};

	if (map < 0)
		return false;
	fd = bpf_prog_load(BPF_PROG_TYPE_PERF_EVENT, "bpmc_probe", "GPL", insns,
			   sizeof(insns) / sizeof(insns[0]), NULL);
	close(map);
	if (fd < 0)
		return false;
	close(fd);
	return true;
}

/*
 * The struct of that name in btf has member (looked for in its
 * anonymous structs and unions too, as C reaches them).
 */
static bool btf_member_in(const struct btf *btf, const struct btf_type *t,
			  const char *member)
{
	const struct btf_member *m = btf_members(t);
	const struct btf_type *mt;

	for (int i = 0; i < btf_vlen(t); i++, m++) {
		const char *name = btf__name_by_offset(btf, m->name_off);

		if (name && !strcmp(name, member))
			return true;
		mt = btf__type_by_id(btf, m->type);
		if ((!name || !*name) && mt && btf_is_composite(mt) &&
		    btf_member_in(btf, mt, member))
			return true;
	}
	return false;
}

static bool btf_has_member(const struct btf *btf, const char *type,
			   const char *member)
{
	int id = btf__find_by_name_kind(btf, type, BTF_KIND_STRUCT);

	return id > 0 && btf_member_in(btf, btf__type_by_id(btf, id), member);
}

/*
 * What BPMC_HOW_COUNT loads, as bpf/switch.bpf.h reaches it: the kfunc
 * bpf_rdonly_cast (6.2) and, from the counters map, bpf_array's ptrs,
 * bpf_event_entry's event, and the perf_event's count, state and cpu.
 */
static bool has_event_loads(const struct btf *btf)
{
	return btf__find_by_name_kind(btf, "bpf_rdonly_cast", BTF_KIND_FUNC) >
		       0 &&
	       btf_has_member(btf, "bpf_array", "ptrs") &&
	       btf_has_member(btf, "bpf_event_entry", "event") &&
	       btf_has_member(btf, "perf_event", "count") &&
	       btf_has_member(btf, "perf_event", "state") &&
	       btf_has_member(btf, "perf_event", "cpu");
}

/*
 * BPMC_HOW_CLOCK's rq->clock, through the switching task's se.cfs_rq:
 * cfs_rq has its rq only with CONFIG_FAIR_GROUP_SCHED.
 */
static bool has_rq_clock(const struct btf *btf)
{
	return btf_has_member(btf, "task_struct", "se") &&
	       btf_has_member(btf, "sched_entity", "cfs_rq") &&
	       btf_has_member(btf, "cfs_rq", "rq") &&
	       btf_has_member(btf, "rq", "clock");
}

static bool probed(const char *name, bool present)
{
	return present && !forced_missing(name);
}

/* Adds "name yes|no" to what the probes found. */
static void found(struct collector_features *f, const char *name, bool present)
{
	size_t n = strlen(f->found);

	snprintf(f->found + n, sizeof(f->found) - n, "%s%s %s", n ? ", " : "",
		 name, present ? "yes" : "no");
}

/* Every probe, needed or not: what this kernel has, for record -v. */
static void probe_all(struct collector_features *f)
{
	struct btf *btf = btf__load_vmlinux_btf();

	found(f, "btf", probed("btf", btf != NULL));
	found(f, "tp_btf",
	      probed("tp_btf", has_tp_btf("cgroup_attach_task") &&
				       has_tp_btf("sched_switch")));
	found(f, "test_run_on_cpu",
	      probed("test_run_on_cpu", has_test_run_on_cpu()));
	found(f, "perf_event",
	      probed("perf_event",
		     libbpf_probe_bpf_prog_type(BPF_PROG_TYPE_PERF_EVENT,
						NULL) == 1));
	found(f, "perf_event_read_value",
	      probed("perf_event_read_value",
		     libbpf_probe_bpf_helper(BPF_PROG_TYPE_PERF_EVENT,
					     BPF_FUNC_perf_event_read_value,
					     NULL) == 1));
	found(f, "ringbuf",
	      probed("ringbuf", libbpf_probe_bpf_map_type(BPF_MAP_TYPE_RINGBUF,
							  NULL) == 1) &&
		      probed("tp_btf", has_tp_btf("cgroup_mkdir")));
	found(f, "batch", probed("batch", has_batch()));
	found(f, "no_prealloc", probed("no_prealloc", has_no_prealloc()));
	found(f, "rdonly_cast",
	      btf && probed("rdonly_cast", has_event_loads(btf)));
	found(f, "rq_clock", btf && probed("rq_clock", has_rq_clock(btf)));
	btf__free(btf);
}

/* A missing feature bpmc cannot do without: one line, naming it. */
static int refuse(struct error *err, const char *what, const char *needs,
		  const char *since)
{
	return error__set(
		err, EOPNOTSUPP,
		"this kernel lacks %s, which %s needs (Linux %s has it): not recording",
		what, needs, since);
}

int collector__probe(const struct collector_opts *opts,
		     struct collector_features *f, struct error *err)
{
	struct collector_opts all = *opts;
	bool groups = false, loads = false, clocks = false;
	struct btf *btf;

	memset(f, 0, sizeof(*f));
	if (opts->probe_all)
		probe_all(f);
	for (int e = 0; e < opts->nr_events; e++)
		groups |= opts->leader[e] != e;
	if (!probed("btf", has_btf()))
		return refuse(err, "kernel BTF (/sys/kernel/btf/vmlinux)",
			      "every CO-RE read and tp_btf program", "5.4");
	if (!probed("tp_btf", has_tp_btf("cgroup_attach_task")))
		return refuse(err,
			      "tp_btf programs (tp_btf/cgroup_attach_task)",
			      "re-keying tasks that change cgroup", "5.5");
	if (opts->exact && !probed("tp_btf", has_tp_btf("sched_switch")))
		return refuse(err, "tp_btf programs (tp_btf/sched_switch)",
			      "--mode exact", "5.5");
	if (!probed("test_run_on_cpu", has_test_run_on_cpu()))
		return refuse(err, "BPF_F_TEST_RUN_ON_CPU for raw_tp programs",
			      "the flush at each interval's end", "5.10");
	if (!opts->exact &&
	    !probed("perf_event", libbpf_probe_bpf_prog_type(
					  BPF_PROG_TYPE_PERF_EVENT, NULL) == 1))
		return refuse(err, "perf_event programs", "--mode sampling",
			      "4.9");
	if ((opts->exact || groups) &&
	    !probed("perf_event_read_value",
		    libbpf_probe_bpf_helper(BPF_PROG_TYPE_PERF_EVENT,
					    BPF_FUNC_perf_event_read_value,
					    NULL) == 1))
		return refuse(err, "the helper bpf_perf_event_read_value",
			      opts->exact ? "--mode exact" :
					    "sampling with event groups",
			      "4.15");
	f->ringbuf = probed("ringbuf",
			    libbpf_probe_bpf_map_type(BPF_MAP_TYPE_RINGBUF,
						      NULL) == 1) &&
		     probed("tp_btf", has_tp_btf("cgroup_mkdir"));
	f->batch = probed("batch", has_batch());
	f->no_prealloc = opts->max_keys > COLLECTOR_PREALLOC_MAX_KEYS &&
			 probed("no_prealloc", has_no_prealloc());
	/* What the run would load, were the kernel to have everything. */
	all.no_event_loads = all.no_rq_clock = false;
	for (int e = 0; e < opts->nr_events; e++) {
		enum bpmc_how how = collector__event_how(&all, e);

		loads |= how != BPMC_HOW_READ;
		clocks |= how == BPMC_HOW_CLOCK;
	}
	btf = loads ? btf__load_vmlinux_btf() : NULL;
	f->event_loads = btf && probed("rdonly_cast", has_event_loads(btf));
	f->rq_clock = btf && probed("rq_clock", has_rq_clock(btf));
	btf__free(btf);
	if (loads && !f->event_loads)
		f->fallback[f->nr_fallbacks++] =
			"this kernel has no kfunc bpf_rdonly_cast (Linux 6.2 has it): exact mode reads every counter through bpf_perf_event_read at each context switch, about 100 ns a counter more";
	else if (clocks && !f->rq_clock)
		f->fallback[f->nr_fallbacks++] =
			"this kernel's run-queue clock is out of BPF's reach (its struct cfs_rq has no rq: CONFIG_FAIR_GROUP_SCHED is off): exact mode reads cpu-clock and task-clock at each context switch, about 100 ns a counter more";
	if (opts->max_keys > COLLECTOR_PREALLOC_MAX_KEYS && !f->no_prealloc)
		f->fallback[f->nr_fallbacks++] =
			"this kernel lets no perf_event program use a hash that is not preallocated (Linux 6.1 does): the --max-keys hashes are preallocated, which stalls a CPU in the kernel for about a second per million keys";
	if (!f->ringbuf)
		f->fallback[f->nr_fallbacks++] =
			"this kernel has no BPF ring buffer or no tp_btf/cgroup_mkdir (Linux 5.8 has both): recording without the capture of new cgroups' paths, so a cgroup made and removed within one interval has rows without a path";
	if (!f->batch)
		f->fallback[f->nr_fallbacks++] =
			"this kernel has no batch map operations (Linux 5.6 has them): each interval's counts are taken one key at a time, which costs more system time with many keys";
	return 0;
}
