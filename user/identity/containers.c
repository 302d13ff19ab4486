// SPDX-License-Identifier: GPL-2.0
/*
 * Container and pod identity from a cgroup path. Every layout is one row
 * of layouts[]: a matcher for one path component, optionally with a check
 * on the component above it (a two-component sequence), and what a match
 * means (a pod, a container of some runtime, or a helper to skip).
 */
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "identity/containers.h"
#include "common/util.h"

#define HEX64_LEN 64
#define UID_LEN 36
#define UID_HASH_LEN 32 /* static pods: the manifest hash, no dashes */
#define NAME_MAX_LEN 76

enum layout_id {
	ID_HEX64, /* 64 lower-case hex: runtime container ids */
	ID_UID_CGROUPFS, /* pod UID, 8-4-4-4-12 with '-' */
	ID_UID_SYSTEMD, /* pod UID, 8-4-4-4-12 with '_' */
	ID_NAME, /* containerd id: [A-Za-z0-9_.-]{1,76} */
};

enum layout_role {
	ROLE_POD,
	ROLE_CONTAINER,
	ROLE_SKIP, /* a runtime helper (conmon), not the container */
};

struct layout {
	/* Checks the component above; NULL: any, or none at all. */
	bool (*parent)(const char *s, size_t len);
	const char *prefix;
	enum layout_id id;
	const char *suffix;
	enum layout_role role;
	const char *runtime; /* ROLE_CONTAINER: "<runtime>://<id>" */
};

static bool is_kube_qos_dir(const char *s, size_t len);
static bool is_cgroupfs_pod_dir(const char *s, size_t len);
static bool is_docker_dir(const char *s, size_t len);
static bool is_libpod_parent_dir(const char *s, size_t len);
static bool is_containerd_ns(const char *s, size_t len);
static bool is_not_unit(const char *s, size_t len);

/* Kept by hand: clang-format spreads each initializer over four lines. */
/* clang-format off */
#define POD(par, pre, id, suf) { par, pre, id, suf, ROLE_POD, NULL }
#define CTR(par, pre, id, suf, rt) { par, pre, id, suf, ROLE_CONTAINER, rt }
#define SKIP(par, pre, id, suf) { par, pre, id, suf, ROLE_SKIP, NULL }
/* clang-format on */

/*
 * Tried in order on every component; the first row that matches claims
 * it, so the specific rows come before the catch-all containerd ones.
 */
static const struct layout layouts[] = {
	/* systemd driver; kind's kubelet (--cgroup-root=/kubelet) adds
	 * "kubelet-" to every kubepods slice name. */
	POD(NULL, "kubepods-pod", ID_UID_SYSTEMD, ".slice"),
	POD(NULL, "kubepods-burstable-pod", ID_UID_SYSTEMD, ".slice"),
	POD(NULL, "kubepods-besteffort-pod", ID_UID_SYSTEMD, ".slice"),
	POD(NULL, "kubelet-kubepods-pod", ID_UID_SYSTEMD, ".slice"),
	POD(NULL, "kubelet-kubepods-burstable-pod", ID_UID_SYSTEMD, ".slice"),
	POD(NULL, "kubelet-kubepods-besteffort-pod", ID_UID_SYSTEMD, ".slice"),
	/* cgroupfs driver: /kubepods[/QOS]/pod<uid> */
	POD(is_kube_qos_dir, "pod", ID_UID_CGROUPFS, ""),

	/* conmon monitors a CRI-O or Podman container from beside it */
	SKIP(NULL, "crio-conmon-", ID_HEX64, ".scope"),
	SKIP(NULL, "libpod-conmon-", ID_HEX64, ".scope"),
	SKIP(is_cgroupfs_pod_dir, "crio-conmon-", ID_HEX64, ""),

	/* systemd scopes, with or without Kubernetes above them */
	CTR(NULL, "cri-containerd-", ID_HEX64, ".scope", "containerd"),
	CTR(NULL, "crio-", ID_HEX64, ".scope", "cri-o"),
	CTR(NULL, "docker-", ID_HEX64, ".scope", "docker"),
	CTR(NULL, "libpod-", ID_HEX64, ".scope", "podman"),

	/* cgroupfs driver: containers are children of the pod's cgroup; a
	 * bare id does not say which runtime made it. */
	CTR(is_cgroupfs_pod_dir, "cri-containerd-", ID_HEX64, "", "containerd"),
	CTR(is_cgroupfs_pod_dir, "crio-", ID_HEX64, "", "cri-o"),
	CTR(is_cgroupfs_pod_dir, "docker-", ID_HEX64, "", "docker"),
	CTR(is_cgroupfs_pod_dir, "", ID_HEX64, "", "cri"),

	/* Docker and Podman with their cgroupfs managers */
	CTR(is_docker_dir, "", ID_HEX64, "", "docker"),
	CTR(is_libpod_parent_dir, "libpod-", ID_HEX64, "", "podman"),

	/* containerd alone: /<namespace>/<id> */
	CTR(is_containerd_ns, "", ID_NAME, "", "containerd"),
	CTR(is_not_unit, "", ID_HEX64, "", "containerd"),
};

static bool is_lower_hex(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
}

static bool is_hex(char c)
{
	return is_lower_hex(c) || (c >= 'A' && c <= 'F');
}

static bool is_hex64(const char *s, size_t len)
{
	if (len != HEX64_LEN)
		return false;
	for (size_t i = 0; i < len; i++)
		if (!is_lower_hex(s[i]))
			return false;
	return true;
}

/*
 * 8-4-4-4-12 hex with sep between the groups, or the 32 hex digits of a
 * static pod's UID (kubelet uses the manifest's hash).
 */
static bool is_pod_uid(const char *s, size_t len, char sep)
{
	if (len == UID_HASH_LEN) {
		for (size_t i = 0; i < len; i++)
			if (!is_hex(s[i]))
				return false;
		return true;
	}
	if (len != UID_LEN)
		return false;
	for (size_t i = 0; i < len; i++) {
		bool dash = i == 8 || i == 13 || i == 18 || i == 23;

		if (dash ? s[i] != sep : !is_hex(s[i]))
			return false;
	}
	return true;
}

static bool has_suffix(const char *s, size_t len, const char *suffix)
{
	size_t n = strlen(suffix);

	return len >= n && !memcmp(s + len - n, suffix, n);
}

/* The unit types that systemd gives a cgroup of their own. */
static bool is_unit_name(const char *s, size_t len)
{
	static const char *const units[] = {
		".slice", ".scope", ".service", ".mount", ".socket", ".swap",
	};

	for (size_t i = 0; i < ARRAY_SIZE(units); i++)
		if (has_suffix(s, len, units[i]))
			return true;
	return false;
}

static bool is_name(const char *s, size_t len)
{
	if (len < 1 || len > NAME_MAX_LEN || is_unit_name(s, len))
		return false;
	for (size_t i = 0; i < len; i++) {
		char c = s[i];

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		      (c >= '0' && c <= '9') || c == '_' || c == '.' ||
		      c == '-'))
			return false;
	}
	return true;
}

static bool is_word(const char *s, size_t len, const char *word)
{
	return len == strlen(word) && !memcmp(s, word, len);
}

static bool is_kube_qos_dir(const char *s, size_t len)
{
	return is_word(s, len, "kubepods") || is_word(s, len, "burstable") ||
	       is_word(s, len, "besteffort");
}

static bool is_cgroupfs_pod_dir(const char *s, size_t len)
{
	return len > 3 && !memcmp(s, "pod", 3) &&
	       is_pod_uid(s + 3, len - 3, '-');
}

static bool is_docker_dir(const char *s, size_t len)
{
	return is_word(s, len, "docker");
}

static bool is_libpod_parent_dir(const char *s, size_t len)
{
	return is_word(s, len, "libpod_parent");
}

/* containerd's own and the well-known clients' namespaces */
static bool is_containerd_ns(const char *s, size_t len)
{
	return is_word(s, len, "default") || is_word(s, len, "k8s.io") ||
	       is_word(s, len, "moby") || is_word(s, len, "buildkit");
}

static bool is_not_unit(const char *s, size_t len)
{
	return !is_unit_name(s, len);
}

/* On a match, points id at the component's id part. */
static bool layout_match(const struct layout *l, const char *s, size_t len,
			 const char **id, size_t *id_len)
{
	size_t pre = strlen(l->prefix), suf = strlen(l->suffix);
	const char *p = s + pre;
	size_t n;

	if (len < pre + suf || memcmp(s, l->prefix, pre) ||
	    !has_suffix(s, len, l->suffix))
		return false;
	n = len - pre - suf;
	switch (l->id) {
	case ID_HEX64:
		if (!is_hex64(p, n))
			return false;
		break;
	case ID_UID_CGROUPFS:
		if (!is_pod_uid(p, n, '-'))
			return false;
		break;
	case ID_UID_SYSTEMD:
		if (!is_pod_uid(p, n, '_'))
			return false;
		break;
	case ID_NAME:
		if (!is_name(p, n))
			return false;
		break;
	default:
		break;
	}
	*id = p;
	*id_len = n;
	return true;
}

/* Pod UIDs as the API server spells them: dashes, lower case. */
static void set_pod(struct container_ref *ref, const char *uid, size_t len)
{
	size_t i;

	for (i = 0; i < len && i < sizeof(ref->pod) - 1; i++) {
		char c = uid[i];

		if (c == '_')
			c = '-';
		else if (c >= 'A' && c <= 'F')
			c += 'a' - 'A';
		ref->pod[i] = c;
	}
	ref->pod[i] = '\0';
}

static void apply(const struct layout *l, struct container_ref *ref,
		  const char *id, size_t id_len, size_t end)
{
	switch (l->role) {
	case ROLE_POD:
		set_pod(ref, id, id_len);
		/* A container above the pod is not one of the pod's (kind's
		 * node, a kubelet in Docker): only those below it count. */
		ref->container[0] = '\0';
		ref->container_path_len = 0;
		break;
	case ROLE_CONTAINER:
		/* Ids are at most 76 bytes, so this cannot truncate. */
		snprintf(ref->container, sizeof(ref->container), "%s://%.*s",
			 l->runtime, (int)id_len, id);
		ref->container_path_len = (int)end;
		break;
	case ROLE_SKIP:
		break;
	default:
		break;
	}
}

bool container_parse(const char *path, struct container_ref *ref)
{
	const char *prev = NULL, *id;
	size_t len, prev_len = 0, i = 0, id_len;

	if (!ref)
		return false;
	memset(ref, 0, sizeof(*ref));
	if (!path)
		return false;
	len = strlen(path);
	if (len > INT_MAX)
		return false;

	/* Later components overwrite earlier ones: the innermost wins. */
	while (i < len) {
		const char *comp;
		size_t start, n;

		while (i < len && path[i] == '/')
			i++;
		if (i == len)
			break;
		start = i;
		while (i < len && path[i] != '/')
			i++;
		comp = path + start;
		n = i - start;

		for (size_t k = 0; k < ARRAY_SIZE(layouts); k++) {
			const struct layout *l = &layouts[k];

			if (l->parent && (!prev || !l->parent(prev, prev_len)))
				continue;
			if (!layout_match(l, comp, n, &id, &id_len))
				continue;
			apply(l, ref, id, id_len, i);
			break;
		}
		prev = comp;
		prev_len = n;
	}
	return ref->container[0] || ref->pod[0];
}
