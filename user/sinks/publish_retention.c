// SPDX-License-Identifier: GPL-2.0
/* --keep and --max-disk. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sinks/publish_parts.h"

struct published {
	char name[NAME_LEN];
	struct name_info when;
	uint64_t size;
};

/* Oldest first, by the time in the name (a clock stepped back or a
 * touched file says nothing), then bpmc's "-N". */
static int by_age(const void *a, const void *b)
{
	const struct published *x = a, *y = b;

	if (x->when.time != y->when.time)
		return x->when.time < y->when.time ? -1 : 1;
	if (x->when.seq != y->when.seq)
		return x->when.seq < y->when.seq ? -1 : 1;
	return strcmp(x->name, y->name);
}

/*
 * --keep and --max-disk: the oldest published files of this template
 * go; nothing that is not a regular file of its pattern is touched, and
 * never the last file this run published: until another supersedes it,
 * it is the newest, whatever the names around it say.
 */
int publish_retention(struct publisher *p)
{
	struct published *files = NULL, *f;
	size_t nr = 0, cap = 0, left;
	uint64_t total = 0;
	struct name_info when;
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
		    !publish_name_parse(p, de->d_name, &when) ||
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
		f->when = when;
		f->size = st.st_size;
		total += st.st_size;
	}
	closedir(dir);
	if (nr)
		qsort(files, nr, sizeof(*files), by_age);
	left = nr;
	for (size_t i = 0; i < nr; i++) {
		if (!(p->o.keep && left > (size_t)p->o.keep) &&
		    !(p->o.max_disk && total > p->o.max_disk))
			break;
		f = &files[i];
		if (!strcmp(f->name, p->last_published) ||
		    unlinkat(p->dirfd, f->name, 0))
			continue;
		left--;
		total -= f->size;
		publish_notice(p, false,
			       "retention: deleted '%s/%s' (%llu bytes)",
			       p->dir, f->name, (unsigned long long)f->size);
	}
	free(files);
	return 0;
}
