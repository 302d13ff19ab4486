/* SPDX-License-Identifier: GPL-2.0 */
/*
 * record's status line: when stderr is a terminal, one line redrawn in
 * place after every interval (elapsed time, intervals, rows, file size,
 * losses), erased while the interval is written so that a warning never
 * lands in the middle of it, and left on screen at exit. Never drawn
 * when stderr is not a terminal, so that logs stay clean.
 */
#ifndef BPMC_CMD_RECORD_STATUS_H
#define BPMC_CMD_RECORD_STATUS_H

#include <stdbool.h>
#include <stdint.h>

struct record_status {
	bool on;
	bool drawn;
	uint64_t start_ns; /* CLOCK_MONOTONIC */
	uint64_t intervals;
};

struct record_progress {
	uint64_t rows, bytes; /* csv_sink__progress() */
	uint64_t samples_lost; /* the maps' drops, all reasons */
	uint64_t intervals_lost; /* the CSV's */
};

/* on: whether to draw at all (stderr is a tty, and no screen of ours). */
void record_status__init(struct record_status *s, bool on);
/* Erases the line, if drawn, so that the next word starts a line. */
void record_status__clear(struct record_status *s);
/* After an interval: counts it and redraws the line. */
void record_status__interval(struct record_status *s,
			     const struct record_progress *p);
/* At exit: the last line stays, and the cursor goes below it. */
void record_status__end(struct record_status *s);

/* "1.5 MB", "812 B": bytes for people (SI, as du -h --si). */
void format_bytes_si(uint64_t bytes, char *out, size_t len);

#endif
