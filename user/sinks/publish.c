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
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#include "common/util.h"
#include "sinks/publish.h"

#define NAME_LEN 256
#define PARTIAL_SUFFIX ".partial"
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
	bool z_ready;
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
	p->gzip = ends_with(base, ".gz");
	snprintf(p->ext, sizeof(p->ext), "%s",
		 ends_with(base, ".csv.gz") ? ".csv.gz" :
		 ends_with(base, ".csv")    ? ".csv" :
		 p->gzip		    ? ".gz" :
					      "");
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

bool publisher__rotation_due(const struct publisher *p, uint64_t start_ns)
{
	if (p->fd < 0 || p->rotation_requested)
		return true;
	if (p->o.rotate_s &&
	    start_ns / 1000000000ull / p->o.rotate_s != p->period)
		return true;
	return p->o.rotate_bytes && p->size >= p->o.rotate_bytes;
}

/* One gzip member holding data: readers (zcat, DuckDB, Python) read
 * concatenated members as one stream, and a member is whole or absent. */
static int gzip_member(struct publisher *p, const char *data, size_t len,
		       const char **out, size_t *out_len)
{
	size_t need;
	int ret;

	if (!p->z_ready) {
		if (deflateInit2(&p->z, Z_DEFAULT_COMPRESSION, Z_DEFLATED,
				 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
			return -ENOMEM;
		p->z_ready = true;
	} else if (deflateReset(&p->z) != Z_OK) {
		return -EIO;
	}
	need = deflateBound(&p->z, len);
	if (need > p->zcap) {
		char *b = realloc(p->zbuf, need);

		if (!b)
			return -ENOMEM;
		p->zbuf = b;
		p->zcap = need;
	}
	p->z.next_in = (Bytef *)data;
	p->z.avail_in = len;
	p->z.next_out = (Bytef *)p->zbuf;
	p->z.avail_out = p->zcap;
	ret = deflate(&p->z, Z_FINISH);
	if (ret != Z_STREAM_END)
		return -EIO;
	*out = p->zbuf;
	*out_len = p->zcap - p->z.avail_out;
	return 0;
}

/* Writes the frame at the end of the whole ones, or cuts it back. */
static int write_frame(struct publisher *p, const char *data, size_t len)
{
	const char *buf = data;
	size_t n = len, done = 0;
	ssize_t w;
	int err;

	if (p->gzip) {
		err = gzip_member(p, data, len, &buf, &n);
		if (err)
			return err;
	}
	while (done < n) {
		w = pwrite(p->fd, buf + done, n - done, p->size + done);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			err = w < 0 ? -errno : -EIO;
			/* No torn frame stays behind; if even the cut fails,
			 * the next start's repair cuts it. */
			if (done && ftruncate(p->fd, p->size))
				p->rotation_requested = true;
			return err;
		}
		done += w;
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
	const char *ext = ends_with(final, ".csv.gz") ? ".csv.gz" :
			  ends_with(final, ".csv")    ? ".csv" :
			  ends_with(final, ".gz")     ? ".gz" :
							"";
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

int publisher__publish(struct publisher *p, struct error *err)
{
	int ret = 0;

	if (p->fd < 0)
		return 0;
	if (p->frames <= 1) {
		/* The header alone: nothing to publish. */
		unlinkat(p->dirfd, p->partial, 0);
	} else {
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

/* The end of the last whole gzip member, and how many there are. */
static size_t gzip_frame_end(const char *data, size_t len, size_t *nr)
{
	unsigned char out[16384];
	size_t end = 0, at = 0;
	z_stream z = {};
	int ret;

	*nr = 0;
	if (inflateInit2(&z, 15 + 16) != Z_OK)
		return 0;
	while (at < len) {
		z.next_in = (Bytef *)data + at;
		z.avail_in = len - at > UINT32_MAX ? UINT32_MAX : len - at;
		do {
			z.next_out = out;
			z.avail_out = sizeof(out);
			ret = inflate(&z, Z_NO_FLUSH);
		} while (ret == Z_OK);
		if (ret != Z_STREAM_END) /* cut short, or a bad CRC */
			break;
		at = (const char *)z.next_in - data;
		end = at;
		(*nr)++;
		inflateReset(&z);
	}
	inflateEnd(&z);
	return end;
}

/* Cuts one partial to its last whole frame and publishes it. */
static void recover_one(struct publisher *p, const char *partial)
{
	char final[NAME_LEN];
	size_t end = 0, frames = 0, size;
	struct stat st;
	void *map;
	int fd, err;

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
	if (map) {
		end = ends_with(partial, ".gz" PARTIAL_SUFFIX) ?
			      gzip_frame_end(map, size, &frames) :
			      p->o.plain_frame_end(map, size, &frames);
		munmap(map, size);
	}
	snprintf(final, sizeof(final), "%.*s",
		 (int)(strlen(partial) - 1 - strlen(PARTIAL_SUFFIX)),
		 partial + 1);
	/* The first frame is the header: without an interval after it,
	 * there is nothing to keep. */
	if (frames <= 1) {
		unlinkat(p->dirfd, partial, 0);
		notice(p, true,
		       "deleted '%s/%s' left by an earlier run: it held no whole interval",
		       p->dir, partial);
	} else if ((err = ftruncate(fd, end) ? -errno : 0) ||
		   (err = publish_partial(p, fd, partial, final,
					  sizeof(final)))) {
		notice(p, true, "cannot repair '%s/%s': %s", p->dir, partial,
		       strerror(-err));
	} else {
		notice(p, true,
		       "recovered '%s/%s' left by an earlier run: %zu whole intervals kept, %zu bytes of the interval in flight cut",
		       p->dir, final, frames - 1, size - end);
	}
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
