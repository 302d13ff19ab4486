/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The CSV sink: rows of an interval are formatted into memory and the
 * whole interval goes to the file at its end, followed by its
 * intervals_lost row. Files are published atomically and rotated by
 * publish.c; intervals the disk refuses are held (a bounded backlog) and
 * written in order once it accepts data again; -o - streams to stdout.
 */
#ifndef BPMC_SINKS_CSV_SINK_H
#define BPMC_SINKS_CSV_SINK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sinks/sink.h"

/* Rows of their own that open every file: what made it (docs). */
struct csv_meta {
	const char *scope; /* "meta" or "encoding" */
	const char *key; /* written in the event column */
	const char *value;
};

struct csv_config {
	const char *path; /* a template (publish.h), or "-" */
	const char *host;
	uint64_t rotate_s, rotate_bytes;
	long keep;
	uint64_t max_disk;
	long backlog; /* intervals held while writes fail */
	uint64_t start_ns; /* wall clock, for the first file's name */
};

/*
 * Checks the output (publisher__new), repairs what an earlier run left,
 * and makes s a CSV sink; s->notice must be set before. No file is
 * created until the first interval ends.
 */
int csv_sink__new(struct sink *s, const struct csv_config *cfg);

/* The meta rows every file starts with; they must outlive the sink. */
void csv_sink__set_meta(struct sink *s, const struct csv_meta *meta, size_t nr);

/* "-", a FIFO or a device: no files, so no rotation or retention. */
bool csv_sink__is_stream(const struct sink *s);

/*
 * Rows taken so far, and the bytes of the current file (compressed, for
 * .gz) or, streaming, all written: record's status line.
 */
void csv_sink__progress(const struct sink *s, uint64_t *rows, uint64_t *bytes);

/* Intervals that could not be written, so far. */
uint64_t csv_sink__intervals_lost(const struct sink *s);

#endif
