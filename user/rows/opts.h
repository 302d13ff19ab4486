/* SPDX-License-Identifier: GPL-2.0 */
/* What every interval's rows are made with, for drain.c and tree.c. */
#ifndef BPMC_ROWS_OPTS_H
#define BPMC_ROWS_OPTS_H

#include "identity/cgroups.h"
#include "identity/kube.h"

struct rows_opts {
	unsigned scopes; /* SCOPE_* requested with --by */
	int rollup_depth; /* --rollup: < 0 none, INT_MAX no limit */
	struct cgroups *cgroups; /* names the ids; rescans on a miss */
	struct kube *kube; /* Kubernetes' names; NULL: none */
};

#endif
