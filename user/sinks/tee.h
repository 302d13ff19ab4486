/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One sink that hands every row to several, each leaving out the scopes
 * it was not asked for: the rows stage makes the union of what the CSV
 * (--by) and Prometheus (--prom-scopes) want, once, and each output
 * takes its part. The tee owns neither its outputs nor their errors
 * beyond copying the first failure into its own.
 */
#ifndef BPMC_SINKS_TEE_H
#define BPMC_SINKS_TEE_H

#include "sinks/sink.h"

#define TEE_MAX_OUTPUTS 4
#define TEE_MAX_DROPS 8

struct tee_output {
	struct sink *sink;
	/* Row scopes this output does not take ("process", "pod"...). */
	const char *drop[TEE_MAX_DROPS];
	int nr_drop;
};

int tee__new(struct sink *s, const struct tee_output *outs, int nr);

#endif
