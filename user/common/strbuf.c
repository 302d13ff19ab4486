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

void strbuf__put_u64(struct strbuf *b, uint64_t v)
{
	char tmp[24];
	int n = sizeof(tmp);

	do {
		tmp[--n] = '0' + v % 10;
		v /= 10;
	} while (v);
	strbuf__put(b, tmp + n, sizeof(tmp) - n);
}

void strbuf__put_tenths(struct strbuf *b, double v)
{
	uint64_t tenths = v <= 0 ? 0 : (uint64_t)(v * 10 + 0.5);
	char frac[2] = { '.', '0' + tenths % 10 };

	strbuf__put_u64(b, tenths / 10);
	strbuf__put(b, frac, sizeof(frac));
}
