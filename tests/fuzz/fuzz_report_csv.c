// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: the export reader of `bpmc report` (report/scan.c),
 * over any bytes as a file's text. The first input byte picks the
 * configuration (the scope of the keys, which key fields, a bucket, the
 * labels), the second where to cut the text in two. The text must be read
 * without a crash, and reading it whole or in the two pieces (the second
 * starting where the first stopped: at its last whole row) must give the
 * same keys and the same sums: what lets the reader split files across
 * threads and buffers.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "report/scan.h"

#define CHECK(cond)                                                       \
	do {                                                              \
		if (!(cond)) {                                            \
			fprintf(stderr, "fuzz_report_csv: %s at %s:%d\n", \
				#cond, __FILE__, __LINE__);               \
			abort();                                          \
		}                                                         \
	} while (0)

static const char *const scopes[] = { "cgroup", "process", "container",
				      "pod",	"thread",  "system" };

static void make_config(struct scan_config *c, uint8_t pick)
{
	static char h[] = "h*";
	static char *hosts[] = { h };

	memset(c, 0, sizeof(*c));
	c->scope = scopes[pick % 6];
	c->key[c->nr_key++] = KF_HOST;
	if (pick & 0x08)
		c->key[c->nr_key++] = KF_CGROUP;
	if (pick & 0x10) {
		c->key[c->nr_key++] = KF_CONTAINER;
		c->labels = true;
	}
	if (pick & 0x20) {
		c->key[c->nr_key++] = KF_PID;
		c->key[c->nr_key++] = KF_COMM;
	}
	if (pick & 0x40) {
		c->key[c->nr_key++] = KF_TIME;
		c->bucket_ms = pick & 1 ? 1000 : 0;
		c->keep_intervals = !c->bucket_ms;
	}
	if (pick & 0x80) {
		c->hosts = hosts;
		c->nr_hosts = 1;
		c->cgroup = "/a";
		c->since_ms = 0;
	} else {
		c->since_ms = INT64_MIN;
	}
	c->until_ms = INT64_MAX;
}

static void sums(const struct scan_thread *t, const struct event_names *ev,
		 uint64_t *count, uint64_t *rows, size_t *keys)
{
	const struct agg_table *tables[] = { &t->keys, &t->system, &t->self };

	*count = *rows = 0;
	*keys = 0;
	for (int i = 0; i < 3; i++) {
		*keys += tables[i]->nr;
		agg_table__for_each(tables[i], e) for (unsigned c = 0;
						       c < e->nr_cells; c++)
		{
			CHECK(c < ev->nr || !e->cells[c].rows);
			*count += e->cells[c].count;
			*rows += e->cells[c].rows;
		}
	}
}

static size_t read_text(struct scan_thread *t, struct report_file *f,
			const char *text, size_t len, size_t cut)
{
	size_t used = 0;

	if (cut < len) {
		used = scan_rows(t, f, text, cut);
		CHECK(used <= cut);
	}
	used += scan_rows(t, f, text + used, len - used);
	CHECK(used <= len);
	return used;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct scan_config cfg;
	struct event_names ev;
	struct scan_thread whole, split;
	static char path[] = "fuzz";
	struct report_file f = { .path = path };
	struct error err = {};
	const char *text;
	size_t len, start, used_whole, used_split, keys_w, keys_s;
	uint64_t count_w, rows_w, count_s, rows_s;
	long h;

	if (size < 2)
		return 0;
	make_config(&cfg, data[0]);
	text = (const char *)data + 2;
	len = size - 2;
	h = scan_file__header(&f, text, len, &err);
	if (h < 0) {
		CHECK(h == -EAGAIN || err.msg[0]);
		return 0;
	}
	CHECK((size_t)h <= len);
	start = h + scan_meta(&f, text + h, len - h);
	CHECK(start <= len);
	if (event_names__init(&ev))
		return 0;
	CHECK(!scan_thread__init(&whole, &cfg, &ev));
	CHECK(!scan_thread__init(&split, &cfg, &ev));
	used_whole = read_text(&whole, &f, text + start, len - start, len);
	used_split = read_text(&split, &f, text + start, len - start,
			       (len - start) * data[1] / 255);
	CHECK(used_whole == used_split);
	sums(&whole, &ev, &count_w, &rows_w, &keys_w);
	sums(&split, &ev, &count_s, &rows_s, &keys_s);
	CHECK(count_w == count_s);
	CHECK(rows_w == rows_s);
	CHECK(keys_w == keys_s);
	CHECK(whole.rows == split.rows);
	CHECK(!scan_thread__merge(&whole, &split));
	sums(&whole, &ev, &count_s, &rows_s, &keys_s);
	CHECK(keys_s == keys_w);
	CHECK(rows_s == 2 * rows_w);
	scan_thread__free(&whole);
	scan_thread__free(&split);
	event_names__free(&ev);
	return 0;
}
