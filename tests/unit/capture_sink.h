/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A sink that keeps every row in memory, so that the rows stage can be
 * tested on hand-built map contents without BPF or a file. fail_at makes
 * the Nth write_row fail, to test that errors travel back.
 */
#ifndef BPMC_TEST_CAPTURE_SINK_H
#define BPMC_TEST_CAPTURE_SINK_H

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sinks/sink.h"

struct captured_row {
	struct row r; /* its strings point into the copies below */
	char scope[32], cgroup[4096], comm[32], event[64];
	char container[256], pod[64];
};

struct capture {
	struct captured_row *rows;
	size_t nr, cap;
	size_t fail_at; /* 0: never; N: the Nth row fails */
	int intervals;
};

static inline const char *capture__copy(char *dst, size_t len, const char *s)
{
	if (!s)
		return NULL;
	snprintf(dst, len, "%s", s);
	return dst;
}

static inline int capture_write_row(struct sink *s, const struct row *r)
{
	struct capture *c = s->priv;
	struct captured_row *row;

	if (c->fail_at && c->nr + 1 == c->fail_at)
		return error__set(&s->error, EIO, "capture: row %zu refused",
				  c->fail_at);
	if (c->nr == c->cap) {
		size_t cap = c->cap ? c->cap * 2 : 64;
		void *p = realloc(c->rows, cap * sizeof(*c->rows));

		if (!p)
			return -ENOMEM;
		c->rows = p;
		c->cap = cap;
	}
	row = &c->rows[c->nr++];
	row->r = *r;
	row->r.scope = capture__copy(row->scope, sizeof(row->scope), r->scope);
	row->r.cgroup =
		capture__copy(row->cgroup, sizeof(row->cgroup), r->cgroup);
	row->r.comm = capture__copy(row->comm, sizeof(row->comm), r->comm);
	row->r.event = capture__copy(row->event, sizeof(row->event), r->event);
	row->r.container = capture__copy(row->container, sizeof(row->container),
					 r->container);
	row->r.pod = capture__copy(row->pod, sizeof(row->pod), r->pod);
	return 0;
}

static inline int capture_begin(struct sink *s, const struct interval_info *i)
{
	((struct capture *)s->priv)->intervals++;
	return 0;
}

static inline int capture_end(struct sink *s)
{
	return 0;
}

static const struct sink_ops capture_sink_ops = {
	.name = "capture",
	.begin_interval = capture_begin,
	.write_row = capture_write_row,
	.end_interval = capture_end,
};

/* The first row of this scope, event and (pid, tid; -1: any) or NULL. */
static inline const struct row *capture__find(const struct capture *c,
					      const char *scope,
					      const char *event, int64_t pid,
					      int64_t tid, uint64_t cgroup_id)
{
	for (size_t i = 0; i < c->nr; i++) {
		const struct row *r = &c->rows[i].r;

		if (!strcmp(r->scope, scope) && !strcmp(r->event, event) &&
		    r->pid == pid && r->tid == tid && r->cgroup_id == cgroup_id)
			return r;
	}
	return NULL;
}

static inline size_t capture__count(const struct capture *c, const char *scope)
{
	size_t n = 0;

	for (size_t i = 0; i < c->nr; i++)
		n += !strcmp(c->rows[i].r.scope, scope);
	return n;
}

static inline void capture__reset(struct capture *c)
{
	free(c->rows);
	memset(c, 0, sizeof(*c));
}

#endif
