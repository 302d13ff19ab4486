// SPDX-License-Identifier: GPL-2.0
/*
 * resolve_cost N: the cost of cgroup identity with N cgroups. Makes N
 * cgroups (100 pods of N/100 containers, with real Kubernetes names)
 * under a scratch cgroup, then times the full walk that resolves them,
 * a cached look-up per cgroup (the per-row cost), and the rescan a miss
 * costs. Removes everything it made. Prints "name value" lines.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "identity/cgroups.h"
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
	free(ids);
	return made == n ? 0 : 1;
}
