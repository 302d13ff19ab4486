// SPDX-License-Identifier: GPL-2.0
#include <string.h>

#include "common/strbuf.h"

void strbuf__init(struct strbuf *b, char *buf, size_t cap, size_t len)
{
	b->buf = buf;
	b->cap = cap;
	b->len = len < cap ? len : 0;
	b->truncated = !cap || len >= cap;
	if (cap)
		buf[b->len] = '\0';
}

void strbuf__puts(struct strbuf *b, const char *s)
{
	strbuf__put(b, s, strlen(s));
}

/* "00" to "99": two digits a division, half the divisions of one. */
static const char digit_pairs[201] = "0001020304050607080910111213141516171819"
				     "2021222324252627282930313233343536373839"
				     "4041424344454647484950515253545556575859"
				     "6061626364656667686970717273747576777879"
				     "8081828384858687888990919293949596979899";

/* How many decimal digits v has, from its highest bit: no loop. */
static int decimal_digits(uint64_t v)
{
	static const uint64_t pow10[20] = {
		1ull,
		10ull,
		100ull,
		1000ull,
		10000ull,
		100000ull,
		1000000ull,
		10000000ull,
		100000000ull,
		1000000000ull,
		10000000000ull,
		100000000000ull,
		1000000000000ull,
		10000000000000ull,
		100000000000000ull,
		1000000000000000ull,
		10000000000000000ull,
		100000000000000000ull,
		1000000000000000000ull,
		10000000000000000000ull,
	};
	/* log10(2) ~ 1233 / 4096: the digits of 2^bits, less one or not */
	int t = (64 - __builtin_clzll(v | 1)) * 1233 >> 12;

	return t + ((v | 1) >= pow10[t]);
}

/*
 * Written in place, backwards, once the length is known: a copy through
 * a scratch buffer cost a memcpy call a number, and an export writes
 * four numbers a row.
 */
void strbuf__put_u64(struct strbuf *b, uint64_t v)
{
	size_t n = decimal_digits(v);
	char *p;

	if (b->truncated || n >= b->cap - b->len) {
		b->truncated = true;
		return;
	}
	p = b->buf + b->len + n;
	*p = '\0';
	while (v >= 100) {
		p -= 2;
		memcpy(p, digit_pairs + 2 * (v % 100), 2);
		v /= 100;
	}
	if (v >= 10)
		memcpy(p - 2, digit_pairs + 2 * v, 2);
	else
		p[-1] = '0' + v;
	b->len += n;
}

void strbuf__put_tenths(struct strbuf *b, double v)
{
	uint64_t tenths = v <= 0 ? 0 : (uint64_t)(v * 10 + 0.5);
	char frac[2] = { '.', '0' + tenths % 10 };

	strbuf__put_u64(b, tenths / 10);
	strbuf__put(b, frac, sizeof(frac));
}
