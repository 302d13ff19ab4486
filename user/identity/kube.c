// SPDX-License-Identifier: GPL-2.0
/*
 * Pod UID -> namespace and pod name, container id -> container name,
 * from the kubelet's log trees (kube.h says what is relied on). Two
 * sorted arrays, rebuilt by each scan; a scan keeps what the one before
 * found and it did not, so a pod deleted between two scans still names
 * its last rows, and the arrays hold at most two scans' entries.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/grow.h"
#include "identity/kube.h"

#define ID_LEN 64 /* runtime container ids: 64 lower-case hex */
#define KEY_LEN 168 /* a pod UID or a container id, with a tag */
#define ABSENT_MAX 1024 /* beyond, the set starts again: a rescan each */

struct pod_entry {
	char *uid; /* lower case, dashes */
	char *namespace;
	char *name;
	uint64_t seen; /* the scan that last found it */
};

struct ctr_entry {
	char id[ID_LEN + 1];
	char *name;
	/* Its pod, when the link or the name says it: a pod whose
	 * directory is gone or unread still gets its names. */
	char *namespace;
	char *pod_name;
	uint64_t seen;
};

struct absent {
	char key[KEY_LEN];
	/* The last scan it was looked up in (the one current when it was
	 * first asked for does not count: it may have come before the
	 * key), and when that scan was. */
	uint64_t scan, scan_ns;
	unsigned misses; /* later scans that did not find it */
};

struct kube {
	char *pods_dir, *containers_dir;
	struct pod_entry *pods;
	size_t nr_pods, cap_pods;
	struct ctr_entry *ctrs;
	size_t nr_ctrs, cap_ctrs;
	/* The first 8 bytes of each uid and id, in the arrays' order: a
	 * look-up searches these, which fit in a few cache lines, and
	 * compares whole strings only where they match. */
	uint64_t *pod_keys, *ctr_keys;
	struct absent *absent;
	size_t nr_absent;
	uint64_t scans;
	uint64_t now_ns, scan_ns; /* this interval's start, the last scan's */
	bool may_scan; /* this interval has not scanned yet */
	/*
	 * The last look-up: the rows of one cgroup ask for the same names
	 * one after the other. Good for an interval and a scan: a miss may
	 * rescan in the next interval.
	 */
	struct {
		bool valid;
		char pod[KEY_LEN], container[KEY_LEN];
		struct kube_names names;
	} last;
};

static void pod_free(struct pod_entry *p)
{
	free(p->uid);
	free(p->namespace);
	free(p->name);
}

static void ctr_free(struct ctr_entry *c)
{
	free(c->name);
	free(c->namespace);
	free(c->pod_name);
}

static char *dup_n(const char *s, size_t n)
{
	char *d = malloc(n + 1);

	if (d) {
		memcpy(d, s, n);
		d[n] = '\0';
	}
	return d;
}

/* Pod UIDs as the API server writes them: lower case, dashes. */
static void normalise_uid(const char *in, size_t n, char *out, size_t len)
{
	size_t i;

	for (i = 0; i < n && i + 1 < len; i++)
		out[i] = in[i] == '_'		      ? '-' :
			 in[i] >= 'A' && in[i] <= 'Z' ? in[i] + 'a' - 'A' :
							in[i];
	out[i] = '\0';
}

static bool is_hex_lower(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
}

static bool is_id(const char *s, size_t n)
{
	if (n != ID_LEN)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!is_hex_lower(s[i]))
			return false;
	return true;
}

/* The first run of exactly 64 hex digits in s (Docker's log paths). */
static const char *find_id(const char *s)
{
	for (const char *p = s; *p;) {
		const char *q = p;

		while (is_hex_lower(*q))
			q++;
		if (q - p == ID_LEN)
			return p;
		p = *q ? q + 1 : q;
	}
	return NULL;
}

static int add_pod(struct kube *k, const char *dir, size_t len)
{
	const char *first = memchr(dir, '_', len), *last = dir + len;
	char uid[KEY_LEN];
	struct pod_entry *p;

	while (last > dir && last[-1] != '_')
		last--;
	/* NAMESPACE_PODNAME_PODUID, each part non-empty. */
	if (!first || first == dir || last - 1 <= first + 1 ||
	    last == dir + len)
		return 0;
	if (GROW(k->pods, k->cap_pods, k->nr_pods + 1, 64))
		return -ENOMEM;
	normalise_uid(last, dir + len - last, uid, sizeof(uid));
	p = &k->pods[k->nr_pods];
	p->uid = strdup(uid);
	p->namespace = dup_n(dir, first - dir);
	p->name = dup_n(first + 1, last - 1 - (first + 1));
	p->seen = k->scans;
	if (!p->uid || !p->namespace || !p->name) {
		pod_free(p);
		return -ENOMEM;
	}
	k->nr_pods++;
	return 0;
}

/* ns and pod may be NULL (a name that does not say them). */
static int add_ctr(struct kube *k, const char *id, const char *name,
		   size_t name_len, const char *ns, size_t ns_len,
		   const char *pod, size_t pod_len)
{
	struct ctr_entry *c;

	if (GROW(k->ctrs, k->cap_ctrs, k->nr_ctrs + 1, 64))
		return -ENOMEM;
	c = &k->ctrs[k->nr_ctrs];
	memcpy(c->id, id, ID_LEN);
	c->id[ID_LEN] = '\0';
	c->name = dup_n(name, name_len);
	c->namespace = ns ? dup_n(ns, ns_len) : NULL;
	c->pod_name = pod ? dup_n(pod, pod_len) : NULL;
	c->seen = k->scans;
	if (!c->name || (ns && !c->namespace) || (pod && !c->pod_name)) {
		ctr_free(c);
		return -ENOMEM;
	}
	k->nr_ctrs++;
	return 0;
}

/* A directory entry's type, asking the file system when readdir did not. */
static unsigned char entry_type(int dfd, const struct dirent *d)
{
	struct stat st;

	if (d->d_type != DT_UNKNOWN)
		return d->d_type;
	if (fstatat(dfd, d->d_name, &st, AT_SYMLINK_NOFOLLOW))
		return DT_UNKNOWN;
	return S_ISDIR(st.st_mode) ? DT_DIR :
	       S_ISLNK(st.st_mode) ? DT_LNK :
				     DT_REG;
}

static DIR *open_dir_at(int dfd, const char *name)
{
	int fd = openat(dfd, name,
			O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	DIR *d = fd < 0 ? NULL : fdopendir(fd);

	if (fd >= 0 && !d)
		close(fd);
	return d;
}

static bool is_dot(const char *name)
{
	return !strcmp(name, ".") || !strcmp(name, "..");
}

/* PODS/POD/CONTAINERNAME/: its N.log links that name a runtime's id. */
static int scan_container_dir(struct kube *k, DIR *pod, const char *name)
{
	DIR *dir = open_dir_at(dirfd(pod), name);
	char target[PATH_MAX];
	const char *id;
	struct dirent *d;
	ssize_t n;
	int err = 0;

	if (!dir)
		return 0;
	while (!err && (d = readdir(dir))) {
		if (entry_type(dirfd(dir), d) != DT_LNK)
			continue;
		n = readlinkat(dirfd(dir), d->d_name, target,
			       sizeof(target) - 1);
		if (n <= 0)
			continue;
		target[n] = '\0';
		id = find_id(target);
		if (id)
			err = add_ctr(k, id, name, strlen(name), NULL, 0, NULL,
				      0);
	}
	closedir(dir);
	return err;
}

static int scan_pods(struct kube *k)
{
	DIR *top = opendir(k->pods_dir), *pod;
	struct dirent *d, *c;
	int err = 0;

	if (!top)
		return 0; /* no kubelet (yet): nothing to name */
	while (!err && (d = readdir(top))) {
		if (is_dot(d->d_name) || entry_type(dirfd(top), d) != DT_DIR)
			continue;
		err = add_pod(k, d->d_name, strlen(d->d_name));
		pod = err ? NULL : open_dir_at(dirfd(top), d->d_name);
		while (pod && !err && (c = readdir(pod))) {
			if (!is_dot(c->d_name) &&
			    entry_type(dirfd(pod), c) == DT_DIR)
				err = scan_container_dir(k, pod, c->d_name);
		}
		if (pod)
			closedir(pod);
	}
	closedir(top);
	return err;
}

/*
 * A link's target .../NAMESPACE_PODNAME_PODUID/CONTAINERNAME/N.log: 0 or
 * -errno when it named the container, 1 when it is not of that shape.
 */
static int add_from_target(struct kube *k, const char *id, const char *t)
{
	const char *end = strrchr(t, '/'), *cname, *pdir, *first, *last;
	size_t plen;
	int err;

	if (!end || end == t)
		return 1;
	for (cname = end; cname > t && cname[-1] != '/'; cname--)
		;
	if (cname == end || cname < t + 2)
		return 1;
	for (pdir = cname - 1; pdir > t && pdir[-1] != '/'; pdir--)
		;
	plen = cname - 1 - pdir;
	first = memchr(pdir, '_', plen);
	last = memrchr(pdir, '_', plen);
	if (!first || last == first)
		return 1;
	/* Its pod too, when the pods tree is elsewhere or unreadable. */
	err = add_pod(k, pdir, plen);
	if (!err)
		err = add_ctr(k, id, cname, end - cname, pdir, first - pdir,
			      first + 1, last - (first + 1));
	return err;
}

/* CONTAINERS/PODNAME_NAMESPACE_CONTAINERNAME-ID.log */
static int add_link(struct kube *k, int dfd, const struct dirent *d)
{
	const char *name = d->d_name, *id, *first, *last;
	size_t len = strlen(name), base;
	char target[PATH_MAX];
	ssize_t n;
	int err;

	if (len < ID_LEN + 6 || strcmp(name + len - 4, ".log"))
		return 0;
	id = name + len - 4 - ID_LEN;
	if (id[-1] != '-' || !is_id(id, ID_LEN))
		return 0; /* not one, or its id was cut at 255 bytes */
	base = id - 1 - name;
	if (entry_type(dfd, d) == DT_LNK &&
	    (n = readlinkat(dfd, name, target, sizeof(target) - 1)) > 0) {
		target[n] = '\0';
		err = add_from_target(k, id, target);
		if (err <= 0)
			return err;
	}
	/* No link, or an odd one: the name, split at its first and last
	 * '_' (no part of it may hold one). */
	first = memchr(name, '_', base);
	last = memrchr(name, '_', base);
	if (!first || last == first || last + 1 == name + base)
		return 0;
	return add_ctr(k, id, last + 1, name + base - (last + 1), first + 1,
		       last - (first + 1), name, first - name);
}

static int scan_containers(struct kube *k)
{
	DIR *dir = opendir(k->containers_dir);
	struct dirent *d;
	int err = 0;

	if (!dir)
		return 0;
	while (!err && (d = readdir(dir)))
		err = add_link(k, dirfd(dir), d);
	closedir(dir);
	return err;
}

/* Newest first within a key, so that the dedupe keeps it. */
static int pod_cmp(const void *a, const void *b)
{
	const struct pod_entry *x = a, *y = b;
	int c = strcmp(x->uid, y->uid);

	return c ? c : x->seen < y->seen ? 1 : x->seen > y->seen ? -1 : 0;
}

static int ctr_cmp(const void *a, const void *b)
{
	const struct ctr_entry *x = a, *y = b;
	int c = strcmp(x->id, y->id);

	if (c)
		return c;
	if (x->seen != y->seen)
		return x->seen < y->seen ? 1 : -1;
	/* One that names its pod before one that does not. */
	return !x->namespace - !y->namespace;
}

static void dedupe_pods(struct kube *k)
{
	size_t n = 0;

	if (k->nr_pods > 1) /* qsort of a NULL array is undefined */
		qsort(k->pods, k->nr_pods, sizeof(*k->pods), pod_cmp);
	for (size_t i = 0; i < k->nr_pods; i++) {
		if (n && !strcmp(k->pods[n - 1].uid, k->pods[i].uid))
			pod_free(&k->pods[i]);
		else
			k->pods[n++] = k->pods[i];
	}
	k->nr_pods = n;
}

static void dedupe_ctrs(struct kube *k)
{
	size_t n = 0;

	if (k->nr_ctrs > 1)
		qsort(k->ctrs, k->nr_ctrs, sizeof(*k->ctrs), ctr_cmp);
	for (size_t i = 0; i < k->nr_ctrs; i++) {
		if (n && !strcmp(k->ctrs[n - 1].id, k->ctrs[i].id))
			ctr_free(&k->ctrs[i]);
		else
			k->ctrs[n++] = k->ctrs[i];
	}
	k->nr_ctrs = n;
}

/* Drops what neither this scan nor the one before found. */
static void forget_old(struct kube *k)
{
	size_t n = 0;

	for (size_t i = 0; i < k->nr_pods; i++) {
		if (k->pods[i].seen + 1 >= k->scans)
			k->pods[n++] = k->pods[i];
		else
			pod_free(&k->pods[i]);
	}
	k->nr_pods = n;
	n = 0;
	for (size_t i = 0; i < k->nr_ctrs; i++) {
		if (k->ctrs[i].seen + 1 >= k->scans)
			k->ctrs[n++] = k->ctrs[i];
		else
			ctr_free(&k->ctrs[i]);
	}
	k->nr_ctrs = n;
}

/* Big-endian, so that keys sort as the strings do. */
static uint64_t key_of(const char *s)
{
	uint64_t key = 0;
	int i;

	for (i = 0; i < 8 && s[i]; i++)
		key = key << 8 | (unsigned char)s[i];
	return key << 8 * (8 - i);
}

/* Without memory for the keys, the arrays are searched without them. */
static void make_keys(struct kube *k)
{
	free(k->pod_keys);
	free(k->ctr_keys);
	k->pod_keys = malloc((k->nr_pods + 1) * sizeof(*k->pod_keys));
	k->ctr_keys = malloc((k->nr_ctrs + 1) * sizeof(*k->ctr_keys));
	for (size_t i = 0; k->pod_keys && i < k->nr_pods; i++)
		k->pod_keys[i] = key_of(k->pods[i].uid);
	for (size_t i = 0; k->ctr_keys && i < k->nr_ctrs; i++)
		k->ctr_keys[i] = key_of(k->ctrs[i].id);
}

/* The first index whose key is not below key's. */
static size_t lower_bound(const uint64_t *keys, size_t n, uint64_t key)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (keys[mid] < key)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Out of memory half-way: what was added stays, sorted; no error. */
static void scan(struct kube *k)
{
	k->scans++;
	k->scan_ns = k->now_ns;
	k->last.valid = false;
	k->may_scan = false;
	if (!scan_pods(k))
		scan_containers(k);
	forget_old(k);
	dedupe_pods(k);
	dedupe_ctrs(k);
	make_keys(k);
}

int kube__new(struct kube **out, const char *pods_dir,
	      const char *containers_dir, struct error *err)
{
	struct kube *k = calloc(1, sizeof(*k));

	*out = NULL;
	if (!k)
		return error__set(err, ENOMEM, "out of memory");
	k->pods_dir = strdup(pods_dir ? pods_dir : KUBE_PODS_DIR);
	k->containers_dir =
		strdup(containers_dir ? containers_dir : KUBE_CONTAINERS_DIR);
	k->absent = calloc(ABSENT_MAX, sizeof(*k->absent));
	if (!k->pods_dir || !k->containers_dir || !k->absent) {
		kube__free(k);
		return error__set(err, ENOMEM, "out of memory");
	}
	scan(k);
	*out = k;
	return 0;
}

void kube__free(struct kube *k)
{
	if (!k)
		return;
	for (size_t i = 0; i < k->nr_pods; i++)
		pod_free(&k->pods[i]);
	for (size_t i = 0; i < k->nr_ctrs; i++)
		ctr_free(&k->ctrs[i]);
	free(k->pods);
	free(k->ctrs);
	free(k->pod_keys);
	free(k->ctr_keys);
	free(k->absent);
	free(k->pods_dir);
	free(k->containers_dir);
	free(k);
}

/* Waited long enough since then: intervals on a 1 s grid are woken a
 * little early or late, and a second must not come out as 0.999. */
static bool waited(const struct kube *k, uint64_t since_ns, uint64_t wait_ns)
{
	return k->now_ns - since_ns >= wait_ns - wait_ns / 8;
}

void kube__new_interval(struct kube *k, uint64_t now_ns)
{
	k->now_ns = now_ns;
	k->last.valid = false;
	k->may_scan = !k->scan_ns || waited(k, k->scan_ns, KUBE_RESCAN_GAP_NS);
}

static const struct pod_entry *find_pod(const struct kube *k, const char *uid)
{
	uint64_t key = key_of(uid);
	size_t i;

	if (!k->pod_keys) {
		for (i = 0; i < k->nr_pods; i++)
			if (!strcmp(k->pods[i].uid, uid))
				return &k->pods[i];
		return NULL;
	}
	for (i = lower_bound(k->pod_keys, k->nr_pods, key);
	     i < k->nr_pods && k->pod_keys[i] == key; i++)
		if (!strcmp(k->pods[i].uid, uid))
			return &k->pods[i];
	return NULL;
}

static const struct ctr_entry *find_ctr(const struct kube *k, const char *id)
{
	uint64_t key = key_of(id);
	size_t i;

	if (!k->ctr_keys) {
		for (i = 0; i < k->nr_ctrs; i++)
			if (!strcmp(k->ctrs[i].id, id))
				return &k->ctrs[i];
		return NULL;
	}
	for (i = lower_bound(k->ctr_keys, k->nr_ctrs, key);
	     i < k->nr_ctrs && k->ctr_keys[i] == key; i++)
		if (!strcmp(k->ctrs[i].id, id))
			return &k->ctrs[i];
	return NULL;
}

static struct absent *find_absent(struct kube *k, const char *key)
{
	struct absent *a;

	for (size_t i = 0; i < k->nr_absent; i++)
		if (!strcmp(k->absent[i].key, key))
			return &k->absent[i];
	if (k->nr_absent == ABSENT_MAX)
		k->nr_absent = 0;
	a = &k->absent[k->nr_absent++];
	snprintf(a->key, KEY_LEN, "%s", key);
	a->scan = k->scans;
	a->scan_ns = k->scan_ns;
	a->misses = 0;
	return a;
}

/* The last scan did not find the key: a miss, unless counted already. */
static struct absent *missed(struct kube *k, char tag, const char *id)
{
	char key[KEY_LEN];
	struct absent *a;

	snprintf(key, sizeof(key), "%c:%s", tag, id);
	a = find_absent(k, key);
	if (a->scan != k->scans) {
		a->scan = k->scans;
		a->scan_ns = k->scan_ns;
		a->misses++;
	}
	return a;
}

/*
 * A miss in the last scan's arrays: rescan if this interval may and the
 * key's wait is over (a key no later scan missed has none). True when
 * it rescanned; the caller says whether that found it.
 */
static bool rescan_for(struct kube *k, char tag, const char *id)
{
	struct absent *a = missed(k, tag, id);
	uint64_t wait;

	if (a->misses) {
		wait = KUBE_RESCAN_GAP_NS
		       << (a->misses < 6 ? a->misses - 1 : 5);
		if (wait > KUBE_ABSENT_MAX_WAIT_NS)
			wait = KUBE_ABSENT_MAX_WAIT_NS;
		if (!waited(k, a->scan_ns, wait))
			return false;
	}
	if (!k->may_scan)
		return false;
	scan(k);
	return true;
}

static void lookup(struct kube *k, const char *pod, const char *container,
		   struct kube_names *out)
{
	const struct pod_entry *p;
	const struct ctr_entry *c = NULL;
	char uid[KEY_LEN];
	const char *id = NULL, *sep;

	normalise_uid(pod, strlen(pod), uid, sizeof(uid));
	if (container && *container) {
		sep = strstr(container, "://");
		id = sep ? sep + 3 : container;
		if (!is_id(id, strlen(id)))
			id = NULL; /* not a runtime's id: never in the logs */
	}
	p = find_pod(k, uid);
	if (!p && rescan_for(k, 'p', uid) && !(p = find_pod(k, uid)))
		missed(k, 'p', uid);
	if (id) {
		c = find_ctr(k, id);
		if (!c && rescan_for(k, 'c', id)) {
			if (!(c = find_ctr(k, id)))
				missed(k, 'c', id);
			p = find_pod(k, uid); /* the scan moved the pods */
		}
	}
	if (p) {
		out->namespace = p->namespace;
		out->pod_name = p->name;
	} else if (c && c->namespace) {
		out->namespace = c->namespace;
		out->pod_name = c->pod_name;
	}
	if (c)
		out->container_name = c->name;
}

void kube__resolve(struct kube *k, const char *pod, const char *container,
		   struct kube_names *out)
{
	memset(out, 0, sizeof(*out));
	if (!k || !pod || !*pod)
		return;
	if (!container)
		container = "";
	if (k->last.valid && !strcmp(k->last.pod, pod) &&
	    !strcmp(k->last.container, container)) {
		*out = k->last.names;
		return;
	}
	lookup(k, pod, container, out);
	if (strlen(pod) < KEY_LEN && strlen(container) < KEY_LEN) {
		strcpy(k->last.pod, pod);
		strcpy(k->last.container, container);
		k->last.names = *out; /* of the latest scan, if it made one */
		k->last.valid = true;
	}
}

uint64_t kube__scans(const struct kube *k)
{
	return k->scans;
}

size_t kube__nr_pods(const struct kube *k)
{
	return k->nr_pods;
}

size_t kube__nr_containers(const struct kube *k)
{
	return k->nr_ctrs;
}
