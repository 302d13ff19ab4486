/* SPDX-License-Identifier: GPL-2.0 */
/* fds -> BPF maps: the skeleton's life cycle and the per-interval take. */
#ifndef BPMC_COLLECTOR_H
#define BPMC_COLLECTOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "collect.h"
#include "counters.h"

struct collector_opts {
	bool key_tgid; /* process or thread rows requested */
	bool key_tid; /* thread rows requested */
	uint32_t max_keys; /* distinct keys per interval */
	int nr_events;
};

/* What one interval attributed: one entry per distinct key. */
struct interval_data {
	struct bpmc_key *keys;
	struct bpmc_value *values;
	size_t nr, cap;
	uint64_t drops[BPMC_DROP_NR]; /* lost in this interval */
};

struct collector;

/* Opens, configures and loads the BPF object; prints why on failure. */
int collector__load(struct collector **out, const struct collector_opts *opts);
/* Attaches the overflow program to every fd, cookie = event index. */
int collector__attach(struct collector *c, const struct counters *counters);
/*
 * Ends the current interval: retires the live generation, waits until no
 * program can still write into it, and moves its contents into data.
 */
int collector__take_interval(struct collector *c, struct interval_data *data);
void collector__destroy(struct collector *c);

void interval_data__free(struct interval_data *data);

#endif
