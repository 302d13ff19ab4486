/* SPDX-License-Identifier: GPL-2.0 */
/* How much memory this process can still take, and what bounds it. */
#ifndef BPMC_MEMORY_ROOM_H
#define BPMC_MEMORY_ROOM_H

#include <limits.h>
#include <stdint.h>

struct memory_room {
	uint64_t bytes;
	/* What leaves the least: "MemAvailable in /proc/meminfo", or a
	 * memory controller's limit file, with its limit and usage. */
	char bound[PATH_MAX + 128];
};

/*
 * The least of MemAvailable and of every memory controller limit over
 * this process (cgroup v2 memory.max and memory.high, v1
 * memory.limit_in_bytes, in its cgroup and each ancestor) less that
 * cgroup's usage. A bound that cannot be read is left out; none at all:
 * -ENOENT.
 */
int memory_room__read(struct memory_room *room);

#endif
