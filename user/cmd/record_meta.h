/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What every file says of itself in its first rows (docs/csv-schema.md,
 * "Meta rows"): the bpmc and schema versions, the mode, the interval,
 * the sampling rate, each event's encoding, and which host and boot
 * made it, so that files from a fleet can be concatenated and still be
 * told apart.
 */
#ifndef BPMC_CMD_RECORD_META_H
#define BPMC_CMD_RECORD_META_H

#include "cmd/record.h"
#include "names/events.h"
#include "sinks/csv_sink.h"

#define RECORD_META_MAX (24 + BPMC_MAX_EVENTS)

struct record_meta {
	struct csv_meta rows[RECORD_META_MAX];
	size_t nr;
	char text[RECORD_META_MAX][512]; /* the values' storage */
};

void record_meta__build(struct record_meta *m, const struct record_env *env,
			const struct event_list *events, const char *host);

#endif
