// SPDX-License-Identifier: GPL-2.0
/* --keep and --max-disk. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "sinks/publish_parts.h"

struct published {
	char name[NAME_LEN];
	struct timespec mtime;
	uint64_t size;
};

static int by_age(const void *a, const void *b)
{
	const struct published *x = a, *y = b;

	if (x->mtime.tv_sec != y->mtime.tv_sec)
		return x->mtime.tv_sec < y->mtime.tv_sec ? -1 : 1;
	if (x->mtime.tv_nsec != y->mtime.tv_nsec)
		return x->mtime.tv_nsec < y->mtime.tv_nsec ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* --keep and --max-disk: the oldest published files of this template go;
 * nothing that is not a regular file of its pattern is touched. */
int publish_retention(struct publisher *p)
{
	struct published *files = NULL, *f;
	size_t nr = 0, cap = 0, first = 0;
	uint64_t total = 0;
	struct dirent *de;
	struct stat st;
	DIR *dir;
	int fd;

	if (!p->o.keep && !p->o.max_disk)
		return 0;
	fd = dup(p->dirfd);
	dir = fd >= 0 ? fdopendir(fd) : NULL;
	if (!dir) {
		if (fd >= 0)
			close(fd);
		return -errno;
	}
	rewinddir(dir);
	while ((de = readdir(dir))) {
		if (de->d_name[0] == '.' ||
		    !publish_name_matches(p, de->d_name) ||
		    fstatat(p->dirfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) ||
		    !S_ISREG(st.st_mode))
			continue;
		if (nr == cap) {
			cap = cap ? cap * 2 : 64;
			f = realloc(files, cap * sizeof(*files));
			if (!f)
				break;
			files = f;
		}
		f = &files[nr++];
		snprintf(f->name, sizeof(f->name), "%s", de->d_name);
		f->mtime = st.st_mtim;
		f->size = st.st_size;
		total += st.st_size;
	}
	closedir(dir);
	qsort(files, nr, sizeof(*files), by_age);
	while (first < nr &&
	       ((p->o.keep && nr - first > (size_t)p->o.keep) ||
		(p->o.max_disk && total > p->o.max_disk && nr - first > 1))) {
		f = &files[first++];
		if (unlinkat(p->dirfd, f->name, 0))
			continue;
		total -= f->size;
		publish_notice(p, false,
			       "retention: deleted '%s/%s' (%llu bytes)",
			       p->dir, f->name, (unsigned long long)f->size);
	}
	free(files);
	return 0;
}
