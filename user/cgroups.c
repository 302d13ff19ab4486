// SPDX-License-Identifier: GPL-2.0
#define _XOPEN_SOURCE 700
#include <errno.h>
#include <ftw.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cgroups.h"
#include "util.h"

struct cgroup_entry {
	uint64_t id; /* 0: empty bucket */
	char *path;
};

static struct {
	char mount[4096];
	size_t mount_len;
	struct cgroup_entry *tab;
	size_t cap, nr;
	bool scanned_this_interval;
} cg;

/* mountinfo fields: ... mount-point(5th) ... " - " fstype source opts */
int cgroups__find_mount(const char *mountinfo, char *out, size_t len)
{
	char line[4096], mnt[4096], *sep;
	FILE *f = fopen(mountinfo ? mountinfo : "/proc/self/mountinfo", "re");
	int err = -ENOENT;

	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		sep = strstr(line, " - ");
		if (!sep || strncmp(sep + 3, "cgroup2 ", 8))
			continue;
		if (sscanf(line, "%*s %*s %*s %*s %4095s", mnt) != 1)
			continue;
		snprintf(out, len, "%s", mnt);
		err = 0;
		break;
	}
	fclose(f);
	return err;
}

static size_t bucket(uint64_t id, size_t cap)
{
	return (id * 0x9e3779b97f4a7c15ull) >> 20 & (cap - 1);
}

static int cache_grow(void)
{
	struct cgroup_entry *old = cg.tab;
	size_t old_cap = cg.cap;

	cg.cap = old_cap ? old_cap * 2 : 1024;
	cg.tab = calloc(cg.cap, sizeof(*cg.tab));
	if (!cg.tab) {
		cg.tab = old;
		cg.cap = old_cap;
		return -ENOMEM;
	}
	cg.nr = 0;
	for (size_t i = 0; i < old_cap; i++) {
		size_t b = bucket(old[i].id, cg.cap);

		if (!old[i].id)
			continue;
		while (cg.tab[b].id)
			b = (b + 1) & (cg.cap - 1);
		cg.tab[b] = old[i];
		cg.nr++;
	}
	free(old);
	return 0;
}

static struct cgroup_entry *cache_find(uint64_t id)
{
	size_t b;

	if (!cg.cap)
		return NULL;
	for (b = bucket(id, cg.cap); cg.tab[b].id; b = (b + 1) & (cg.cap - 1)) {
		if (cg.tab[b].id == id)
			return &cg.tab[b];
	}
	return NULL;
}

static int cache_put(uint64_t id, const char *path)
{
	struct cgroup_entry *e = cache_find(id);
	size_t b;
	char *copy;

	if (e) {
		if (!path || !strcmp(e->path, path))
			return 0;
		copy = strdup(path);
		if (!copy)
			return -ENOMEM;
		free(e->path);
		e->path = copy;
		return 0;
	}
	if (!path)
		return 0;
	if ((cg.nr + 1) * 2 > cg.cap && cache_grow())
		return -ENOMEM;
	copy = strdup(path);
	if (!copy)
		return -ENOMEM;
	for (b = bucket(id, cg.cap); cg.tab[b].id; b = (b + 1) & (cg.cap - 1))
		;
	cg.tab[b].id = id;
	cg.tab[b].path = copy;
	cg.nr++;
	return 0;
}

static int scan_one(const char *fpath, const struct stat *st, int type,
		    struct FTW *ftw)
{
	const char *rel = fpath + cg.mount_len;

	if (type != FTW_D)
		return 0;
	return cache_put(st->st_ino, *rel ? rel : "/") ? FTW_STOP : 0;
}

static int cgroups__scan(void)
{
	cg.scanned_this_interval = true;
	if (nftw(cg.mount, scan_one, 32, FTW_PHYS | FTW_MOUNT) < 0)
		return -errno;
	return 0;
}

int cgroups__init(void)
{
	int err = cgroups__find_mount(NULL, cg.mount, sizeof(cg.mount));

	if (err) {
		p_err("cannot find the cgroup2 mount in /proc/self/mountinfo: %s",
		      strerror(-err));
		return err;
	}
	cg.mount_len = strlen(cg.mount);
	if (cg.mount_len == 1) /* mounted on "/": keep the leading slash */
		cg.mount_len = 0;
	return cgroups__scan();
}

const char *cgroups__mount(void)
{
	return cg.mount;
}

const char *cgroups__path(uint64_t id)
{
	struct cgroup_entry *e = cache_find(id);

	if (!e && !cg.scanned_this_interval) {
		cgroups__scan();
		e = cache_find(id);
	}
	return e ? e->path : NULL;
}

void cgroups__new_interval(void)
{
	cg.scanned_this_interval = false;
}

void cgroups__free(void)
{
	for (size_t i = 0; i < cg.cap; i++)
		free(cg.tab[i].path);
	free(cg.tab);
	memset(&cg, 0, sizeof(cg));
}
