// SPDX-License-Identifier: GPL-2.0
/* The life of one output file: open, append frames, publish. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>
#include <zlib.h>

#include "common/util.h"
#include "sinks/sink.h"
#include "sinks/publish_parts.h"

int publisher__new(struct publisher **out, const struct publish_opts *opts,
		   uint64_t first_start_ns, struct error *err)
{
	struct publisher *p = calloc(1, sizeof(*p));
	char name[NAME_LEN];
	struct stat st;
	int ret;

	*out = NULL;
	if (!p)
		return error__set(err, ENOMEM, "out of memory");
	p->o = *opts;
	p->fd = p->dirfd = p->lockfd = -1;
	ret = publish_split_template(p, err);
	if (ret)
		goto fail;
	ret = publish_make_name(p, first_start_ns, 0, name, sizeof(name));
	if (ret) {
		error__set(
			err, ret,
			"output '%s': the template does not make a file name (a conversion such as %%D makes a '/')",
			p->o.template);
		goto fail;
	}
	ret = publish_make_dirs(p->dir);
	if (!ret) {
		p->dirfd = open(p->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		ret = p->dirfd < 0 ? -errno : 0;
	}
	if (!ret && access(p->dir, W_OK | X_OK))
		ret = -errno;
	if (ret) {
		error__set(err, ret, "cannot write output directory '%s': %s",
			   p->dir, strerror(-ret));
		goto fail;
	}
	ret = publish_lock(p, err);
	if (ret)
		goto fail;
	/* A fixed name the user gave is never replaced, nor followed if it
	 * is a link: say so now. A template's names take a "-N" instead. */
	if (!p->has_conversion && !publish_needs_stamp(p) &&
	    !fstatat(p->dirfd, name, &st, AT_SYMLINK_NOFOLLOW)) {
		ret = error__set(
			err, EEXIST,
			"output '%s/%s' exists: bpmc never replaces a file; move it away or name another",
			p->dir, name);
		goto fail;
	}
	*out = p;
	return 0;
fail:
	publisher__free(p);
	return ret;
}

void publisher__free(struct publisher *p)
{
	if (!p)
		return;
	if (p->fd >= 0)
		close(p->fd); /* the partial stays, for the next start */
	publish_unlock(p);
	if (p->dirfd >= 0)
		close(p->dirfd);
	if (p->z_ready)
		deflateEnd(&p->z);
	if (p->snap_ready)
		deflateEnd(&p->snap);
	free(p->zbuf);
	free(p);
}

bool publisher__is_gzip(const struct publisher *p)
{
	return p->gzip;
}

bool publisher__is_open(const struct publisher *p)
{
	return p->fd >= 0;
}

const char *publisher__name(const struct publisher *p)
{
	return p->name;
}

void publisher__request_rotation(struct publisher *p)
{
	p->rotation_requested = true;
}

uint64_t publisher__size(const struct publisher *p)
{
	return p->fd < 0 ? 0 : p->size;
}

bool publisher__rotation_due(const struct publisher *p, uint64_t start_ns)
{
	if (p->fd < 0 || p->rotation_requested)
		return true;
	if (p->o.rotate_s &&
	    start_ns / 1000000000ull / p->o.rotate_s != p->period)
		return true;
	return p->o.rotate_bytes && p->size >= p->o.rotate_bytes;
}

/*
 * A gzip file is published only with its trailer, which needs room: a
 * frame that would leave less than TRAILER_ROOM free is refused like a
 * full disk (and held), so that what is written can always be finished.
 */
#define TRAILER_ROOM 8192
static int keep_room_for_trailer(int fd, size_t n)
{
	struct statvfs fs;

	if (fstatvfs(fd, &fs))
		return 0; /* cannot tell: let the write say */
	return (uint64_t)fs.f_bavail * fs.f_frsize < n + TRAILER_ROOM ?
		       -ENOSPC :
		       0;
}

/* Writes the frame at the end of the whole ones, or cuts it back. */
static int write_frame(struct publisher *p, const char *data, size_t len)
{
	const char *buf = data;
	size_t n = len;
	int err = 0;

	if (p->gzip)
		err = publish_gzip_deflate(p, data, len, Z_SYNC_FLUSH, &buf,
					   &n);
	if (!err && p->gzip)
		err = keep_room_for_trailer(p->fd, n);
	/* The blocks first: on a full disk the frame is refused before a
	 * byte of it lands, where a write would stop after a block and a
	 * reader tailing the file would see the cut until the truncate. */
	if (!err)
		err = reserve_blocks(p->fd, p->size, n);
	if (!err)
		err = publish_write_all(p->fd, buf, n, p->size);
	if (!err && p->gzip)
		err = publish_gzip_snapshot(p);
	if (err) {
		/* No torn frame stays behind; if even the cut fails, the
		 * next start's repair cuts it. */
		if (ftruncate(p->fd, p->size) ||
		    (p->gzip && publish_gzip_rollback(p)))
			p->rotation_requested = true;
		return err;
	}
	p->size += n;
	p->frames++;
	return 0;
}

int publisher__open(struct publisher *p, uint64_t start_ns, const char *header,
		    size_t len, struct error *err)
{
	char unsuffixed[NAME_LEN];
	unsigned seq = 0;
	struct stat st;
	int ret;

	if (p->fd >= 0)
		return error__set(err, EBUSY, "a file is open already");
	ret = publish_make_name(p, start_ns, 0, unsuffixed, sizeof(unsuffixed));
	if (ret)
		return error__set(err, ret,
				  "cannot name a file for '%s/%s': %s", p->dir,
				  p->base, strerror(-ret));
	if (p->files_made && !strcmp(unsuffixed, p->last_unsuffixed))
		seq = p->last_seq + 1;
	/* A name taken (a file of the same second, a planted link) gets
	 * the next free "-N": nothing is replaced or followed. */
	for (ret = -EEXIST; seq < 1000 && ret == -EEXIST; seq++) {
		ret = publish_make_name(p, start_ns, seq, p->name,
					sizeof(p->name));
		if (ret)
			break;
		snprintf(p->partial, sizeof(p->partial), ".%s" PARTIAL_SUFFIX,
			 p->name);
		if (!fstatat(p->dirfd, p->name, &st, AT_SYMLINK_NOFOLLOW)) {
			ret = -EEXIST;
			continue;
		}
		p->fd = openat(p->dirfd, p->partial,
			       O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
				       O_CLOEXEC,
			       0640);
		ret = p->fd < 0 ? -errno : 0;
	}
	if (ret)
		return error__set(err, ret, "cannot create '%s/%s': %s", p->dir,
				  p->partial, strerror(-ret));
	memcpy(p->last_unsuffixed, unsuffixed, sizeof(unsuffixed));
	p->last_seq = seq - 1;
	/* Held while it is written: the repair leaves it alone. */
	flock(p->fd, LOCK_EX | LOCK_NB);
	p->size = p->frames = 0;
	p->period = p->o.rotate_s ? start_ns / 1000000000ull / p->o.rotate_s :
				    0;
	p->rotation_requested = false;
	p->last_sync_ns = clock_ns(CLOCK_MONOTONIC);
	p->files_made++;
	ret = p->gzip ? publish_gzip_start(p) : 0;
	if (!ret)
		ret = write_frame(p, header, len);
	if (ret) {
		close(p->fd);
		p->fd = -1;
		unlinkat(p->dirfd, p->partial, 0);
		return error__set(err, ret, "cannot write '%s/%s': %s", p->dir,
				  p->partial, strerror(-ret));
	}
	return 0;
}

int publisher__append(struct publisher *p, const char *data, size_t len,
		      struct error *err)
{
	uint64_t now;
	int ret;

	if (p->fd < 0)
		return error__set(err, EBADF, "no file is open");
	ret = write_frame(p, data, len);
	if (ret)
		return error__set(err, ret, "cannot write '%s/%s': %s", p->dir,
				  p->partial, strerror(-ret));
	now = clock_ns(CLOCK_MONOTONIC);
	if (now - p->last_sync_ns >= SYNC_EVERY_NS) {
		p->last_sync_ns = now;
		if (fdatasync(p->fd)) {
			ret = -errno;
			return error__set(err, ret, "cannot sync '%s/%s': %s",
					  p->dir, p->partial, strerror(-ret));
		}
	}
	return 0;
}

int publisher__publish(struct publisher *p, struct error *err)
{
	int ret = 0;

	if (p->fd < 0)
		return 0;
	if (p->frames <= 1) {
		/* The header alone: nothing to publish. */
		unlinkat(p->dirfd, p->partial, 0);
	} else {
		ret = p->gzip ? publish_gzip_trailer(p) : 0;
		if (!ret)
			ret = publish_partial(p, p->fd, p->partial, p->name,
					      sizeof(p->name));
		if (ret)
			error__set(err, ret, "cannot publish '%s/%s': %s",
				   p->dir, p->partial, strerror(-ret));
		else
			snprintf(p->last_published, sizeof(p->last_published),
				 "%s", p->name);
		if (!ret)
			publish_notice(p, false, "wrote '%s%s%s'",
				       strcmp(p->dir, ".") ? p->dir : "",
				       strcmp(p->dir, ".") ? "/" : "", p->name);
	}
	close(p->fd);
	p->fd = -1;
	if (!ret)
		publish_retention(p);
	return ret;
}
