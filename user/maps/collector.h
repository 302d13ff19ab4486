/* SPDX-License-Identifier: GPL-2.0 */
/* fds -> BPF maps: the skeleton's life cycle and the per-interval take. */
#ifndef BPMC_MAPS_COLLECTOR_H
#define BPMC_MAPS_COLLECTOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "collect.h"
#include "common/error.h"
#include "fds/counters.h"
#include "maps/interval_data.h"

struct collector_opts {
	bool key_tgid; /* process or thread rows requested */
	bool key_tid; /* thread rows requested */
	uint32_t max_keys; /* distinct keys per interval */
	/* The counts hashes allocate as keys come: collector__probe()
	 * says whether the kernel lets a perf_event program use them so. */
	bool no_prealloc;
	int nr_events;
	bool exact; /* read counters at context switches */
	/* No event can be multiplexed (all software): the BPF side reads
	 * counts alone, without enabled/running times. */
	bool no_mux;
	int leader[BPMC_MAX_EVENTS]; /* each event's group leader */
	/* Exact mode: the events (their attrs say how the context-switch
	 * program can take each one's delta: enum bpmc_how); NULL reads
	 * them all. */
	const struct event_list *events;
	int v1_subsys; /* --cgroup-v1 controller's subsystem id, or -1 */
	int nr_filters; /* -G subtrees */
	uint32_t filter_level[BPMC_MAX_FILTERS];
	uint64_t filter_id[BPMC_MAX_FILTERS];
	/* Fallbacks, from collector__probe(): */
	bool no_ringbuf; /* no capture of new cgroups' paths */
	bool no_batch; /* take the counts one key at a time */
	bool no_event_loads; /* read every counter (no BPMC_HOW_COUNT) */
	bool no_rq_clock; /* read the clock events (no BPMC_HOW_CLOCK) */
	/* When set, each loaded program's verifier statistics (the log of
	 * BPF_LOG_STATS: instructions processed, states) are handed to it
	 * after the load, with verifier_ctx: bench/bpf_verifier. */
	void (*verifier_stats)(const char *prog, const char *log, void *ctx);
	void *verifier_ctx;
	/* collector__probe() tries every probe, needed by this run or not,
	 * for its list of what it found (record -v). */
	bool probe_all;
};

/*
 * How the context-switch program takes event e's delta in a run with
 * opts, on this kernel (opts' fallbacks): BPMC_HOW_CLOCK and
 * BPMC_HOW_COUNT need exact mode and software events only.
 */
enum bpmc_how collector__event_how(const struct collector_opts *opts, int e);

/*
 * Up to this many keys the counts hashes are preallocated: each insert
 * then pops a free list, and the batch take of 100k keys costs 54 ms of
 * CPU where hashes that allocate as keys come take 78 (bench/export_cost,
 * alternated; 48 against 64 ms at 64k keys). Beyond it, the
 * preallocation itself is the hazard: the kernel fills both hashes' free
 * lists in one system call that nothing interrupts, 0.8 s at 1M keys and
 * 2.5 s at 4M here (bench/keys_cost), soft lockups at 16M on a loaded
 * host (issue 18). 1M is where it stays under a second.
 */
#define COLLECTOR_PREALLOC_MAX_KEYS (1 << 20)

/*
 * The most memory the counts cost with opts (max_keys, nr_events,
 * no_prealloc): both hashes full, as the kernel accounts them (element
 * header, key, value, bucket, the allocator's node when not
 * preallocated), and the interval's copy that user space takes.
 */
uint64_t collector__keys_bytes(const struct collector_opts *opts);
/* The rows stage's sorted copy of an interval's keys and the radix
 * sort's second buffer (rows/key_sort.h: a struct key_order each). */
#define ROWS_SORT_BYTES_PER_KEY 48

/* What the kernel offers where bpmc can do without it. */
struct collector_features {
	bool ringbuf; /* BPF ring buffer and tp_btf/cgroup_mkdir */
	bool batch; /* bpf_map_lookup_and_delete_batch on hashes */
	/* perf_event programs may use a hash that is not preallocated */
	bool no_prealloc;
	/* Exact mode: the kfunc bpf_rdonly_cast and the perf_event fields
	 * behind it (BPMC_HOW_COUNT, BPMC_HOW_CLOCK), and rq->clock through
	 * a task's cfs_rq (BPMC_HOW_CLOCK). */
	bool event_loads;
	bool rq_clock;
	/* What each missing one costs, for the command to say once. */
	const char *fallback[5];
	int nr_fallbacks;
	/* With opts->probe_all, what each probe found, by the names of
	 * BPMC_TEST_PROBE_FAIL: "btf yes, ..., rdonly_cast no". */
	char found[320];
};

/*
 * Probes, before anything is loaded, every kernel feature that opts
 * need: a missing one bpmc cannot do without fails with -EOPNOTSUPP and
 * err naming it and the first Linux that has it; the others fill f.
 * BPMC_TEST_PROBE_FAIL=btf,tp_btf,test_run_on_cpu,perf_event,
 * perf_event_read_value,ringbuf,batch,rdonly_cast,rq_clock (tests only)
 * reports those missing.
 */
int collector__probe(const struct collector_opts *opts,
		     struct collector_features *f, struct error *err);

struct collector;

/* Opens, configures and loads the BPF object; err says why not. */
int collector__load(struct collector **out, const struct collector_opts *opts,
		    struct error *err);
/*
 * Puts every fd in the counters map, then attaches: an overflow program
 * per sampling leader fd, or the context-switch program in exact mode.
 */
int collector__attach(struct collector *c, const struct counters *counters,
		      struct error *err);
/*
 * CPU hotplug, at an interval boundary, after collector__take_retired().
 * detach_cpu: the CPU has no counters any more (offline, or back with
 * fds that stopped): BPF leaves it alone, its overflow programs are
 * detached and its fds leave the counters map; close them after.
 * attach_cpu: the CPU's new fds (opened disabled) go in, its readings
 * start from zero and it joins the live generation; enable them after.
 */
void collector__detach_cpu(struct collector *c, const struct counters *counters,
			   int cpu);
int collector__attach_cpu(struct collector *c, const struct counters *counters,
			  int cpu, struct error *err);
/* Exact mode: each counter as the flush read it, in its own instant. */
struct flush_cut {
	struct counter_reading reading[BPMC_MAX_EVENTS];
	uint32_t ok; /* a bit per counter read; 0 when none was */
};

/*
 * Ends the interval on one CPU: credits what is pending there (exact
 * mode) and flips the CPU's generation. Call it on every online CPU, each
 * time from that CPU so that reading its fds right after sees the same
 * instant, then take the retired generation. cut (may be NULL) gets the
 * readings the flush credited up to, which no switch can come between
 * (a read(2) after it can be preempted). -ENXIO: cpu is offline.
 */
int collector__flush_cpu(struct collector *c, int cpu, struct flush_cut *cut);
/* Moves the retired generation's contents into data, emptying it. */
int collector__take_retired(struct collector *c, struct interval_data *data);
/* Run time and runs of all our programs so far (BPF statistics). */
struct prog_stats {
	uint64_t run_time_ns;
	uint64_t runs;
};
int collector__prog_stats(struct collector *c, struct prog_stats *out);
/* --self-stats: hold the kernel's run-time statistics on while we live
 * (an fd; they go off with it, even if bpmc crashes). */
int collector__enable_stats(struct collector *c);

/* Benchmarks: adds a key to the live generation as if BPF had. */
int collector__inject(struct collector *c, const struct bpmc_key *key,
		      const struct bpmc_value *value);

/* Hands every cgroup made since the last call to fn, with ctx. */
int collector__take_new_cgroups(struct collector *c,
				void (*fn)(void *ctx,
					   const struct bpmc_cgroup_event *e),
				void *ctx);
void collector__destroy(struct collector *c);

#endif
