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

/* Inflated a piece at a time: the repair's memory, whatever the size. */
#define GUNZIP_PIECE (256u << 10)

/*
 * Reads a cut gzip stream through once, a piece at a time, feeding what
 * it inflates to the scan: how far it goes (everything up to the last
 * sync flush), whether it was whole, and where the deflate stream stands
 * byte-aligned at the end of a block just after the last whole frame
 * (a sync flush ends every frame so), for publish_gzip_cut_copy().
 * Members after the first are read on, as any gzip reader does.
 */
int publish_gunzip_scan(const char *data, size_t len, frame_scan_fn fn,
			struct gzip_cut *cut)
{
	unsigned char *buf = malloc(GUNZIP_PIECE);
	z_stream z = {};
	size_t n;
	int ret;

	*cut = (struct gzip_cut){};
	if (!buf || inflateInit2(&z, 15 + 16) != Z_OK) {
		free(buf);
		return -ENOMEM;
	}
	z.next_in = (Bytef *)data;
	z.avail_in = len;
	for (;;) {
		z.next_out = buf;
		z.avail_out = GUNZIP_PIECE;
		ret = inflate(&z, Z_BLOCK);
		n = GUNZIP_PIECE - z.avail_out;
		if (n) {
			fn(&cut->scan, (const char *)buf, n);
			cut->member_len += n;
			cut->inflated += n;
		}
		if (ret == Z_STREAM_END) {
			cut->complete = !z.avail_in;
			if (!z.avail_in)
				break;
			inflateReset(&z);
			cut->member_len = 0;
			continue;
		}
		if (ret != Z_OK || (!n && !z.avail_in))
			break; /* cut short, or a bad block: keep what came */
		/* At a block's end, on a byte, right after a whole frame. */
		if ((z.data_type & 128) && !(z.data_type & 7) &&
		    cut->scan.end == cut->inflated && cut->inflated) {
			cut->in_at = (const char *)z.next_in - data;
			cut->out_at = cut->inflated;
			cut->in_crc = z.adler; /* inflate's CRC-32 so far */
			cut->in_len = cut->member_len;
		}
	}
	inflateEnd(&z);
	free(buf);
	return 0;
}

static void put_le32(unsigned char *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = v >> (8 * i);
}

/*
 * A whole stream from a cut one, where the scan found a byte-aligned
 * block end after the last whole frame: the compressed bytes up to it as
 * they are, an empty last block (what Z_FINISH adds after a sync flush)
 * and the trailer. Nothing is inflated or deflated again.
 */
int publish_gzip_cut_copy(int fd, const char *data, const struct gzip_cut *cut)
{
	unsigned char end[10] = { 0x03, 0x00 };

	put_le32(end + 2, cut->in_crc);
	put_le32(end + 6, (uint32_t)cut->in_len);
	int err = publish_write_all(fd, data, cut->in_at, 0);

	return err ? err :
		     publish_write_all(fd, (const char *)end, 10, cut->in_at);
}

/*
 * A whole stream of the first `keep` inflated bytes of a cut one, where
 * no aligned block end marks them (a stream not of bpmc's making): it is
 * inflated again and deflated a piece at a time.
 */
int publish_gzip_cut_rewrite(int fd, const char *data, size_t len,
			     uint64_t keep)
{
	struct publisher tmp = { .gzip = true };
	unsigned char *buf = malloc(GUNZIP_PIECE);
	uint64_t done = 0, at = 0;
	z_stream z = {};
	const char *out;
	size_t n, take;
	int err = 0, ret;

	if (!buf || inflateInit2(&z, 15 + 16) != Z_OK) {
		free(buf);
		return -ENOMEM;
	}
	err = publish_gzip_start(&tmp);
	z.next_in = (Bytef *)data;
	z.avail_in = len;
	while (!err && done < keep) {
		z.next_out = buf;
		z.avail_out = GUNZIP_PIECE;
		ret = inflate(&z, Z_NO_FLUSH);
		n = GUNZIP_PIECE - z.avail_out;
		take = n < keep - done ? n : keep - done;
		err = publish_gzip_deflate(&tmp, (const char *)buf, take,
					   Z_NO_FLUSH, &out, &n);
		if (!err)
			err = publish_write_all(fd, out, n, at);
		at += n;
		done += take;
		if (ret == Z_STREAM_END && z.avail_in)
			inflateReset(&z);
		else if (ret != Z_OK && done < keep)
			err = -EIO; /* the scan went this far: it cannot stop */
	}
	if (!err)
		err = publish_gzip_deflate(&tmp, NULL, 0, Z_FINISH, &out, &n);
	if (!err)
		err = publish_write_all(fd, out, n, at);
	inflateEnd(&z);
	if (tmp.z_ready)
		deflateEnd(&tmp.z);
	free(tmp.zbuf);
	free(buf);
	return err;
}
