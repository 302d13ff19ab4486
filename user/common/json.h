/* SPDX-License-Identifier: GPL-2.0 */
/* A streaming JSON writer: the machine-readable twin of plain output. */
#ifndef BPMC_JSON_H
#define BPMC_JSON_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define JSON_MAX_DEPTH 16

struct json {
	FILE *out;
	int depth;
	bool need_comma[JSON_MAX_DEPTH];
	bool after_key;
};

void json_init(struct json *j, FILE *out);
void json_object_start(struct json *j);
void json_object_end(struct json *j);
void json_array_start(struct json *j);
void json_array_end(struct json *j);
void json_key(struct json *j, const char *key);
void json_string(struct json *j, const char *s);
void json_uint(struct json *j, uint64_t v);
void json_bool(struct json *j, bool v);
void json_double(struct json *j, double v); /* null when not finite */
/* key + value shorthands */
void json_kv_string(struct json *j, const char *key, const char *s);
void json_kv_uint(struct json *j, const char *key, uint64_t v);
void json_kv_bool(struct json *j, const char *key, bool v);
void json_kv_double(struct json *j, const char *key, double v);

#endif
