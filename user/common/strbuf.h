/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Bounds-checked appends into a caller's buffer, for every sink that
 * formats text (CSV rows, Prometheus lines). Nothing is ever written
 * past the buffer: an append that does not fit whole is dropped, the
 * buffer keeps what fitted before it, NUL-terminated, and the buffer
 * remembers that it was truncated, so the writer refuses the row
 * instead of emitting half of it.
 */
#ifndef BPMC_COMMON_STRBUF_H
#define BPMC_COMMON_STRBUF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct strbuf {
	char *buf;
	size_t cap; /* bytes of buf, the NUL included */
	size_t len; /* bytes used, the NUL excluded */
	bool truncated; /* an append did not fit */
};

/* Starts at len bytes already in buf (a prefix), which must be < cap. */
void strbuf__init(struct strbuf *b, char *buf, size_t cap, size_t len);
/*
 * Appends n bytes of s whole, or nothing and marks truncation. Inline:
 * an export appends a dozen fields and commas per row, and a call each
 * was a tenth of formatting one (bench/export_cost).
 */
static inline void strbuf__put(struct strbuf *b, const char *s, size_t n)
{
	if (b->truncated || n >= b->cap - b->len) {
		b->truncated = true;
		return;
	}
	__builtin_memcpy(b->buf + b->len, s, n);
	b->len += n;
	b->buf[b->len] = '\0';
}

static inline void strbuf__putc(struct strbuf *b, char c)
{
	strbuf__put(b, &c, 1);
}

void strbuf__puts(struct strbuf *b, const char *s);
/* Decimal, without printf: exports write hundreds of thousands a second. */
void strbuf__put_u64(struct strbuf *b, uint64_t v);
/* One decimal, rounded half up, as "%.1f" would (negatives give 0.0). */
void strbuf__put_tenths(struct strbuf *b, double v);

#endif
