// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>

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

/*
 * backslash: escape it (text read back by unescape_text()), or leave it
 * as typed (a message); quote: a character doubled on the way (a CSV
 * field's '"'), or '\0' for none.
 */
static void escape(struct strbuf *b, const char *s, char quote, bool backslash)
{
	static const char hex[] = "0123456789ABCDEF";
	const unsigned char *p = (const unsigned char *)s;
	const unsigned char *run = p; /* bytes that pass as they are */
	size_t n;

	while (*p) {
		/* Printable ASCII first: paths and names are mostly that. */
		if (*p >= 0x20 && *p < 0x7f && *p != quote &&
		    (*p != '\\' || !backslash)) {
			p++;
			continue;
		}
		if (*p == quote) { /* through the quote, which is doubled */
			strbuf__put(b, (const char *)run, p + 1 - run);
			run = p++;
			continue;
		}
		n = *p < 0x80 ? 0 : utf8_len(p);
		if (n) {
			p += n;
			continue;
		}
		strbuf__put(b, (const char *)run, p - run);
		if (*p == '\\') {
			strbuf__put(b, "\\\\", 2);
		} else {
			char esc[4] = { '\\', 'x', hex[*p >> 4], hex[*p & 15] };

			strbuf__put(b, esc, sizeof(esc));
		}
		run = ++p;
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
