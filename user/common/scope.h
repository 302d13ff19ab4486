/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The row scopes: the vocabulary that `--by` parses, the rows stage
 * makes and every sink writes in its `scope` column.
 */
#ifndef BPMC_COMMON_SCOPE_H
#define BPMC_COMMON_SCOPE_H

#include <stddef.h>

enum scope {
	SCOPE_CGROUP = 1 << 0,
	SCOPE_PROCESS = 1 << 1,
	SCOPE_THREAD = 1 << 2,
	SCOPE_CONTAINER = 1 << 3, /* container rows, and pod rows */
};

/*
 * Parses "cgroup,process,thread,container" into a mask. -EINVAL with the
 * first unknown word (or the whole list, when it names nothing) in bad.
 */
int scopes_parse(const char *list, unsigned *mask, char *bad, size_t badlen);

/* The `scope` column's word for one scope bit: "cgroup", ... */
const char *scope_name(unsigned scope);

#endif
