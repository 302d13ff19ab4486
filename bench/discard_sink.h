/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A sink that takes every row and keeps none: the rows stage's own
 * cost, before any formatting, for the export benches.
 */
#ifndef BPMC_BENCH_DISCARD_SINK_H
#define BPMC_BENCH_DISCARD_SINK_H

#include "sinks/sink.h"

static inline int discard_begin(struct sink *s, const struct interval_info *i)
{
	return 0;
}

static inline int discard_row(struct sink *s, const struct row *r)
{
	return 0;
}

static inline int discard_end(struct sink *s)
{
	return 0;
}

static const struct sink_ops discard_ops = { .name = "discard",
					     .begin_interval = discard_begin,
					     .write_row = discard_row,
					     .end_interval = discard_end };

#endif
