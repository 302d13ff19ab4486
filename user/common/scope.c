// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "common/scope.h"
#include "common/util.h"

static const struct {
	const char *name;
	unsigned mask;
} scope_names[] = {
	{ "cgroup", SCOPE_CGROUP },
	{ "process", SCOPE_PROCESS },
	{ "thread", SCOPE_THREAD },
	{ "container", SCOPE_CONTAINER },
};

int scopes_parse(const char *list, unsigned *mask, char *bad, size_t badlen)
{
	char copy[256], *tok, *save;
	unsigned m = 0, found;

	snprintf(copy, sizeof(copy), "%s", list);
	for (tok = strtok_r(copy, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		found = 0;
		for (size_t i = 0; i < ARRAY_SIZE(scope_names); i++) {
			if (!strcmp(tok, scope_names[i].name))
				found = scope_names[i].mask;
		}
		if (!found) {
			snprintf(bad, badlen, "%s", tok);
			return -EINVAL;
		}
		m |= found;
	}
	if (!m) {
		snprintf(bad, badlen, "%s", list);
		return -EINVAL;
	}
	*mask = m;
	return 0;
}

const char *scope_name(unsigned scope)
{
	for (size_t i = 0; i < ARRAY_SIZE(scope_names); i++) {
		if (scope_names[i].mask == scope)
			return scope_names[i].name;
	}
	return "?";
}
