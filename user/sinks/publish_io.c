// SPDX-License-Identifier: GPL-2.0
/*
 * What every part of the publisher uses: its notices, whole writes, and
 * moving a partial to its final name. Apart from publish.c, so that the
 * parts (gzip, retention, recovery) and the file's life all stand on it
 * and none calls round a circle (test_link_layers).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "sinks/sink.h"
#include "sinks/publish_parts.h"

void publish_notice(const struct publisher *p, bool warning, const char *fmt,
		    ...)
{
	va_list ap;

	va_start(ap, fmt);
	notice__vsay(p->o.notice, p->o.notice_ctx, warning, fmt, ap);
	va_end(ap);
}

int publish_write_all(int fd, const char *buf, size_t n, uint64_t at)
{
	size_t done = 0;
	ssize_t w;

	while (done < n) {
		w = pwrite(fd, buf + done, n - done, at + done);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return w < 0 ? -errno : -EIO;
		done += w;
	}
	return 0;
}

/* rename without replacing; where the filesystem cannot (EINVAL), a
 * hard link does the same: it fails if the name exists. */
static int rename_noreplace(int dirfd, const char *from, const char *to)
{
	if (!renameat2(dirfd, from, dirfd, to, RENAME_NOREPLACE))
		return 0;
	if (errno != EINVAL && errno != ENOSYS)
		return -errno;
	if (linkat(dirfd, from, dirfd, to, 0))
		return -errno;
	return unlinkat(dirfd, from, 0) ? -errno : 0;
}

/*
 * Moves a whole partial to a free final name; final gets the name. A
 * taken name gets the next "-N" of its stem, as publisher__open makes
 * them (x-2.csv after x-1.csv, never x-1-1.csv), so that retention knows
 * it.
 */
int publish_partial(struct publisher *p, int fd, const char *partial,
		    char *final, size_t len)
{
	char want[NAME_LEN + 16];
	const char *ext = publish_ext_of(final);
	struct name_info ni = { .stem_len = strlen(final) - strlen(ext) };
	int err;

	if (fsync(fd))
		return -errno;
	if (!publish_name_parse(p, final, &ni))
		ni.seq = 0;
	snprintf(want, sizeof(want), "%s", final);
	for (unsigned seq = ni.seq + 1;; seq++) {
		err = rename_noreplace(p->dirfd, partial, want);
		if (err != -EEXIST || seq >= 1000)
			break;
		snprintf(want, sizeof(want), "%.*s-%u%s", (int)ni.stem_len,
			 final, seq, ext);
	}
	if (err)
		return err;
	if (strlen(want) >= len)
		return -ENAMETOOLONG;
	memcpy(final, want, strlen(want) + 1);
	return fsync(p->dirfd) ? -errno : 0;
}
