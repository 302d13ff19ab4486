// SPDX-License-Identifier: GPL-2.0
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <fcntl.h>
#include <glob.h>
#include <isa-l/igzip_lib.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/grow.h"
#include "report/input.h"

/* What one thread scans at a time: big enough that the queue is cheap. */
#define RANGE_BYTES (8u << 20)
/* Beyond a range's end, for its last row (rows are a few hundred bytes,
 * a longer one than this is rejected). */
#define ROW_SLACK SCAN_MAX_ROW
/* Inflated buffers waiting to be scanned, at most, per gzip file. */
#define MAX_QUEUED 4

static bool has_suffix(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && !strcmp(s + n - m, suffix);
}

static bool is_export_name(const char *name)
{
	return name[0] != '.' &&
	       (has_suffix(name, ".csv") || has_suffix(name, ".csv.gz"));
}

/* 1 when (dev, ino) is new to s, and now in it; 0 when seen; -ENOMEM. */
static int seen_add(struct seen_ids *s, const struct stat *st)
{
	struct seen_id id = { st->st_dev, st->st_ino };
	uint64_t h = hash_bytes(&id, sizeof(id));
	struct hash_probe p = hash_index__probe(&s->index, h);
	uint32_t i;

	while ((i = hash_index__next(&s->index, &p)) != HASH_INDEX_END)
		if (s->ids[i].dev == id.dev && s->ids[i].ino == id.ino)
			return 0;
	if (hash_index__make_room(&s->index, &p) ||
	    GROW(s->ids, s->cap, s->nr + 1, 64))
		return -ENOMEM;
	s->ids[s->nr] = id;
	hash_index__add(&s->index, &p, s->nr++);
	return 1;
}

static void seen_free(struct seen_ids *s)
{
	free(s->ids);
	hash_index__free(&s->index);
	memset(s, 0, sizeof(*s));
}

/* A regular file, unless read already under another name. */
static int add_file(struct report_input *in, const char *path,
		    const struct stat *st, struct error *err)
{
	struct report_file *f;
	int ret = seen_add(&in->files_seen, st);

	if (ret <= 0)
		goto out;
	f = realloc(in->files, (in->nr_files + 1) * sizeof(*f));
	if (!f) {
		ret = -ENOMEM;
		goto out;
	}
	in->files = f;
	f = &in->files[in->nr_files];
	memset(f, 0, sizeof(*f));
	f->path = strdup(path);
	if (!f->path) {
		ret = -ENOMEM;
		goto out;
	}
	f->dev = st->st_dev;
	f->ino = st->st_ino;
	f->rejects = calloc(1, sizeof(*f->rejects));
	if (!f->rejects) {
		free(f->path);
		ret = -ENOMEM;
		goto out;
	}
	f->rejects->path = f->path;
	in->nr_files++;
out:
	if (ret < 0)
		return error__set(err, -ret, "out of memory for '%s'", path);
	return 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int add_dir(struct report_input *in, const char *dir,
		   const struct stat *dst, int depth, struct error *err)
{
	DIR *d;
	struct dirent *de;
	char **names = NULL;
	size_t nr = 0;
	int ret;

	/* A directory met already (a bind mount of a parent): not again. */
	ret = seen_add(&in->dirs_seen, dst);
	if (ret <= 0 || depth > 16)
		return ret < 0 ? error__set(err, -ret, "out of memory for '%s'",
					    dir) :
				 0;
	ret = 0;
	d = opendir(dir);
	if (!d)
		return error__set(err, errno, "cannot read directory '%s': %s",
				  dir, strerror(errno));
	while ((de = readdir(d))) {
		char **n;

		if (de->d_name[0] == '.')
			continue;
		n = realloc(names, (nr + 1) * sizeof(*n));
		if (!n || asprintf(&n[nr], "%s/%s", dir, de->d_name) < 0) {
			names = n ? n : names;
			ret = error__set(err, ENOMEM,
					 "out of memory for directory '%s'",
					 dir);
			break;
		}
		names = n;
		nr++;
	}
	closedir(d);
	/* Sorted, so that every run reads (and reports) in one order. */
	qsort(names, nr, sizeof(*names), cmp_str);
	for (size_t i = 0; i < nr; i++) {
		struct stat st;

		/* lstat: a link is not followed, a directory's nor a file's. */
		if (!ret && !lstat(names[i], &st)) {
			if (S_ISDIR(st.st_mode))
				ret = add_dir(in, names[i], &st, depth + 1,
					      err);
			else if (S_ISREG(st.st_mode) &&
				 is_export_name(strrchr(names[i], '/') + 1))
				ret = add_file(in, names[i], &st, err);
		}
		free(names[i]);
	}
	free(names);
	return ret;
}

/* One operand, or one match of a glob: followed, as it was named. */
static int add_path(struct report_input *in, const char *path,
		    const struct stat *st, struct error *err)
{
	if (S_ISDIR(st->st_mode))
		return add_dir(in, path, st, 0, err);
	if (S_ISREG(st->st_mode))
		return add_file(in, path, st, err);
	return error__set(
		err, EINVAL,
		"cannot read '%s': not a regular file or a directory (%s)",
		path,
		S_ISFIFO(st->st_mode) ? "a FIFO" :
		S_ISCHR(st->st_mode)  ? "a character device" :
		S_ISBLK(st->st_mode)  ? "a block device" :
		S_ISSOCK(st->st_mode) ? "a socket" :
					"a special file");
}

int report_input__add(struct report_input *in, const char *operand,
		      struct error *err)
{
	struct stat st;
	glob_t g;
	int ret = 0;

	if (!stat(operand, &st))
		return add_path(in, operand, &st, err);
	if (!strpbrk(operand, "*?["))
		return error__set(err, errno, "cannot read '%s': %s", operand,
				  strerror(errno));
	if (glob(operand, 0, NULL, &g))
		return error__set(err, ENOENT, "'%s' matches no file", operand);
	for (size_t i = 0; !ret && i < g.gl_pathc; i++) {
		if (stat(g.gl_pathv[i], &st))
			ret = error__set(err, errno, "cannot read '%s': %s",
					 g.gl_pathv[i], strerror(errno));
		else if (S_ISDIR(st.st_mode) || S_ISREG(st.st_mode))
			ret = add_path(in, g.gl_pathv[i], &st, err);
		/* else a FIFO or a device: passed over, as in a walk */
	}
	globfree(&g);
	return ret;
}

void report_input__free(struct report_input *in)
{
	for (unsigned i = 0; i < in->nr_files; i++) {
		free(in->files[i].path);
		free(in->files[i].rejects);
	}
	free(in->files);
	seen_free(&in->files_seen);
	seen_free(&in->dirs_seen);
	memset(in, 0, sizeof(*in));
}

/* A buffer of whole rows, inflated, waiting for a thread to scan it. */
struct queued {
	struct queued *next;
	struct report_file *f;
	uint64_t off; /* of data[0] in the inflated text */
	size_t len, cap;
	char *data;
};

/* A plain file being read in ranges by every thread. */
struct split {
	struct report_file *f;
	int fd;
	uint64_t start, pos, end;
	unsigned busy; /* ranges being scanned */
};

struct reader {
	struct report_input *in;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	unsigned next_file;
	struct split split;
	struct queued *head, *tail, *spare;
	unsigned nr_queued;
	unsigned opening; /* files being opened, or inflated */
	int err;
	struct error error;
};

struct worker {
	struct reader *r;
	struct scan_thread *t;
	pthread_t thread;
	char *buf;
	size_t cap;
};

static int fail(struct reader *r, int err, const struct error *e)
{
	pthread_mutex_lock(&r->lock);
	if (!r->err) {
		r->err = err;
		r->error = *e;
	}
	pthread_cond_broadcast(&r->cond);
	pthread_mutex_unlock(&r->lock);
	return err;
}

/* Reads at most len bytes at off; the bytes read, or -errno. */
static ssize_t read_at(int fd, char *buf, size_t len, uint64_t off)
{
	size_t got = 0;

	while (got < len) {
		ssize_t n = pread(fd, buf + got, len - got, off + got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (!n)
			break;
		got += n;
	}
	return got;
}

static int read_error(struct error *err, const struct report_file *f, int n)
{
	return error__set(err, n, "cannot read '%s': %s", f->path,
			  strerror(-n));
}

/*
 * The header and the meta rows of a plain file, read by the thread that
 * opens it; where its rows start.
 */
static int plain_open(struct worker *w, struct report_file *f, int fd,
		      uint64_t *data_off, struct error *err)
{
	size_t want = 1 << 16;

	for (;;) {
		ssize_t n;
		long h;

		if (GROW(w->buf, w->cap, want, 0))
			return error__set(err, ENOMEM,
					  "out of memory for %zu bytes of '%s'",
					  want, f->path);
		n = read_at(fd, w->buf, want, 0);
		if (n < 0)
			return read_error(err, f, n);
		h = scan_file__header(f, w->buf, n, err);
		if (h == -EAGAIN && (size_t)n == want && want < (16u << 20)) {
			want *= 4;
			continue;
		}
		if (h == -EAGAIN)
			return error__set(
				err, EINVAL,
				n ? "%s: not a bpmc export (no header line)" :
				    "%s: not a bpmc export (empty)",
				f->path);
		if (h < 0)
			return h;
		*data_off = h + scan_meta(f, w->buf + h, n - h);
		return 0;
	}
}

/* A file of a schema before v5, whose rows may span lines: one thread. */
static int plain_sequential(struct worker *w, struct report_file *f, int fd,
			    uint64_t off, struct error *err)
{
	size_t carry = 0;
	bool skip = false; /* the rest of a row too long to hold */

	for (;;) {
		ssize_t n;
		size_t used = 0;
		uint64_t base = off - carry;

		if (GROW(w->buf, w->cap, carry + RANGE_BYTES, 0))
			return error__set(err, ENOMEM,
					  "out of memory for %zu bytes of '%s'",
					  carry + RANGE_BYTES, f->path);
		n = read_at(fd, w->buf + carry, RANGE_BYTES, off);
		if (n < 0)
			return read_error(err, f, n);
		off += n;
		if (skip) { /* carry is 0 */
			const char *nl = memchr(w->buf, '\n', n);

			if (!nl && n)
				continue;
			skip = false;
			used = nl ? (size_t)(nl + 1 - w->buf) : 0;
		}
		w->t->base = base + used;
		used += scan_rows(w->t, f, w->buf + used, carry + n - used);
		carry = carry + n - used;
		if (carry > ROW_SLACK && n) {
			scan_reject(f, REJECT_LONG, base + used, w->buf + used,
				    32);
			carry = 0;
			skip = true;
		}
		memmove(w->buf, w->buf + used, carry);
		if (!n) {
			f->truncated = carry > 0;
			return 0;
		}
	}
}

/*
 * Scans the rows that start in [a, b) of the split file: the row that
 * starts before a is the previous range's, the one that crosses b ours.
 */
static int plain_range(struct worker *w, const struct split *s, uint64_t a,
		       uint64_t b, struct error *err)
{
	struct report_file *f = s->f;
	uint64_t off = a > s->start ? a - 1 : a;
	size_t want = b - off + ROW_SLACK;
	const char *p, *limit, *nl;

	for (;;) {
		ssize_t n;

		if (GROW(w->buf, w->cap, want, 0))
			return error__set(err, ENOMEM,
					  "out of memory for %zu bytes of '%s'",
					  want, f->path);
		n = read_at(s->fd, w->buf, want, off);
		if (n < 0)
			return read_error(err, f, n);
		p = w->buf;
		if (off < a) {
			/* Byte a - 1 ends a row, or the row is the last range's. */
			nl = memchr(p, '\n', n);
			if (!nl || off + (uint64_t)(nl - w->buf) >= b)
				return 0; /* no row starts in the range */
			p = nl + 1;
		}
		/* The end of the row that holds byte b - 1. */
		nl = b - off <= (uint64_t)n ? memchr(w->buf + (b - 1 - off),
						     '\n', n - (b - 1 - off)) :
					      NULL;
		if (nl) {
			limit = nl + 1;
			break;
		}
		if ((size_t)n < want) { /* the file's end */
			limit = w->buf + n;
			break;
		}
		/* The row that holds byte b - 1 goes on for more than
		 * ROW_SLACK: rejected, never held whole. It starts after
		 * the last newline before b - 1, or at p. */
		nl = memrchr(p, '\n', w->buf + (b - 1 - off) - p);
		limit = nl ? nl + 1 : p;
		scan_reject(f, REJECT_LONG, off + (limit - w->buf), limit, 32);
		break;
	}
	w->t->base = off + (p - w->buf);
	if (scan_rows(w->t, f, p, limit - p) < (size_t)(limit - p))
		f->truncated = true; /* only the last range can be cut */
	return 0;
}

/* The next plain range to scan, under the lock; false when none. */
static bool take_range(struct reader *r, uint64_t *a, uint64_t *b)
{
	struct split *s = &r->split;

	if (!s->f || s->pos >= s->end)
		return false;
	*a = s->pos;
	*b = s->end - s->pos > RANGE_BYTES ? s->pos + RANGE_BYTES : s->end;
	s->pos = *b;
	s->busy++;
	return true;
}

static void range_done(struct reader *r)
{
	struct split *s = &r->split;

	if (!--s->busy && s->pos >= s->end) {
		close(s->fd);
		s->f = NULL;
		pthread_cond_broadcast(&r->cond);
	}
}

static struct queued *buffer_get(struct reader *r)
{
	struct queued *q;

	pthread_mutex_lock(&r->lock);
	q = r->spare;
	if (q)
		r->spare = q->next;
	pthread_mutex_unlock(&r->lock);
	if (q)
		return q;
	q = calloc(1, sizeof(*q));
	if (q) {
		q->cap = RANGE_BYTES;
		q->data = malloc(q->cap);
		if (!q->data) {
			free(q);
			q = NULL;
		}
	}
	return q;
}

/* Under the lock. */
static void buffer_put(struct reader *r, struct queued *q)
{
	q->next = r->spare;
	r->spare = q;
}

static void push(struct reader *r, struct queued *q)
{
	pthread_mutex_lock(&r->lock);
	q->next = NULL;
	if (r->tail)
		r->tail->next = q;
	else
		r->head = q;
	r->tail = q;
	r->nr_queued++;
	pthread_cond_broadcast(&r->cond);
	pthread_mutex_unlock(&r->lock);
}

static void scan_queued(struct scan_thread *t, struct queued *q)
{
	t->base = q->off;
	if (scan_rows(t, q->f, q->data, q->len) < q->len)
		q->f->truncated = true;
}

/*
 * Hands the whole rows of *qp on to the other threads (or scans them here
 * when enough wait already), and starts the next buffer with the rest: a
 * buffer is handed on, never copied.
 */
static int hand_on(struct worker *w, struct queued **qp, bool last, bool *skip)
{
	struct reader *r = w->r;
	struct queued *q = *qp, *next;
	const char *nl = q->len ? memrchr(q->data, '\n', q->len) : NULL;
	size_t whole = last ? q->len : nl ? (size_t)(nl + 1 - q->data) : 0;
	bool full;

	if (!q->f->escaped) {
		/* Rows may span lines before v5: scanned here, in order. */
		size_t used;

		w->t->base = q->off;
		used = scan_rows(w->t, q->f, q->data, q->len);
		if (last && used < q->len)
			q->f->truncated = true;
		if (!last && q->len - used > ROW_SLACK) {
			scan_reject(q->f, REJECT_LONG, q->off + used,
				    q->data + used, 32);
			used = q->len;
			*skip = true;
		}
		memmove(q->data, q->data + used, q->len - used);
		q->len -= used;
		q->off += used;
		return 0;
	}
	next = last ? NULL : buffer_get(r);
	if (!last && !next)
		return -ENOMEM;
	if (next) {
		next->f = q->f;
		next->off = q->off + whole;
		next->len = q->len - whole;
		if (next->len > ROW_SLACK) {
			/* A row too long to hold: rejected, its rest skipped. */
			scan_reject(q->f, REJECT_LONG, next->off,
				    q->data + whole, 32);
			next->off += next->len;
			next->len = 0;
			*skip = true;
		}
		memcpy(next->data, q->data + whole, next->len);
	}
	q->len = whole;
	pthread_mutex_lock(&r->lock);
	full = r->nr_queued >= MAX_QUEUED;
	pthread_mutex_unlock(&r->lock);
	if (full || last) {
		scan_queued(w->t, q);
		pthread_mutex_lock(&r->lock);
		buffer_put(r, q);
		pthread_mutex_unlock(&r->lock);
	} else {
		push(r, q);
	}
	*qp = next;
	return 0;
}

/* Moves ISA-L on past a gzip member's end: false when the file ends. */
static bool next_member(struct inflate_state *st)
{
	uint8_t *next = st->next_in;
	uint32_t left = st->avail_in;

	if (left < 2 || next[0] != 0x1f || next[1] != 0x8b)
		return false;
	isal_inflate_reset(st);
	st->crc_flag = ISAL_GZIP;
	st->next_in = next;
	st->avail_in = left;
	return true;
}

/* Compressed input read at a time: the file is never mapped whole. */
#define GZ_READ_BYTES (1u << 20)

/* More compressed input, once ISA-L has taken all it had. */
static int gz_refill(struct inflate_state *st, int fd, unsigned char *in,
		     uint64_t *off, bool *eof, const struct report_file *f,
		     struct error *err)
{
	ssize_t n;

	if (st->avail_in || *eof)
		return 0;
	n = read_at(fd, (char *)in, GZ_READ_BYTES, *off);
	if (n < 0)
		return read_error(err, f, n);
	*off += n;
	*eof = (size_t)n < GZ_READ_BYTES;
	st->next_in = in;
	st->avail_in = n;
	return 0;
}

static int gz_read(struct worker *w, struct report_file *f, int fd,
		   struct error *err)
{
	struct inflate_state *st = malloc(sizeof(*st));
	unsigned char *in = malloc(GZ_READ_BYTES);
	struct queued *q = buffer_get(w->r);
	uint64_t off = 0;
	bool header = false, done = false, eof = false, skip = false;
	int ret = 0;

	if (!st || !in || !q) {
		ret = -ENOMEM;
		goto cleanup;
	}
	q->f = f;
	q->len = 0;
	q->off = 0;
	isal_inflate_init(st);
	st->crc_flag = ISAL_GZIP;
	st->avail_in = 0;
	while (!done) {
		int rc;

		ret = gz_refill(st, fd, in, &off, &eof, f, err);
		if (ret)
			goto cleanup;
		if (q->len == q->cap) { /* one row longer than the buffer */
			char *d = realloc(q->data, 2 * q->cap);

			if (!d) {
				ret = -ENOMEM;
				goto cleanup;
			}
			q->data = d;
			q->cap *= 2;
		}
		st->next_out = (unsigned char *)q->data + q->len;
		st->avail_out = q->cap - q->len;
		rc = isal_inflate(st);
		q->len = q->cap - st->avail_out;
		if (rc < 0) {
			ret = error__set(
				err, EINVAL,
				"%s: not valid gzip (ISA-L error %d near byte %llu)",
				f->path, rc,
				(unsigned long long)(off - st->avail_in));
			goto cleanup;
		}
		if (st->block_state == ISAL_BLOCK_FINISH) {
			/* Concatenated members are one file, as gzip(1) has it. */
			ret = gz_refill(st, fd, in, &off, &eof, f, err);
			if (ret)
				goto cleanup;
			done = !next_member(st);
		} else if (!st->avail_in && eof && st->avail_out) {
			done = f->truncated = true; /* all read, no end: cut */
		}
		if (skip) {
			/* The rest of a row too long to hold (q->len was 0). */
			const char *nl = memchr(q->data, '\n', q->len);
			size_t drop = nl ? (size_t)(nl + 1 - q->data) : q->len;

			memmove(q->data, q->data + drop, q->len - drop);
			q->len -= drop;
			q->off += drop;
			skip = !nl;
		}
		if (!header) {
			long h = scan_file__header(f, q->data, q->len, err);
			size_t meta;

			if (h == -EAGAIN && !done)
				continue;
			if (h == -EAGAIN)
				h = error__set(
					err, EINVAL,
					q->len ?
						"%s: not a bpmc export (no header line)" :
						"%s: not a bpmc export (empty)",
					f->path);
			if (h < 0) {
				ret = h;
				goto cleanup;
			}
			meta = h + scan_meta(f, q->data + h, q->len - h);
			memmove(q->data, q->data + meta, q->len - meta);
			q->len -= meta;
			q->off += meta;
			header = true;
		}
		/* Hand on full buffers only: fewer, bigger pieces of work. */
		if (q->len == q->cap || done) {
			ret = hand_on(w, &q, done, &skip);
			if (ret)
				goto cleanup;
		}
	}
cleanup:
	if (q) {
		pthread_mutex_lock(&w->r->lock);
		buffer_put(w->r, q);
		pthread_mutex_unlock(&w->r->lock);
	}
	free(st);
	free(in);
	return ret;
}

static bool is_gzip(int fd)
{
	unsigned char m[2];

	return pread(fd, m, 2, 0) == 2 && m[0] == 0x1f && m[1] == 0x8b;
}

static void opened(struct reader *r)
{
	pthread_mutex_lock(&r->lock);
	r->opening--;
	pthread_cond_broadcast(&r->cond);
	pthread_mutex_unlock(&r->lock);
}

/*
 * Opens a file: a gzip one is inflated here; a plain one of v5 or later
 * becomes the split file, whose ranges every thread takes. Called
 * without the lock.
 */
static int open_file(struct worker *w, struct report_file *f)
{
	struct reader *r = w->r;
	struct error err = {};
	uint64_t data_off = 0;
	struct stat sb;
	int fd, ret;

	/* O_NONBLOCK: a FIFO put in a file's place does not block open. */
	fd = open(f->path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &sb))
		ret = error__set(&err, errno, "cannot read '%s': %s", f->path,
				 strerror(errno));
	else if (!S_ISREG(sb.st_mode))
		ret = error__set(&err, EINVAL,
				 "cannot read '%s': no longer a regular file",
				 f->path);
	else
		ret = 0;
	if (ret) {
		if (fd >= 0)
			close(fd);
		opened(r);
		return fail(r, ret, &err);
	}
	f->size = sb.st_size;
	if (!f->size) {
		ret = error__set(&err, EINVAL, "%s: not a bpmc export (empty)",
				 f->path);
	} else if (is_gzip(fd)) {
		f->gz = true;
		ret = gz_read(w, f, fd, &err);
	} else {
		ret = plain_open(w, f, fd, &data_off, &err);
		if (!ret && f->escaped) {
			pthread_mutex_lock(&r->lock);
			/* The previous split file's last ranges first. */
			while (r->split.f && !r->err)
				pthread_cond_wait(&r->cond, &r->lock);
			r->split = (struct split){
				.f = f,
				.fd = fd,
				.start = data_off,
				.pos = data_off,
				.end = f->size,
			};
			if (data_off >= f->size)
				r->split.f = NULL;
			r->opening--;
			pthread_cond_broadcast(&r->cond);
			pthread_mutex_unlock(&r->lock);
			if (data_off >= f->size)
				close(fd);
			return 0;
		}
		if (!ret)
			ret = plain_sequential(w, f, fd, data_off, &err);
	}
	close(fd);
	opened(r);
	return ret ? fail(r, ret, &err) : 0;
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	struct reader *r = w->r;

	pthread_mutex_lock(&r->lock);
	while (!r->err) {
		uint64_t a, b;

		if (r->head) {
			struct queued *q = r->head;

			r->head = q->next;
			if (!r->head)
				r->tail = NULL;
			r->nr_queued--;
			pthread_mutex_unlock(&r->lock);
			scan_queued(w->t, q);
			pthread_mutex_lock(&r->lock);
			buffer_put(r, q);
		} else if (take_range(r, &a, &b)) {
			struct split s = r->split;
			struct error err = {};
			int ret;

			pthread_mutex_unlock(&r->lock);
			ret = plain_range(w, &s, a, b, &err);
			if (ret)
				fail(r, ret, &err);
			pthread_mutex_lock(&r->lock);
			range_done(r);
		} else if (r->next_file < r->in->nr_files) {
			struct report_file *f = &r->in->files[r->next_file++];

			r->opening++;
			pthread_mutex_unlock(&r->lock);
			open_file(w, f);
			pthread_mutex_lock(&r->lock);
		} else if (r->opening || r->split.f) {
			pthread_cond_wait(&r->cond, &r->lock);
		} else {
			break;
		}
		if (w->t->err) {
			struct error e;

			pthread_mutex_unlock(&r->lock);
			error__set(&e, w->t->err,
				   "cannot keep the report's keys: %s",
				   strerror(-w->t->err));
			fail(r, w->t->err, &e);
			pthread_mutex_lock(&r->lock);
		}
	}
	pthread_cond_broadcast(&r->cond);
	pthread_mutex_unlock(&r->lock);
	return NULL;
}

int report_input__scan(struct report_input *in, unsigned nr_threads,
		       struct scan_thread *out, struct error *err)
{
	struct reader r = { .in = in };
	struct worker *w;
	struct scan_thread *t;
	unsigned started = 0;
	int ret = 0;

	if (nr_threads < 1)
		nr_threads = 1;
	w = calloc(nr_threads, sizeof(*w));
	t = calloc(nr_threads, sizeof(*t));
	if (!w || !t) {
		ret = -ENOMEM;
		goto cleanup;
	}
	pthread_mutex_init(&r.lock, NULL);
	pthread_cond_init(&r.cond, NULL);
	for (unsigned i = 0; i < nr_threads; i++) {
		w[i].r = &r;
		w[i].t = i ? &t[i] : out;
		if (i && scan_thread__init(&t[i], out->cfg, out->events)) {
			ret = -ENOMEM;
			break;
		}
		if (i &&
		    pthread_create(&w[i].thread, NULL, worker_main, &w[i])) {
			scan_thread__free(&t[i]);
			break;
		}
		started = i + 1;
	}
	if (!ret)
		worker_main(&w[0]);
	else
		fail(&r, ret, &(struct error){ "out of memory" });
	for (unsigned i = 1; i < started; i++)
		pthread_join(w[i].thread, NULL);
	ret = r.err;
	if (ret)
		*err = r.error;
	for (unsigned i = 1; i < started; i++) {
		if (!ret) {
			ret = scan_thread__merge(out, &t[i]);
			if (ret)
				error__set(err, ret,
					   "cannot merge the report's keys: %s",
					   strerror(-ret));
		}
		scan_thread__free(&t[i]);
	}
	for (unsigned i = 0; i < nr_threads; i++)
		free(w[i].buf);
	while (r.head) {
		struct queued *q = r.head;

		r.head = q->next;
		free(q->data);
		free(q);
	}
	while (r.spare) {
		struct queued *q = r.spare;

		r.spare = q->next;
		free(q->data);
		free(q);
	}
	pthread_mutex_destroy(&r.lock);
	pthread_cond_destroy(&r.cond);
cleanup:
	free(w);
	free(t);
	return ret;
}
