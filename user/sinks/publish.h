/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The life cycle of output files (docs/service.md): a template names
 * them, each is written as a hidden ".NAME.partial" in frames (the
 * header, then one frame per interval; with .gz each frame is a gzip
 * member), and published by a rename that never replaces a file once it
 * is whole and on disk. Partial files an earlier run left are repaired
 * (cut to their last whole frame) and published at start; retention
 * deletes the oldest published files of this template, nothing else.
 * It knows nothing of CSV: where a plain file's last whole frame ends is
 * the caller's to say.
 */
#ifndef BPMC_SINKS_PUBLISH_H
#define BPMC_SINKS_PUBLISH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/error.h"

/*
 * Where the last whole frame of a plain file ends, found by a scan fed
 * the file's bytes in order, piece by piece, from a zeroed struct: so
 * that a repair needs memory for a piece, never for the file.
 */
struct frame_scan {
	uint64_t at; /* bytes fed so far */
	uint64_t end; /* past the last whole frame; 0: none */
	size_t frames; /* whole frames, the header's counted */
	uint64_t priv[8]; /* the scan's own */
};
typedef void (*frame_scan_fn)(struct frame_scan *s, const char *data,
			      size_t len);
/* A line for the operator: a file repaired (a warning) or deleted. */
typedef void (*notice_fn)(void *ctx, bool warning, const char *msg);

struct publish_opts {
	const char *template; /* strftime conversions (UTC) and %h, the host */
	const char *host;
	uint64_t rotate_s; /* a new file on each multiple of this, or 0 */
	uint64_t rotate_bytes; /* a new file past this size, or 0 */
	long keep; /* published files kept, or 0: all */
	uint64_t max_disk; /* bytes of published files kept, or 0: all */
	frame_scan_fn plain_frame_scan; /* for the repair of partials */
	notice_fn notice;
	void *notice_ctx;
};

struct publisher;

/*
 * Checks the template (conversions in the file name only, none that
 * makes a '/'), makes the directory (0750) if missing, and refuses a
 * directory it cannot write or a first file that exists already. Opens
 * no file yet.
 */
int publisher__new(struct publisher **out, const struct publish_opts *opts,
		   uint64_t first_start_ns, struct error *err);
void publisher__free(struct publisher *p);

/* Repairs and publishes every partial file of this template left by an
 * earlier run; a partial that a running bpmc holds is left alone. */
int publisher__recover(struct publisher *p, struct error *err);

bool publisher__is_gzip(const struct publisher *p);
bool publisher__is_open(const struct publisher *p);
/* Bytes of whole frames in the current file (0: none open). */
uint64_t publisher__size(const struct publisher *p);
/* The final name of the open file. */
const char *publisher__name(const struct publisher *p);

/* True when a frame of an interval that starts at start_ns belongs in a
 * new file: none is open, the time or size limit is passed, or a
 * rotation was asked for. */
bool publisher__rotation_due(const struct publisher *p, uint64_t start_ns);
void publisher__request_rotation(struct publisher *p);

/* Creates the partial of the file whose first interval starts at
 * start_ns, and writes its first frame (the header). */
int publisher__open(struct publisher *p, uint64_t start_ns, const char *header,
		    size_t len, struct error *err);
/* Appends one frame whole, or nothing: a failed write is cut back. */
int publisher__append(struct publisher *p, const char *data, size_t len,
		      struct error *err);
/*
 * Syncs, renames the partial to its final name and syncs the directory,
 * then applies retention. A file that holds its header alone is deleted
 * instead: no empty file is ever published.
 */
int publisher__publish(struct publisher *p, struct error *err);

#endif
