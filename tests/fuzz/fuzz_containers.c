// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: the cgroup path -> container and pod parser of
 * identity/containers.c, with the invariants of struct container_ref
 * checked on every result. Links identity/ and common/ only.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "identity/containers.h"

#define CHECK(cond)                                                       \
	do {                                                              \
		if (!(cond)) {                                            \
			fprintf(stderr, "fuzz_containers: %s at %s:%d\n", \
				#cond, __FILE__, __LINE__);               \
			abort();                                          \
		}                                                         \
	} while (0)

static const char *const runtimes[] = { "containerd", "cri-o", "docker",
					"podman", "cri" };

static bool lower_hex(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
}

/* 8-4-4-4-12 lower-case hex with dashes, or 32 hex digits. */
static bool is_pod_uid(const char *s)
{
	size_t n = strlen(s);

	if (n != 36 && n != 32)
		return false;
	for (size_t i = 0; i < n; i++) {
		bool dash = n == 36 &&
			    (i == 8 || i == 13 || i == 18 || i == 23);

		if (dash ? s[i] != '-' : !lower_hex(s[i]))
			return false;
	}
	return true;
}

/* "RUNTIME://ID" with a known runtime and an ID found in the path's
 * container prefix. */
static void check_container(const char *path, const struct container_ref *r)
{
	const char *sep = strstr(r->container, "://"), *id;
	bool known = false;

	CHECK(sep);
	for (size_t i = 0; i < sizeof(runtimes) / sizeof(*runtimes); i++)
		known |= strlen(runtimes[i]) == (size_t)(sep - r->container) &&
			 !memcmp(r->container, runtimes[i], sep - r->container);
	CHECK(known);
	id = sep + 3;
	CHECK(*id);
	CHECK(r->container_path_len > 0 &&
	      (size_t)r->container_path_len <= strlen(path));
	/* The prefix ends at a component's end, with the id in it. */
	CHECK(path[r->container_path_len] == '/' ||
	      !path[r->container_path_len]);
	CHECK(memmem(path, r->container_path_len, id, strlen(id)));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *path = malloc(size + 1);
	struct container_ref ref, again;
	bool found;

	if (!path)
		abort();
	memcpy(path, data, size);
	path[size] = '\0';
	found = container_parse(path, &ref);
	CHECK(memchr(ref.container, '\0', sizeof(ref.container)));
	CHECK(memchr(ref.pod, '\0', sizeof(ref.pod)));
	CHECK(found == (ref.container[0] || ref.pod[0]));
	if (ref.container[0])
		check_container(path, &ref);
	else
		CHECK(ref.container_path_len == 0);
	if (ref.pod[0])
		CHECK(is_pod_uid(ref.pod));
	/* Deterministic: no state between calls. */
	CHECK(container_parse(path, &again) == found);
	CHECK(!memcmp(&ref, &again, sizeof(ref)));
	CHECK(!container_parse(NULL, &again) && !again.container[0]);
	free(path);
	return 0;
}
