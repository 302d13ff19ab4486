/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Identity: cgroup id -> path under the hierarchy's mount, and the
 * container and pod the path names; cached, never a walk per row.
 */
#ifndef BPMC_CGROUPS_H
#define BPMC_CGROUPS_H

#include <stddef.h>
#include <stdint.h>

#include "common/error.h"
#include "identity/containers.h"

/* Longer paths are shortened, with a marker (docs/csv-schema.md). */
#define CGROUP_PATH_MAX 4000

struct cgroup_info {
	char *path; /* relative to the mount, "/" for the root */
	struct container_ref ref;
};

/* Finds the cgroup2 mount in mountinfo (NULL: /proc/self/mountinfo). */
int cgroups__find_mount(const char *mountinfo, char *out, size_t len);
/* A v1 controller's subsystem id and hierarchy id, from /proc/cgroups. */
int cgroups__v1_controller(const char *controller, int *ssid,
			   uint32_t *hierarchy_id);

/*
 * The cache of one hierarchy: the cgroup2 mount, or the v1 hierarchy of
 * v1_controller, found in mountinfo and walked once. A handle, so that
 * several collectors (top, the library) can each hold one; use it from
 * one thread at a time.
 */
struct cgroups;

int cgroups__new(struct cgroups **out, const char *v1_controller,
		 struct error *err);
void cgroups__free(struct cgroups *cg);
const char *cgroups__mount(const struct cgroups *cg);
uint64_t cgroups__root_id(const struct cgroups *cg);

/*
 * A cgroup id's path and container. A miss rescans the tree, at most
 * once per cgroups__new_interval(); a cgroup that is gone keeps the last
 * path seen. NULL if never seen.
 */
const struct cgroup_info *cgroups__lookup(struct cgroups *cg, uint64_t id);
/* Records a cgroup seen being made (ignored for other hierarchies). */
void cgroups__learn(struct cgroups *cg, uint64_t id, uint32_t hierarchy_id,
		    const char *path);
/* -G: a path (relative to the mount, or absolute under it) -> its id and
 * depth below the root. */
int cgroups__resolve(struct cgroups *cg, const char *path, uint64_t *id,
		     int *level);
void cgroups__new_interval(struct cgroups *cg);
/* Full walks so far, and cache size: for the resolve-cost figures. */
uint64_t cgroups__scans(const struct cgroups *cg);
size_t cgroups__cached(const struct cgroups *cg);

#endif
