/* SPDX-License-Identifier: GPL-2.0 */
/*
 * PROFSTART: a sampling counter's records folded into a flat histogram
 * of (pid, user PC), and the mappings each process had, from the
 * kernel's MMAP, FORK and COMM-on-exec records, so that a PC can be
 * located in its file after the process is gone.
 */
#ifndef BPMC_PMC_PROFILE_H
#define BPMC_PMC_PROFILE_H

#include <linux/perf_event.h>
#include <stddef.h>
#include <stdint.h>

#include "pmc.h"

struct profile;

/* self: the caller's pid, whose present mappings come from /proc. */
int profile__new(struct profile **out, int32_t self);
void profile__free(struct profile *p);

/*
 * A record of the sampling counter's rings, in time order (sample_type
 * IP | TID | TIME, sample_id_all): a sample is placed in the program
 * its process ran then.
 */
void profile__record(void *profile, const struct perf_event_header *h);
/* Records that could not be taken in: counted as lost. */
void profile__lost(struct profile *p, uint64_t n);

void profile__stats(const struct profile *p,
		    struct pmc_linux_profile_stats *out);
/* The histogram, most samples first; *total: its size. */
int profile__entries(const struct profile *p,
		     struct pmc_linux_profile_entry *out, size_t max,
		     size_t *total);
/* -ENOENT: no file mapping of the entry's program holds its pc. */
int profile__locate(const struct profile *p,
		    const struct pmc_linux_profile_entry *e, char *path,
		    size_t pathlen, uint64_t *file_offset);

#endif
