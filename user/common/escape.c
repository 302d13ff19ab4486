// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "common/escape.h"

size_t utf8_len(const unsigned char *s)
{
	unsigned c = s[0];
	size_t n;
	uint32_t cp;

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		n = 2, cp = c & 0x1f;
	else if (c >= 0xe0 && c <= 0xef)
		n = 3, cp = c & 0x0f;
	else if (c >= 0xf0 && c <= 0xf4)
		n = 4, cp = c & 0x07;
	else
		return 0;
	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80) /* also stops at the NUL */
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if ((n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) ||
	    (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
		return 0;
	return n;
}

typedef unsigned char bytes16 __attribute__((vector_size(16)));

/*
 * Are the 16 bytes at p printable ASCII, none of them quote or a
 * backslash, so that they pass as they are? One vector comparison
 * (SSE2, NEON) instead of sixteen rounds of the byte loop, which took
 * 2.5 ns a byte: an export of a Kubernetes node's 100k rows escapes
 * 30 MB of cgroup paths and container ids.
 */
static inline bool plain16(const unsigned char *p, unsigned char quote)
{
	bytes16 v, special;
	uint64_t lanes[2];

	__builtin_memcpy(&v, p, sizeof(v));
	special = (bytes16)((v < 0x20) | (v >= 0x7f) | (v == quote) |
			    (v == '\\'));
	__builtin_memcpy(lanes, &special, sizeof(lanes));
	return !(lanes[0] | lanes[1]);
}

/*
 * One step of the byte loop at p; run is where the bytes that pass as
 * they are began. Returns past what it took.
 */
static const unsigned char *escape_step(struct strbuf *b,
					const unsigned char *p,
					const unsigned char **run, char quote,
					bool backslash)
{
	static const char hex[] = "0123456789ABCDEF";
	size_t n;

	if (*p >= 0x20 && *p < 0x7f && *p != quote &&
	    (*p != '\\' || !backslash))
		return p + 1;
	if (*p == quote) { /* through the quote, which is doubled */
		strbuf__put(b, (const char *)*run, p + 1 - *run);
		*run = p;
		return p + 1;
	}
	n = *p < 0x80 ? 0 : utf8_len(p);
	if (n)
		return p + n;
	strbuf__put(b, (const char *)*run, p - *run);
	if (*p == '\\') {
		strbuf__put(b, "\\\\", 2);
	} else {
		char esc[4] = { '\\', 'x', hex[*p >> 4], hex[*p & 15] };

		strbuf__put(b, esc, sizeof(esc));
	}
	*run = p + 1;
	return p + 1;
}

/*
 * backslash: escape it (text read back by unescape_text()), or leave it
 * as typed (a message); quote: a character doubled on the way (a CSV
 * field's '"'), or '\0' for none.
 */
static void escape(struct strbuf *b, const char *s, char quote, bool backslash)
{
	const unsigned char *p = (const unsigned char *)s;
	const unsigned char *end = p + strlen(s), *stop;
	const unsigned char *run = p; /* bytes that pass as they are */

	while (p < end) {
		/* Paths and names are mostly plain ASCII: 16 bytes a step. */
		if (end - p >= 16 && plain16(p, (unsigned char)quote)) {
			p += 16;
			continue;
		}
		/* The last bytes (a whole comm, a scope, an event) in one
		 * step too, padded with spaces, which pass. */
		if (end - p < 16) {
			unsigned char tail[16];

			memset(tail, ' ', sizeof(tail));
			memcpy(tail, p, end - p);
			if (plain16(tail, (unsigned char)quote)) {
				p = end;
				break;
			}
		}
		/* Byte by byte through that block (a UTF-8 sequence may
		 * end past it), not block by block from every byte. */
		stop = end - p >= 16 ? p + 16 : end;
		while (p < stop)
			p = escape_step(b, p, &run, quote, backslash);
	}
	strbuf__put(b, (const char *)run, p - run);
}

void escape_text(struct strbuf *b, const char *s)
{
	escape(b, s, '\0', true);
}

void escape_text_quoted(struct strbuf *b, const char *s, char quote)
{
	escape(b, s, quote, true);
}

void escape_message(struct strbuf *b, const char *s)
{
	escape(b, s, '\0', false);
}

void escape_prom_label(struct strbuf *b, const char *s)
{
	static const char hex[] = "0123456789ABCDEF";
	const unsigned char *p = (const unsigned char *)s;
	const unsigned char *run = p;
	size_t n;

	while (*p) {
		/* ASCII first: label values are mostly paths and names. */
		if (*p < 0x80 && *p != '\\' && *p != '"' && *p != '\n') {
			p++;
			continue;
		}
		n = *p < 0x80 ? 0 : utf8_len(p);
		if (n) {
			p += n;
			continue;
		}
		strbuf__put(b, (const char *)run, p - run);
		if (*p == '\n') {
			strbuf__put(b, "\\n", 2);
		} else if (*p == '\\' || *p == '"') {
			char esc[2] = { '\\', (char)*p };

			strbuf__put(b, esc, sizeof(esc));
		} else {
			char esc[5] = { '\\', '\\', 'x', hex[*p >> 4],
					hex[*p & 15] };

			strbuf__put(b, esc, sizeof(esc));
		}
		run = ++p;
	}
	strbuf__put(b, (const char *)run, p - run);
}

static int hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

int unescape_text(const char *s, char *out, size_t len, size_t *n)
{
	size_t o = 0;
	int hi, lo;

	for (; *s; s++) {
		char c = *s;

		if (c == '\\') {
			if (s[1] == '\\') {
				s++;
			} else if (s[1] == 'x' && (hi = hex_digit(s[2])) >= 0 &&
				   (lo = hex_digit(s[3])) >= 0) {
				c = (char)(hi << 4 | lo);
				s += 3;
			} else {
				return -EINVAL;
			}
		}
		if (o + 1 >= len)
			return -ENOSPC;
		out[o++] = c;
	}
	if (len)
		out[o] = '\0';
	*n = o;
	return 0;
}
