/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Identity: cgroup id -> path under the hierarchy's mount, and the
 * container and pod the path names; cached, never a walk per row.
 */
#ifndef BPMC_CGROUPS_H
#define BPMC_CGROUPS_H

#include <stdbool.h>
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

/* Finds the cgroup2 mount in mountinfo (NULL: /proc/self/mountinfo),
 * its \ooo escapes decoded. */
int cgroups__find_mount(const char *mountinfo, char *out, size_t len);
/* Finds the cgroup v1 mount that holds controller. */
int cgroups__find_v1_mount(const char *mountinfo, const char *controller,
			   char *out, size_t len);
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
 * path seen until it is forgotten (see cgroups__new_interval()). NULL if
 * never seen. The pointer stays valid until the next
 * cgroups__new_interval() or cgroups__sweep().
 */
const struct cgroup_info *cgroups__lookup(struct cgroups *cg, uint64_t id);
/*
 * Records a cgroup seen being made (ignored for other hierarchies); cut:
 * path is only the start of the real one, which is then looked up by id.
 */
void cgroups__learn(struct cgroups *cg, uint64_t id, uint32_t hierarchy_id,
		    const char *path, bool cut);
/*
 * A cgroup path from the mount's root (starting with '/'), without its
 * empty, "." and ".." components: "/a//b/./c/.." is "/a/b", at depth 2.
 * -EXDEV when ".." would leave the root, -EINVAL without a leading '/'.
 */
int cgroups__canonical_path(const char *path, char *out, size_t len,
			    int *depth);
/*
 * The next path of a -G list into out: the list is split at commas; "\,"
 * is a comma of the name and "\\" a backslash, any other backslash is
 * itself (systemd's names hold "\x2d"). *list moves past it, to NULL
 * after the last. -EINVAL for an empty path.
 */
int cgroups__list_next(const char **list, char *out, size_t len);
/*
 * -G: a path (relative to the mount, or absolute under it) -> its id and
 * depth below the root, counted on its canonical form.
 */
int cgroups__resolve(struct cgroups *cg, const char *path, uint64_t *id,
		     int *level);
/*
 * Starts the next interval's look-ups, and forgets, when a sweep is due,
 * every cgroup that is gone (its directory removed, or its path taken by
 * another id) and was not looked up in the last two intervals: a removed
 * cgroup keeps its last path for the interval of its removal and the one
 * after, which is when its last rows are exported.
 *
 * Memory bound: a sweep is due once max(64, the entries the last sweep
 * kept) were added since, so the cache holds at most the live cgroups,
 * plus those removed in the last two intervals, plus as many again as
 * the last sweep kept plus 64: under 2 x (live + recently removed) + 64
 * entries of about 100 bytes plus the path. Each addition pays for at
 * most one stat() of a sweep; a host whose cgroups do not change pays
 * nothing.
 */
void cgroups__new_interval(struct cgroups *cg);
/* Sweeps now, whether due or not; returns how many were forgotten. */
size_t cgroups__sweep(struct cgroups *cg);
/* Full walks so far, and cache size: for the resolve-cost figures. */
uint64_t cgroups__scans(const struct cgroups *cg);
size_t cgroups__cached(const struct cgroups *cg);
/* The most entries held at once, and how many were forgotten in all. */
size_t cgroups__peak(const struct cgroups *cg);
uint64_t cgroups__forgotten(const struct cgroups *cg);

#endif
