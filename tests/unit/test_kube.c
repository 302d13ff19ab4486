// SPDX-License-Identifier: GPL-2.0
/*
 * Kubernetes' names from fixture trees laid out as the kubelet lays out
 * /var/log/pods and /var/log/containers, hostile names included.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "identity/kube.h"
#include "test.h"

#define UID1 "3f2a1c0e-1b2d-4e5f-8a9b-0c1d2e3f4a5b"
#define UID1_ "3F2A1C0E_1B2D_4E5F_8A9B_0C1D2E3F4A5B" /* as in a slice */
#define UID2 "0b8e4f7a-9c3d-4e21-b5a6-7f8091a2b3c4"
#define UID3 "c4d5e6f7-0812-4a3b-9c4d-5e6f70819203"
#define UID4 "9c7e4b21-0a3f-4d6e-b5c8-7f1e2d3c4b5a"
#define UID5 "d41d8cd98f00b204e9800998ecf8427e" /* a static pod's hash */
#define LATE "11111111-2222-4333-8444-555555555555"
#define MISS_A "aaaaaaaa-2222-4333-8444-555555555555"
#define MISS_B "bbbbbbbb-2222-4333-8444-555555555555"
#define HEX(c) c c c c c c c c c c c c c c c c /* 64 hex digits */
#define H1 HEX("1111")
#define H2 HEX("2222")
#define H3 HEX("3333")
#define H4 HEX("4444")
#define H5 HEX("5555")
#define H6 HEX("6666")
/* Every byte a file name may hold that a CSV reader fears. */
#define BAD_NS "we\"ird,ns"
#define BAD_POD "po\nd_\xff\\x"
#define BAD_CTR "c\\\",\n\x01x"

static char root[64], pods[128], ctrs[128];
static const uint64_t s = 1000000000ull;

static void mkdirs(const char *fmt, const char *a, const char *b)
{
	char path[1024];

	snprintf(path, sizeof(path), fmt, pods, a, b);
	mkdir(path, 0755); /* the pod, then the container */
}

/* PODS/DIR/CTR/0.log, a file, or a link to target. */
static void pod_log(const char *dir, const char *ctr, const char *target)
{
	char path[1024];
	FILE *f;

	mkdirs("%s/%s", dir, NULL);
	mkdirs("%s/%s/%s", dir, ctr);
	snprintf(path, sizeof(path), "%s/%s/%s/0.log", pods, dir, ctr);
	if (target) {
		ASSERT_OK(symlink(target, path), path);
		return;
	}
	f = fopen(path, "w");
	if (ASSERT_TRUE(f != NULL, path))
		fclose(f);
}

/* CONTAINERS/NAME, a link to PODS/DIR/CTR/0.log, or a file (DIR NULL). */
static void ctr_link(const char *name, const char *dir, const char *ctr)
{
	char path[1024], target[1024];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", ctrs, name);
	if (dir) {
		snprintf(target, sizeof(target), "%s/%s/%s/0.log", pods, dir,
			 ctr);
		ASSERT_OK(symlink(target, path), path);
		return;
	}
	f = fopen(path, "w");
	if (ASSERT_TRUE(f != NULL, path))
		fclose(f);
}

static void make_trees(void)
{
	snprintf(root, sizeof(root), "/tmp/bpmc-kube.XXXXXX");
	if (!ASSERT_TRUE(mkdtemp(root) != NULL, "mkdtemp"))
		return;
	snprintf(pods, sizeof(pods), "%s/pods", root);
	snprintf(ctrs, sizeof(ctrs), "%s/containers", root);
	mkdir(pods, 0755);
	mkdir(ctrs, 0755);
	/* containerd: the log is a file, the link in CONTAINERS names it. */
	pod_log("default_web-0_" UID1, "nginx", NULL);
	pod_log("default_web-0_" UID1, "sidecar", NULL);
	ctr_link("web-0_default_nginx-" H1 ".log", "default_web-0_" UID1,
		 "nginx");
	ctr_link("web-0_default_sidecar-" H6 ".log", "default_web-0_" UID1,
		 "sidecar");
	/* Docker: the pod's log links to the runtime's, which has the id. */
	pod_log("kube-system_coredns-5d78c9869d-abcde_" UID2, "coredns",
		"/var/lib/docker/containers/" H2 "/" H2 "-json.log");
	/* A link that is a plain file: the name alone says it. */
	ctr_link("api-7f_prod_server-" H3 ".log", NULL, NULL);
	/* Hostile bytes in every part. */
	pod_log(BAD_NS "_" BAD_POD "_" UID4, BAD_CTR, NULL);
	ctr_link("x_y_z-" H4 ".log", BAD_NS "_" BAD_POD "_" UID4, BAD_CTR);
	/* A static pod, and a name cut at 255 bytes (its id lost). */
	pod_log("kube-system_etcd-node1_" UID5, "etcd", NULL);
	ctr_link("etcd-node1_kube-system_etcd-" H5, NULL, NULL);
	/* Not the kubelet's: no UID part, or no id. */
	mkdirs("%s/%s", "lonely", NULL);
	ctr_link("README.log", NULL, NULL);
}

static void remove_trees(void)
{
	char cmd[256];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	ASSERT_OK(system(cmd), cmd);
}

static struct kube *open_kube(void)
{
	struct kube *k = NULL;
	struct error err = {};

	ASSERT_OK(kube__new(&k, pods, ctrs, &err), err.msg);
	return k;
}

static void expect(struct kube *k, const char *pod, const char *ctr,
		   const char *ns, const char *name, const char *cname)
{
	struct kube_names n;

	kube__resolve(k, pod, ctr, &n);
	ASSERT_STREQ(n.namespace, ns, pod);
	ASSERT_STREQ(n.pod_name, name, pod);
	ASSERT_STREQ(n.container_name, cname, ctr ? ctr : pod);
}

static void test_layouts(void)
{
	struct kube *k;

	make_trees();
	k = open_kube();
	if (!k)
		goto out;
	kube__new_interval(k, 10 * s);
	ASSERT_EQ(kube__nr_pods(k), 4, "pods");
	expect(k, UID1, "containerd://" H1, "default", "web-0", "nginx");
	expect(k, UID1, "containerd://" H6, "default", "web-0", "sidecar");
	expect(k, UID1_, H1, "default", "web-0", "nginx");
	expect(k, UID1, NULL, "default", "web-0", NULL);
	expect(k, UID2, "docker://" H2, "kube-system",
	       "coredns-5d78c9869d-abcde", "coredns");
	/* The pod's directory is not there: the name of the link says it. */
	expect(k, UID3, "cri-o://" H3, "prod", "api-7f", "server");
	expect(k, UID4, "cri://" H4, BAD_NS, BAD_POD, BAD_CTR);
	expect(k, UID5, "containerd://" H5, "kube-system", "etcd-node1", NULL);
	/* No pod, no names: a container outside Kubernetes. */
	expect(k, NULL, "docker://" H1, NULL, NULL, NULL);
	expect(k, "", "docker://" H1, NULL, NULL, NULL);
	/* UID3's pod and H5 were missed: one rescan in the interval. */
	ASSERT_EQ(kube__scans(k), 2, "one rescan");
	kube__free(k);
out:
	remove_trees();
}

/* A miss rescans once an interval, intervals a second apart at least. */
static void test_rescan(void)
{
	struct kube *k;

	make_trees();
	k = open_kube();
	if (!k)
		goto out;
	ASSERT_EQ(kube__scans(k), 1, "read once");
	kube__new_interval(k, 100 * s);
	expect(k, LATE, NULL, NULL, NULL, NULL);
	ASSERT_EQ(kube__scans(k), 2, "a miss rescans");
	pod_log("late_newpod_" LATE, "app", NULL);
	expect(k, LATE, NULL, NULL, NULL, NULL);
	ASSERT_EQ(kube__scans(k), 2, "not twice in an interval");
	kube__new_interval(k, 100 * s + s / 2);
	expect(k, LATE, NULL, NULL, NULL, NULL);
	ASSERT_EQ(kube__scans(k), 2, "not within a second");
	/* A new key rescans at once; the late pod comes with it. */
	kube__new_interval(k, 102 * s);
	expect(k, MISS_A, NULL, NULL, NULL, NULL);
	ASSERT_EQ(kube__scans(k), 3, "a new key rescans");
	expect(k, LATE, NULL, "late", "newpod", NULL);
	/* A key scans keep missing waits 1, 2, 4 ... s after the last. */
	struct {
		uint64_t at_ms;
		const char *key;
		uint64_t scans;
	} steps[] = {
		{ 102500, MISS_A, 3 }, /* within a second of the last scan */
		{ 103500, MISS_A, 4 }, /* 1 s after the miss at 102 */
		{ 105000, MISS_A, 4 }, /* 1.5 s of the 2 s it waits now */
		{ 105500, MISS_A, 5 }, /* 2 s */
		{ 108800, MISS_A, 5 }, /* 3.3 s of 4 (less an eighth) */
		{ 111000, MISS_B, 6 }, /* a new key rescans at once ... */
		{ 111000, MISS_A, 6 }, /* ... and that scan counts for A */
		{ 117800, MISS_A, 6 }, /* 6.8 s of the 8 it waits now */
		{ 119000, MISS_A, 7 },
	};
	for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
		char what[64];

		snprintf(what, sizeof(what), "at %llu ms",
			 (unsigned long long)steps[i].at_ms);
		if (i == 0 || steps[i].at_ms != steps[i - 1].at_ms)
			kube__new_interval(k, steps[i].at_ms * 1000000ull);
		expect(k, steps[i].key, NULL, NULL, NULL, NULL);
		ASSERT_EQ(kube__scans(k), steps[i].scans, what);
	}
	kube__free(k);
out:
	remove_trees();
}

/* A pod deleted is named until a second scan has not found it. */
static void test_forget(void)
{
	char cmd[512];
	struct kube *k;

	make_trees();
	k = open_kube();
	if (!k)
		goto out;
	snprintf(cmd, sizeof(cmd),
		 "rm -rf '%s/default_web-0_" UID1 "' '%s'/web-0_*", pods, ctrs);
	ASSERT_OK(system(cmd), cmd);
	kube__new_interval(k, 200 * s);
	expect(k, "bbbbbbbb-2222-4333-8444-555555555555", NULL, NULL, NULL,
	       NULL); /* a rescan */
	expect(k, UID1, "containerd://" H1, "default", "web-0", "nginx");
	kube__new_interval(k, 202 * s);
	expect(k, "cccccccc-2222-4333-8444-555555555555", NULL, NULL, NULL,
	       NULL); /* another */
	ASSERT_EQ(kube__scans(k), 3, "two rescans");
	expect(k, UID1, "containerd://" H1, NULL, NULL, NULL);
	ASSERT_EQ(kube__nr_pods(k), 3, "forgotten");
	kube__free(k);
out:
	remove_trees();
}

/* No kubelet here: nothing named, nothing refused. */
static void test_no_trees(void)
{
	struct kube *k = NULL;
	struct error err = {};

	if (!ASSERT_OK(kube__new(&k, "/nonexistent/pods", "/nonexistent/c",
				 &err),
		       err.msg))
		return;
	kube__new_interval(k, 5 * s);
	expect(k, UID1, "containerd://" H1, NULL, NULL, NULL);
	ASSERT_EQ(kube__nr_pods(k) + kube__nr_containers(k), 0, "empty");
	kube__free(k);
	kube__resolve(NULL, UID1, NULL, &(struct kube_names){});
}

static const struct subtest tests[] = {
	{ "layouts", test_layouts },
	{ "rescan", test_rescan },
	{ "forget", test_forget },
	{ "no_trees", test_no_trees },
	{ 0 },
};

int main(int argc, char **argv)
{
	return test_main(argc, argv, tests);
}
