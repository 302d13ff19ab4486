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
#include "sinks/sink.h"

/* The fixed rows, an encoding row per event, and a row per event that
 * --best-effort dropped. */
#define RECORD_META_MAX (24 + 2 * BPMC_MAX_EVENTS)

struct record_meta {
	struct csv_meta rows[RECORD_META_MAX];
	size_t nr;
	char text[RECORD_META_MAX][512]; /* the values' storage */
	char keys[BPMC_MAX_EVENTS][32 + EVENT_NAME_LEN]; /* event_unsupported:E */
};

/*
 * asked is the list -e gave, live what is counted of it (the same list
 * but for what --best-effort dropped), support[] one per event asked.
 */
void record_meta__build(struct record_meta *m, const struct collect_env *env,
			const struct event_list *asked,
			const struct event_list *live,
			const struct event_support *support, const char *host);

#endif
