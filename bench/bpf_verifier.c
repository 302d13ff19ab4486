// SPDX-License-Identifier: GPL-2.0
/*
 * bpf_verifier: what each BPF program costs the verifier and the JIT,
 * loaded as bpmc record loads them (collector__probe's fallbacks, then
 * collector__load) in each mode: sampling with one event, exact with one
 * and with four software events, and exact with cycles and instructions
 * (loaded, never attached: a host without a PMU loads them too).
 * One line a program: "bpf_prog CONFIG PROGRAM xlated_insns jited_bytes
 * verified_insns total_states peak_states", the first three from
 * bpf_prog_info of the fds this process holds, the states from the
 * verifier's BPF_LOG_STATS log, which the collector hands over.
 * Needs root.
 */
#include <bpf/bpf.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/util.h"
#include "maps/collector.h"
#include "names/events.h"

struct config {
	const char *name;
	bool exact;
	const char *events;
};

static const struct config configs[] = {
	{ "sampling_1ev", false, "cpu-clock" },
	{ "exact_1ev", true, "cpu-clock" },
	{ "exact_4ev", true,
	  "cpu-clock,task-clock,page-faults,context-switches" },
	/* record's default events where there is a PMU: loads without one */
	{ "exact_2hw", true, "cycles,instructions" },
};

/* What the collector hands over: each program's BPF_LOG_STATS log. */
struct stats {
	char name[16][64];
	long total[16], peak[16];
	int nr;
};

/* "processed N insns (limit L) max_states_per_insn M total_states T
 * peak_states P mark_read R" */
static void on_stats(const char *prog, const char *log, void *ctx)
{
	struct stats *st = ctx;
	const char *at = strstr(log, "total_states ");
	int i = st->nr;

	if (i == 16)
		return;
	snprintf(st->name[i], sizeof(st->name[i]), "%s", prog);
	st->total[i] = st->peak[i] = -1;
	if (at)
		sscanf(at, "total_states %ld peak_states %ld", &st->total[i],
		       &st->peak[i]);
	st->nr++;
}

/* The name libbpf gave what bpf_prog_info cut to 15 characters. */
static int stats_of(const struct stats *st, const char *name)
{
	for (int i = 0; i < st->nr; i++)
		if (!strncmp(st->name[i], name, BPF_OBJ_NAME_LEN - 1))
			return i;
	return -1;
}

static int one_config(const struct config *cfg, struct events *names)
{
	struct collector_opts opts = { .max_keys = 16384, .v1_subsys = -1 };
	struct collector_features f;
	struct event_list events;
	struct collector *c = NULL;
	struct error err = {};
	struct stats st = {};
	struct dirent *d;
	DIR *fds;

	if (events__parse_list(names, cfg->events, &events, &err))
		goto fail;
	opts.key_tgid = true; /* --by cgroup,process */
	opts.nr_events = events.nr;
	opts.exact = cfg->exact;
	opts.no_mux = true; /* as record: software events only */
	opts.events = &events;
	for (int e = 0; e < events.nr; e++) {
		opts.leader[e] = events.ev[e].leader;
		opts.no_mux &= events.ev[e].attr.type == PERF_TYPE_SOFTWARE;
	}
	if (collector__probe(&opts, &f, &err))
		goto fail;
	opts.no_ringbuf = !f.ringbuf;
	opts.no_batch = !f.batch;
	opts.no_event_loads = !f.event_loads;
	opts.no_rq_clock = !f.rq_clock;
	opts.no_prealloc = f.no_prealloc;
	opts.verifier_stats = on_stats;
	opts.verifier_ctx = &st;
	if (collector__load(&c, &opts, &err))
		goto fail;
	fds = opendir("/proc/self/fd");
	while (fds && (d = readdir(fds))) {
		struct bpf_prog_info info = {};
		__u32 len = sizeof(info);
		char target[64];
		ssize_t n;
		int i;

		n = readlinkat(dirfd(fds), d->d_name, target,
			       sizeof(target) - 1);
		if (n <= 0)
			continue;
		target[n] = '\0';
		if (strcmp(target, "anon_inode:bpf-prog") ||
		    bpf_obj_get_info_by_fd(atoi(d->d_name), &info, &len))
			continue;
		i = stats_of(&st, info.name);
		printf("bpf_prog %s %s %u %u %u %ld %ld\n", cfg->name,
		       i < 0 ? info.name : st.name[i], info.xlated_prog_len / 8,
		       info.jited_prog_len, info.verified_insns,
		       i < 0 ? -1 : st.total[i], i < 0 ? -1 : st.peak[i]);
	}
	if (fds)
		closedir(fds);
	collector__destroy(c);
	return 0;
fail:
	fprintf(stderr, "bpf_verifier: %s: %s\n", cfg->name, err.msg);
	return 1;
}

int main(void)
{
	struct events *names = NULL;
	struct error err = {};
	int ret = 0;

	if (events__new(&names, NULL, &err)) {
		fprintf(stderr, "bpf_verifier: %s\n", err.msg);
		return 2;
	}
	for (size_t i = 0; i < ARRAY_SIZE(configs); i++)
		ret |= one_config(&configs[i], names);
	events__free(names);
	return ret;
}
