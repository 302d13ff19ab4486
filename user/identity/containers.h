/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Identity: which container and pod a cgroup path belongs to, from the
 * layouts that systemd, cgroupfs, Docker, Podman and containerd create.
 * The layouts live in one table in containers.c.
 */
#ifndef BPMC_CONTAINERS_H
#define BPMC_CONTAINERS_H

#include <stdbool.h>

#define CONTAINER_ID_LEN 160 /* "RUNTIME://" + up to 128 id bytes */
#define POD_UID_LEN 40 /* 36 with dashes */

struct container_ref {
	/* "containerd://<id>", "cri-o://<id>", "docker://<id>",
	 * "podman://<id>", "cri://<id>"; empty when not a container. */
	char container[CONTAINER_ID_LEN];
	/* The pod's UID with dashes; empty outside Kubernetes. */
	char pod[POD_UID_LEN];
	/* Length of the prefix of the path that is the container's own
	 * cgroup (a process may sit in a child of it); 0 if none. */
	int container_path_len;
};

/*
 * Parses a cgroup path (as under the cgroup2 mount, "/" for the root).
 * Returns true and fills ref when some part of the path matches a
 * container or pod layout; false (ref emptied) otherwise. The layouts
 * match anywhere in the path, so nested setups (kind, a kubelet inside a
 * container, a test tree) are recognised too.
 */
bool container_parse(const char *path, struct container_ref *ref);

#endif
