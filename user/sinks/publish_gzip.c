// SPDX-License-Identifier: GPL-2.0
/* The gzip stream of a file, and the reading of a cut one. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>
#include <zlib.h>

#include "common/grow.h"
#include "sinks/publish_parts.h"

/*
 * The stream's next bytes for data, flushed to a byte boundary
 * (Z_SYNC_FLUSH) so that a reader of a cut file still gets every whole
 * frame; with Z_FINISH and no data, the trailer. One gzip stream for
 * the whole file: a member per interval measured 57 % larger here.
 */
int publish_gzip_deflate(struct publisher *p, const char *data, size_t len,
			 int flush, const char **out, size_t *n)
{
	size_t used = 0;
	int ret;

	if (GROW(p->zbuf, p->zcap, deflateBound(&p->z, len) + 64, 0))
		return -ENOMEM;
	p->z.next_in = (Bytef *)data;
	p->z.avail_in = len;
	for (;;) {
		p->z.next_out = (Bytef *)p->zbuf + used;
		p->z.avail_out = p->zcap - used;
		ret = deflate(&p->z, flush);
		used = p->zcap - p->z.avail_out;
		if (ret == Z_STREAM_END || (ret == Z_OK && p->z.avail_out))
			break;
		if (ret != Z_OK && ret != Z_BUF_ERROR)
			return -EIO;
		if (GROW(p->zbuf, p->zcap, p->zcap + 1, 0))
			return -ENOMEM;
	}
	*out = p->zbuf;
	*n = used;
	return 0;
}

/* The stream as it stood after the last whole frame: a frame that did
 * not reach the disk is taken back out of the compressor too. */
int publish_gzip_snapshot(struct publisher *p)
{
	if (p->snap_ready)
		deflateEnd(&p->snap);
	p->snap_ready = deflateCopy(&p->snap, &p->z) == Z_OK;
	return p->snap_ready ? 0 : -ENOMEM;
}

int publish_gzip_rollback(struct publisher *p)
{
	deflateEnd(&p->z);
	p->z_ready = p->snap_ready && deflateCopy(&p->z, &p->snap) == Z_OK;
	return p->z_ready ? 0 : -ENOMEM;
}

int publish_gzip_start(struct publisher *p)
{
	if (p->z_ready)
		deflateEnd(&p->z);
	if (p->snap_ready)
		deflateEnd(&p->snap);
	p->snap_ready = false;
	p->z_ready = deflateInit2(&p->z, Z_DEFAULT_COMPRESSION, Z_DEFLATED,
				  15 + 16, 8, Z_DEFAULT_STRATEGY) == Z_OK;
	return p->z_ready ? 0 : -ENOMEM;
}

/* The end of the gzip stream: its CRC and length, after every frame. */
int publish_gzip_trailer(struct publisher *p)
{
	const char *buf;
	size_t n;
	int err = publish_gzip_deflate(p, NULL, 0, Z_FINISH, &buf, &n);

	if (!err)
		err = publish_write_all(p->fd, buf, n, p->size);
	if (!err)
		p->size += n;
	return err;
}

/*
 * What a cut gzip stream still holds: everything up to the last sync
 * flush (every whole frame), into *out. complete: the trailer was there
 * too (a kill between it and the rename). Members after the first are
 * read on, as any gzip reader does.
 */
int publish_gunzip_cut(const char *data, size_t len, char **out, size_t *n,
		       bool *complete)
{
	size_t cap = len * 4 + 65536, used = 0;
	char *buf = malloc(cap), *more;
	z_stream z = {};
	int ret = Z_OK;

	*complete = false;
	if (!buf || inflateInit2(&z, 15 + 16) != Z_OK) {
		free(buf);
		return -ENOMEM;
	}
	z.next_in = (Bytef *)data;
	z.avail_in = len;
	while (z.avail_in) {
		if (cap - used < 65536) {
			more = realloc(buf, cap * 2);
			if (!more) {
				ret = Z_MEM_ERROR;
				break;
			}
			buf = more;
			cap *= 2;
		}
		z.next_out = (Bytef *)buf + used;
		z.avail_out = cap - used;
		ret = inflate(&z, Z_NO_FLUSH);
		used = cap - z.avail_out;
		if (ret == Z_STREAM_END) {
			*complete = !z.avail_in;
			inflateReset(&z);
		} else if (ret != Z_OK) {
			break; /* cut short, or a bad block: keep what came */
		}
	}
	inflateEnd(&z);
	if (ret == Z_MEM_ERROR) {
		free(buf);
		return -ENOMEM;
	}
	*out = buf;
	*n = used;
	return 0;
}

/* Writes text as one whole gzip stream into a new hidden file. */
int publish_gzip_rewrite(struct publisher *p, const char *name,
			 const char *text, size_t len)
{
	struct publisher tmp = { .gzip = true };
	const char *buf;
	size_t n;
	int fd, err;

	fd = openat(p->dirfd, name,
		    O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0640);
	if (fd < 0)
		return -errno;
	err = publish_gzip_start(&tmp);
	if (!err)
		err = publish_gzip_deflate(&tmp, text, len, Z_FINISH, &buf, &n);
	if (!err)
		err = publish_write_all(fd, buf, n, 0);
	if (tmp.z_ready)
		deflateEnd(&tmp.z);
	free(tmp.zbuf);
	if (!err && fsync(fd))
		err = -errno;
	close(fd);
	if (err)
		unlinkat(p->dirfd, name, 0);
	return err;
}
