// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: -G's list splitting and path canonicalisation
 * (identity/cgroups.c), with what a canonical path promises checked on
 * every result: from the root, no empty, "." or ".." component, as many
 * components as the depth says, and canonical again as it is. Links
 * identity/ and common/ only.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "identity/cgroups.h"

#define CHECK(cond)                                                         \
	do {                                                                \
		if (!(cond)) {                                              \
			fprintf(stderr, "fuzz_cgroup_paths: %s at %s:%d\n", \
				#cond, __FILE__, __LINE__);                 \
			abort();                                            \
		}                                                           \
	} while (0)

static void check_canonical(const char *path)
{
	char out[4096], again[4096];
	int depth, depth2, parts = 0, err;
	const char *p;

	err = cgroups__canonical_path(path, out, sizeof(out), &depth);
	CHECK(!err || err == -EINVAL || err == -EXDEV || err == -ENAMETOOLONG);
	CHECK(err != -EINVAL || path[0] != '/');
	if (err)
		return;
	CHECK(out[0] == '/');
	CHECK(!strcmp(out, "/") || out[strlen(out) - 1] != '/');
	for (p = out; *p; p++) {
		if (*p != '/' || !p[1])
			continue;
		parts++;
		CHECK(p[1] != '/');
		CHECK(strncmp(p, "/./", 3) && strcmp(p, "/."));
		CHECK(strncmp(p, "/../", 4) && strcmp(p, "/.."));
	}
	CHECK(parts == depth);
	CHECK(!cgroups__canonical_path(out, again, sizeof(again), &depth2));
	CHECK(!strcmp(out, again) && depth == depth2);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *list = malloc(size + 1), path[4096];
	const char *at = list;
	int n = 0;

	if (!list)
		return 0;
	memcpy(list, data, size);
	list[size] = '\0';
	check_canonical(list);
	while (at && n++ < 64) {
		const char *before = at;

		if (cgroups__list_next(&at, path, sizeof(path)))
			break;
		CHECK(!at || at > before);
		CHECK(strlen(path) <= strlen(before));
		check_canonical(path);
	}
	free(list);
	return 0;
}
