// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "common/escape.h"
#include "common/grow.h"
#include "common/strbuf.h"
#include "report/scan.h"

static const char *const col_names[COL__NR] = {
	[COL_TIME] = "time",
	[COL_HOST] = "host",
	[COL_INTERVAL_MS] = "interval_ms",
	[COL_SCOPE] = "scope",
	[COL_CGROUP] = "cgroup",
	[COL_PID] = "pid",
	[COL_TID] = "tid",
	[COL_COMM] = "comm",
	[COL_EVENT] = "event",
	[COL_COUNT] = "count",
	[COL_SAMPLES] = "samples",
	[COL_RUNNING_PCT] = "running_pct",
	[COL_CONTAINER] = "container",
	[COL_POD] = "pod",
	[COL_VALUE] = "value",
	[COL_NAMESPACE] = "namespace",
	[COL_POD_NAME] = "pod_name",
	[COL_CONTAINER_NAME] = "container_name",
};

/* What every schema version has, and a reader cannot do without. */
static const enum col required[] = { COL_TIME,	COL_HOST,  COL_INTERVAL_MS,
				     COL_SCOPE, COL_EVENT, COL_COUNT };

const char *const report_reject_why[REJECT__NR] = {
	[REJECT_COUNT] = "with a count that is not a non-negative integer",
	[REJECT_RANGE] = "with a count above 2^64 - 1",
	[REJECT_TIME] = "with a time that is not ISO 8601 UTC",
	[REJECT_EVENT] =
		"with an event name empty, over 255 bytes or past the 1024th",
	[REJECT_LONG] =
		"too long (a row over 64 KiB, a key over 8 KiB or a host over 255 bytes)",
};

const char *const report_reject_name[REJECT__NR] = {
	[REJECT_COUNT] = "not_a_count", [REJECT_RANGE] = "count_above_2^64-1",
	[REJECT_TIME] = "bad_time",	[REJECT_EVENT] = "bad_event",
	[REJECT_LONG] = "too_long",
};

/* Rejected rows are rare: one lock for every file's counts. */
static pthread_mutex_t reject_lock = PTHREAD_MUTEX_INITIALIZER;

void scan_reject(const struct report_file *f, enum report_reject why,
		 uint64_t off, const char *field, size_t len)
{
	struct report_rejects *r = f->rejects;

	if (!r)
		return;
	pthread_mutex_lock(&reject_lock);
	r->rows++;
	if (!r->nr[why]++ || off < r->first_byte[why]) {
		size_t n = len < sizeof(r->first[why]) - 1 ?
				   len :
				   sizeof(r->first[why]) - 1;

		r->first_byte[why] = off;
		for (size_t i = 0; i < n; i++)
			r->first[why][i] = field[i] >= 0x20 && field[i] < 0x7f ?
						   field[i] :
						   '?';
		r->first[why][n] = 0;
	}
	pthread_mutex_unlock(&reject_lock);
}

/* The row being scanned, rejected for why, field its culprit. */
static void reject_row(struct scan_thread *t, const struct report_file *f,
		       enum report_reject why, const char *field, size_t len)
{
	scan_reject(f, why, t->base + (uint64_t)(t->row - t->text), field, len);
}

static inline uint64_t sat_add(uint64_t a, uint64_t b)
{
	return a + b < a ? UINT64_MAX : a + b;
}

/* Slightly more than interval ends' rounding: abutting intervals. */
#define ABUT_MS 5

int event_names__init(struct event_names *n)
{
	memset(n, 0, sizeof(*n));
	return -pthread_mutex_init(&n->lock, NULL);
}

void event_names__free(struct event_names *n)
{
	for (unsigned i = 0; i < n->nr; i++)
		free(n->names[i]);
	pthread_mutex_destroy(&n->lock);
}

struct span {
	const char *p;
	uint32_t len;
	bool dq; /* holds a doubled quote */
};

/* One field from q (not past le); the start of the next, or NULL. */
static const char *next_field(const char *q, const char *le, struct span *s)
{
	const char *c;

	s->dq = false;
	if (q < le && *q == '"') {
		const char *b = ++q;

		for (;;) {
			c = memchr(q, '"', le - q);
			if (!c) { /* no closing quote: the rest */
				s->p = b;
				s->len = le - b;
				return NULL;
			}
			if (c + 1 < le && c[1] == '"') {
				s->dq = true;
				q = c + 2;
				continue;
			}
			break;
		}
		s->p = b;
		s->len = c - b;
		q = c + 1;
		c = memchr(q, ',', le - q);
		return c ? c + 1 : NULL;
	}
	c = memchr(q, ',', le - q);
	s->p = q;
	s->len = (c ? c : le) - q;
	return c ? c + 1 : NULL;
}

/* Splits fields from *q until field index last: *n is how many so far. */
static void split_to(struct span *sp, int *n, int last, const char **q,
		     const char *le)
{
	while (*n <= last) {
		if (*q) {
			*q = next_field(*q, le, &sp[*n]);
		} else {
			sp[*n].p = le;
			sp[*n].len = 0;
			sp[*n].dq = false;
		}
		(*n)++;
	}
}

static bool span_is(const struct span *s, const char *word, size_t len)
{
	return s->len == len && !memcmp(s->p, word, len);
}

#define SPAN_IS(s, lit) span_is(s, lit, sizeof(lit) - 1)

long scan_file__header(struct report_file *f, const char *text, size_t len,
		       struct error *err)
{
	const char *nl = memchr(text, '\n', len), *q = text, *le;
	int n = 0;

	if (!nl)
		return len >= 65536 ?
			       error__set(
				       err, EINVAL,
				       "%s: not a bpmc export (no header line)",
				       f->path) :
			       -EAGAIN;
	le = nl > text && nl[-1] == '\r' ? nl - 1 : nl;
	for (int c = 0; c < COL__NR; c++)
		f->col[c] = -1;
	while (q) {
		struct span s;

		q = next_field(q, le, &s);
		for (int c = 0; c < COL__NR; c++) {
			if (f->col[c] < 0 &&
			    span_is(&s, col_names[c], strlen(col_names[c])))
				f->col[c] = n;
		}
		n++;
	}
	for (size_t i = 0; i < sizeof(required) / sizeof(required[0]); i++) {
		if (f->col[required[i]] < 0)
			return error__set(
				err, EINVAL,
				"%s: not a bpmc export (its header '%.*s' has no '%s' column)",
				f->path, (int)(le - text > 80 ? 80 : le - text),
				text, col_names[required[i]]);
	}
	f->nr_needed = 0;
	for (int c = 0; c < COL__NR; c++) {
		if (f->col[c] + 1 > f->nr_needed)
			f->nr_needed = f->col[c] + 1;
	}
	if (f->nr_needed > SCAN_MAX_COLUMNS)
		return error__set(
			err, EINVAL,
			"%s: not a bpmc export (a column it reads comes after the %dth)",
			f->path, SCAN_MAX_COLUMNS);
	/* The header tells versions apart up to v4; the meta row after it. */
	f->schema = f->col[COL_CONTAINER_NAME] >= 0 ? 6 :
		    f->col[COL_VALUE] >= 0	    ? 4 :
		    f->col[COL_CONTAINER] >= 0	    ? 3 :
		    f->col[COL_RUNNING_PCT] >= 0    ? 2 :
						      1;
	f->escaped = f->schema >= 5;
	return nl + 1 - text;
}

/* Where the row at p ends (its newline), or NULL when it is cut. */
static const char *row_end(const struct report_file *f, const char *p,
			   const char *end)
{
	bool quoted = false;

	if (f->escaped)
		return memchr(p, '\n', end - p);
	/* Before v5 a quoted field may hold a newline. */
	for (; p < end; p++) {
		if (*p == '"')
			quoted = !quoted;
		else if (*p == '\n' && !quoted)
			return p;
	}
	return NULL;
}

/* A decimal integer of 0 to 2^64 - 1: *range when only its size is wrong. */
static bool span_u64_range(const struct span *s, uint64_t *v, bool *range)
{
	uint64_t x = 0;

	*range = false;
	if (!s->len)
		return false;
	for (uint32_t i = 0; i < s->len; i++) {
		unsigned d = (unsigned char)s->p[i] - '0';

		if (d > 9)
			return false;
		if (x > (UINT64_MAX - d) / 10)
			*range = true;
		x = x * 10 + d;
	}
	*v = x;
	return !*range;
}

static bool span_u64(const struct span *s, uint64_t *v)
{
	bool range;

	return span_u64_range(s, v, &range);
}

static bool span_pct(const struct span *s, double *v)
{
	double x = 0, scale = 0;

	if (!s->len || s->len > 16)
		return false;
	for (uint32_t i = 0; i < s->len; i++) {
		char c = s->p[i];

		if (c == '.' && !scale) {
			scale = 1;
		} else if (c >= '0' && c <= '9') {
			x = x * 10 + (c - '0');
			if (scale)
				scale *= 10;
		} else {
			return false;
		}
	}
	*v = scale ? x / scale : x;
	return true;
}

static int64_t days_from_civil(int64_t y, unsigned m, unsigned d)
{
	int64_t era;
	unsigned yoe, doy, doe;

	y -= m <= 2;
	era = (y >= 0 ? y : y - 399) / 400;
	yoe = (unsigned)(y - era * 400);
	doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + (int64_t)doe - 719468;
}

static bool digits(const char *s, int n, unsigned *v)
{
	unsigned x = 0;

	for (int i = 0; i < n; i++) {
		unsigned d = (unsigned char)s[i] - '0';

		if (d > 9)
			return false;
		x = x * 10 + d;
	}
	*v = x;
	return true;
}

bool parse_iso_time(const char *s, size_t len, int64_t *ms)
{
	unsigned y, mo, d, h, mi, se, frac = 0;
	size_t i = 19;

	if (len < 20 || s[4] != '-' || s[7] != '-' ||
	    (s[10] != 'T' && s[10] != ' ') || s[13] != ':' || s[16] != ':' ||
	    !digits(s, 4, &y) || !digits(s + 5, 2, &mo) ||
	    !digits(s + 8, 2, &d) || !digits(s + 11, 2, &h) ||
	    !digits(s + 14, 2, &mi) || !digits(s + 17, 2, &se) || mo < 1 ||
	    mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || se > 60)
		return false;
	if (s[i] == '.') {
		unsigned scale = 100;

		for (i++; i < len && s[i] >= '0' && s[i] <= '9'; i++) {
			frac += (s[i] - '0') * scale;
			scale /= 10;
		}
	}
	if (i != len - 1 || s[i] != 'Z')
		return false;
	*ms = ((days_from_civil(y, mo, d) * 86400 + h * 3600 + mi * 60 + se) *
	       1000) +
	      frac;
	return true;
}

int scan_thread__init(struct scan_thread *t, const struct scan_config *cfg,
		      struct event_names *events)
{
	int err;

	memset(t, 0, sizeof(*t));
	t->cfg = cfg;
	t->events = events;
	t->last_event_id = -1;
	t->last_host_id = -2;
	err = agg_table__init(&t->keys);
	if (!err)
		err = agg_table__init(&t->system);
	if (!err)
		err = agg_table__init(&t->self);
	return err;
}

void scan_thread__free(struct scan_thread *t)
{
	agg_table__free(&t->keys);
	agg_table__free(&t->system);
	agg_table__free(&t->self);
	for (unsigned i = 0; i < t->nr_hosts; i++)
		free(t->hosts[i]);
	free(t->hosts);
	free(t->cov);
}

/*
 * A text field as a key holds it: quotes undoubled, and text of files
 * before v5 (raw bytes) escaped as v5 writes it, so that versions mix.
 */
static void canon(struct scan_thread *t, const struct report_file *f,
		  const struct span *s, const char **out, size_t *len)
{
	char *a = t->scratch[0];
	size_t n = 0;

	if (f->escaped && !s->dq) {
		*out = s->p;
		*len = s->len;
		return;
	}
	for (uint32_t i = 0; i < s->len && n < sizeof(t->scratch[0]) - 1; i++) {
		a[n++] = s->p[i];
		if (s->p[i] == '"' && i + 1 < s->len && s->p[i + 1] == '"')
			i++;
	}
	a[n] = 0;
	if (!f->escaped) {
		struct strbuf b;

		strbuf__init(&b, t->scratch[1], sizeof(t->scratch[1]), 0);
		escape_text(&b, a);
		a = t->scratch[1];
		n = b.len;
	}
	*out = a;
	*len = n;
}

static int event_names__find(struct event_names *names, const char *s,
			     size_t len)
{
	int id = -1;

	pthread_mutex_lock(&names->lock);
	for (unsigned i = 0; i < names->nr; i++) {
		if (strlen(names->names[i]) == len &&
		    !memcmp(names->names[i], s, len)) {
			id = i;
			break;
		}
	}
	if (id < 0 && names->nr < SCAN_MAX_EVENTS) {
		char *copy = strndup(s, len);

		if (copy) {
			id = names->nr;
			names->names[names->nr++] = copy;
		}
	}
	pthread_mutex_unlock(&names->lock);
	return id;
}

static int event_id(struct scan_thread *t, const struct report_file *f,
		    const struct span *s)
{
	const char *c;
	size_t n;

	if (t->last_event_id >= 0 && s->len == t->last_event_len &&
	    !memcmp(s->p, t->last_event, s->len))
		return t->last_event_id;
	if (!s->len || s->len >= sizeof(t->last_event))
		return -1;
	canon(t, f, s, &c, &n);
	t->last_event_id = event_names__find(t->events, c, n);
	memcpy(t->last_event, s->p, s->len);
	t->last_event_len = s->len;
	return t->last_event_id;
}

/* The host's index, or -1 when --host leaves it out. */
static int host_id(struct scan_thread *t, const struct report_file *f,
		   const struct span *s)
{
	const struct scan_config *cfg = t->cfg;
	const char *c;
	size_t n;
	char name[256];
	char **hosts;
	bool keep = !cfg->nr_hosts;

	if (t->last_host_id >= -1 && s->len == t->last_host_len &&
	    !memcmp(s->p, t->last_host, s->len))
		return t->last_host_id;
	if (s->len >= sizeof(t->last_host))
		return -1;
	canon(t, f, s, &c, &n);
	if (n >= sizeof(name))
		return -1;
	memcpy(name, c, n);
	name[n] = 0;
	memcpy(t->last_host, s->p, s->len);
	t->last_host_len = s->len;
	for (unsigned i = 0; i < cfg->nr_hosts && !keep; i++)
		keep = !fnmatch(cfg->hosts[i], name, 0);
	t->last_host_id = -1;
	if (!keep)
		return -1;
	for (unsigned i = 0; i < t->nr_hosts; i++) {
		if (!strcmp(t->hosts[i], name))
			return t->last_host_id = i;
	}
	hosts = realloc(t->hosts, (t->nr_hosts + 1) * sizeof(*hosts));
	if (!hosts) {
		t->err = -ENOMEM;
		return -1;
	}
	t->hosts = hosts;
	hosts[t->nr_hosts] = strdup(name);
	if (!hosts[t->nr_hosts]) {
		t->err = -ENOMEM;
		return -1;
	}
	return t->last_host_id = t->nr_hosts++;
}

static bool row_time(struct scan_thread *t, const struct span *s, int64_t *ms)
{
	if (s->len == t->last_time_len && s->len &&
	    !memcmp(s->p, t->last_time, s->len)) {
		*ms = t->last_time_ms;
		return true;
	}
	if (s->len >= sizeof(t->last_time) || !parse_iso_time(s->p, s->len, ms))
		return false;
	memcpy(t->last_time, s->p, s->len);
	t->last_time_len = s->len;
	t->last_time_ms = *ms;
	return true;
}

static bool in_time(const struct scan_config *cfg, int64_t ms)
{
	return ms > cfg->since_ms && ms <= cfg->until_ms;
}

static int64_t bucket_of(const struct scan_config *cfg, int64_t end_ms,
			 int64_t len_ms)
{
	int64_t mid = end_ms - len_ms / 2;

	if (!cfg->bucket_ms)
		return end_ms;
	return mid >= 0 ? mid / (int64_t)cfg->bucket_ms :
			  -((-mid + (int64_t)cfg->bucket_ms - 1) /
			    (int64_t)cfg->bucket_ms);
}

static void coverage_add(struct scan_thread *t, int host, int64_t end_ms,
			 int64_t len_ms)
{
	int64_t start = end_ms - len_ms,
		bucket = bucket_of(t->cfg, end_ms, len_ms);
	struct coverage *last = t->nr_cov ? &t->cov[t->nr_cov - 1] : NULL;

	t->nr_intervals++;
	if (!t->cfg->keep_intervals && last && last->host == (uint32_t)host &&
	    last->bucket == bucket && start >= last->start_ms &&
	    start <= last->end_ms + ABUT_MS) {
		if (end_ms > last->end_ms)
			last->end_ms = end_ms;
		last->sum_ms += len_ms;
		return;
	}
	if (GROW(t->cov, t->cap_cov, t->nr_cov + 1, 64)) {
		t->err = -ENOMEM;
		return;
	}
	t->cov[t->nr_cov++] = (struct coverage){
		.host = host,
		.start_ms = start,
		.end_ms = end_ms,
		.sum_ms = len_ms,
		.bucket = bucket,
	};
}

/* Is path the cgroup or under it? Whole components: /a is not /ab's. */
static bool under_cgroup(const char *prefix, const char *path, size_t len)
{
	size_t n = strlen(prefix);

	while (n > 1 && prefix[n - 1] == '/')
		n--;
	if (n == 1 && prefix[0] == '/')
		return len && path[0] == '/';
	return len >= n && !memcmp(path, prefix, n) &&
	       (len == n || path[n] == '/');
}

static void add_to(struct scan_thread *t, struct agg_table *table,
		   const struct report_file *f, int ev, const struct span *sp,
		   struct agg_entry **entry)
{
	struct agg_entry *e;
	struct agg_cell *c;
	uint64_t count, samples;
	double running;

	const struct span *cs = &sp[f->col[COL_COUNT]];
	bool range;

	if (!cs->len)
		return; /* a gauge: no count */
	if (!span_u64_range(cs, &count, &range)) {
		reject_row(t, f, range ? REJECT_RANGE : REJECT_COUNT, cs->p,
			   cs->len);
		return;
	}
	if (t->key.overflow) {
		reject_row(t, f, REJECT_LONG, t->row, 32);
		return;
	}
	e = agg_table__get(table, t->key.buf, t->key.len,
			   agg_hash(t->key.buf, t->key.len));
	c = e ? agg_entry__cell(e, ev) : NULL;
	if (!c) {
		t->err = -ENOMEM;
		return;
	}
	/* Sums saturate at 2^64 - 1: never wrap to a small number. */
	c->count = sat_add(c->count, count);
	c->rows++;
	if (f->col[COL_SAMPLES] >= 0 &&
	    span_u64(&sp[f->col[COL_SAMPLES]], &samples)) {
		c->samples = sat_add(c->samples, samples);
		if (!f->exact) {
			c->samples_sampled =
				sat_add(c->samples_sampled, samples);
			c->count_sampled = sat_add(c->count_sampled, count);
		}
	}
	if (f->col[COL_RUNNING_PCT] >= 0 &&
	    span_pct(&sp[f->col[COL_RUNNING_PCT]], &running)) {
		c->running_weighted += running * count;
		c->count_with_running = sat_add(c->count_with_running, count);
	}
	*entry = e;
}

static void key_add_text(struct scan_thread *t, const struct report_file *f,
			 const struct span *sp, enum col col)
{
	const char *c = "";
	size_t n = 0;

	if (f->col[col] >= 0)
		canon(t, f, &sp[f->col[col]], &c, &n);
	agg_key__add(&t->key, c, n);
}

static void set_labels(struct scan_thread *t, const struct report_file *f,
		       const struct span *sp, struct agg_entry *e)
{
	static const enum col cols[LABEL__NR] = {
		[LABEL_NAMESPACE] = COL_NAMESPACE,
		[LABEL_POD_NAME] = COL_POD_NAME,
		[LABEL_CONTAINER_NAME] = COL_CONTAINER_NAME,
	};

	for (int l = 0; l < LABEL__NR; l++) {
		const char *c;
		size_t n;

		if (f->col[cols[l]] < 0 || !sp[f->col[cols[l]]].len)
			continue;
		canon(t, f, &sp[f->col[cols[l]]], &c, &n);
		if (agg_table__set_label(&t->keys, e, l, c, n))
			t->err = -ENOMEM;
	}
}

static void scan_key_row(struct scan_thread *t, const struct report_file *f,
			 const struct span *sp, int host)
{
	const struct scan_config *cfg = t->cfg;
	struct agg_entry *e = NULL;
	int64_t ms = 0;
	uint64_t len_ms = 0;
	int ev;

	if (cfg->since_ms != INT64_MIN || cfg->until_ms != INT64_MAX ||
	    cfg->bucket_ms || cfg->keep_intervals) {
		const struct span *ts = &sp[f->col[COL_TIME]];

		if (!row_time(t, ts, &ms)) {
			reject_row(t, f, REJECT_TIME, ts->p, ts->len);
			return;
		}
		if (!in_time(cfg, ms))
			return;
		span_u64(&sp[f->col[COL_INTERVAL_MS]], &len_ms);
	}
	if (cfg->cgroup) {
		const char *c = "";
		size_t n = 0;

		if (f->col[COL_CGROUP] >= 0)
			canon(t, f, &sp[f->col[COL_CGROUP]], &c, &n);
		if (!under_cgroup(cfg->cgroup, c, n))
			return;
	}
	ev = event_id(t, f, &sp[f->col[COL_EVENT]]);
	if (ev < 0) {
		reject_row(t, f, REJECT_EVENT, sp[f->col[COL_EVENT]].p,
			   sp[f->col[COL_EVENT]].len);
		return;
	}
	agg_key__reset(&t->key);
	for (unsigned i = 0; i < cfg->nr_key; i++) {
		switch (cfg->key[i]) {
		case KF_HOST:
			agg_key__add(&t->key, t->hosts[host],
				     strlen(t->hosts[host]));
			break;
		case KF_CONTAINER:
			key_add_text(t, f, sp, COL_CONTAINER);
			break;
		case KF_POD:
			key_add_text(t, f, sp, COL_POD);
			break;
		case KF_CGROUP:
			key_add_text(t, f, sp, COL_CGROUP);
			break;
		case KF_COMM:
			key_add_text(t, f, sp, COL_COMM);
			break;
		case KF_PID:
			agg_key__add(
				&t->key,
				f->col[COL_PID] >= 0 ? sp[f->col[COL_PID]].p :
						       "",
				f->col[COL_PID] >= 0 ? sp[f->col[COL_PID]].len :
						       0);
			break;
		case KF_TID:
			agg_key__add(
				&t->key,
				f->col[COL_TID] >= 0 ? sp[f->col[COL_TID]].p :
						       "",
				f->col[COL_TID] >= 0 ? sp[f->col[COL_TID]].len :
						       0);
			break;
		case KF_TIME: {
			int64_t b = bucket_of(cfg, ms, len_ms);

			agg_key__add(&t->key, (const char *)&b, sizeof(b));
			break;
		}
		case KF__NR:
		default:
			break;
		}
	}
	add_to(t, &t->keys, f, ev, sp, &e);
	if (e && cfg->labels)
		set_labels(t, f, sp, e);
}

static void scan_host_row(struct scan_thread *t, const struct report_file *f,
			  const struct span *sp, int host,
			  struct agg_table *table)
{
	const struct scan_config *cfg = t->cfg;
	const struct span *event = &sp[f->col[COL_EVENT]];
	struct agg_entry *e = NULL;
	int64_t ms;
	int ev;

	if (!row_time(t, &sp[f->col[COL_TIME]], &ms)) {
		reject_row(t, f, REJECT_TIME, sp[f->col[COL_TIME]].p,
			   sp[f->col[COL_TIME]].len);
		return;
	}
	if (!in_time(cfg, ms))
		return;
	if (table == &t->self && SPAN_IS(event, "intervals_lost")) {
		uint64_t len_ms;

		if (span_u64(&sp[f->col[COL_INTERVAL_MS]], &len_ms))
			coverage_add(t, host, ms, len_ms);
	}
	ev = event_id(t, f, event);
	if (ev < 0) {
		reject_row(t, f, REJECT_EVENT, event->p, event->len);
		return;
	}
	agg_key__reset(&t->key);
	agg_key__add(&t->key, t->hosts[host], strlen(t->hosts[host]));
	add_to(t, table, f, ev, sp, &e);
}

/* A row of a file before v4 whose time is new opens an interval. */
static void old_interval(struct scan_thread *t, const struct report_file *f,
			 const struct span *sp, int host)
{
	int64_t ms;
	uint64_t len_ms;

	if (!row_time(t, &sp[f->col[COL_TIME]], &ms) || !in_time(t->cfg, ms) ||
	    !span_u64(&sp[f->col[COL_INTERVAL_MS]], &len_ms))
		return;
	if (t->interval_file == f && t->interval_time == ms &&
	    t->interval_host == host)
		return;
	t->interval_file = f;
	t->interval_time = ms;
	t->interval_host = host;
	coverage_add(t, host, ms, len_ms);
}

static void scan_row(struct scan_thread *t, const struct report_file *f,
		     const char *p, const char *le)
{
	const struct scan_config *cfg = t->cfg;
	struct span sp[SCAN_MAX_COLUMNS];
	const char *q = p;
	int n = 0, scope_at = f->col[COL_SCOPE], host;
	struct agg_table *table = NULL;
	const struct span *scope;

	t->rows++;
	t->row = p;
	split_to(sp, &n, scope_at, &q, le);
	scope = &sp[scope_at];
	if (f->schema <
	    4) { /* any row, whatever its scope, marks its interval */
		split_to(sp, &n, f->nr_needed - 1, &q, le);
		host = host_id(t, f, &sp[f->col[COL_HOST]]);
		if (host >= 0)
			old_interval(t, f, sp, host);
	}
	if (cfg->tree_scope && f->no_container_rows ?
		    SPAN_IS(scope, "cgroup") :
		    span_is(scope, cfg->scope, strlen(cfg->scope)))
		table = &t->keys;
	else if (SPAN_IS(scope, "system"))
		table = &t->system;
	else if (SPAN_IS(scope, "self"))
		table = &t->self;
	else
		return;
	split_to(sp, &n, f->nr_needed - 1, &q, le);
	if (sp[f->col[COL_HOST]].len >= sizeof(t->last_host)) {
		reject_row(t, f, REJECT_LONG, sp[f->col[COL_HOST]].p,
			   sp[f->col[COL_HOST]].len);
		return;
	}
	host = host_id(t, f, &sp[f->col[COL_HOST]]);
	if (host < 0)
		return;
	if (table == &t->keys)
		scan_key_row(t, f, sp, host);
	else
		scan_host_row(t, f, sp, host, table);
}

size_t scan_rows(struct scan_thread *t, const struct report_file *f,
		 const char *text, size_t len)
{
	const char *p = text, *end = text + len;

	t->text = text;
	while (p < end) {
		const char *nl = row_end(f, p, end), *le;

		if (!nl)
			break;
		le = nl > p && nl[-1] == '\r' ? nl - 1 : nl;
		if (le - p > SCAN_MAX_ROW) {
			t->row = p;
			reject_row(t, f, REJECT_LONG, p, 32);
		} else if (le > p) {
			scan_row(t, f, p, le);
		}
		p = nl + 1;
	}
	return p - text;
}

size_t scan_meta(struct report_file *f, const char *text, size_t len)
{
	const char *p = text, *end = text + len;

	while (p < end) {
		const char *nl = row_end(f, p, end), *le, *q = p;
		struct span sp[SCAN_MAX_COLUMNS];
		int n = 0;
		uint64_t v;

		if (!nl)
			break;
		le = nl > p && nl[-1] == '\r' ? nl - 1 : nl;
		split_to(sp, &n, f->nr_needed - 1, &q, le);
		if (SPAN_IS(&sp[f->col[COL_SCOPE]], "meta")) {
			const struct span *ev = &sp[f->col[COL_EVENT]];
			const struct span *val =
				f->col[COL_VALUE] >= 0 ?
					&sp[f->col[COL_VALUE]] :
					NULL;

			if (val && SPAN_IS(ev, "mode"))
				f->exact = SPAN_IS(val, "exact");
			if (val && SPAN_IS(ev, "by"))
				f->no_container_rows =
					!memmem(val->p, val->len, "container",
						strlen("container"));
			if (val && SPAN_IS(ev, "schema_version") &&
			    span_u64(val, &v) && v < 1000) {
				f->schema = v;
				f->escaped = v >= 5;
			}
		} else if (!SPAN_IS(&sp[f->col[COL_SCOPE]], "encoding")) {
			break;
		}
		p = nl + 1;
	}
	return p - text;
}

int scan_thread__merge(struct scan_thread *into, struct scan_thread *from)
{
	int err = agg_table__merge(&into->keys, &from->keys);

	if (!err)
		err = agg_table__merge(&into->system, &from->system);
	if (!err)
		err = agg_table__merge(&into->self, &from->self);
	into->rows += from->rows;
	into->nr_intervals += from->nr_intervals;
	for (size_t i = 0; !err && i < from->nr_cov; i++) {
		struct coverage c = from->cov[i];
		struct span s = { .p = from->hosts[c.host],
				  .len = strlen(from->hosts[c.host]) };
		struct report_file plain = { .escaped = true };
		int h;

		into->last_host_id = -2; /* the filter passed already */
		h = host_id(into, &plain, &s);
		if (h < 0) {
			err = into->err ? into->err : -ENOMEM;
			break;
		}
		if (GROW(into->cov, into->cap_cov, into->nr_cov + 1, 64))
			return -ENOMEM;
		c.host = h;
		into->cov[into->nr_cov++] = c;
	}
	return err ? err : from->err;
}
