/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The row scopes: the words of the `scope` column that every sink
 * writes, one bit each, for the masks of `--by` (which the rows stage
 * makes) and of `--prom-scopes` (which the Prometheus sink exports).
 */
#ifndef BPMC_COMMON_SCOPE_H
#define BPMC_COMMON_SCOPE_H

#include <stddef.h>

enum scope {
	SCOPE_CGROUP = 1 << 0,
	SCOPE_PROCESS = 1 << 1,
	SCOPE_THREAD = 1 << 2,
	/* Container rows; in --by's mask, their pod rows too. */
	SCOPE_CONTAINER = 1 << 3,
	SCOPE_POD = 1 << 4,
	SCOPE_SYSTEM = 1 << 5,
};

/* --by's words, and every scope's. */
#define SCOPES_BY \
	(SCOPE_CGROUP | SCOPE_PROCESS | SCOPE_THREAD | SCOPE_CONTAINER)
#define SCOPES_ALL (SCOPES_BY | SCOPE_POD | SCOPE_SYSTEM)

/*
 * Parses a comma-separated list of the words of allowed ("cgroup",
 * "process", ...) into a mask. -EINVAL with the first other word (or the
 * whole list, when it names nothing) in bad; *mask is then untouched.
 */
int scope_list_parse(const char *list, unsigned allowed, unsigned *mask,
		     char *bad, size_t badlen);

/* --by's list: scope_list_parse() of SCOPES_BY. */
int scopes_parse(const char *list, unsigned *mask, char *bad, size_t badlen);

/* The `scope` column's word for one scope bit: "cgroup", ... */
const char *scope_name(unsigned scope);
/* The bit of a `scope` column's word; 0 for the others (meta, self...). */
unsigned scope_of(const char *word);

#endif
