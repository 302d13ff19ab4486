/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Identity: Kubernetes' names for the pod UIDs and container ids that
 * cgroup paths give (containers.h), read from the kubelet's log trees on
 * the node, never from the API server (a collector on every node must
 * not load it, nor stop naming when it is away). What it relies on, as
 * the kubelet lays it out (pkg/kubelet/kuberuntime):
 *
 *   PODS/NAMESPACE_PODNAME_PODUID/CONTAINERNAME/N.log
 *   CONTAINERS/PODNAME_NAMESPACE_CONTAINERNAME-CONTAINERID.log
 *
 * - a pod directory names its namespace and pod; neither may hold '_'
 *   (DNS names), so the namespace ends at the first '_' and the UID
 *   starts after the last;
 * - a container's id comes from CONTAINERS: a link into PODS, whose
 *   target gives the pod and the container name whole, or, when it is
 *   not a link, the name itself (the container name after its last '_');
 *   the kubelet cuts names at 255 bytes, and a name whose id was cut is
 *   left alone;
 * - N.log in PODS may itself be a link to the runtime's log (Docker's
 *   .../containers/ID/ID-json.log): a 64-hex id in its target names the
 *   container too.
 */
#ifndef BPMC_IDENTITY_KUBE_H
#define BPMC_IDENTITY_KUBE_H

#include <stddef.h>
#include <stdint.h>

#include "common/error.h"

#define KUBE_PODS_DIR "/var/log/pods"
#define KUBE_CONTAINERS_DIR "/var/log/containers"
/* A miss rescans at most once an interval, and no sooner than this. */
#define KUBE_RESCAN_GAP_NS 1000000000ull
/*
 * A key that scans keep missing (a pod sandbox's container has no log;
 * a cgroup can come before its pod's log directory) asks for another
 * 1, 2, 4 ... seconds after the last scan that missed it, at most this
 * long: a kubelet node does not rescan every interval for its sandboxes.
 * Any scan counts for every key, so their waits grow together.
 */
#define KUBE_ABSENT_MAX_WAIT_NS 30000000000ull

struct kube_names {
	const char *namespace; /* NULL: unknown */
	const char *pod_name;
	const char *container_name;
};

/* One node's names, cached; use from one thread at a time. */
struct kube;

/*
 * NULL dirs take the defaults. The trees need not exist (a node without
 * a kubelet yet): names then stay unknown. Reads them once.
 */
int kube__new(struct kube **out, const char *pods_dir,
	      const char *containers_dir, struct error *err);
void kube__free(struct kube *k);

/*
 * The names of a pod UID (dashes or systemd's underscores, any case)
 * and of a container ("RUNTIME://ID" or a bare id; NULL or "" for
 * none). Nothing is looked up without a pod: a container outside
 * Kubernetes has no names. A miss rescans (see above). The strings stay
 * valid until the next kube__resolve() or kube__new_interval().
 */
void kube__resolve(struct kube *k, const char *pod, const char *container,
		   struct kube_names *out);

/* Starts an interval at now_ns (CLOCK_MONOTONIC): a miss may rescan. */
void kube__new_interval(struct kube *k, uint64_t now_ns);

/* Rescans so far (the first read included), and what is cached. */
uint64_t kube__scans(const struct kube *k);
size_t kube__nr_pods(const struct kube *k);
size_t kube__nr_containers(const struct kube *k);

#endif
