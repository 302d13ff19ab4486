// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <inttypes.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#include "common/error.h"
#include "common/strbuf.h"
#include "sinks/csv.h"

struct csv {
	char prefix[512]; /* this interval's "time,host,interval_ms," */
	size_t prefix_len;
	FILE *file; /* plain output, or NULL */
	gzFile gz; /* .gz output, or NULL */
	char path[4096];
};

void csv_put_field(struct strbuf *b, const char *s)
{
	if (!s)
		return;
	if (!strpbrk(s, ",\"\r\n")) {
		strbuf__puts(b, s);
		return;
	}
	strbuf__putc(b, '"');
	for (const char *q; (q = strchr(s, '"')); s = q + 1) {
		strbuf__put(b, s, q + 1 - s); /* through the quote ... */
		strbuf__putc(b, '"'); /* ... which is doubled */
	}
	strbuf__puts(b, s);
	strbuf__putc(b, '"');
}

void csv_time(char *out, size_t len, uint64_t realtime_ns)
{
	time_t sec = realtime_ns / 1000000000ull;
	unsigned ms = (realtime_ns / 1000000ull) % 1000;
	struct tm tm;
	char base[32];

	gmtime_r(&sec, &tm);
	strftime(base, sizeof(base), "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(out, len, "%s.%03uZ", base, ms);
}

static void put_id(struct strbuf *b, int64_t id)
{
	if (id >= 0)
		strbuf__put_u64(b, id);
}

/* "time,host,interval_ms," : the same for every row of an interval. */
static void csv_format_prefix(struct strbuf *b,
			      const struct interval_info *info)
{
	char t[40];

	csv_time(t, sizeof(t), info->end_realtime_ns);
	strbuf__puts(b, t);
	strbuf__putc(b, ',');
	csv_put_field(b, info->host);
	strbuf__putc(b, ',');
	strbuf__put_u64(b, (info->length_ns + 500000) / 1000000);
	strbuf__putc(b, ',');
}

/* Everything after the prefix, with the newline. */
static void csv_format_fields(struct strbuf *b, const struct row *r)
{
	csv_put_field(b, r->scope);
	strbuf__putc(b, ',');
	put_id(b, r->cgroup_id ? (int64_t)r->cgroup_id : -1);
	strbuf__putc(b, ',');
	csv_put_field(b, r->cgroup);
	strbuf__putc(b, ',');
	put_id(b, r->pid);
	strbuf__putc(b, ',');
	put_id(b, r->tid);
	strbuf__putc(b, ',');
	csv_put_field(b, r->comm);
	strbuf__putc(b, ',');
	csv_put_field(b, r->event);
	strbuf__putc(b, ',');
	strbuf__put_u64(b, r->count);
	strbuf__putc(b, ',');
	strbuf__put_u64(b, r->samples);
	strbuf__putc(b, ',');
	strbuf__put_tenths(b, r->running_pct);
	strbuf__putc(b, ',');
	csv_put_field(b, r->container);
	strbuf__putc(b, ',');
	csv_put_field(b, r->pod);
	strbuf__putc(b, '\n');
}

int csv_format_row(char *out, size_t len, const struct interval_info *info,
		   const struct row *r)
{
	struct strbuf b;

	strbuf__init(&b, out, len, 0);
	csv_format_prefix(&b, info);
	csv_format_fields(&b, r);
	return b.truncated ? -ENOSPC : (int)b.len;
}

static bool is_gz(const char *path)
{
	size_t n = strlen(path);

	return n > 3 && !strcmp(path + n - 3, ".gz");
}

int csv_path_writable(const char *path)
{
	char copy[4096];

	if (!strcmp(path, "-"))
		return 0;
	struct stat st;

	if (!stat(path, &st)) {
		if (S_ISDIR(st.st_mode))
			return -EISDIR;
		return access(path, W_OK) ? -errno : 0;
	}
	snprintf(copy, sizeof(copy), "%s", path);
	return access(dirname(copy), W_OK | X_OK) ? -errno : 0;
}

static int csv_write(struct csv *c, const char *buf, size_t n)
{
	if (c->gz)
		return gzwrite(c->gz, buf, n) == (int)n ? 0 : -EIO;
	return fwrite(buf, 1, n, c->file) == n ? 0 : -errno;
}

static int csv_open(struct sink *s, const char *path)
{
	struct error *e = &s->error;
	struct csv *c = calloc(1, sizeof(*c));
	int err;

	if (!c)
		return -ENOMEM;
	snprintf(c->path, sizeof(c->path), "%s", path);
	if (!strcmp(path, "-"))
		c->file = stdout;
	else if (is_gz(path))
		c->gz = gzopen(path, "wbe");
	else
		c->file = fopen(path, "we");
	if (!c->file && !c->gz) {
		err = error__set(e, errno, "cannot create '%s': %s", path,
				 strerror(errno));
		free(c);
		return err;
	}
	s->priv = c;
	err = csv_write(c, CSV_HEADER "\n", strlen(CSV_HEADER) + 1);
	if (err)
		error__set(e, err, "cannot write to '%s': %s", path,
			   strerror(-err));
	return err;
}

static int csv_begin_interval(struct sink *s, const struct interval_info *info)
{
	struct csv *c = s->priv;
	struct strbuf b;

	/* strftime once an interval, not once a row. */
	strbuf__init(&b, c->prefix, sizeof(c->prefix), 0);
	csv_format_prefix(&b, info);
	c->prefix_len = b.len;
	if (b.truncated)
		return error__set(
			&s->error, ENAMETOOLONG,
			"host name '%.64s...' does not fit a row of '%s'",
			info->host, c->path);
	return 0;
}

static int csv_write_row(struct sink *s, const struct row *r)
{
	struct csv *c = s->priv;
	char buf[16384];
	struct strbuf b;
	int err;

	memcpy(buf, c->prefix, c->prefix_len);
	strbuf__init(&b, buf, sizeof(buf), c->prefix_len);
	csv_format_fields(&b, r);
	/* Longer than any path, comm and event name together can be. */
	if (b.truncated)
		return error__set(
			&s->error, ENOSPC,
			"a %s row of cgroup '%.256s' does not fit %zu bytes; not written to '%s'",
			r->scope, r->cgroup ? r->cgroup : "", sizeof(buf),
			c->path);
	err = csv_write(c, buf, b.len);
	if (err)
		error__set(&s->error, err, "cannot write to '%s': %s", c->path,
			   strerror(-err));
	return err;
}

static int csv_end_interval(struct sink *s)
{
	struct csv *c = s->priv;

	/* Each interval reaches the file whole, so a reader (or a crash)
	 * never sees half an interval. */
	int err;

	if (c->gz)
		err = gzflush(c->gz, Z_SYNC_FLUSH) == Z_OK ? 0 : -EIO;
	else
		err = fflush(c->file) ? -errno : 0;
	if (err)
		error__set(&s->error, err, "cannot write to '%s': %s", c->path,
			   strerror(-err));
	return err;
}

static int csv_close(struct sink *s)
{
	struct csv *c = s->priv;
	int err = 0;

	if (!c)
		return 0;
	if (c->gz)
		err = gzclose(c->gz) == Z_OK ? 0 : -EIO;
	else if (c->file == stdout)
		err = fflush(stdout) ? -errno : 0;
	else
		err = fclose(c->file) ? -errno : 0;
	if (err)
		error__set(&s->error, err, "cannot finish '%s': %s", c->path,
			   strerror(-err));
	free(c);
	s->priv = NULL;
	return err;
}

const struct sink_ops sink_csv_ops = {
	.name = "csv",
	.open = csv_open,
	.begin_interval = csv_begin_interval,
	.write_row = csv_write_row,
	.end_interval = csv_end_interval,
	.close = csv_close,
};
