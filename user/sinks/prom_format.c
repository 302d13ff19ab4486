// SPDX-License-Identifier: GPL-2.0
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "sinks/prom_format.h"

#define TOKEN_MAX 64

/*
 * The q-value of one parameter list ("; version=1.0.0;q=0.5"), 1 when
 * none is given; p ends at the element's comma (or the end). A q that is
 * not a number between 0 and 1 makes the element count for nothing.
 */
static double parse_params(const char **pp)
{
	const char *p = *pp;
	double q = 1;
	char *end;

	while (*p && *p != ',') {
		if (*p == '"') { /* a quoted value may hold ',' and ';' */
			for (p++; *p && *p != '"'; p++)
				if (*p == '\\' && p[1])
					p++;
			if (*p)
				p++;
			continue;
		}
		if (*p == ';') {
			p++;
			while (*p == ' ' || *p == '\t')
				p++;
			if ((*p == 'q' || *p == 'Q') && p[1] == '=') {
				q = strtod(p + 2, &end);
				if (end == p + 2 || q < 0 || q > 1)
					q = 0;
				p = end > p + 2 ? end : p + 2;
			}
			continue;
		}
		p++;
	}
	*pp = p;
	return q;
}

/*
 * Calls fn with each element of a comma-separated header: its first
 * token, lower-cased (longer ones are cut, and so match nothing), and
 * its q-value.
 */
static void each_element(const char *h,
			 void (*fn)(void *, const char *, double), void *ctx)
{
	char token[TOKEN_MAX];
	const char *p = h;
	size_t n;

	while (p && *p) {
		while (*p == ',' || *p == ' ' || *p == '\t')
			p++;
		if (!*p)
			break;
		n = 0;
		while (*p && *p != ',' && *p != ';' && *p != ' ' &&
		       *p != '\t') {
			if (n < sizeof(token) - 1)
				token[n++] = (char)tolower((unsigned char)*p);
			p++;
		}
		token[n] = '\0';
		fn(ctx, token, parse_params(&p));
	}
}

struct accept_q {
	double om, text, gzip, star;
	bool gzip_named;
};

static void on_media_range(void *ctx, const char *token, double q)
{
	struct accept_q *a = ctx;

	if (!strcmp(token, "application/openmetrics-text")) {
		if (q > a->om)
			a->om = q;
	} else if (!strcmp(token, "text/plain") || !strcmp(token, "text/*") ||
		   !strcmp(token, "*/*")) {
		if (q > a->text)
			a->text = q;
	}
}

enum prom_format prom_negotiate_format(const char *accept)
{
	struct accept_q a = {};

	each_element(accept, on_media_range, &a);
	return a.om > 0 && a.om >= a.text ? PROM_OPENMETRICS : PROM_TEXT;
}

static void on_coding(void *ctx, const char *token, double q)
{
	struct accept_q *a = ctx;

	if (!strcmp(token, "gzip") || !strcmp(token, "x-gzip")) {
		a->gzip_named = true;
		if (q > a->gzip)
			a->gzip = q;
	} else if (!strcmp(token, "*")) {
		if (q > a->star)
			a->star = q;
	}
}

bool prom_negotiate_gzip(const char *accept_encoding)
{
	struct accept_q a = {};

	each_element(accept_encoding, on_coding, &a);
	return a.gzip_named ? a.gzip > 0 : a.star > 0;
}
