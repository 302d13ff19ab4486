// SPDX-License-Identifier: GPL-2.0
#include <stdio.h>
#include <string.h>

#include "common/short_name.h"

void short_container(const char *container, unsigned id_len, char *out,
		     size_t n)
{
	const char *id = strstr(container, "://");
	size_t rt;

	if (!*container) {
		snprintf(out, n, "%s", OUTSIDE_CONTAINERS);
		return;
	}
	if (!id || !id_len) {
		snprintf(out, n, "%s", container);
		return;
	}
	rt = (size_t)(id - container) + 3;
	snprintf(out, n, "%.*s%.*s", (int)rt, container, (int)id_len, id + 3);
}

static size_t cps(const char *s)
{
	size_t w = 0;

	for (; *s; s++)
		w += ((unsigned char)*s & 0xc0) != 0x80;
	return w;
}

/* The byte offset of code point i of s. */
static size_t at_cp(const char *s, size_t i)
{
	size_t b = 0;

	for (; s[b]; b++)
		if (((unsigned char)s[b] & 0xc0) != 0x80 && !i--)
			return b;
	return b;
}

void cut_middle(const char *s, unsigned width, char *out, size_t n)
{
	size_t w = cps(s), head, tail;

	if (w <= width || width < 3) {
		snprintf(out, n, "%s", s);
		return;
	}
	/* "~" stands for what was cut: one column. */
	head = (width - 1) / 2;
	tail = width - 1 - head;
	snprintf(out, n, "%.*s~%s", (int)at_cp(s, head), s,
		 s + at_cp(s, w - tail));
}
