/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the interval loop hands the HTTP side: an immutable, refcounted
 * exposition, rendered once an interval in the text format. The
 * OpenMetrics form (other TYPE and HELP lines, "# EOF" at the end) and
 * the gzip forms are built from it on the first request that asks for
 * them, once per snapshot, by the thread that serves it: the interval
 * loop never waits for a scrape, and a scrape never waits for the loop
 * but for the swap of one pointer.
 */
#ifndef BPMC_SINKS_PROM_SNAPSHOT_H
#define BPMC_SINKS_PROM_SNAPSHOT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sinks/prom_format.h"

/* In the OpenMetrics form, text[off, off + len) reads om instead. */
struct prom_splice {
	size_t off, len;
	const char *om; /* a string that outlives every snapshot */
};

struct prom_snapshot;

/*
 * Takes text (malloc'ed, len bytes) and splices (malloc'ed, in order of
 * off) over; one reference, the caller's. On failure they are freed.
 */
int prom_snapshot__new(struct prom_snapshot **s, char *text, size_t len,
		       struct prom_splice *splices, int nr_splices);
void prom_snapshot__get(struct prom_snapshot *s);
/* Drops a reference; the last one frees the snapshot. NULL is fine. */
void prom_snapshot__put(struct prom_snapshot *s);
/* The text format, as rendered. */
const char *prom_snapshot__text(const struct prom_snapshot *s, size_t *len);
/*
 * The body of a response in format f, gzip'ed or not, built on first
 * use: valid while the caller holds its reference. -ENOMEM, -EIO.
 */
int prom_snapshot__body(struct prom_snapshot *s, enum prom_format f, bool gzip,
			const char **data, size_t *len);

/* The latest snapshot, swapped under a mutex; and the scrapes served. */
struct prom_latest;

int prom_latest__new(struct prom_latest **l);
/* Takes the caller's reference to s; the one it replaces is dropped. */
void prom_latest__publish(struct prom_latest *l, struct prom_snapshot *s);
/* A reference to the latest, for the caller to put; NULL before one. */
struct prom_snapshot *prom_latest__get(struct prom_latest *l);
void prom_latest__count_scrape(struct prom_latest *l);
uint64_t prom_latest__scrapes(struct prom_latest *l);
void prom_latest__free(struct prom_latest *l);

#endif
