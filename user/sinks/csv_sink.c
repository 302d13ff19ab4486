// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/grow.h"
#include "common/strbuf.h"
#include "common/util.h"
#include "sinks/csv.h"
#include "sinks/csv_sink.h"
#include "sinks/publish.h"

/* The longest row: every field at its longest, escaped, fits. */
#define ROW_MAX 65536
#define PREFIX_MAX 512
/* Beyond --backlog intervals, the backlog also stops at this size. */
#define BACKLOG_MAX_BYTES (128u << 20)

/* An interval that is formatted but not on disk yet. */
struct held {
	struct held *next;
	uint64_t start_ns;
	char prefix[PREFIX_MAX];
	size_t prefix_len;
	size_t len, cap; /* cap leaves room for the intervals_lost row */
	char text[];
};

struct csv_sink {
	struct csv_config cfg;
	const struct csv_meta *meta;
	size_t nr_meta;
	struct sink *sink;
	struct publisher *pub; /* NULL: a stream (-, a FIFO, a device) */
	int stream_fd;
	bool stream_started;
	/* The interval being formatted. */
	char prefix[PREFIX_MAX];
	size_t prefix_len;
	uint64_t start_ns;
	char *buf;
	size_t len, cap;
	/* What the disk has not taken yet, oldest first. */
	struct held *head, *tail;
	size_t nr_held, held_bytes;
	uint64_t lost_unwritten; /* lost since the last interval written */
	uint64_t lost_total;
	bool failing, dropping;
	/* A SIGHUP came before the file it asks for was made: publish it
	 * once the interval in flight is written into it. */
	bool publish_pending;
	uint64_t written_while_failing;
	uint64_t rows; /* rows taken, for record's status line */
	struct csv_row_cache runs;
	uint64_t stream_bytes;
};

static void publisher_notice(void *ctx, bool warning, const char *msg)
{
	struct csv_sink *c = ctx;

	sink__notice(c->sink, warning, "%s", msg);
}

/* Room for n more bytes in the interval's buffer. */
static int reserve(struct csv_sink *c, size_t n)
{
	return GROW(c->buf, c->cap, c->len + n, 65536);
}

/* The row that ends every interval: the intervals lost before it. */
static int format_interval_end(struct csv_sink *c, const char *prefix,
			       size_t prefix_len, char *out, size_t len)
{
	struct row r = {
		.scope = "self",
		.pid = getpid(),
		.tid = -1,
		.comm = "bpmc",
		.event = CSV_INTERVAL_END_EVENT,
		.count = c->lost_unwritten,
		.running_pct = -1,
	};
	struct strbuf b;

	strbuf__init(&b, out, len, 0);
	strbuf__put(&b, prefix, prefix_len);
	csv_format_fields(&b, &r);
	return b.truncated ? -ENOSPC : (int)b.len;
}

/* The header and the meta rows: every file's first frame. */
static int format_header(struct csv_sink *c, const char *prefix,
			 size_t prefix_len, char **out, size_t *len)
{
	size_t cap = 4096 + c->nr_meta * (PREFIX_MAX + 1024);
	char *buf = malloc(cap);
	struct strbuf b;

	if (!buf)
		return -ENOMEM;
	strbuf__init(&b, buf, cap, 0);
	strbuf__puts(&b, CSV_HEADER "\n");
	for (size_t i = 0; i < c->nr_meta; i++) {
		const struct csv_meta *m = &c->meta[i];
		struct row r = {
			.scope = m->scope,
			.pid = -1,
			.tid = -1,
			.event = m->key,
			.running_pct = -1,
			.no_count = true,
			.value = m->value,
		};

		strbuf__put(&b, prefix, prefix_len);
		csv_format_fields(&b, &r);
	}
	if (b.truncated) {
		free(buf);
		return -ENOSPC;
	}
	*out = buf;
	*len = b.len;
	return 0;
}

/* Publishes the open file; where that fails, it stays for a repair. */
static void publish_now(struct csv_sink *c)
{
	struct error err = {};

	if (publisher__publish(c->pub, &err))
		sink__notice(
			c->sink, true,
			"%s; it stays a partial file for the next start to repair",
			err.msg);
}

/*
 * Writes one interval (text holds room for its last row) to the file,
 * starting a new file first where one is due. On failure nothing of it
 * is on disk, and err says why.
 */
static int write_interval(struct csv_sink *c, uint64_t start_ns,
			  const char *prefix, size_t prefix_len, char *text,
			  size_t len, struct error *err)
{
	char *header = NULL;
	size_t header_len = 0;
	int n, ret;

	if (publisher__rotation_due(c->pub, start_ns)) {
		if (publisher__is_open(c->pub))
			publish_now(c);
		ret = format_header(c, prefix, prefix_len, &header,
				    &header_len);
		if (!ret)
			ret = publisher__open(c->pub, start_ns, header,
					      header_len, err);
		else
			error__set(err, ret, "cannot format the header: %s",
				   strerror(-ret));
		free(header);
		if (ret)
			return ret;
	}
	n = format_interval_end(c, prefix, prefix_len, text + len,
				PREFIX_MAX + 512);
	if (n < 0)
		return error__set(err, n,
				  "the intervals_lost row does not fit");
	ret = publisher__append(c->pub, text, len + n, err);
	if (ret)
		return ret;
	c->lost_unwritten = 0;
	if (c->publish_pending) {
		c->publish_pending = false;
		publish_now(c);
	}
	return 0;
}

/* Forgets the oldest held interval: written, or dropped. */
static void pop_held(struct csv_sink *c)
{
	struct held *h = c->head;

	c->head = h->next;
	if (!c->head)
		c->tail = NULL;
	c->nr_held--;
	c->held_bytes -= h->cap;
	free(h);
}

static void drop_oldest(struct csv_sink *c)
{
	pop_held(c);
	c->lost_unwritten++;
	c->lost_total++;
	if (!c->dropping)
		sink__notice(
			c->sink, true,
			"the backlog is full (--backlog %ld): the oldest held intervals are dropped; %llu lost so far",
			c->cfg.backlog, (unsigned long long)c->lost_total);
	c->dropping = true;
}

/* Keeps the current interval for later, within the backlog's bounds. */
static int hold_current(struct csv_sink *c)
{
	size_t cap = c->len + PREFIX_MAX + 512;
	struct held *h = malloc(sizeof(*h) + cap);

	if (!h)
		return -ENOMEM;
	h->next = NULL;
	h->start_ns = c->start_ns;
	memcpy(h->prefix, c->prefix, c->prefix_len);
	h->prefix_len = c->prefix_len;
	h->len = c->len;
	h->cap = cap;
	memcpy(h->text, c->buf, c->len);
	if (c->tail)
		c->tail->next = h;
	else
		c->head = h;
	c->tail = h;
	c->nr_held++;
	c->held_bytes += cap;
	while (c->head && ((long)c->nr_held > c->cfg.backlog ||
			   c->held_bytes > BACKLOG_MAX_BYTES))
		drop_oldest(c);
	return 0;
}

/* Writes what is held, in order, until the disk refuses again. */
static void write_held(struct csv_sink *c)
{
	struct error err = {};
	struct held *h;

	while ((h = c->head)) {
		if (write_interval(c, h->start_ns, h->prefix, h->prefix_len,
				   h->text, h->len, &err)) {
			if (!c->failing)
				sink__notice(
					c->sink, true,
					"%s; collection goes on, and up to %ld intervals are held in memory until the disk takes them",
					err.msg, c->cfg.backlog);
			c->failing = true;
			return;
		}
		pop_held(c);
		c->written_while_failing++;
	}
	if (c->failing)
		sink__notice(
			c->sink, true,
			"writing again to '%s': %llu held intervals written, %llu lost in all",
			publisher__name(c->pub),
			(unsigned long long)c->written_while_failing,
			(unsigned long long)c->lost_total);
	c->failing = c->dropping = false;
	c->written_while_failing = 0;
}

static int csv_begin_interval(struct sink *s, const struct interval_info *info)
{
	struct csv_sink *c = s->priv;
	struct strbuf b;

	/* strftime once an interval, not once a row. */
	strbuf__init(&b, c->prefix, sizeof(c->prefix), 0);
	csv_format_prefix(&b, info);
	c->prefix_len = b.len;
	c->start_ns = info->end_realtime_ns - info->length_ns;
	c->len = 0;
	if (b.truncated)
		return error__set(&s->error, ENAMETOOLONG,
				  "host name '%.64s...' does not fit a row",
				  info->host);
	return 0;
}

static int csv_write_row(struct sink *s, const struct row *r)
{
	struct csv_sink *c = s->priv;
	struct strbuf b;
	int err = reserve(c, ROW_MAX + PREFIX_MAX);

	if (err)
		return error__set(&s->error, err, "out of memory for a row");
	strbuf__init(&b, c->buf + c->len, ROW_MAX + PREFIX_MAX, 0);
	strbuf__put(&b, c->prefix, c->prefix_len);
	csv_format_fields_cached(&b, r, &c->runs);
	if (b.truncated)
		return error__set(
			&s->error, ENOSPC,
			"a %s row of cgroup '%.256s' does not fit %d bytes",
			r->scope, r->cgroup ? r->cgroup : "", ROW_MAX);
	c->len += b.len;
	c->rows++;
	return 0;
}

/*
 * A frame to the stream, in one write. Where the stream is a regular
 * file (-o - > file), its blocks are reserved first and a failed write
 * is cut back off, so that the file ends on the previous frame.
 */
static int write_stream_frame(struct csv_sink *c, const char *buf, size_t len)
{
	struct stat st;
	off_t at = -1;
	int err;

	if (!fstat(c->stream_fd, &st) && S_ISREG(st.st_mode))
		at = lseek(c->stream_fd, 0, SEEK_CUR);
	err = at >= 0 ? reserve_blocks(c->stream_fd, at, len) : 0;
	if (!err)
		err = write_full(c->stream_fd, buf, len);
	if (err && at >= 0 && !ftruncate(c->stream_fd, at))
		lseek(c->stream_fd, at, SEEK_SET);
	return err;
}

static int end_stream(struct sink *s, struct csv_sink *c)
{
	char *header;
	size_t len;
	int n, err = 0;

	if (!c->stream_started) {
		err = format_header(c, c->prefix, c->prefix_len, &header, &len);
		if (!err) {
			err = write_stream_frame(c, header, len);
			free(header);
		}
		c->stream_started = !err;
	}
	n = format_interval_end(c, c->prefix, c->prefix_len, c->buf + c->len,
				c->cap - c->len);
	if (!err && n < 0)
		err = n;
	if (!err)
		err = write_stream_frame(c, c->buf, c->len + n);
	if (!err)
		c->stream_bytes += c->len + n;
	if (err == -EPIPE)
		return error__set(&s->error, EPIPE,
				  "the reader of '%s' is gone", c->cfg.path);
	if (err)
		return error__set(&s->error, err, "cannot write to '%s': %s",
				  c->cfg.path, strerror(-err));
	return 0;
}

/*
 * The interval goes to disk whole, or is held: a write error never
 * stops collection, and never leaves half an interval in a file.
 */
static int csv_end_interval(struct sink *s)
{
	struct csv_sink *c = s->priv;
	struct error err = {};
	int ret = reserve(c, PREFIX_MAX + 512);

	if (ret)
		return error__set(&s->error, ret, "out of memory");
	if (!c->pub)
		return end_stream(s, c);
	bool just_failed = false;

	if (!c->head) {
		ret = write_interval(c, c->start_ns, c->prefix, c->prefix_len,
				     c->buf, c->len, &err);
		if (!ret)
			return 0;
		if (!c->failing)
			sink__notice(
				c->sink, true,
				"%s; collection goes on, and up to %ld intervals are held in memory until the disk takes them",
				err.msg, c->cfg.backlog);
		c->failing = just_failed = true;
	}
	if (c->cfg.backlog > 0) {
		ret = hold_current(c);
		if (ret)
			return error__set(&s->error, ret,
					  "out of memory for the backlog");
	} else {
		c->lost_unwritten++;
		c->lost_total++;
	}
	if (!just_failed)
		write_held(c);
	return 0;
}

/*
 * SIGHUP: the current file holds whole intervals only, so it is
 * published now; held intervals and the next ones start another. Before
 * the first interval is written there is no file yet: the one the
 * interval in flight makes is published as soon as it is written.
 */
static void csv_rotate(struct sink *s)
{
	struct csv_sink *c = s->priv;

	if (!c->pub)
		return;
	if (publisher__is_open(c->pub))
		publish_now(c);
	else
		c->publish_pending = true;
}

static int csv_close(struct sink *s)
{
	struct csv_sink *c = s->priv;
	struct held *h;
	int ret = 0;

	if (!c)
		return 0;
	if (c->pub) {
		write_held(c);
		if (publisher__publish(c->pub, &s->error))
			ret = -EIO;
		if (!ret && c->nr_held) {
			c->lost_total += c->nr_held;
			ret = error__set(
				&s->error, EIO,
				"%zu intervals could not be written before exit and are lost (%llu in all)",
				c->nr_held, (unsigned long long)c->lost_total);
		}
	}
	while ((h = c->head)) {
		c->head = h->next;
		free(h);
	}
	publisher__free(c->pub);
	if (c->stream_fd > STDERR_FILENO)
		close(c->stream_fd);
	free(c->buf);
	free(c);
	s->priv = NULL;
	return ret;
}

void csv_sink__set_meta(struct sink *s, const struct csv_meta *meta, size_t nr)
{
	struct csv_sink *c = s->priv;

	c->meta = meta;
	c->nr_meta = nr;
}

bool csv_sink__is_stream(const struct sink *s)
{
	const struct csv_sink *c = s->priv;

	return c && !c->pub;
}

uint64_t csv_sink__intervals_lost(const struct sink *s)
{
	const struct csv_sink *c = s->priv;

	return c ? c->lost_total : 0;
}

void csv_sink__progress(const struct sink *s, uint64_t *rows, uint64_t *bytes)
{
	const struct csv_sink *c = s->priv;

	*rows = c ? c->rows : 0;
	*bytes = !c ? 0 : c->pub ? publisher__size(c->pub) : c->stream_bytes;
}

static const struct sink_ops csv_sink_ops = {
	.name = "csv",
	.begin_interval = csv_begin_interval,
	.write_row = csv_write_row,
	.end_interval = csv_end_interval,
	.rotate = csv_rotate,
	.close = csv_close,
};

/*
 * "-", or an existing FIFO or character device: streamed, never
 * published. A FIFO is opened without blocking, so that one with no
 * reader is refused at start instead of hanging bpmc in open() while it
 * holds counters and programs. 1: not a stream, a file to publish.
 */
static int open_stream(struct csv_sink *c, struct error *err)
{
	struct stat st;
	int fd;

	if (!strcmp(c->cfg.path, "-")) {
		c->stream_fd = STDOUT_FILENO;
		return 0;
	}
	if (stat(c->cfg.path, &st) ||
	    (!S_ISFIFO(st.st_mode) && !S_ISCHR(st.st_mode)))
		return 1;
	fd = open(c->cfg.path, O_WRONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0 && errno == ENXIO)
		return error__set(
			err, ENXIO,
			"FIFO '%s' has no reader: start the reader first",
			c->cfg.path);
	if (fd < 0)
		return error__set(err, errno, "cannot open '%s': %s",
				  c->cfg.path, strerror(errno));
	/* Writes block again: a slow reader slows bpmc, never tears rows. */
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
	c->stream_fd = fd;
	return 0;
}

int csv_sink__new(struct sink *s, const struct csv_config *cfg)
{
	struct csv_sink *c = calloc(1, sizeof(*c));
	struct publish_opts po = {
		.template = cfg->path,
		.host = cfg->host,
		.rotate_s = cfg->rotate_s,
		.rotate_bytes = cfg->rotate_bytes,
		.keep = cfg->keep,
		.max_disk = cfg->max_disk,
		.plain_frame_scan = csv_frame_scan,
		.notice = publisher_notice,
	};
	int err;

	if (!c)
		return error__set(&s->error, ENOMEM, "out of memory");
	c->cfg = *cfg;
	c->sink = s;
	c->stream_fd = -1;
	po.notice_ctx = c;
	s->ops = &csv_sink_ops;
	s->priv = c;
	err = open_stream(c, &s->error);
	if (err < 0) {
		free(c);
		s->priv = NULL;
	}
	if (err <= 0) /* a stream, or a refused one */
		return err;
	err = publisher__new(&c->pub, &po, cfg->start_ns, &s->error);
	if (!err)
		err = publisher__recover(c->pub, &s->error);
	if (err) {
		publisher__free(c->pub);
		free(c);
		s->priv = NULL;
	}
	return err;
}
