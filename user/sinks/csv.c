// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <inttypes.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "sinks/csv.h"
#include "common/util.h"

struct csv {
	char prefix[512]; /* this interval's "time,host,interval_ms," */
	size_t prefix_len;
	FILE *file; /* plain output, or NULL */
	gzFile gz; /* .gz output, or NULL */
	char path[4096];
};

size_t csv_field(char *out, size_t len, size_t pos, const char *s)
{
	bool quote = s && strpbrk(s, ",\"\r\n") != NULL;

	/* Room kept for a doubled quote, the closing quote and the NUL, so
	 * a field cut short is still a closed field. */
	size_t reserve = quote ? 3 : 1;

	if (!s || pos + reserve + 1 > len)
		return pos;
	if (quote)
		out[pos++] = '"';
	for (; *s && pos + reserve + (*s == '"') < len; s++) {
		if (*s == '"')
			out[pos++] = '"';
		out[pos++] = *s;
	}
	if (quote)
		out[pos++] = '"';
	out[pos] = '\0';
	return pos;
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

/* Decimal without printf: 100k-key intervals write 200k+ rows. */
static size_t append_u64(char *out, size_t len, size_t pos, uint64_t v)
{
	char tmp[24];
	int n = 0;

	do {
		tmp[n++] = '0' + v % 10;
		v /= 10;
	} while (v);
	if (pos + n + 1 >= len)
		return pos;
	while (n)
		out[pos++] = tmp[--n];
	return pos;
}

static size_t append_id(char *out, size_t len, size_t pos, int64_t id)
{
	return id >= 0 ? append_u64(out, len, pos, id) : pos;
}

/* running_pct: one decimal, rounded half up, as "%.1f" would. */
static size_t append_pct(char *out, size_t len, size_t pos, double pct)
{
	uint64_t tenths = pct <= 0 ? 0 : (uint64_t)(pct * 10 + 0.5);

	pos = append_u64(out, len, pos, tenths / 10);
	if (pos + 3 >= len)
		return pos;
	out[pos++] = '.';
	out[pos++] = '0' + tenths % 10;
	return pos;
}

/* "time,host,interval_ms," : the same for every row of an interval. */
static size_t csv_format_prefix(char *out, size_t len,
				const struct interval_info *info)
{
	char t[40];
	size_t pos;

	csv_time(t, sizeof(t), info->end_realtime_ns);
	pos = snprintf(out, len, "%s,", t);
	pos = csv_field(out, len, pos, info->host);
	pos += snprintf(out + pos, len - pos, ",%" PRIu64 ",",
			(info->length_ns + 500000) / 1000000);
	return pos < len ? pos : len - 1;
}

/* Everything after the prefix, with the newline. */
static size_t csv_format_fields(char *out, size_t len, size_t pos,
				const struct row *r)
{
	pos = csv_field(out, len, pos, r->scope);
	out[pos++] = ',';
	pos = append_id(out, len, pos,
			r->cgroup_id ? (int64_t)r->cgroup_id : -1);
	out[pos++] = ',';
	pos = csv_field(out, len, pos, r->cgroup);
	out[pos++] = ',';
	pos = append_id(out, len, pos, r->pid);
	out[pos++] = ',';
	pos = append_id(out, len, pos, r->tid);
	out[pos++] = ',';
	pos = csv_field(out, len, pos, r->comm);
	out[pos++] = ',';
	pos = csv_field(out, len, pos, r->event);
	out[pos++] = ',';
	pos = append_u64(out, len, pos, r->count);
	out[pos++] = ',';
	pos = append_u64(out, len, pos, r->samples);
	out[pos++] = ',';
	pos = append_pct(out, len, pos, r->running_pct);
	out[pos++] = ',';
	pos = csv_field(out, len, pos, r->container);
	out[pos++] = ',';
	pos = csv_field(out, len, pos, r->pod);
	out[pos++] = '\n';
	out[pos] = '\0';
	return pos;
}

size_t csv_format_row(char *out, size_t len, const struct interval_info *info,
		      const struct row *r)
{
	return csv_format_fields(out, len, csv_format_prefix(out, len, info),
				 r);
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
		err = -errno;
		p_err("cannot create '%s': %s", path, strerror(errno));
		free(c);
		return err;
	}
	s->priv = c;
	return csv_write(c, CSV_HEADER "\n", strlen(CSV_HEADER) + 1);
}

static int csv_begin_interval(struct sink *s, const struct interval_info *info)
{
	struct csv *c = s->priv;

	/* strftime once an interval, not once a row. */
	c->prefix_len = csv_format_prefix(c->prefix, sizeof(c->prefix), info);
	return 0;
}

static int csv_write_row(struct sink *s, const struct row *r)
{
	struct csv *c = s->priv;
	char buf[16384];
	size_t n;

	memcpy(buf, c->prefix, c->prefix_len);
	n = csv_format_fields(buf, sizeof(buf), c->prefix_len, r);
	return csv_write(c, buf, n);
}

static int csv_end_interval(struct sink *s)
{
	struct csv *c = s->priv;

	/* Each interval reaches the file whole, so a reader (or a crash)
	 * never sees half an interval. */
	if (c->gz)
		return gzflush(c->gz, Z_SYNC_FLUSH) == Z_OK ? 0 : -EIO;
	return fflush(c->file) ? -errno : 0;
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
		p_err("cannot finish '%s': %s", c->path, strerror(-err));
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
