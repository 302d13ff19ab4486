// SPDX-License-Identifier: GPL-2.0
/* The repair of partial files an earlier run left. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sinks/publish_parts.h"

static void report_repair(const struct publisher *p, const char *partial,
			  const char *final, size_t frames, size_t cut, int err)
{
	/* The first frame is the header: without an interval after it,
	 * there is nothing to keep. */
	if (err)
		publish_notice(p, true, "cannot repair '%s/%s': %s", p->dir,
			       partial, strerror(-err));
	else if (frames <= 1)
		publish_notice(
			p, true,
			"deleted '%s/%s' left by an earlier run: it held no whole interval",
			p->dir, partial);
	else
		publish_notice(
			p, true,
			"recovered '%s/%s' left by an earlier run: %zu whole intervals kept, %zu bytes of the interval in flight cut",
			p->dir, final, frames - 1, cut);
}

static void recover_plain(struct publisher *p, int fd, const char *partial,
			  char *final, const char *data, size_t size)
{
	struct frame_scan scan = {};
	int err = 0;

	if (data)
		p->o.plain_frame_scan(&scan, data, size);
	if (scan.frames <= 1)
		unlinkat(p->dirfd, partial, 0);
	else if (!(err = ftruncate(fd, scan.end) ? -errno : 0))
		err = publish_partial(p, fd, partial, final, NAME_LEN);
	report_repair(p, partial, final, scan.frames, size - scan.end, err);
}

/*
 * A cut gzip stream has no trailer: it is read through once, in pieces,
 * and what it holds up to the last whole frame is written again as one
 * whole stream, so that gzip -t passes: its compressed bytes up to the
 * sync flush that ended that frame, then an end, as bpmc writes every
 * frame; inflated again and deflated where no flush marks it. Memory is
 * a piece's, never the file's inflated size.
 */
static void recover_gzip(struct publisher *p, int fd, const char *partial,
			 char *final, const char *data, size_t size)
{
	char repair[NAME_LEN + 32];
	struct gzip_cut cut = {};
	uint64_t end;
	int err = data ? publish_gunzip_scan(data, size, p->o.plain_frame_scan,
					     &cut) :
			 0;
	int rfd;

	end = cut.scan.end;
	if (err || cut.scan.frames <= 1) {
		if (!err)
			unlinkat(p->dirfd, partial, 0);
	} else if (cut.complete && end == cut.inflated) {
		/* Killed between the trailer and the rename: whole. */
		err = publish_partial(p, fd, partial, final, NAME_LEN);
	} else {
		snprintf(repair, sizeof(repair), "%s" REPAIR_SUFFIX, partial);
		rfd = openat(p->dirfd, repair,
			     O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
			     0640);
		err = rfd < 0 ? -errno : 0;
		if (!err)
			err = cut.in_at && cut.out_at == end ?
				      publish_gzip_cut_copy(rfd, data, &cut) :
				      publish_gzip_cut_rewrite(rfd, data, size,
							       end);
		if (!err)
			err = publish_partial(p, rfd, repair, final, NAME_LEN);
		if (rfd >= 0)
			close(rfd);
		if (!err)
			unlinkat(p->dirfd, partial, 0);
		else if (rfd >= 0)
			unlinkat(p->dirfd, repair, 0);
	}
	report_repair(p, partial, final, cut.scan.frames, cut.inflated - end,
		      err);
}

/* Cuts one partial to its last whole frame and publishes it. */
static void recover_one(struct publisher *p, const char *partial)
{
	char final[NAME_LEN];
	struct stat st;
	size_t size;
	void *map;
	int fd;

	fd = openat(p->dirfd, partial, O_RDWR | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		publish_notice(p, true, "cannot repair '%s/%s': %s", p->dir,
			       partial, strerror(errno));
		return;
	}
	if (flock(fd, LOCK_EX | LOCK_NB)) { /* a running bpmc writes it */
		close(fd);
		return;
	}
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		close(fd);
		return;
	}
	size = st.st_size;
	map = size ? mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0) : NULL;
	if (map == MAP_FAILED) {
		publish_notice(p, true, "cannot repair '%s/%s': %s", p->dir,
			       partial, strerror(errno));
		close(fd);
		return;
	}
	snprintf(final, sizeof(final), "%.*s",
		 (int)(strlen(partial) - 1 - strlen(PARTIAL_SUFFIX)),
		 partial + 1);
	if (publish_has_ext(final, ".gz"))
		recover_gzip(p, fd, partial, final, map, size);
	else
		recover_plain(p, fd, partial, final, map, size);
	if (map)
		munmap(map, size);
	close(fd);
}

int publisher__recover(struct publisher *p, struct error *err)
{
	char final[NAME_LEN + 16];
	struct dirent *de;
	size_t n, s = strlen(PARTIAL_SUFFIX);
	char **names = NULL;
	size_t nr = 0;
	DIR *dir;
	int fd = dup(p->dirfd);

	dir = fd >= 0 ? fdopendir(fd) : NULL;
	if (!dir) {
		if (fd >= 0)
			close(fd);
		return error__set(err, errno, "cannot read directory '%s': %s",
				  p->dir, strerror(errno));
	}
	rewinddir(dir); /* the offset is shared with dirfd */
	/* Collected first: publishing renames entries under readdir. */
	while ((de = readdir(dir))) {
		n = strlen(de->d_name);
		s = strlen(PARTIAL_SUFFIX REPAIR_SUFFIX);
		if (de->d_name[0] == '.' && n > s + 1 &&
		    publish_ends_with(de->d_name,
				      PARTIAL_SUFFIX REPAIR_SUFFIX)) {
			snprintf(final, sizeof(final), "%.*s", (int)(n - s - 1),
				 de->d_name + 1);
			if (publish_name_matches(p, final))
				unlinkat(p->dirfd, de->d_name, 0);
			continue;
		}
		s = strlen(PARTIAL_SUFFIX);
		if (de->d_name[0] != '.' || n <= s + 1 ||
		    !publish_ends_with(de->d_name, PARTIAL_SUFFIX))
			continue;
		snprintf(final, sizeof(final), "%.*s", (int)(n - s - 1),
			 de->d_name + 1);
		if (!publish_name_matches(p, final))
			continue;
		char **more = realloc(names, (nr + 1) * sizeof(*names));

		if (!more)
			break;
		names = more;
		names[nr] = strdup(de->d_name);
		if (names[nr])
			nr++;
	}
	closedir(dir);
	for (size_t i = 0; i < nr; i++) {
		recover_one(p, names[i]);
		free(names[i]);
	}
	free(names);
	if (nr)
		publish_retention(p);
	return 0;
}
