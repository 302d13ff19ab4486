// SPDX-License-Identifier: GPL-2.0
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#include "common/grow.h"
#include "common/util.h"
#include "sinks/publish.h"

#define NAME_LEN 256
#define PARTIAL_SUFFIX ".partial"
/* A repair in progress: a stale one (a kill during the repair) goes. */
#define REPAIR_SUFFIX ".repair"
/* Data is synced at most this often while a file grows; a crash loses
 * at most the interval in flight plus what came since the last sync. */
#define SYNC_EVERY_NS 1000000000ull

struct publisher {
	struct publish_opts o;
	char dir[4096];
	char base[NAME_LEN]; /* the template's file name */
	char ext[16]; /* ".csv.gz", ".csv" or "" */
	bool has_conversion; /* base holds a strftime conversion */
	bool gzip;
	int dirfd;
	unsigned files_made; /* by this run: later ones need a stamp */
	bool rotation_requested;
	/* The open file. */
	int fd; /* -1: none */
	char name[NAME_LEN]; /* its final name */
	char partial[NAME_LEN + 16];
	uint64_t period; /* start_s / rotate_s of its first interval */
	uint64_t size; /* bytes of whole frames */
	unsigned frames;
	uint64_t last_sync_ns;
	z_stream z;
	z_stream snap; /* z after the last whole frame */
	bool z_ready, snap_ready;
	char *zbuf;
	size_t zcap;
};

static void notice(const struct publisher *p, bool warning, const char *fmt,
		   ...) __attribute__((format(printf, 3, 4)));

static void notice(const struct publisher *p, bool warning, const char *fmt,
		   ...)
{
	char msg[1024];
	va_list ap;

	if (!p->o.notice)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	p->o.notice(p->o.notice_ctx, warning, msg);
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && !strcmp(s + n - m, suffix);
}

/* Extensions are matched without case: x.CSV.GZ compresses too. */
static bool has_ext(const char *s, const char *ext)
{
	size_t n = strlen(s), m = strlen(ext);

	return n >= m && !strcasecmp(s + n - m, ext);
}

/* The name's own ".csv.gz", ".csv" or ".gz", in its own case. */
static const char *ext_of(const char *name)
{
	static const char *const exts[] = { ".csv.gz", ".csv", ".gz" };

	for (size_t i = 0; i < ARRAY_SIZE(exts); i++)
		if (has_ext(name, exts[i]))
			return name + strlen(name) - strlen(exts[i]);
	return name + strlen(name);
}

/*
 * The file name's pattern, for strftime (glob false) or for fnmatch
 * (glob true: numeric conversions become digit classes, others '*'),
 * with the start time inserted before the extension when the template
 * has no conversion of its own (stamp), and a "-N" suffix (seq > 0, or
 * any N for a glob).
 */
static int name_pattern(const struct publisher *p, bool stamp, bool glob,
			unsigned seq, char *out, size_t len)
{
	static const struct {
		char conv;
		const char *digits;
	} numeric[] = {
		{ 'Y', "[0-9][0-9][0-9][0-9]" }, { 'm', "[0-9][0-9]" },
		{ 'd', "[0-9][0-9]" },		 { 'H', "[0-9][0-9]" },
		{ 'M', "[0-9][0-9]" },		 { 'S', "[0-9][0-9]" },
		{ 'j', "[0-9][0-9][0-9]" },
	};
	size_t stem = strlen(p->base) - strlen(p->ext), pos = 0;
	char src[NAME_LEN + 64];
	int n;

	n = snprintf(src, sizeof(src), "%.*s%s", (int)stem, p->base,
		     stamp ? "-%Y%m%dT%H%M%SZ" : "");
	if (seq && !glob)
		n += snprintf(src + n, sizeof(src) - n, "-%u", seq);
	else if (seq)
		n += snprintf(src + n, sizeof(src) - n, "-%%#");
	snprintf(src + n, sizeof(src) - n, "%s", p->ext);

	for (const char *s = src; *s && pos + 32 < len; s++) {
		const char *put = NULL;
		char one[3] = { *s, 0, 0 };

		if (*s != '%') {
			if (glob && strchr("*?[]\\", *s)) {
				one[0] = '\\';
				one[1] = *s;
			}
			put = one;
		} else if (!*++s) {
			return -EINVAL;
		} else if (*s == 'h') {
			put = p->o.host; /* no '%' or glob character in a host */
		} else if (*s == '#') {
			put = "[0-9]*";
		} else if (!glob) {
			one[0] = '%';
			one[1] = *s;
			put = one;
		} else if (*s == '%') {
			put = "%";
		} else {
			put = "*";
			for (size_t i = 0; i < ARRAY_SIZE(numeric); i++)
				if (numeric[i].conv == *s)
					put = numeric[i].digits;
		}
		n = snprintf(out + pos, len - pos, "%s", put);
		pos += n;
	}
	return pos + 32 < len ? 0 : -ENAMETOOLONG;
}

static bool needs_stamp(const struct publisher *p)
{
	return !p->has_conversion &&
	       (p->o.rotate_s || p->o.rotate_bytes || p->files_made > 0);
}

static int make_name(const struct publisher *p, uint64_t start_ns, unsigned seq,
		     char *out, size_t len)
{
	char fmt[NAME_LEN * 2];
	time_t t = start_ns / 1000000000ull;
	struct tm tm;
	int err;

	err = name_pattern(p, needs_stamp(p), false, seq, fmt, sizeof(fmt));
	if (err)
		return err;
	gmtime_r(&t, &tm);
	if (!strftime(out, len, fmt, &tm))
		return -ENAMETOOLONG;
	return strchr(out, '/') || !strcmp(out, ".") || !strcmp(out, "..") ?
		       -EINVAL :
		       0;
}

/* Is name one of this template's published files? */
static bool name_matches(const struct publisher *p, const char *name)
{
	char pat[NAME_LEN * 4];

	for (int stamp = 0; stamp < 2; stamp++) {
		if (stamp && p->has_conversion)
			continue;
		for (int seq = 0; seq < 2; seq++)
			if (!name_pattern(p, stamp, true, seq, pat,
					  sizeof(pat)) &&
			    !fnmatch(pat, name, 0))
				return true;
	}
	return false;
}

/* mkdir -p, each new directory 0750. */
static int make_dirs(char *path)
{
	struct stat st;

	if (!stat(path, &st))
		return S_ISDIR(st.st_mode) ? 0 : -ENOTDIR;
	for (char *s = path + 1; *s; s++) {
		if (*s != '/')
			continue;
		*s = '\0';
		if (mkdir(path, 0750) && errno != EEXIST) {
			*s = '/';
			return -errno;
		}
		*s = '/';
	}
	return mkdir(path, 0750) && errno != EEXIST ? -errno : 0;
}

static int split_template(struct publisher *p, struct error *err)
{
	const char *t = p->o.template, *slash = strrchr(t, '/');
	const char *base = slash ? slash + 1 : t;

	if (slash == t)
		snprintf(p->dir, sizeof(p->dir), "/");
	else
		snprintf(p->dir, sizeof(p->dir), "%.*s",
			 slash ? (int)(slash - t) : 1, slash ? t : ".");
	if (strchr(p->dir, '%'))
		return error__set(
			err, EINVAL,
			"output '%s': strftime conversions go in the file name, not in its directory",
			t);
	if (!*base || strlen(base) >= sizeof(p->base) - 64)
		return error__set(
			err, EINVAL,
			"output '%s': want a file name of 1 to %zu bytes", t,
			sizeof(p->base) - 64);
	snprintf(p->base, sizeof(p->base), "%s", base);
	p->gzip = has_ext(base, ".gz");
	snprintf(p->ext, sizeof(p->ext), "%s", ext_of(base));
	for (const char *s = base; *s; s++)
		if (*s == '%' && s[1] && s[1] != '%' && s[1] != 'h')
			p->has_conversion = true;
		else if (*s == '%' && s[1])
			s++;
	return 0;
}

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
	p->fd = p->dirfd = -1;
	ret = split_template(p, err);
	if (ret)
		goto fail;
	ret = make_name(p, first_start_ns, 0, name, sizeof(name));
	if (ret) {
		error__set(
			err, ret,
			"output '%s': the template does not make a file name (a conversion such as %%D makes a '/')",
			p->o.template);
		goto fail;
	}
	ret = make_dirs(p->dir);
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
	/* A fixed name the user gave is never replaced, nor followed if it
	 * is a link: say so now. A template's names take a "-N" instead. */
	if (!p->has_conversion && !needs_stamp(p) &&
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
 * The stream's next bytes for data, flushed to a byte boundary
 * (Z_SYNC_FLUSH) so that a reader of a cut file still gets every whole
 * frame; with Z_FINISH and no data, the trailer. One gzip stream for
 * the whole file: a member per interval measured 57 % larger here.
 */
static int gzip_deflate(struct publisher *p, const char *data, size_t len,
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
static int gzip_snapshot(struct publisher *p)
{
	if (p->snap_ready)
		deflateEnd(&p->snap);
	p->snap_ready = deflateCopy(&p->snap, &p->z) == Z_OK;
	return p->snap_ready ? 0 : -ENOMEM;
}

static int gzip_rollback(struct publisher *p)
{
	deflateEnd(&p->z);
	p->z_ready = p->snap_ready && deflateCopy(&p->z, &p->snap) == Z_OK;
	return p->z_ready ? 0 : -ENOMEM;
}

static int gzip_start(struct publisher *p)
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

static int write_all(int fd, const char *buf, size_t n, uint64_t at)
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
		err = gzip_deflate(p, data, len, Z_SYNC_FLUSH, &buf, &n);
	if (!err && p->gzip)
		err = keep_room_for_trailer(p->fd, n);
	/* The blocks first: on a full disk the frame is refused before a
	 * byte of it lands, where a write would stop after a block and a
	 * reader tailing the file would see the cut until the truncate. */
	if (!err)
		err = reserve_blocks(p->fd, p->size, n);
	if (!err)
		err = write_all(p->fd, buf, n, p->size);
	if (!err && p->gzip)
		err = gzip_snapshot(p);
	if (err) {
		/* No torn frame stays behind; if even the cut fails, the
		 * next start's repair cuts it. */
		if (ftruncate(p->fd, p->size) || (p->gzip && gzip_rollback(p)))
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
	struct stat st;
	int ret = -EEXIST;

	if (p->fd >= 0)
		return error__set(err, EBUSY, "a file is open already");
	/* A name taken (a file of the same second, a planted link) gets
	 * the next free "-N": nothing is replaced or followed. */
	for (unsigned seq = 0; seq < 1000 && ret == -EEXIST; seq++) {
		ret = make_name(p, start_ns, seq, p->name, sizeof(p->name));
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
	/* Held while it is written: the repair leaves it alone. */
	flock(p->fd, LOCK_EX | LOCK_NB);
	p->size = p->frames = 0;
	p->period = p->o.rotate_s ? start_ns / 1000000000ull / p->o.rotate_s :
				    0;
	p->rotation_requested = false;
	p->last_sync_ns = clock_ns(CLOCK_MONOTONIC);
	p->files_made++;
	ret = p->gzip ? gzip_start(p) : 0;
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

/* Moves a whole partial to a free final name; final gets the name. */
static int publish_partial(struct publisher *p, int fd, const char *partial,
			   char *final, size_t len)
{
	char stem[NAME_LEN], want[NAME_LEN + 16];
	const char *ext = ext_of(final);
	int err;

	if (fsync(fd))
		return -errno;
	snprintf(stem, sizeof(stem), "%.*s", (int)(strlen(final) - strlen(ext)),
		 final);
	snprintf(want, sizeof(want), "%s", final);
	for (unsigned seq = 1;; seq++) {
		err = rename_noreplace(p->dirfd, partial, want);
		if (err != -EEXIST || seq == 1000)
			break;
		snprintf(want, sizeof(want), "%s-%u%s", stem, seq, ext);
	}
	if (err)
		return err;
	if (strlen(want) >= len)
		return -ENAMETOOLONG;
	memcpy(final, want, strlen(want) + 1);
	return fsync(p->dirfd) ? -errno : 0;
}

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
static int apply_retention(struct publisher *p)
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
		if (de->d_name[0] == '.' || !name_matches(p, de->d_name) ||
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
		notice(p, false, "retention: deleted '%s/%s' (%llu bytes)",
		       p->dir, f->name, (unsigned long long)f->size);
	}
	free(files);
	return 0;
}

/* The end of the gzip stream: its CRC and length, after every frame. */
static int write_trailer(struct publisher *p)
{
	const char *buf;
	size_t n;
	int err = gzip_deflate(p, NULL, 0, Z_FINISH, &buf, &n);

	if (!err)
		err = write_all(p->fd, buf, n, p->size);
	if (!err)
		p->size += n;
	return err;
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
		ret = p->gzip ? write_trailer(p) : 0;
		if (!ret)
			ret = publish_partial(p, p->fd, p->partial, p->name,
					      sizeof(p->name));
		if (ret)
			error__set(err, ret, "cannot publish '%s/%s': %s",
				   p->dir, p->partial, strerror(-ret));
		else
			notice(p, false, "wrote '%s%s%s'",
			       strcmp(p->dir, ".") ? p->dir : "",
			       strcmp(p->dir, ".") ? "/" : "", p->name);
	}
	close(p->fd);
	p->fd = -1;
	if (!ret)
		apply_retention(p);
	return ret;
}

/*
 * What a cut gzip stream still holds: everything up to the last sync
 * flush (every whole frame), into *out. complete: the trailer was there
 * too (a kill between it and the rename). Members after the first are
 * read on, as any gzip reader does.
 */
static int gunzip_cut(const char *data, size_t len, char **out, size_t *n,
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
static int gzip_rewrite(struct publisher *p, const char *name, const char *text,
			size_t len)
{
	struct publisher tmp = { .gzip = true };
	const char *buf;
	size_t n;
	int fd, err;

	fd = openat(p->dirfd, name,
		    O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0640);
	if (fd < 0)
		return -errno;
	err = gzip_start(&tmp);
	if (!err)
		err = gzip_deflate(&tmp, text, len, Z_FINISH, &buf, &n);
	if (!err)
		err = write_all(fd, buf, n, 0);
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

static void report_repair(const struct publisher *p, const char *partial,
			  const char *final, size_t frames, size_t cut, int err)
{
	/* The first frame is the header: without an interval after it,
	 * there is nothing to keep. */
	if (err)
		notice(p, true, "cannot repair '%s/%s': %s", p->dir, partial,
		       strerror(-err));
	else if (frames <= 1)
		notice(p, true,
		       "deleted '%s/%s' left by an earlier run: it held no whole interval",
		       p->dir, partial);
	else
		notice(p, true,
		       "recovered '%s/%s' left by an earlier run: %zu whole intervals kept, %zu bytes of the interval in flight cut",
		       p->dir, final, frames - 1, cut);
}

static void recover_plain(struct publisher *p, int fd, const char *partial,
			  char *final, const char *data, size_t size)
{
	size_t frames = 0,
	       end = data ? p->o.plain_frame_end(data, size, &frames) : 0;
	int err = 0;

	if (frames <= 1)
		unlinkat(p->dirfd, partial, 0);
	else if (!(err = ftruncate(fd, end) ? -errno : 0))
		err = publish_partial(p, fd, partial, final, NAME_LEN);
	report_repair(p, partial, final, frames, size - end, err);
}

/* A cut gzip stream has no trailer: what it holds is written again as
 * a whole stream, so that gzip -t passes. */
static void recover_gzip(struct publisher *p, int fd, const char *partial,
			 char *final, const char *data, size_t size)
{
	char *text = NULL, repair[NAME_LEN + 32];
	size_t n = 0, frames = 0, end = 0;
	bool complete = false;
	int err = data ? gunzip_cut(data, size, &text, &n, &complete) : 0;
	int rfd;

	if (!err && text)
		end = p->o.plain_frame_end(text, n, &frames);
	if (err || frames <= 1) {
		if (!err)
			unlinkat(p->dirfd, partial, 0);
	} else if (complete && end == n) {
		/* Killed between the trailer and the rename: whole. */
		err = publish_partial(p, fd, partial, final, NAME_LEN);
	} else {
		snprintf(repair, sizeof(repair), "%s" REPAIR_SUFFIX, partial);
		err = gzip_rewrite(p, repair, text, end);
		rfd = err ? -1 : openat(p->dirfd, repair, O_RDONLY | O_CLOEXEC);
		if (!err && rfd < 0)
			err = -errno;
		if (!err)
			err = publish_partial(p, rfd, repair, final, NAME_LEN);
		if (rfd >= 0)
			close(rfd);
		if (!err)
			unlinkat(p->dirfd, partial, 0);
		else
			unlinkat(p->dirfd, repair, 0);
	}
	report_repair(p, partial, final, frames, n - end, err);
	free(text);
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
		notice(p, true, "cannot repair '%s/%s': %s", p->dir, partial,
		       strerror(errno));
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
		notice(p, true, "cannot repair '%s/%s': %s", p->dir, partial,
		       strerror(errno));
		close(fd);
		return;
	}
	snprintf(final, sizeof(final), "%.*s",
		 (int)(strlen(partial) - 1 - strlen(PARTIAL_SUFFIX)),
		 partial + 1);
	if (has_ext(final, ".gz"))
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
	/* Collected first: publishing renames entries under readdir. */
	while ((de = readdir(dir))) {
		n = strlen(de->d_name);
		s = strlen(PARTIAL_SUFFIX REPAIR_SUFFIX);
		if (de->d_name[0] == '.' && n > s + 1 &&
		    ends_with(de->d_name, PARTIAL_SUFFIX REPAIR_SUFFIX)) {
			snprintf(final, sizeof(final), "%.*s", (int)(n - s - 1),
				 de->d_name + 1);
			if (name_matches(p, final))
				unlinkat(p->dirfd, de->d_name, 0);
			continue;
		}
		s = strlen(PARTIAL_SUFFIX);
		if (de->d_name[0] != '.' || n <= s + 1 ||
		    !ends_with(de->d_name, PARTIAL_SUFFIX))
			continue;
		snprintf(final, sizeof(final), "%.*s", (int)(n - s - 1),
			 de->d_name + 1);
		if (!name_matches(p, final))
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
		apply_retention(p);
	return 0;
}
