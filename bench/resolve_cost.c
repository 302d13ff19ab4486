// SPDX-License-Identifier: GPL-2.0
/*
 * resolve_cost N: the cost of cgroup identity with N cgroups. Makes N
 * cgroups (100 pods of N/100 containers, with real Kubernetes names)
 * under a scratch cgroup, then times the full walk that resolves them,
 * a cached look-up per cgroup (the per-row cost), and the rescan a miss
 * costs; then the same pods' kubelet log trees (identity/kube.h) in a
 * scratch directory: their first read, a cached look-up of a pod and
 * container's names, and a rescan. Removes everything it made. Prints
 * "name value" lines.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "identity/cgroups.h"
#include "identity/kube.h"
#include "common/util.h"

#define PODS 100

static char base[4096];

static void path_of(char *out, size_t len, int pod, int ctr)
{
	int n = snprintf(out, len, "%.3500s/kubepods.slice", base);

	if (pod >= 0)
		n += snprintf(
			out + n, len - n,
			"/kubepods-pod%08x_1b2d_4e5f_8a9b_0c1d2e3f4a5b.slice",
			pod);
	if (ctr >= 0)
		snprintf(out + n, len - n, "/cri-containerd-%064x.scope",
			 pod * 100000 + ctr);
}

static void cleanup(int pods, int ctrs)
{
	char p[4096];

	for (int pod = 0; pod < pods; pod++) {
		for (int c = 0; c < ctrs; c++) {
			path_of(p, sizeof(p), pod, c);
			rmdir(p);
		}
		path_of(p, sizeof(p), pod, -1);
		rmdir(p);
	}
	path_of(p, sizeof(p), -1, -1);
	rmdir(p);
	rmdir(base);
}

/* A runtime's id: 64 hex digits as random as a sha256's. */
static void runtime_id(char *out, size_t len, int pod, int ctr)
{
	uint64_t x = (uint64_t)pod * 100000 + ctr, h[4];

	for (int i = 0; i < 4; i++) { /* splitmix64 */
		x += 0x9e3779b97f4a7c15ull;
		h[i] = x;
		h[i] = (h[i] ^ (h[i] >> 30)) * 0xbf58476d1ce4e5b9ull;
		h[i] = (h[i] ^ (h[i] >> 27)) * 0x94d049bb133111ebull;
		h[i] ^= h[i] >> 31;
	}
	snprintf(out, len, "%016llx%016llx%016llx%016llx",
		 (unsigned long long)h[0], (unsigned long long)h[1],
		 (unsigned long long)h[2], (unsigned long long)h[3]);
}

/* what: 0 the pod's directory, 1 a container's, 2 its 0.log, 3 its link. */
static void kube_path(char *out, size_t len, const char *dir, int pod, int ctr,
		      int what)
{
	int n = snprintf(out, len, "%s/pods", dir);
	char id[80];

	if (what == 3) { /* CONTAINERS/POD_NS_CTR-ID.log */
		runtime_id(id, sizeof(id), pod, ctr);
		snprintf(out, len, "%s/containers/pod-%d_ns-%d_ctr-%d-%s.log",
			 dir, pod, pod % 10, ctr, id);
		return;
	}
	if (pod >= 0)
		n += snprintf(out + n, len - n,
			      "/ns-%d_pod-%d_%08x-1b2d-4e5f-8a9b-0c1d2e3f4a5b",
			      pod % 10, pod, pod);
	if (ctr >= 0)
		n += snprintf(out + n, len - n, "/ctr-%d", ctr);
	if (what == 2)
		snprintf(out + n, len - n, "/0.log");
}

/* The kubelet's trees for the same pods, made or removed. */
static int kube_tree(const char *dir, int pods, int ctrs, bool make)
{
	char p[4096], q[4096];
	int err = 0;

	for (int pod = 0; pod < pods; pod++) {
		for (int c = 0; c < ctrs; c++) {
			kube_path(p, sizeof(p), dir, pod, c, 2);
			kube_path(q, sizeof(q), dir, pod, c, 3);
			if (!make) {
				unlink(q);
				unlink(p);
				kube_path(p, sizeof(p), dir, pod, c, 1);
				rmdir(p);
				continue;
			}
			kube_path(p, sizeof(p), dir, pod, -1, 0);
			mkdir(p, 0755);
			kube_path(p, sizeof(p), dir, pod, c, 1);
			mkdir(p, 0755);
			kube_path(p, sizeof(p), dir, pod, c, 2);
			err |= close(creat(p, 0644)) | symlink(p, q);
		}
		kube_path(p, sizeof(p), dir, pod, -1, 0);
		if (!make)
			rmdir(p);
	}
	return err;
}

/* The names of every pod's containers, as the rows stage asks for them. */
static void kube_cost(int pods, int ctrs)
{
	char dir[64], p[4096], q[4096], hex[80], (*uids)[40] = NULL,
						 (*ids)[96] = NULL;
	struct kube_names names;
	struct kube *k = NULL;
	struct error err = {};
	uint64_t t0, t1, named = 0;

	snprintf(dir, sizeof(dir), "/tmp/bpmc-bench-kube.%d", getpid());
	snprintf(p, sizeof(p), "%s/pods", dir);
	snprintf(q, sizeof(q), "%s/containers", dir);
	if (mkdir(dir, 0755) || mkdir(p, 0755) || mkdir(q, 0755) ||
	    kube_tree(dir, pods, ctrs, true))
		goto out;
	t0 = clock_ns(CLOCK_MONOTONIC);
	if (kube__new(&k, p, q, &err))
		goto out;
	t1 = clock_ns(CLOCK_MONOTONIC);
	printf("kube_pods %zu\nkube_containers %zu\n", kube__nr_pods(k),
	       kube__nr_containers(k));
	printf("kube_first_scan_ms %.2f\n", (t1 - t0) / 1e6);
	/* The keys as the cgroup paths give them, made before the clock. */
	uids = malloc(pods * ctrs * sizeof(*uids));
	ids = malloc(pods * ctrs * sizeof(*ids));
	if (!uids || !ids)
		goto out;
	for (int pod = 0; pod < pods; pod++) {
		for (int c = 0; c < ctrs; c++) {
			snprintf(uids[pod * ctrs + c], sizeof(*uids),
				 "%08x-1b2d-4e5f-8a9b-0c1d2e3f4a5b", pod);
			runtime_id(hex, sizeof(hex), pod, c);
			snprintf(ids[pod * ctrs + c], sizeof(*ids),
				 "containerd://%s", hex);
		}
	}
	kube__new_interval(k, clock_ns(CLOCK_MONOTONIC));
	t0 = clock_ns(CLOCK_MONOTONIC);
	for (int i = 0; i < pods * ctrs; i++) {
		kube__resolve(k, uids[i], ids[i], &names);
		named += names.container_name != NULL;
	}
	t1 = clock_ns(CLOCK_MONOTONIC);
	printf("kube_cached_resolve_ns %.1f\n",
	       (double)(t1 - t0) / (pods * ctrs));
	printf("kube_containers_named %llu\n", (unsigned long long)named);
	t0 = clock_ns(CLOCK_MONOTONIC);
	kube__resolve(k, "ffffffff-1b2d-4e5f-8a9b-0c1d2e3f4a5b", NULL, &names);
	t1 = clock_ns(CLOCK_MONOTONIC);
	printf("kube_miss_rescan_ms %.2f\n", (t1 - t0) / 1e6);
out:
	free(uids);
	free(ids);
	kube__free(k);
	kube_tree(dir, pods, ctrs, false);
	rmdir(p);
	rmdir(q);
	rmdir(dir);
}

int main(int argc, char **argv)
{
	int n = argc == 2 ? atoi(argv[1]) : 5000, ctrs = n / PODS;
	uint64_t t0, t1, *ids, sum = 0;
	const struct cgroup_info *info;
	struct cgroups *cg = NULL;
	struct error err = {};
	char mount[4096], p[4096];
	struct stat st;
	int made = 0;

	if (cgroups__find_mount(NULL, mount, sizeof(mount)))
		return 2;
	snprintf(base, sizeof(base), "%.3000s/bpmc-bench-%d", mount, getpid());
	ids = calloc(n, sizeof(*ids));
	if (!ids || mkdir(base, 0755))
		return 1;
	path_of(p, sizeof(p), -1, -1);
	mkdir(p, 0755);
	for (int pod = 0; pod < PODS; pod++) {
		path_of(p, sizeof(p), pod, -1);
		mkdir(p, 0755);
		for (int c = 0; c < ctrs; c++) {
			path_of(p, sizeof(p), pod, c);
			if (mkdir(p, 0755) || stat(p, &st))
				goto out;
			ids[made++] = st.st_ino;
		}
	}
	t0 = clock_ns(CLOCK_MONOTONIC);
	if (cgroups__new(&cg, NULL, &err)) {
		fprintf(stderr, "resolve_cost: %s\n", err.msg);
		goto out;
	}
	t1 = clock_ns(CLOCK_MONOTONIC);
	printf("resolve_cgroups %zu\n", cgroups__cached(cg));
	printf("resolve_full_walk_ms %.2f\n", (t1 - t0) / 1e6);
	cgroups__new_interval(cg);
	t0 = clock_ns(CLOCK_MONOTONIC);
	for (int i = 0; i < made; i++) {
		info = cgroups__lookup(cg, ids[i]);
		sum += info && info->ref.container[0];
	}
	t1 = clock_ns(CLOCK_MONOTONIC);
	printf("resolve_cached_lookup_ns %.1f\n", (double)(t1 - t0) / made);
	printf("resolve_containers_recognised %llu\n", (unsigned long long)sum);
	t0 = clock_ns(CLOCK_MONOTONIC);
	cgroups__lookup(cg,
			~0ull); /* a miss: one rescan per interval at most */
	t1 = clock_ns(CLOCK_MONOTONIC);
	printf("resolve_miss_rescan_ms %.2f\n", (t1 - t0) / 1e6);
	printf("resolve_scans %llu\n", (unsigned long long)cgroups__scans(cg));
out:
	cgroups__free(cg);
	cleanup(PODS, ctrs);
	kube_cost(PODS, ctrs);
	free(ids);
	return made == n ? 0 : 1;
}
