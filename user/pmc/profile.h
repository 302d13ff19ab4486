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

/* A record of the sampling counter's ring (fds/ring.h's callback). */
void profile__record(void *profile, const struct perf_event_header *h);

void profile__stats(const struct profile *p,
		    struct pmc_linux_profile_stats *out);
/* The histogram, most samples first; *total: its size. */
int profile__entries(const struct profile *p,
		     struct pmc_linux_profile_entry *out, size_t max,
		     size_t *total);
/* -ENOENT: no file mapping of pid holds pc. */
int profile__locate(const struct profile *p, int32_t pid, uint64_t pc,
		    char *path, size_t pathlen, uint64_t *file_offset);

#endif
