/* SPDX-License-Identifier: GPL-2.0 */
/* Identity: cgroup v2 id -> path under the cgroup2 mount, cached. */
#ifndef BPMC_CGROUPS_H
#define BPMC_CGROUPS_H

#include <stddef.h>
#include <stdint.h>

/* Finds the cgroup2 mount in mountinfo (NULL: /proc/self/mountinfo). */
int cgroups__find_mount(const char *mountinfo, char *out, size_t len);

int cgroups__init(void);
const char *cgroups__mount(void);
/*
 * Path of a cgroup id relative to the mount ("/" for the root). A miss
 * rescans the tree, at most once per cgroups__new_interval(); a cgroup
 * that is gone keeps the last path seen. NULL if never seen.
 */
const char *cgroups__path(uint64_t id);
void cgroups__new_interval(void);
void cgroups__free(void);

#endif
