// SPDX-License-Identifier: GPL-2.0
#include <inttypes.h>
#include <math.h>

#include "common/json.h"

void json_init(struct json *j, FILE *out)
{
	*j = (struct json){ .out = out };
}

/* Separates this value from the previous one at the same level. */
static void json_value_begin(struct json *j)
{
	if (j->after_key) {
		j->after_key = false;
		return;
	}
	if (j->need_comma[j->depth])
		fputc(',', j->out);
	j->need_comma[j->depth] = true;
}

static void json_open(struct json *j, char c)
{
	json_value_begin(j);
	fputc(c, j->out);
	if (j->depth + 1 < JSON_MAX_DEPTH)
		j->depth++;
	j->need_comma[j->depth] = false;
}

static void json_close(struct json *j, char c)
{
	fputc(c, j->out);
	if (j->depth > 0)
		j->depth--;
	if (!j->depth)
		fputc('\n', j->out);
}

void json_object_start(struct json *j)
{
	json_open(j, '{');
}

void json_object_end(struct json *j)
{
	json_close(j, '}');
}

void json_array_start(struct json *j)
{
	json_open(j, '[');
}

void json_array_end(struct json *j)
{
	json_close(j, ']');
}

static void json_quoted(FILE *out, const char *s)
{
	fputc('"', out);
	for (; s && *s; s++) {
		unsigned char c = *s;

		if (c == '"' || c == '\\')
			fprintf(out, "\\%c", c);
		else if (c == '\n')
			fputs("\\n", out);
		else if (c == '\t')
			fputs("\\t", out);
		else if (c < 0x20)
			fprintf(out, "\\u%04x", c);
		else
			fputc(c, out);
	}
	fputc('"', out);
}

void json_key(struct json *j, const char *key)
{
	json_value_begin(j);
	json_quoted(j->out, key);
	fputc(':', j->out);
	j->after_key = true;
}

void json_string(struct json *j, const char *s)
{
	json_value_begin(j);
	if (s)
		json_quoted(j->out, s);
	else
		fputs("null", j->out);
}

void json_uint(struct json *j, uint64_t v)
{
	json_value_begin(j);
	fprintf(j->out, "%" PRIu64, v);
}

/* NaN and infinities are not JSON: null. */
void json_double(struct json *j, double v)
{
	json_value_begin(j);
	if (isfinite(v))
		fprintf(j->out, "%.9g", v);
	else
		fputs("null", j->out);
}

void json_kv_double(struct json *j, const char *key, double v)
{
	json_key(j, key);
	json_double(j, v);
}

void json_bool(struct json *j, bool v)
{
	json_value_begin(j);
	fputs(v ? "true" : "false", j->out);
}

void json_kv_string(struct json *j, const char *key, const char *s)
{
	json_key(j, key);
	json_string(j, s);
}

void json_kv_uint(struct json *j, const char *key, uint64_t v)
{
	json_key(j, key);
	json_uint(j, v);
}

void json_kv_bool(struct json *j, const char *key, bool v)
{
	json_key(j, key);
	json_bool(j, v);
}
