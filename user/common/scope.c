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
	{ "cgroup", SCOPE_CGROUP }, { "process", SCOPE_PROCESS },
	{ "thread", SCOPE_THREAD }, { "container", SCOPE_CONTAINER },
	{ "pod", SCOPE_POD },	    { "system", SCOPE_SYSTEM },
};

int scope_list_parse(const char *list, unsigned allowed, unsigned *mask,
		     char *bad, size_t badlen)
{
	char copy[256], *tok, *save;
	unsigned m = 0, found;

	snprintf(copy, sizeof(copy), "%s", list);
	for (tok = strtok_r(copy, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		found = scope_of(tok) & allowed;
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

int scopes_parse(const char *list, unsigned *mask, char *bad, size_t badlen)
{
	return scope_list_parse(list, SCOPES_BY, mask, bad, badlen);
}

const char *scope_name(unsigned scope)
{
	for (size_t i = 0; i < ARRAY_SIZE(scope_names); i++) {
		if (scope_names[i].mask == scope)
			return scope_names[i].name;
	}
	return "?";
}

unsigned scope_of(const char *word)
{
	for (size_t i = 0; i < ARRAY_SIZE(scope_names); i++) {
		if (!strcmp(word, scope_names[i].name))
			return scope_names[i].mask;
	}
	return 0;
}
