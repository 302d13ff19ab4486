// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "maps/collector.h"
#include "maps/entries.h"
/* After collector.h: the skeleton refers to the shared types by name. */
#include "collect.skel.h"
#include "common/util.h"

struct collector {
	struct collect_bpf *skel;
	struct bpf_link *prog_links[4]; /* the tracing programs */
	int nr_prog_links;
	/* Overflow programs, [event * nr_cpus + cpu] like the fds: a CPU's
	 * are detached when it goes offline and attached when it returns. */
	struct bpf_link **fd_links;
	int nr_fd_links;
	int nr_cpus;
	size_t value_size; /* the counts maps': BPMC_VALUE_SIZE(nr_events) */
	struct bpmc_slot *slot_buf; /* a slot read back from the map */
	uint64_t *drop_buf; /* one per possible CPU */
	uint64_t drops_seen[BPMC_DROP_NR];
	__u32 gen; /* every CPU's live generation */
	bool ringbuf, batch; /* what the kernel offers (collector__probe) */
	/* The store: each generation's entries array, mapped, and which
	 * key has which entry (maps/entries.h). */
	void *entries_map[BPMC_GENERATIONS];
	size_t entries_map_len;
	struct entries *entries;
	struct ring_buffer *new_cgroups;
	int stats_fd;
	void (*on_new_cgroup)(void *ctx, const struct bpmc_cgroup_event *e);
	void *on_new_cgroup_ctx;
};

static int libbpf_print(enum libbpf_print_level level, const char *fmt,
			va_list args)
{
	if (level == LIBBPF_DEBUG && !verbose)
		return 0;
	if (level == LIBBPF_INFO && !verbose)
		return 0;
	return vfprintf(stderr, fmt, args);
}

/* The overflow program of event e: on_overflow_<e>. */
static struct bpf_program *overflow_prog(struct collector *c, int e)
{
	char name[32];

	snprintf(name, sizeof(name), "on_overflow_%d", e);
	return bpf_object__find_program_by_name(c->skel->obj, name);
}

enum bpmc_how collector__event_how(const struct collector_opts *o, int e)
{
	const struct perf_event_attr *a;

	/* A hardware event in the run: every counter is read with its
	 * times, as multiplexing may scale any of them. */
	if (!o->exact || !o->no_mux || !o->events || o->no_event_loads ||
	    e >= o->events->nr)
		return BPMC_HOW_READ;
	a = &o->events->ev[e].attr;
	if (a->type != PERF_TYPE_SOFTWARE)
		return BPMC_HOW_READ;
	switch (a->config) {
	case PERF_COUNT_SW_CPU_CLOCK:
	case PERF_COUNT_SW_TASK_CLOCK:
		/* rq->clock is all of the CPU's time: a clock event with a
		 * modifier is read, whatever the kernel makes of it. */
		return o->no_rq_clock || a->exclude_user || a->exclude_kernel ||
				       a->exclude_hv || a->exclude_idle ?
			       BPMC_HOW_READ :
			       BPMC_HOW_CLOCK;
	/* perf_swevent's own: counted as they happen, by the modifiers,
	 * and read as they are (its read is a no-op). */
	case PERF_COUNT_SW_PAGE_FAULTS:
	case PERF_COUNT_SW_CONTEXT_SWITCHES:
	case PERF_COUNT_SW_CPU_MIGRATIONS:
	case PERF_COUNT_SW_PAGE_FAULTS_MIN:
	case PERF_COUNT_SW_PAGE_FAULTS_MAJ:
	case PERF_COUNT_SW_ALIGNMENT_FAULTS:
	case PERF_COUNT_SW_EMULATION_FAULTS:
	case PERF_COUNT_SW_CGROUP_SWITCHES:
		return BPMC_HOW_COUNT;
	default:
		return BPMC_HOW_READ;
	}
}

/*
 * Exact mode, all software: context-switches that count kernel mode,
 * where every switch happens (bpf/maps.bpf.h's ev_switch).
 */
static bool switch_ahead(const struct collector_opts *o, int e)
{
	const struct perf_event_attr *a;

	if (!o->exact || !o->no_mux || !o->events || e >= o->events->nr)
		return false;
	a = &o->events->ev[e].attr;
	return a->type == PERF_TYPE_SOFTWARE &&
	       a->config == PERF_COUNT_SW_CONTEXT_SWITCHES &&
	       !a->exclude_kernel;
}

/* Maps both generations' entries arrays and sets up their keeping. */
static int map_entries(struct collector *c, uint32_t max_keys,
		       struct error *error)
{
	struct bpf_map *gen[] = { c->skel->maps.entries_0,
				  c->skel->maps.entries_1 };
	size_t page = sysconf(_SC_PAGESIZE);
	int err;

	c->entries_map_len = ((c->value_size + 7) & ~(size_t)7) * max_keys;
	c->entries_map_len = (c->entries_map_len + page - 1) / page * page;
	for (int g = 0; g < BPMC_GENERATIONS; g++) {
		c->entries_map[g] = mmap(NULL, c->entries_map_len,
					 PROT_READ | PROT_WRITE, MAP_SHARED,
					 bpf_map__fd(gen[g]), 0);
		if (c->entries_map[g] == MAP_FAILED) {
			c->entries_map[g] = NULL;
			return error__set(
				error, errno,
				"cannot map the counts of %u keys: %s",
				max_keys, strerror(errno));
		}
	}
	err = entries__new(&c->entries, max_keys, c->value_size, c->entries_map,
			   bpf_map__fd(c->skel->maps.key_entry), c->batch);
	return err ? error__set(error, err, "out of memory") : 0;
}

/* BPF_LOG_STATS writes three lines: time, stack depth, the totals. */
typedef char verifier_log[1024];

/* A log buffer per program, in the object's order; NULL without memory. */
static verifier_log *verifier_logs(struct collector *c)
{
	struct bpf_program *prog;
	verifier_log *logs;
	size_t n = 0;

	bpf_object__for_each_program(prog, c->skel->obj) n++;
	logs = calloc(n, sizeof(*logs));
	if (!logs)
		return NULL;
	n = 0;
	bpf_object__for_each_program(prog, c->skel->obj)
	{
		bpf_program__set_log_level(prog, 4 /* BPF_LOG_STATS */);
		bpf_program__set_log_buf(prog, logs[n++], sizeof(*logs));
	}
	return logs;
}

static void verifier_report(struct collector *c,
			    const struct collector_opts *opts,
			    verifier_log *logs)
{
	struct bpf_program *prog;
	size_t n = 0;

	bpf_object__for_each_program(prog, c->skel->obj)
	{
		if (bpf_program__autoload(prog))
			opts->verifier_stats(bpf_program__name(prog), logs[n],
					     opts->verifier_ctx);
		n++;
	}
}

int collector__load(struct collector **out, const struct collector_opts *opts,
		    struct error *error)
{
	struct collector *c;
	bool loads = false;
	verifier_log *logs = NULL;
	int err;

	libbpf_set_print(libbpf_print);
	c = calloc(1, sizeof(*c));
	if (!c)
		return error__set(error, ENOMEM, "out of memory");
	c->stats_fd = -1;
	c->nr_cpus = libbpf_num_possible_cpus();
	if (c->nr_cpus < 0 || c->nr_cpus > BPMC_MAX_CPUS) {
		err = error__set(
			error, c->nr_cpus < 0 ? c->nr_cpus : E2BIG,
			"this host has %d possible CPUs; bpmc handles 1 to %d",
			c->nr_cpus, BPMC_MAX_CPUS);
		free(c);
		return err;
	}
	c->slot_buf = calloc(1, sizeof(*c->slot_buf));
	c->drop_buf = calloc(c->nr_cpus, sizeof(*c->drop_buf));
	if (!c->slot_buf || !c->drop_buf) {
		err = error__set(error, ENOMEM, "out of memory");
		goto cleanup;
	}

	c->skel = collect_bpf__open();
	if (!c->skel) {
		err = error__set(error, errno, "cannot open the BPF object: %s",
				 strerror(errno));
		goto cleanup;
	}
	c->skel->rodata->key_tgid = opts->key_tgid;
	c->skel->rodata->key_tid = opts->key_tid;
	c->skel->rodata->nr_events = opts->nr_events;
	c->skel->rodata->nr_cpus = c->nr_cpus;
	c->skel->rodata->exact = opts->exact;
	c->skel->rodata->no_mux = opts->no_mux;
	for (int e = 0; e < opts->nr_events && e < BPMC_MAX_EVENTS; e++) {
		enum bpmc_how how = collector__event_how(opts, e);

		c->skel->rodata->ev_how[e] = how;
		c->skel->rodata->use_clock |= how == BPMC_HOW_CLOCK;
		loads |= how != BPMC_HOW_READ;
		c->skel->rodata->ev_switch[e] = switch_ahead(opts, e);
	}
	for (int e = 0; e < BPMC_MAX_EVENTS; e++)
		c->skel->rodata->group_leader[e] =
			e < opts->nr_events ? opts->leader[e] : e;
	c->skel->rodata->v1_subsys = opts->v1_subsys;
	c->skel->rodata->filter_nr = opts->nr_filters;
	for (int i = 0; i < opts->nr_filters && i < BPMC_MAX_FILTERS; i++) {
		c->skel->rodata->filter_level[i] = opts->filter_level[i];
		c->skel->rodata->filter_id[i] = opts->filter_id[i];
	}
	/* Only the run's events: what the kernel copies out per key, and
	 * the memory of the hashes and arrays, shrink with them. */
	c->value_size = BPMC_VALUE_SIZE(opts->nr_events);
	{
		struct bpf_map *keyed[] = { c->skel->maps.counts_0,
					    c->skel->maps.counts_1,
					    c->skel->maps.key_entry };
		struct bpf_map *sized[] = { c->skel->maps.counts_0,
					    c->skel->maps.counts_1,
					    c->skel->maps.entries_0,
					    c->skel->maps.entries_1 };

		for (size_t i = 0; i < ARRAY_SIZE(keyed); i++) {
			bpf_map__set_max_entries(keyed[i], opts->max_keys);
			if (opts->no_prealloc)
				bpf_map__set_map_flags(keyed[i],
						       BPF_F_NO_PREALLOC);
		}
		for (size_t i = 0; i < ARRAY_SIZE(sized); i++)
			bpf_map__set_value_size(sized[i], c->value_size);
		bpf_map__set_max_entries(c->skel->maps.entries_0,
					 opts->max_keys);
		bpf_map__set_max_entries(c->skel->maps.entries_1,
					 opts->max_keys);
	}
	bpf_map__set_max_entries(c->skel->maps.slots, c->nr_cpus *
							      BPMC_GENERATIONS *
							      BPMC_SLOT_WAYS);
	bpf_map__set_max_entries(c->skel->maps.cpus, c->nr_cpus);
	bpf_map__set_max_entries(c->skel->maps.counters,
				 opts->nr_events * c->nr_cpus);
	/* Load only the programs this mode runs: an overflow program per
	 * sampling leader, or the context-switch program. */
	for (int e = 0; e < BPMC_MAX_EVENTS; e++)
		bpf_program__set_autoload(overflow_prog(c, e),
					  !opts->exact && e < opts->nr_events &&
						  opts->leader[e] == e);
	/* One context-switch program: the one that loads perf_events only
	 * where the kernel has what it needs, never sent to another. */
	bpf_program__set_autoload(c->skel->progs.on_switch,
				  opts->exact && !loads);
	bpf_program__set_autoload(c->skel->progs.on_switch_loads,
				  opts->exact && loads);
	c->ringbuf = !opts->no_ringbuf;
	c->batch = !opts->no_batch;
	if (!c->ringbuf) {
		bpf_program__set_autoload(c->skel->progs.on_cgroup_mkdir,
					  false);
		bpf_map__set_autocreate(c->skel->maps.new_cgroups, false);
	}

	if (opts->verifier_stats) {
		logs = verifier_logs(c);
		if (!logs) {
			err = error__set(error, ENOMEM, "out of memory");
			goto cleanup;
		}
	}
	err = collect_bpf__load(c->skel);
	if (!err && logs)
		verifier_report(c, opts, logs);
	free(logs);
	if (err) {
		error__set(
			error, err,
			"cannot load the BPF programs: %s (run with -v for the verifier log)",
			strerror(-err));
		goto cleanup;
	}
	err = map_entries(c, opts->max_keys, error);
	if (err)
		goto cleanup;
	*out = c;
	return 0;
cleanup:
	collector__destroy(c);
	return err;
}

/*
 * The kernel's htab_map_mem_usage(): per element a struct htab_elem of
 * 48 bytes, the key and the value rounded to 8, one 16-byte bucket per
 * power of two at or above max_entries, and the memory allocator's
 * 8-byte node when not preallocated; array_map_mem_usage(): the values
 * rounded to 8. The three hashes (the counts of each generation and
 * key_entry), the store's two arrays, then user space's: the interval's
 * copy, the keeping of entries and the rows stage's sort. bench/keys_cost and
 * test_record_max_keys compare it with the kernel's fdinfo memlock.
 */
uint64_t collector__keys_bytes(const struct collector_opts *opts)
{
	uint64_t n = opts->max_keys, buckets = 1;
	uint64_t value = (BPMC_VALUE_SIZE(opts->nr_events) + 7) & ~7ull;
	uint64_t key = (sizeof(struct bpmc_key) + 7) & ~7ull;
	uint64_t node = opts->no_prealloc ? 8 : 0;
	uint64_t counts_elem = 48 + key + value + node;
	uint64_t entry_elem = 48 + key + sizeof(__u32) + 4 + node;

	while (buckets < n)
		buckets *= 2;
	return n * (2 * counts_elem + entry_elem) + 3 * buckets * 16 +
	       n * 2 * value + n * (sizeof(struct bpmc_key) + value) +
	       n * ENTRIES_BYTES_PER_KEY + n * ROWS_SORT_BYTES_PER_KEY;
}

static int attach_prog(struct collector *c, struct bpf_program *prog,
		       struct error *error)
{
	struct bpf_link *link = bpf_program__attach(prog);

	if (!link)
		return error__set(error, errno, "cannot attach %s: %s",
				  bpf_program__section_name(prog),
				  strerror(errno));
	c->prog_links[c->nr_prog_links++] = link;
	return 0;
}

/* cpu_gen[cpu] is a word that the flush on that CPU also writes: one
 * store, never a read-modify-write racing it (we flush from here). */
static void set_cpu_gen(struct collector *c, int cpu, __u32 gen)
{
	__atomic_store_n(&c->skel->data->control.cpu_gen[cpu], gen,
			 __ATOMIC_RELEASE);
}

static __u32 cpu_gen(struct collector *c, int cpu)
{
	return __atomic_load_n(&c->skel->data->control.cpu_gen[cpu],
			       __ATOMIC_ACQUIRE);
}

/* Puts cpu's fds in the counters map: every fd can be read from BPF
 * (exact mode and group members). */
static int map_fds(struct collector *c, const struct counters *counters,
		   int cpu, struct error *error)
{
	int map_fd = bpf_map__fd(c->skel->maps.counters);
	__u32 idx;

	for (int e = 0; e < counters->nr_events; e++) {
		idx = e * counters->nr_cpus + cpu;
		if (counters->fd[idx] >= 0 &&
		    bpf_map_update_elem(map_fd, &idx, &counters->fd[idx],
					BPF_ANY))
			return error__set(
				error, errno,
				"cannot add event %d on cpu %d to the counters map: %s",
				e, cpu, strerror(errno));
	}
	return 0;
}

/* Attaches the overflow programs to cpu's sampling fds. */
static int link_fds(struct collector *c, const struct counters *counters,
		    int cpu, struct error *error)
{
	struct bpf_program *prog;
	struct bpf_link *link;
	__u32 idx;

	for (int e = 0; e < counters->nr_events; e++) {
		idx = e * counters->nr_cpus + cpu;
		prog = overflow_prog(c, e);
		if (counters->fd[idx] < 0 || !bpf_program__autoload(prog))
			continue;
		/* libbpf enables the fd as it attaches. */
		link = bpf_program__attach_perf_event(prog, counters->fd[idx]);
		if (!link)
			return error__set(
				error, errno,
				"cannot attach to event %d on cpu %d: %s", e,
				cpu, strerror(errno));
		c->fd_links[idx] = link;
	}
	return 0;
}

int collector__attach(struct collector *c, const struct counters *counters,
		      struct error *error)
{
	int err = 0;

	c->nr_fd_links = counters->nr_events * counters->nr_cpus;
	c->fd_links = calloc(c->nr_fd_links, sizeof(*c->fd_links));
	if (!c->fd_links)
		return error__set(error, ENOMEM, "out of memory");
	/* Before the context-switch program runs: a possible CPU without
	 * fds (offline now) must be left alone if it comes online. */
	for (int cpu = 0; cpu < c->nr_cpus; cpu++)
		set_cpu_gen(c, cpu,
			    counters__has_cpu(counters, cpu) ? 0 :
							       BPMC_CPU_OFF);
	/* Every fd in the map before the context-switch program runs: a
	 * read of an empty slot fails, and was counted as lost. */
	for (int cpu = 0; cpu < counters->nr_cpus && !err; cpu++)
		err = map_fds(c, counters, cpu, error);
	if (!err)
		err = attach_prog(c, c->skel->progs.on_cgroup_attach, error);
	if (!err && c->ringbuf)
		err = attach_prog(c, c->skel->progs.on_cgroup_mkdir, error);
	if (!err)
		err = attach_prog(c, c->skel->progs.on_exec, error);
	if (!err && bpf_program__autoload(c->skel->progs.on_switch))
		err = attach_prog(c, c->skel->progs.on_switch, error);
	if (!err && bpf_program__autoload(c->skel->progs.on_switch_loads))
		err = attach_prog(c, c->skel->progs.on_switch_loads, error);
	for (int cpu = 0; cpu < counters->nr_cpus && !err; cpu++)
		err = link_fds(c, counters, cpu, error);
	return err;
}

void collector__detach_cpu(struct collector *c, const struct counters *counters,
			   int cpu)
{
	int map_fd = bpf_map__fd(c->skel->maps.counters);
	__u32 idx;

	/* First, so that the context-switch program stops reading them. */
	set_cpu_gen(c, cpu, (cpu_gen(c, cpu) & BPMC_CPU_GEN) | BPMC_CPU_OFF);
	for (int e = 0; e < counters->nr_events; e++) {
		idx = e * counters->nr_cpus + cpu;
		bpf_link__destroy(c->fd_links[idx]);
		c->fd_links[idx] = NULL;
		/* The map holds the perf file: closing the fd would not
		 * free the event. ENOENT: it never was in. */
		bpf_map_delete_elem(map_fd, &idx);
	}
}

int collector__attach_cpu(struct collector *c, const struct counters *counters,
			  int cpu, struct error *error)
{
	struct bpmc_cpu fresh = {};
	__u32 key = cpu;
	int err;

	/* The new fds count from zero: a reading kept from the old ones
	 * would make the first delta of each counter wrap to ~2^64. */
	if (bpf_map_update_elem(bpf_map__fd(c->skel->maps.cpus), &key, &fresh,
				BPF_ANY))
		return error__set(error, errno,
				  "cannot reset the readings of cpu %d: %s",
				  cpu, strerror(errno));
	/*
	 * The fds before the generation, for the context-switch program
	 * reads them once BPMC_CPU_OFF is clear; the generation before the
	 * overflow programs, which do not look at BPMC_CPU_OFF. It is the
	 * live one, which the next take retires: the parity the CPU had
	 * when it left is stale by now.
	 */
	err = map_fds(c, counters, cpu, error);
	if (!err) {
		set_cpu_gen(c, cpu, c->gen);
		err = link_fds(c, counters, cpu, error);
	}
	if (err)
		collector__detach_cpu(c, counters, cpu);
	return err;
}

/*
 * Without batch operations: every key first (nothing writes the retired
 * hash, so the walk is stable), then each value, then the deletes.
 */
static int take_counts_one_by_one(int map_fd, struct interval_data *d,
				  uint32_t max_keys)
{
	size_t first = d->nr, n = 0;
	void *prev = NULL;
	int err = interval_data__reserve(d, d->nr + max_keys);

	if (err)
		return err;
	while (n < max_keys &&
	       !bpf_map_get_next_key(map_fd, prev, &d->keys[first + n])) {
		prev = &d->keys[first + n];
		n++;
	}
	if (n < max_keys && errno != ENOENT)
		return -errno;
	for (size_t i = 0; i < n; i++) {
		if (bpf_map_lookup_elem(map_fd, &d->keys[first + i],
					(char *)d->values +
						d->nr * d->value_size))
			continue; /* cannot happen: nothing else deletes */
		d->keys[d->nr] = d->keys[first + i];
		d->nr++;
	}
	for (size_t i = first; i < d->nr; i++) {
		if (bpf_map_delete_elem(map_fd, &d->keys[i]) && errno != ENOENT)
			return -errno;
	}
	return 0;
}

/* Moves the whole retired hash into data, emptying it for its next turn. */
static int take_counts(int map_fd, struct interval_data *d, uint32_t max_keys)
{
	LIBBPF_OPTS(bpf_map_batch_opts, opts);
	__u64 in_batch = 0, out_batch;
	void *in = NULL;
	__u32 count;
	int err;

	for (;;) {
		err = interval_data__reserve(d, d->nr + max_keys);
		if (err)
			return err;
		count = max_keys;
		err = bpf_map_lookup_and_delete_batch(
			map_fd, in, &out_batch, d->keys + d->nr,
			(char *)d->values + d->nr * d->value_size, &count,
			&opts);
		if (err && errno != ENOENT)
			return -errno;
		d->nr += count;
		if (err) /* ENOENT: the map is empty now */
			return 0;
		in_batch = out_batch;
		in = &in_batch;
	}
}

/* Adds the retired slots of every CPU (tasks still pending there). */
static int take_slots(struct collector *c, __u32 g, struct interval_data *d)
{
	int fd = bpf_map__fd(c->skel->maps.slots);
	struct bpmc_slot *s = c->slot_buf;
	__u32 idx;
	int err;

	err = interval_data__reserve(d, d->nr + c->nr_cpus * BPMC_SLOT_WAYS);
	if (err)
		return err;
	for (int i = 0; i < c->nr_cpus * BPMC_SLOT_WAYS; i++) {
		int cpu = i / BPMC_SLOT_WAYS, way = i % BPMC_SLOT_WAYS;

		idx = (cpu * BPMC_GENERATIONS + g) * BPMC_SLOT_WAYS + way;
		if (bpf_map_lookup_elem(fd, &idx, s))
			return -errno;
		if (!s->key.cgroup_id || s->skip)
			continue;
		d->keys[d->nr] = s->key;
		memcpy((char *)d->values + d->nr * d->value_size, &s->value,
		       d->value_size);
		d->nr++;
		memset(s, 0, sizeof(*s));
		if (bpf_map_update_elem(fd, &idx, s, BPF_ANY))
			return -errno;
	}
	return 0;
}

static int take_drops(struct collector *c, struct interval_data *d)
{
	int fd = bpf_map__fd(c->skel->maps.drops);

	uint64_t total;

	/* The map stays cumulative: resetting it would race with a CPU
	 * that is counting a drop right now. */
	for (__u32 why = 0; why < BPMC_DROP_NR; why++) {
		if (bpf_map_lookup_elem(fd, &why, c->drop_buf))
			return -errno;
		total = 0;
		for (int cpu = 0; cpu < c->nr_cpus; cpu++)
			total += c->drop_buf[cpu];
		d->drops[why] = total - c->drops_seen[why];
		c->drops_seen[why] = total;
	}
	return 0;
}

/* cpu's state; false when it cannot be read. */
static bool cpu_state(struct collector *c, int cpu, struct bpmc_cpu *st)
{
	__u32 key = cpu;

	return !bpf_map_lookup_elem(bpf_map__fd(c->skel->maps.cpus), &key, st);
}

int collector__flush_cpu(struct collector *c, int cpu, struct flush_cut *cut)
{
	LIBBPF_OPTS(bpf_test_run_opts, opts, .flags = BPF_F_TEST_RUN_ON_CPU,
		    .cpu = cpu);
	struct bpmc_cpu st;
	__u64 seq = 0;
	bool want = cut && c->skel->rodata->exact;

	if (cut)
		cut->ok = 0;
	/* The cut is the flush's only if it counted this flush: one that
	 * found the CPU without counters left the last one there. */
	if (want && cpu_state(c, cpu, &st))
		seq = st.cut_seq;
	else
		want = false;
	if (bpf_prog_test_run_opts(bpf_program__fd(c->skel->progs.flush),
				   &opts))
		return -errno;
	if (!want || !cpu_state(c, cpu, &st) || st.cut_seq == seq)
		return 0;
	for (int e = 0; e < BPMC_MAX_EVENTS; e++) {
		cut->reading[e].value = st.cut[e].counter;
		cut->reading[e].enabled = st.cut[e].enabled;
		cut->reading[e].running = st.cut[e].running;
	}
	cut->ok = st.cut_ok;
	return 0;
}

int collector__take_retired(struct collector *c, struct interval_data *d)
{
	__u32 old = c->gen;
	struct bpf_map *map;
	size_t new_keys;
	int err;

	c->gen ^= 1;
	d->nr = 0;
	if (d->value_size != c->value_size) {
		/* Sized for another stride (or none yet): start over. */
		interval_data__free(d);
		d->value_size = c->value_size;
	}
	map = old ? c->skel->maps.counts_1 : c->skel->maps.counts_0;
	/* First the keys new this interval, which get entries below. */
	err = (c->batch ? take_counts : take_counts_one_by_one)(
		bpf_map__fd(map), d, bpf_map__max_entries(map));
	new_keys = d->nr;
	if (!err)
		err = entries__take(c->entries, old, d);
	if (!err)
		err = take_slots(c, old, d);
	if (!err)
		err = take_drops(c, d);
	if (!err)
		err = entries__assign(c->entries, d->keys, new_keys);
	return err;
}

static int new_cgroup(void *ctx, void *data, size_t size)
{
	struct collector *c = ctx;
	struct bpmc_cgroup_event e;

	/* The ring is mapped read-only: terminate a copy, not the record. */
	if (size >= sizeof(e)) {
		memcpy(&e, data, sizeof(e));
		e.path[sizeof(e.path) - 1] = '\0';
		c->on_new_cgroup(c->on_new_cgroup_ctx, &e);
	}
	return 0;
}

int collector__take_new_cgroups(struct collector *c,
				void (*fn)(void *ctx,
					   const struct bpmc_cgroup_event *e),
				void *ctx)
{
	int n;

	if (!c->ringbuf)
		return 0;
	if (!c->new_cgroups) {
		c->new_cgroups =
			ring_buffer__new(bpf_map__fd(c->skel->maps.new_cgroups),
					 new_cgroup, c, NULL);
		if (!c->new_cgroups)
			return -errno;
	}
	c->on_new_cgroup = fn;
	c->on_new_cgroup_ctx = ctx;
	n = ring_buffer__consume(c->new_cgroups);
	return n < 0 ? n : 0;
}

int collector__prog_stats(struct collector *c, struct prog_stats *out)
{
	struct bpf_prog_info info;
	struct bpf_program *prog;
	__u32 len;
	int fd;

	memset(out, 0, sizeof(*out));
	bpf_object__for_each_program(prog, c->skel->obj)
	{
		fd = bpf_program__fd(prog);
		if (fd < 0)
			continue;
		memset(&info, 0, sizeof(info));
		len = sizeof(info);
		if (bpf_obj_get_info_by_fd(fd, &info, &len))
			return -errno;
		out->run_time_ns += info.run_time_ns;
		out->runs += info.run_cnt;
	}
	return 0;
}

int collector__enable_stats(struct collector *c)
{
	if (c->stats_fd < 0)
		c->stats_fd = bpf_enable_stats(BPF_STATS_RUN_TIME);
	return c->stats_fd < 0 ? -errno : 0;
}

int collector__inject(struct collector *c, const struct bpmc_key *key,
		      const struct bpmc_value *value)
{
	struct bpf_map *map = c->gen ? c->skel->maps.counts_1 :
				       c->skel->maps.counts_0;
	__u32 idx;

	/* Where the BPF side would put it: the key's entry, if it has one. */
	if (!bpf_map_lookup_elem(bpf_map__fd(c->skel->maps.key_entry), key,
				 &idx)) {
		memcpy((char *)c->entries_map[c->gen] +
			       idx * ((c->value_size + 7) & ~(size_t)7),
		       value, c->value_size);
		return 0;
	}
	return bpf_map_update_elem(bpf_map__fd(map), key, value, BPF_ANY) ?
		       -errno :
		       0;
}

void collector__destroy(struct collector *c)
{
	if (!c)
		return;
	if (c->stats_fd >= 0)
		close(c->stats_fd);
	ring_buffer__free(c->new_cgroups);
	for (int i = 0; i < c->nr_prog_links; i++)
		bpf_link__destroy(c->prog_links[i]);
	for (int i = 0; c->fd_links && i < c->nr_fd_links; i++)
		bpf_link__destroy(c->fd_links[i]);
	free(c->fd_links);
	entries__free(c->entries);
	for (int g = 0; g < BPMC_GENERATIONS; g++)
		if (c->entries_map[g])
			munmap(c->entries_map[g], c->entries_map_len);
	collect_bpf__destroy(c->skel);
	free(c->slot_buf);
	free(c->drop_buf);
	free(c);
}
