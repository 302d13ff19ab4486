// SPDX-License-Identifier: GPL-2.0
/* Container and pod identity from cgroup paths. */
#include <stdlib.h>

#include "identity/containers.h"
#include "test.h"
#include "common/util.h"

/* A pod UID as the API server writes it, and as systemd escapes it. */
#define UID "3f2a1c0e-1b2d-4e5f-8a9b-0c1d2e3f4a5b"
#define UID_ "3f2a1c0e_1b2d_4e5f_8a9b_0c1d2e3f4a5b"
#define UID2 "9c7e4b21-0a3f-4d6e-b5c8-7f1e2d3c4b5a"
#define UID2_ "9c7e4b21_0a3f_4d6e_b5c8_7f1e2d3c4b5a"
/* A static pod's UID: kubelet's hash of the manifest. */
#define SUID "d41d8cd98f00b204e9800998ecf8427e"
/* Runtime ids: 64 lower-case hex. */
#define HEX "8f1c3a5e7b9d2f4a6c8e0b1d3f5a7c9e2b4d6f8a0c1e3b5d7f9a2c4e6b8d0f1a"
#define HEX2 "b3e5d7f9a1c3e5b7d9f1a3c5e7b9d1f3a5c7e9b1d3f5a7c9e1b3d5f7a9c1e3b5"
/* The same length or shape, but not an id. */
#define HEX63 "8f1c3a5e7b9d2f4a6c8e0b1d3f5a7c9e2b4d6f8a0c1e3b5d7f9a2c4e6b8d0f1"
#define HEX65 HEX "a"
#define HEXUP "8F1C3A5E7B9D2F4A6C8E0B1D3F5A7C9E2B4D6F8A0C1E3B5D7F9A2C4E6B8D0F1A"

/* The longest containerd id that is accepted */
#define TEN "0123456789"
#define NAME76 TEN TEN TEN TEN TEN TEN TEN "abcdef"

#define KUBE_BU "/kubepods.slice/kubepods-burstable.slice"
#define KUBE_BE "/kubepods.slice/kubepods-besteffort.slice"
#define KIND_NODE "/system.slice/docker-" HEX2 ".scope"
#define KIND_BE                                           \
	KIND_NODE "/kubelet.slice/kubelet-kubepods.slice" \
		  "/kubelet-kubepods-besteffort.slice"

struct parse_case {
	const char *path;
	const char *container; /* expected; "" for none */
	const char *pod; /* expected; "" for none */
	/* The container's own cgroup, a prefix of path; NULL for none. */
	const char *container_path;
};

static void check_case(const struct parse_case *c)
{
	struct container_ref ref;
	bool want = c->container[0] || c->pod[0];
	int want_len = c->container_path ? (int)strlen(c->container_path) : 0;

	memset(&ref, 0xa5, sizeof(ref));
	if (!ASSERT_EQ(container_parse(c->path, &ref), want, c->path))
		return;
	ASSERT_STREQ(ref.container, c->container, c->path);
	ASSERT_STREQ(ref.pod, c->pod, c->path);
	ASSERT_EQ(ref.container_path_len, want_len, c->path);
	if (c->container_path)
		ASSERT_TRUE(!strncmp(c->path, c->container_path, want_len),
			    c->path);
}

static void check_cases(const struct parse_case *cases, size_t n)
{
	for (size_t i = 0; i < n; i++)
		check_case(&cases[i]);
}

/* Kubernetes with the systemd cgroup driver. */
static const struct parse_case systemd_cases[] = {
	{ KUBE_BU "/kubepods-burstable-pod" UID_ ".slice/cri-containerd-" HEX
		  ".scope",
	  "containerd://" HEX, UID,
	  KUBE_BU "/kubepods-burstable-pod" UID_ ".slice/cri-containerd-" HEX
		  ".scope" },
	{ KUBE_BE "/kubepods-besteffort-pod" UID_ ".slice/crio-" HEX ".scope",
	  "cri-o://" HEX, UID,
	  KUBE_BE "/kubepods-besteffort-pod" UID_ ".slice/crio-" HEX ".scope" },
	/* Guaranteed pods sit directly under kubepods.slice. */
	{ "/kubepods.slice/kubepods-pod" UID_ ".slice/cri-containerd-" HEX
	  ".scope",
	  "containerd://" HEX, UID,
	  "/kubepods.slice/kubepods-pod" UID_ ".slice/cri-containerd-" HEX
	  ".scope" },
	/* cri-dockerd */
	{ KUBE_BU "/kubepods-burstable-pod" UID_ ".slice/docker-" HEX ".scope",
	  "docker://" HEX, UID,
	  KUBE_BU "/kubepods-burstable-pod" UID_ ".slice/docker-" HEX
		  ".scope" },
	/* conmon is in the pod, beside the container */
	{ KUBE_BU "/kubepods-burstable-pod" UID_ ".slice/crio-conmon-" HEX
		  ".scope",
	  "", UID, NULL },
	/* The pod's own cgroup */
	{ KUBE_BU "/kubepods-burstable-pod" UID_ ".slice", "", UID, NULL },
	{ "/kubepods.slice/kubepods-pod" UID_ ".slice", "", UID, NULL },
	/* A process in a child of the container's cgroup */
	{ KUBE_BU "/kubepods-burstable-pod" UID_ ".slice/cri-containerd-" HEX
		  ".scope/foo",
	  "containerd://" HEX, UID,
	  KUBE_BU "/kubepods-burstable-pod" UID_ ".slice/cri-containerd-" HEX
		  ".scope" },
	/* Upper-case UIDs are reported in lower case. */
	{ KUBE_BE "/kubepods-besteffort-pod3F2A1C0E_1B2D_4E5F_8A9B_0C1D2E3F4A5B"
		  ".slice",
	  "", UID, NULL },
	/* Static pods' UIDs are a 32-hex hash. */
	{ KUBE_BU "/kubepods-burstable-pod" SUID ".slice/cri-containerd-" HEX
		  ".scope",
	  "containerd://" HEX, SUID,
	  KUBE_BU "/kubepods-burstable-pod" SUID ".slice/cri-containerd-" HEX
		  ".scope" },
};

/* Kubernetes with the cgroupfs driver. */
static const struct parse_case cgroupfs_cases[] = {
	{ "/kubepods/burstable/pod" UID "/" HEX, "cri://" HEX, UID,
	  "/kubepods/burstable/pod" UID "/" HEX },
	{ "/kubepods/besteffort/pod" UID "/" HEX, "cri://" HEX, UID,
	  "/kubepods/besteffort/pod" UID "/" HEX },
	{ "/kubepods/pod" UID "/" HEX, "cri://" HEX, UID,
	  "/kubepods/pod" UID "/" HEX },
	{ "/kubepods/burstable/pod" UID "/crio-" HEX, "cri-o://" HEX, UID,
	  "/kubepods/burstable/pod" UID "/crio-" HEX },
	{ "/kubepods/pod" UID "/cri-containerd-" HEX, "containerd://" HEX, UID,
	  "/kubepods/pod" UID "/cri-containerd-" HEX },
	{ "/kubepods/besteffort/pod" UID "/docker-" HEX, "docker://" HEX, UID,
	  "/kubepods/besteffort/pod" UID "/docker-" HEX },
	{ "/kubepods/burstable/pod" UID "/crio-conmon-" HEX, "", UID, NULL },
	{ "/kubepods/burstable/pod" UID, "", UID, NULL },
	{ "/kubepods/pod" UID, "", UID, NULL },
	{ "/kubepods/burstable/pod" UID "/" HEX "/sub", "cri://" HEX, UID,
	  "/kubepods/burstable/pod" UID "/" HEX },
};

/* Docker, Podman and containerd on their own. */
static const struct parse_case runtime_cases[] = {
	{ "/system.slice/docker-" HEX ".scope", "docker://" HEX, "",
	  "/system.slice/docker-" HEX ".scope" },
	{ "/docker/" HEX, "docker://" HEX, "", "/docker/" HEX },
	{ "/machine.slice/libpod-" HEX ".scope", "podman://" HEX, "",
	  "/machine.slice/libpod-" HEX ".scope" },
	{ "/user.slice/user-1000.slice/user@1000.service/user.slice/libpod-" HEX
	  ".scope",
	  "podman://" HEX, "",
	  "/user.slice/user-1000.slice/user@1000.service/user.slice/libpod-" HEX
	  ".scope" },
	/* crun puts the payload in a "container" child */
	{ "/user.slice/user-1000.slice/user@1000.service/user.slice/libpod-" HEX
	  ".scope/container",
	  "podman://" HEX, "",
	  "/user.slice/user-1000.slice/user@1000.service/user.slice/libpod-" HEX
	  ".scope" },
	{ "/machine.slice/libpod-" HEX ".scope/container", "podman://" HEX, "",
	  "/machine.slice/libpod-" HEX ".scope" },
	{ "/libpod_parent/libpod-" HEX, "podman://" HEX, "",
	  "/libpod_parent/libpod-" HEX },
	{ "/default/redis-server", "containerd://redis-server", "",
	  "/default/redis-server" },
	{ "/k8s.io/" HEX, "containerd://" HEX, "", "/k8s.io/" HEX },
	{ "/moby/" HEX, "containerd://" HEX, "", "/moby/" HEX },
	{ "/buildkit/k0x9v2m4n6p8q1r3s5t7u9w2y",
	  "containerd://k0x9v2m4n6p8q1r3s5t7u9w2y", "",
	  "/buildkit/k0x9v2m4n6p8q1r3s5t7u9w2y" },
	{ "/k8s.io/" NAME76, "containerd://" NAME76, "", "/k8s.io/" NAME76 },
	/* Any namespace, when the id is a runtime's 64 hex */
	{ "/example.com/" HEX, "containerd://" HEX, "", "/example.com/" HEX },
	{ "/default/my_app.v2-1", "containerd://my_app.v2-1", "",
	  "/default/my_app.v2-1" },
};

/* Kubelets inside containers: the innermost container and pod win. */
static const struct parse_case nested_cases[] = {
	/* kind, systemd driver */
	{ KIND_BE "/kubelet-kubepods-besteffort-pod" UID_
		  ".slice/cri-containerd-" HEX ".scope",
	  "containerd://" HEX, UID,
	  KIND_BE "/kubelet-kubepods-besteffort-pod" UID_
		  ".slice/cri-containerd-" HEX ".scope" },
	{ KIND_NODE
	  "/kubelet.slice/kubelet-kubepods.slice/kubelet-kubepods-pod" UID_
	  ".slice/cri-containerd-" HEX ".scope/init",
	  "containerd://" HEX, UID,
	  KIND_NODE
	  "/kubelet.slice/kubelet-kubepods.slice/kubelet-kubepods-pod" UID_
	  ".slice/cri-containerd-" HEX ".scope" },
	/* The node's container does not belong to the pod. */
	{ KIND_BE "/kubelet-kubepods-besteffort-pod" UID_ ".slice", "", UID,
	  NULL },
	{ KIND_BE "/kubelet-kubepods-besteffort-pod" UID_
		  ".slice/crio-conmon-" HEX ".scope",
	  "", UID, NULL },
	/* The node itself, and its system services */
	{ KIND_NODE "/kubelet.slice", "docker://" HEX2, "", KIND_NODE },
	{ KIND_NODE "/system.slice/containerd.service", "docker://" HEX2, "",
	  KIND_NODE },
	{ KIND_BE, "docker://" HEX2, "", KIND_NODE },
	/* kind, cgroupfs driver; and with --cgroup-root=/kubelet */
	{ "/docker/" HEX2 "/kubepods/besteffort/pod" UID "/" HEX, "cri://" HEX,
	  UID, "/docker/" HEX2 "/kubepods/besteffort/pod" UID "/" HEX },
	{ "/docker/" HEX2 "/kubelet/kubepods/burstable/pod" UID "/" HEX,
	  "cri://" HEX, UID,
	  "/docker/" HEX2 "/kubelet/kubepods/burstable/pod" UID "/" HEX },
	/* kind in a pod: the inner pod wins */
	{ KUBE_BU "/kubepods-burstable-pod" UID_ ".slice/cri-containerd-" HEX2
		  ".scope/kubelet.slice/kubelet-kubepods.slice"
		  "/kubelet-kubepods-pod" UID2_ ".slice/cri-containerd-" HEX
		  ".scope",
	  "containerd://" HEX, UID2,
	  KUBE_BU "/kubepods-burstable-pod" UID_ ".slice/cri-containerd-" HEX2
		  ".scope/kubelet.slice/kubelet-kubepods.slice"
		  "/kubelet-kubepods-pod" UID2_ ".slice/cri-containerd-" HEX
		  ".scope" },
	{ KUBE_BU "/kubepods-burstable-pod" UID_ ".slice/cri-containerd-" HEX2
		  ".scope/kubelet.slice",
	  "containerd://" HEX2, UID,
	  KUBE_BU "/kubepods-burstable-pod" UID_ ".slice/cri-containerd-" HEX2
		  ".scope" },
	/* Podman inside Docker */
	{ KIND_NODE "/libpod-" HEX ".scope/container", "podman://" HEX, "",
	  KIND_NODE "/libpod-" HEX ".scope" },
	/* A test tree below the root */
	{ "/bpmc-test/kubepods/pod" UID "/" HEX, "cri://" HEX, UID,
	  "/bpmc-test/kubepods/pod" UID "/" HEX },
};

static const struct parse_case no_match_cases[] = {
	{ "/", "", "", NULL },
	{ "", "", "", NULL },
	{ "/system.slice/sshd.service", "", "", NULL },
	{ "/user.slice/user-1000.slice/session-3.scope", "", "", NULL },
	{ "/system.slice/docker.service", "", "", NULL },
	{ "/system.slice/containerd.service", "", "", NULL },
	{ "/init.scope", "", "", NULL },
	{ "/kubepods.slice", "", "", NULL },
	{ KUBE_BU, "", "", NULL },
	{ "/kubepods/burstable", "", "", NULL },
	{ "/docker/notahexid", "", "", NULL },
	{ "/docker", "", "", NULL },
	{ "/machine.slice/libpod-conmon-" HEX ".scope", "", "", NULL },
	{ "/system.slice/" HEX, "", "", NULL },
	{ "/default/foo.service", "", "", NULL },
	{ "/default/has space", "", "", NULL },
	{ "/k8s.io/" NAME76 "x", "", "", NULL },
	{ "/" HEX, "", "", NULL },
	{ "/pod" UID, "", "", NULL },
};

/* Ids must have their exact shape. */
static const struct parse_case shape_cases[] = {
	{ "/system.slice/docker-" HEX63 ".scope", "", "", NULL },
	{ "/system.slice/docker-" HEX65 ".scope", "", "", NULL },
	{ "/system.slice/docker-" HEXUP ".scope", "", "", NULL },
	{ "/docker/" HEX63, "", "", NULL },
	{ "/docker/" HEX65, "", "", NULL },
	{ "/docker/" HEXUP, "", "", NULL },
	{ "/machine.slice/libpod-" HEX63 ".scope", "", "", NULL },
	{ "/system.slice/docker-" HEX ".service", "", "", NULL },
	{ "/kubepods/burstable/pod" UID "/" HEX63, "", UID, NULL },
	{ "/kubepods/burstable/pod" UID "/" HEXUP, "", UID, NULL },
	/* systemd escapes '-', cgroupfs does not */
	{ KUBE_BU "/kubepods-burstable-pod" UID ".slice", "", "", NULL },
	{ "/kubepods/burstable/pod" UID_, "", "", NULL },
	{ "/kubepods/burstable/pod3f2a1c0e-1b2d-4e5f-8a9b-0c1d2e3f4a5", "", "",
	  NULL },
	{ "/kubepods/burstable/pod3f2a1c0e-1b2d-4e5f-8a9b0-c1d2e3f4a5b", "", "",
	  NULL },
	{ "/kubepods/burstable/pod3f2a1c0e-1b2d-4e5f-8a9b-0c1d2e3f4a5g", "", "",
	  NULL },
	/* A pod's UID, not a QoS class */
	{ "/kubepods/guaranteed/pod" UID, "", "", NULL },
};

static void test_systemd(void)
{
	check_cases(systemd_cases, ARRAY_SIZE(systemd_cases));
}

static void test_cgroupfs(void)
{
	check_cases(cgroupfs_cases, ARRAY_SIZE(cgroupfs_cases));
}

static void test_runtimes(void)
{
	check_cases(runtime_cases, ARRAY_SIZE(runtime_cases));
}

static void test_nested(void)
{
	check_cases(nested_cases, ARRAY_SIZE(nested_cases));
}

static void test_no_match(void)
{
	check_cases(no_match_cases, ARRAY_SIZE(no_match_cases));
}

static void test_id_shapes(void)
{
	check_cases(shape_cases, ARRAY_SIZE(shape_cases));
}

static void test_null(void)
{
	struct container_ref ref;

	memset(&ref, 0xa5, sizeof(ref));
	ASSERT_TRUE(!container_parse(NULL, &ref), "null path");
	ASSERT_STREQ(ref.container, "", "null path container");
	ASSERT_STREQ(ref.pod, "", "null path pod");
	ASSERT_EQ(ref.container_path_len, 0, "null path len");
	ASSERT_TRUE(!container_parse("/docker/" HEX, NULL), "null ref");
}

static void test_slashes(void)
{
	static const struct parse_case cases[] = {
		{ "//docker//" HEX "/", "docker://" HEX, "", "//docker//" HEX },
		{ "docker/" HEX, "docker://" HEX, "", "docker/" HEX },
		{ "/kubepods/pod" UID "/", "", UID, NULL },
	};

	check_cases(cases, ARRAY_SIZE(cases));
}

/*
 * Every prefix of every path parses without reading past its end (run
 * under ASan or valgrind to see it), and a container's path is always a
 * whole-component prefix of the path.
 */
static void check_prefixes(const struct parse_case *cases, size_t n)
{
	struct container_ref ref;

	for (size_t i = 0; i < n; i++) {
		size_t len = strlen(cases[i].path);

		for (size_t k = 0; k <= len; k++) {
			char *p = strndup(cases[i].path, k);
			int cl;

			if (!ASSERT_TRUE(p != NULL, "strndup"))
				return;
			container_parse(p, &ref);
			cl = ref.container_path_len;
			ASSERT_TRUE(cl >= 0 && (size_t)cl <= k, p);
			ASSERT_EQ(!!ref.container[0], cl > 0, p);
			ASSERT_TRUE(!cl || p[cl] == '\0' || p[cl] == '/', p);
			free(p);
		}
	}
}

static void test_prefixes(void)
{
	check_prefixes(systemd_cases, ARRAY_SIZE(systemd_cases));
	check_prefixes(cgroupfs_cases, ARRAY_SIZE(cgroupfs_cases));
	check_prefixes(runtime_cases, ARRAY_SIZE(runtime_cases));
	check_prefixes(nested_cases, ARRAY_SIZE(nested_cases));
	check_prefixes(shape_cases, ARRAY_SIZE(shape_cases));
}

static void test_long(void)
{
	struct container_ref ref;
	size_t n = 1 << 16;
	char *p = malloc(n + 128);

	if (!ASSERT_TRUE(p != NULL, "malloc"))
		return;
	/* One huge component, then a real container below it */
	p[0] = '/';
	memset(p + 1, 'a', n);
	strcpy(p + 1 + n, "/docker/" HEX);
	ASSERT_TRUE(container_parse(p, &ref), "long component");
	ASSERT_STREQ(ref.container, "docker://" HEX, "long component");
	ASSERT_EQ(ref.container_path_len, (int)strlen(p), "long component");
	/* Only slashes */
	memset(p, '/', n);
	p[n] = '\0';
	ASSERT_TRUE(!container_parse(p, &ref), "slashes");
	free(p);
}

static const struct subtest tests[] = {
	{ "systemd", test_systemd },
	{ "cgroupfs", test_cgroupfs },
	{ "runtimes", test_runtimes },
	{ "nested", test_nested },
	{ "no_match", test_no_match },
	{ "id_shapes", test_id_shapes },
	{ "null", test_null },
	{ "slashes", test_slashes },
	{ "prefixes", test_prefixes },
	{ "long", test_long },
	{ 0 },
};

int main(int argc, char **argv)
{
	return test_main(argc, argv, tests);
}
