/* SPDX-License-Identifier: GPL-2.0 */
/*
 * How a per-container view names its keys: Kubernetes' names first,
 * else the runtime and the 12-character id `docker ps` and `crictl ps`
 * show; the key with no container is "outside containers". Long names
 * are cut in the middle, where the start (runtime, namespace) and the
 * end (where ids and paths differ) both stay.
 */
#ifndef BPMC_COMMON_SHORT_NAME_H
#define BPMC_COMMON_SHORT_NAME_H

#include <stddef.h>

#define OUTSIDE_CONTAINERS "(outside containers)"
#define OUTSIDE_PODS "(outside pods)"

/* "containerd://0123456789ab" from "containerd://<64 hex>", into out;
 * id_len: the id's characters kept (0: all). "" -> OUTSIDE_CONTAINERS. */
void short_container(const char *container, unsigned id_len, char *out,
		     size_t n);

/* s cut to width code points in the middle ("head~tail"), into out. */
void cut_middle(const char *s, unsigned width, char *out, size_t n);

#endif
