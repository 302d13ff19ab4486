// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "common/util.h"
#include "identity/cgroups.h"
#include "identity/memory_room.h"

static bool read_u64(const char *dir, const char *name, uint64_t *out)
{
	char path[PATH_MAX], buf[64];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	/* "max" (v2) does not parse: no limit. */
	return !read_file_str(path, buf, sizeof(buf)) && !parse_u64(buf, out);
}

static void consider(struct memory_room *room, const char *dir,
		     const char *limit_name, const char *usage_name)
{
	uint64_t limit, usage;

	if (!read_u64(dir, limit_name, &limit) ||
	    !read_u64(dir, usage_name, &usage))
		return;
	if (room->bytes <= (limit > usage ? limit - usage : 0))
		return;
	room->bytes = limit > usage ? limit - usage : 0;
	snprintf(room->bound, sizeof(room->bound),
		 "%s/%s (%llu bytes, %llu in use)", dir, limit_name,
		 (unsigned long long)limit, (unsigned long long)usage);
}

/* The limits of mount + rel and of each ancestor up to the mount. */
static void walk_up(struct memory_room *room, const char *mount,
		    const char *rel, bool v2)
{
	char dir[PATH_MAX], *slash;
	size_t root_len = strlen(mount);

	if (snprintf(dir, sizeof(dir), "%s%s", mount, rel) >= (int)sizeof(dir))
		return;
	for (;;) {
		if (v2) {
			consider(room, dir, "memory.max", "memory.current");
			consider(room, dir, "memory.high", "memory.current");
		} else {
			consider(room, dir, "memory.limit_in_bytes",
				 "memory.usage_in_bytes");
		}
		slash = strrchr(dir, '/');
		if (!slash || (size_t)(slash - dir) < root_len)
			return;
		*slash = '\0';
	}
}

/* /proc/self/cgroup: "0::PATH" for v2, "N:memory,...:PATH" for v1. */
static void memcg_limits(struct memory_room *room)
{
	char line[PATH_MAX + 256], mount[PATH_MAX], *ctl, *rel;
	FILE *f = fopen("/proc/self/cgroup", "re");

	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		ctl = strchr(line, ':');
		rel = ctl ? strchr(ctl + 1, ':') : NULL;
		if (!rel)
			continue;
		*rel++ = '\0';
		ctl++;
		if (!*ctl && !cgroups__find_mount(NULL, mount, sizeof(mount)))
			walk_up(room, mount, rel, true);
		else if (comma_list_has(ctl, "memory") &&
			 !cgroups__find_v1_mount(NULL, "memory", mount,
						 sizeof(mount)))
			walk_up(room, mount, rel, false);
	}
	fclose(f);
}

int memory_room__read(struct memory_room *room)
{
	char line[256];
	unsigned long long kb;
	FILE *f = fopen("/proc/meminfo", "re");

	room->bytes = UINT64_MAX;
	room->bound[0] = '\0';
	while (f && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "MemAvailable: %llu kB", &kb) == 1) {
			room->bytes = kb * 1024;
			snprintf(room->bound, sizeof(room->bound),
				 "MemAvailable in /proc/meminfo");
		}
	}
	if (f)
		fclose(f);
	memcg_limits(room);
	return room->bound[0] ? 0 : -ENOENT;
}
