// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: the CSV field writer of sinks/csv.c, as a round
 * trip. An input is two fields split at its first NUL byte; they are
 * written as the record "F1,F2\n" with csv_put_field() and read back by
 * a strict RFC 4180 reader, which must find exactly two fields and the
 * record's end, and give back the input's bytes.
 *
 * The writer may also escape (docs/csv-schema.md): invalid UTF-8 and
 * control characters as \xHH, and '\' as "\\". Which writer this is, is
 * found once at start (expect_escapes); an escaping writer's fields must
 * then be valid UTF-8 without control characters, and are unescaped
 * (unescape()) before the comparison. Links sinks/ and common/ only.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "common/strbuf.h"
#include "sinks/csv.h"

#define CHECK(cond)                                                       \
	do {                                                              \
		if (!(cond)) {                                            \
			fprintf(stderr, "fuzz_csv: %s at %s:%d\n", #cond, \
				__FILE__, __LINE__);                      \
			abort();                                          \
		}                                                         \
	} while (0)

/* Escapes seen at start: "\x01" is not written as the byte 0x01. */
static bool expect_escapes;

/*
 * Reads one field at data[*pos], RFC 4180 strictly: either quoted, with
 * every '"' inside doubled and the closing quote followed by the
 * delimiter, or bare, without '"', CR, LF or ','. Stops before the
 * delimiter. False on anything else.
 */
static bool read_field(const char *data, size_t len, size_t *pos, char *out,
		       size_t *out_len)
{
	size_t i = *pos, n = 0;

	if (i < len && data[i] == '"') {
		for (i++;; i++) {
			if (i >= len)
				return false; /* unterminated */
			if (data[i] == '"') {
				if (i + 1 < len && data[i + 1] == '"') {
					out[n++] = '"';
					i++;
					continue;
				}
				i++;
				break;
			}
			out[n++] = data[i];
		}
		if (i < len && data[i] != ',' && data[i] != '\n')
			return false; /* text after the closing quote */
	} else {
		for (; i < len && data[i] != ',' && data[i] != '\n'; i++) {
			if (data[i] == '"' || data[i] == '\r')
				return false;
			out[n++] = data[i];
		}
	}
	*pos = i;
	*out_len = n;
	return true;
}

static int hex(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* Length of the valid UTF-8 sequence at s (RFC 3629), or 0. */
static size_t utf8_len(const unsigned char *s, size_t len)
{
	size_t n;
	uint32_t cp;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		n = 2, cp = s[0] & 0x1f;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		n = 3, cp = s[0] & 0x0f;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		n = 4, cp = s[0] & 0x07;
	else
		return 0;
	if (len < n)
		return 0;
	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if ((n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) ||
	    (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
		return 0;
	return n;
}

/*
 * The escaping writer's field, back to the bytes it came from, in
 * place: "\\" is '\', "\xHH" the byte 0xHH, and any other '\' is an
 * error; the field itself must be valid UTF-8 without control bytes.
 */
static bool unescape(char *s, size_t *len)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t i = 0, n = 0, k;

	while (i < *len) {
		if (u[i] < 0x20 || u[i] == 0x7f)
			return false;
		k = utf8_len(u + i, *len - i);
		if (!k)
			return false;
		if (u[i] != '\\') {
			memmove(s + n, s + i, k);
			n += k;
			i += k;
			continue;
		}
		if (i + 1 < *len && s[i + 1] == '\\') {
			s[n++] = '\\';
			i += 2;
		} else if (i + 3 < *len + 0 && s[i + 1] == 'x' &&
			   hex(s[i + 2]) >= 0 && hex(s[i + 3]) >= 0) {
			s[n++] = (char)(hex(s[i + 2]) << 4 | hex(s[i + 3]));
			i += 4;
		} else {
			return false;
		}
	}
	*len = n;
	return true;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	char buf[64];
	struct strbuf b;

	strbuf__init(&b, buf, sizeof(buf), 0);
	csv_put_field(&b, "\x01");
	expect_escapes = !strchr(buf, '\x01');
	return 0;
}

/* Reads back field number i of the record into out, compares to want. */
static void check_field(const char *rec, size_t rec_len, size_t *pos,
			const char *want, char *out)
{
	size_t n = 0, wlen = strlen(want);

	CHECK(read_field(rec, rec_len, pos, out, &n));
	if (expect_escapes)
		CHECK(unescape(out, &n));
	CHECK(n == wlen && !memcmp(out, want, n));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* '\xHH' is 4 bytes a byte, doubled quotes 2, and 2 quotes. */
	size_t cap = 8 * size + 16, pos = 0;
	char *in = malloc(size + 2), *rec = malloc(cap), *out = malloc(cap);
	const char *f1, *f2;
	struct strbuf b;

	if (!in || !rec || !out)
		abort();
	memcpy(in, data, size);
	in[size] = in[size + 1] = '\0';
	f1 = in;
	f2 = in + strlen(in) + 1;
	if (f2 > in + size)
		f2 = in + size; /* no NUL: the second field is empty */

	strbuf__init(&b, rec, cap, 0);
	csv_put_field(&b, f1);
	strbuf__putc(&b, ',');
	csv_put_field(&b, f2);
	strbuf__putc(&b, '\n');
	CHECK(!b.truncated);
	CHECK(b.len < cap && rec[b.len] == '\0');

	check_field(rec, b.len, &pos, f1, out);
	CHECK(pos < b.len && rec[pos] == ',');
	pos++;
	check_field(rec, b.len, &pos, f2, out);
	CHECK(pos + 1 == b.len && rec[pos] == '\n');
	if (expect_escapes)
		CHECK(!memchr(rec, '\r', b.len));
	free(in);
	free(rec);
	free(out);
	return 0;
}
