// SPDX-License-Identifier: GPL-2.0
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "identity/cgroups.h"
#include "common/error.h"
#include "common/grow.h"
#include "common/hash_index.h"
#include "common/util.h"

/*
 * The info is allocated once and never changes: rows being drained hold
 * pointers to it while the table grows. It is freed only by a sweep, in
 * cgroups__new_interval(), between two intervals' rows. A renamed cgroup
 * keeps its first path until it is forgotten.
 */
struct cgroup_entry {
	uint64_t id;
	uint64_t used; /* the interval of the last look-up (or of learning) */
	struct cgroup_info *info;
};

/*
 * A sweep is due once this many entries were added since the last one,
 * or as many as survived it, whichever is more: each addition pays for
 * one stat() at most, and a host whose cgroups do not change pays none.
 */
#define SWEEP_MIN_ADDED 64

struct cgroups {
	char mount[4096];
	size_t mount_len;
	uint32_t hierarchy_id; /* 0: cgroup v2 */
	struct cgroup_entry *tab; /* in the order learnt */
	size_t cap, nr;
	struct hash_index index; /* id -> tab[] */
	bool scanned_this_interval;
	uint64_t scans;
	uint64_t interval; /* cgroups__new_interval() calls so far */
	size_t added; /* entries added since the last sweep */
	size_t kept; /* entries the last sweep kept */
	size_t peak; /* the most entries held at once */
	uint64_t forgotten;
};

/* True when the comma-separated list opts holds the word. */
static bool has_option(const char *opts, const char *word)
{
	return comma_list_has(opts, word);
}

/*
 * mountinfo writes a space, tab, newline and backslash in a path as
 * \040, \011, \012 and \134 (the kernel's show_path()): the field is
 * not the path until they are decoded, in place.
 */
static void mountinfo_unescape(char *s)
{
	char *out = s;

	for (; *s; s++) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' && s[2] >= '0' &&
		    s[2] <= '7' && s[3] >= '0' && s[3] <= '7') {
			*out++ = (s[1] - '0') << 6 | (s[2] - '0') << 3 |
				 (s[3] - '0');
			s += 3;
		} else {
			*out++ = *s;
		}
	}
	*out = '\0';
}

/*
 * mountinfo: ... mount-point(5th) ... " - " fstype source super-options.
 * controller NULL finds the cgroup2 mount, else the v1 one holding it.
 */
static int find_mount(const char *mountinfo, const char *controller, char *out,
		      size_t len)
{
	char line[4096], mnt[4096], fstype[64], opts[1024], *sep;
	FILE *f = fopen(mountinfo ? mountinfo : "/proc/self/mountinfo", "re");
	int err = -ENOENT;

	if (!f)
		return -errno;
	while (err && fgets(line, sizeof(line), f)) {
		sep = strstr(line, " - ");
		if (!sep ||
		    sscanf(sep + 3, "%63s %*s %1023s", fstype, opts) != 2)
			continue;
		if (controller ? strcmp(fstype, "cgroup") ||
					 !has_option(opts, controller) :
				 strcmp(fstype, "cgroup2"))
			continue;
		if (sscanf(line, "%*s %*s %*s %*s %4095s", mnt) != 1)
			continue;
		mountinfo_unescape(mnt);
		snprintf(out, len, "%s", mnt);
		err = 0;
	}
	fclose(f);
	return err;
}

int cgroups__find_mount(const char *mountinfo, char *out, size_t len)
{
	return find_mount(mountinfo, NULL, out, len);
}

int cgroups__find_v1_mount(const char *mountinfo, const char *controller,
			   char *out, size_t len)
{
	return find_mount(mountinfo, controller, out, len);
}

int cgroups__v1_controller(const char *controller, int *ssid,
			   uint32_t *hierarchy_id)
{
	char line[256], name[64];
	unsigned hier, enabled;
	FILE *f = fopen("/proc/cgroups", "re");
	int idx = 0, err = -ENOENT;

	if (!f)
		return -errno;
	/* One line per subsystem, in subsystem-id order, after a header. */
	while (err && fgets(line, sizeof(line), f)) {
		if (line[0] == '#')
			continue;
		if (sscanf(line, "%63s %u %*u %u", name, &hier, &enabled) ==
			    3 &&
		    !strcmp(name, controller)) {
			*ssid = idx;
			*hierarchy_id = hier;
			err = enabled && hier ? 0 : -ENODEV;
		}
		idx++;
	}
	fclose(f);
	return err;
}

static uint64_t id_hash(uint64_t id)
{
	return hash_bytes(&id, sizeof(id));
}

/* The entry of id, or NULL with p where it would go. */
static struct cgroup_entry *cache_probe(const struct cgroups *cg, uint64_t id,
					struct hash_probe *p)
{
	uint32_t i;

	*p = hash_index__probe(&cg->index, id_hash(id));
	while ((i = hash_index__next(&cg->index, p)) != HASH_INDEX_END)
		if (cg->tab[i].id == id)
			return &cg->tab[i];
	return NULL;
}

static struct cgroup_entry *cache_find(const struct cgroups *cg, uint64_t id)
{
	struct hash_probe p;

	return cache_probe(cg, id, &p);
}

/*
 * A path longer than CGROUP_PATH_MAX keeps its first and last parts,
 * whole components, around "/...(N bytes cut)/": rows stay within any
 * reader's limits and still name the hierarchy and the leaf (where the
 * container id is), and nobody takes it for a cgroup never seen.
 */
static char *display_path(const char *path)
{
	size_t n = strlen(path), head, tail;
	char *out;

	if (n <= CGROUP_PATH_MAX)
		return strdup(path);
	head = CGROUP_PATH_MAX / 4;
	while (head > 1 && path[head] != '/')
		head--;
	tail = n - (CGROUP_PATH_MAX - CGROUP_PATH_MAX / 4 - 64);
	while (tail < n && path[tail] != '/')
		tail++;
	out = malloc(CGROUP_PATH_MAX + 1);
	if (out)
		snprintf(out, CGROUP_PATH_MAX + 1, "%.*s/...(%zu bytes cut)%s",
			 (int)head, path, tail - head, path + tail);
	return out;
}

static int cache_put(struct cgroups *cg, uint64_t id, const char *path)
{
	struct cgroup_entry *e;
	struct hash_probe p;
	char *copy;

	if (!path || cache_probe(cg, id, &p))
		return 0;
	if (hash_index__make_room(&cg->index, &p) ||
	    GROW(cg->tab, cg->cap, cg->nr + 1, 1024))
		return -ENOMEM;
	copy = display_path(path);
	if (!copy)
		return -ENOMEM;
	e = &cg->tab[cg->nr];
	*e = (struct cgroup_entry){ .id = id, .used = cg->interval };
	e->info = calloc(1, sizeof(*e->info));
	if (!e->info) {
		free(copy);
		return -ENOMEM;
	}
	e->info->path = copy;
	container_parse(copy, &e->info->ref);
	hash_index__add(&cg->index, &p, cg->nr++);
	cg->added++;
	if (cg->nr > cg->peak)
		cg->peak = cg->nr;
	return 0;
}

/*
 * Walks directories only, and takes each cgroup's id from readdir's d_ino
 * (kernfs gives the id there): no stat, and none of the dozens of
 * control files per cgroup is touched. nftw stat()ed them all: 560 ms
 * for 5,000 cgroups here.
 */
static int walk(struct cgroups *cg, int fd_dir, char *path, size_t len,
		size_t cap)
{
	struct dirent *de;
	DIR *dir = fdopendir(fd_dir);
	size_t n;
	int fd, err = 0;

	if (!dir) {
		close(fd_dir);
		return -errno;
	}
	while (!err && (de = readdir(dir))) {
		if (de->d_type != DT_DIR || de->d_name[0] == '.')
			continue;
		n = snprintf(path + len, cap - len, "/%s", de->d_name);
		if (len + n >= cap)
			continue;
		err = cache_put(cg, de->d_ino, path);
		fd = openat(dirfd(dir), de->d_name,
			    O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (!err && fd >= 0)
			err = walk(cg, fd, path, len + n, cap);
		path[len] = '\0';
	}
	closedir(dir);
	return err;
}

static int cgroups__scan(struct cgroups *cg)
{
	/* Paths of any depth: cgroupfs has no PATH_MAX, only our rows do. */
	static __thread char path[65536];
	struct stat st;
	int fd, err;

	path[0] = '\0';
	cg->scanned_this_interval = true;
	cg->scans++;
	fd = open(cg->mount, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st)) {
		err = -errno;
		close(fd);
		return err;
	}
	cache_put(cg, st.st_ino, "/");
	return walk(cg, fd, path, 0, sizeof(path));
}

int cgroups__new(struct cgroups **out, const char *v1_controller,
		 struct error *e)
{
	struct cgroups *cg = calloc(1, sizeof(*cg));
	int err, ssid;

	*out = NULL;
	if (!cg)
		return error__set(e, ENOMEM,
				  "cannot allocate the cgroup cache");
	if (v1_controller) {
		err = cgroups__v1_controller(v1_controller, &ssid,
					     &cg->hierarchy_id);
		if (!err)
			err = find_mount(NULL, v1_controller, cg->mount,
					 sizeof(cg->mount));
		if (err) {
			error__set(
				e, err,
				"no cgroup v1 hierarchy holds controller '--cgroup-v1 %s': %s",
				v1_controller, strerror(-err));
			goto fail;
		}
	} else {
		err = find_mount(NULL, NULL, cg->mount, sizeof(cg->mount));
		if (err) {
			error__set(
				e, err,
				"cannot find the cgroup2 mount in /proc/self/mountinfo: %s",
				strerror(-err));
			goto fail;
		}
	}
	cg->mount_len = strlen(cg->mount);
	if (cg->mount_len == 1) /* mounted on "/": keep the leading slash */
		cg->mount_len = 0;
	err = cgroups__scan(cg);
	if (err) {
		error__set(e, err, "cannot walk the cgroup tree at '%s': %s",
			   cg->mount, strerror(-err));
		goto fail;
	}
	*out = cg;
	return 0;
fail:
	cgroups__free(cg);
	return err;
}

const char *cgroups__mount(const struct cgroups *cg)
{
	return cg->mount;
}

uint64_t cgroups__root_id(const struct cgroups *cg)
{
	struct stat st;

	return stat(cg->mount, &st) ? 0 : st.st_ino;
}

/*
 * The name in directory fd of its subdirectory ino, into out (len bytes).
 * Takes fd.
 */
static int name_of(int fd, uint64_t ino, char *out, size_t len)
{
	DIR *dir = fdopendir(fd);
	struct dirent *de;
	int err = -ENOENT;

	if (!dir) {
		close(fd);
		return -errno;
	}
	while (err && (de = readdir(dir))) {
		if (de->d_ino != ino || de->d_type != DT_DIR ||
		    !strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		err = snprintf(out, len, "%s", de->d_name) < (int)len ?
			      0 :
			      -ENAMETOOLONG;
	}
	closedir(dir);
	return err;
}

/*
 * The path under the mount of the directory fd, built from its end up
 * through "..", one name per level: of any length, where readlink() on
 * /proc/self/fd stops at PATH_MAX. Takes fd. -EXDEV if it is not under
 * the mount.
 */
static int path_of_dir(const struct cgroups *cg, int fd, char *out, size_t len)
{
	char name[256];
	struct stat st, up, root;
	size_t at = len - 1, n;
	int parent, err = 0;

	out[at] = '\0';
	if (stat(cg->mount, &root) || fstat(fd, &st))
		err = -errno;
	while (!err && st.st_ino != root.st_ino) {
		parent = openat(fd, "..", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (parent < 0 || fstat(parent, &up)) {
			err = parent < 0 ? -errno : -EIO;
			if (parent >= 0)
				close(parent);
			break;
		}
		if (up.st_dev != root.st_dev || up.st_ino == st.st_ino) {
			close(parent);
			err = -EXDEV;
			break;
		}
		err = name_of(dup(parent), st.st_ino, name, sizeof(name));
		n = strlen(name);
		if (!err && n + 1 >= at)
			err = -ENAMETOOLONG;
		if (!err) {
			at -= n;
			memcpy(out + at, name, n);
			out[--at] = '/';
		}
		close(fd);
		fd = parent;
		st = up;
	}
	close(fd);
	if (err)
		return err;
	if (at == len - 1)
		out[--at] = '/';
	memmove(out, out + at, len - at);
	return 0;
}

/* The kernel's include/linux/exportfs.h; no uapi header has it. */
#define FILEID_KERNFS 0xfe

/*
 * A live cgroup's path from its id: kernfs takes the id as a file handle
 * (FILEID_KERNFS). Needs CAP_DAC_READ_SEARCH; -ESTALE once it is gone.
 */
static int path_by_id(const struct cgroups *cg, uint64_t id, char *out,
		      size_t len)
{
	union {
		struct file_handle fh;
		char bytes[sizeof(struct file_handle) + sizeof(uint64_t)];
	} h = { .fh = { .handle_bytes = sizeof(uint64_t),
			.handle_type = FILEID_KERNFS } };
	int mfd, fd;

	memcpy(h.fh.f_handle, &id, sizeof(id));
	mfd = open(cg->mount, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (mfd < 0)
		return -errno;
	fd = open_by_handle_at(mfd, &h.fh, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		fd = -errno;
	close(mfd);
	return fd < 0 ? fd : path_of_dir(cg, fd, out, len);
}

/*
 * What a captured start of a path says when the rest is lost: its whole
 * components and "/...(cut)" (docs/csv-schema.md), never taken for a
 * whole path.
 */
static void cut_marker(const char *start, char *out, size_t len)
{
	const char *end = strrchr(start, '/');

	snprintf(out, len, "%.*s/...(cut)", (int)(end ? end - start : 0),
		 start);
}

/*
 * The mkdir capture holds the first BPMC_CGROUP_PATH_LEN - 1 bytes of a
 * path: a longer one is completed from the tree while the cgroup exists,
 * by its id or, without the privilege for that, by a walk; one already
 * gone keeps the start it had, marked. Nested long cgroups would
 * otherwise share one wrong path.
 */
static void learn_cut(struct cgroups *cg, uint64_t id, const char *start)
{
	static __thread char path[65536];
	int err;

	if (cache_find(cg, id))
		return;
	err = path_by_id(cg, id, path, sizeof(path));
	if (!err) {
		cache_put(cg, id, path);
		return;
	}
	if (err != -ESTALE && !cg->scanned_this_interval) {
		cgroups__scan(cg);
		if (cache_find(cg, id))
			return;
	}
	cut_marker(start, path, sizeof(path));
	cache_put(cg, id, path);
}

void cgroups__learn(struct cgroups *cg, uint64_t id, uint32_t hierarchy_id,
		    const char *path, bool cut)
{
	if (hierarchy_id != cg->hierarchy_id || !id || path[0] != '/')
		return;
	if (cut)
		learn_cut(cg, id, path);
	else
		cache_put(cg, id, path);
}

int cgroups__canonical_path(const char *path, char *out, size_t len, int *depth)
{
	size_t n = 0, c;
	const char *p = path;

	if (path[0] != '/')
		return -EINVAL;
	*depth = 0;
	while (*p) {
		while (*p == '/')
			p++;
		c = strcspn(p, "/");
		if (!c || (c == 1 && p[0] == '.')) {
			/* an empty or "." component names no step */
		} else if (c == 2 && p[0] == '.' && p[1] == '.') {
			if (!*depth)
				return -EXDEV;
			while (out[--n] != '/')
				;
			--*depth;
		} else {
			if (n + 1 + c >= len)
				return -ENAMETOOLONG;
			out[n++] = '/';
			memcpy(out + n, p, c);
			n += c;
			++*depth;
		}
		p += c;
	}
	if (len < 2)
		return -ENAMETOOLONG;
	if (!n)
		out[n++] = '/';
	out[n] = '\0';
	return 0;
}

int cgroups__list_next(const char **list, char *out, size_t len)
{
	const char *p = *list;
	size_t n = 0;

	for (; *p && *p != ','; p++) {
		if (*p == '\\' && (p[1] == ',' || p[1] == '\\'))
			p++;
		if (n + 1 >= len)
			return -ENAMETOOLONG;
		out[n++] = *p;
	}
	out[n] = '\0';
	*list = *p ? p + 1 : NULL;
	return n ? 0 : -EINVAL;
}

int cgroups__resolve(struct cgroups *cg, const char *path, uint64_t *id,
		     int *level)
{
	char full[8192], rel[4096];
	const char *from = path;
	struct stat st;
	int err, depth;

	/* Relative to the mount, or absolute under it. */
	if (cg->mount_len && !strncmp(path, cg->mount, cg->mount_len) &&
	    (path[cg->mount_len] == '/' || !path[cg->mount_len]))
		from = path[cg->mount_len] ? path + cg->mount_len : "/";
	err = cgroups__canonical_path(from, rel, sizeof(rel), &depth);
	if (err)
		return err;
	snprintf(full, sizeof(full), "%.*s%s", (int)cg->mount_len, cg->mount,
		 rel);
	if (stat(full, &st))
		return -errno;
	if (!S_ISDIR(st.st_mode))
		return -ENOTDIR;
	*id = st.st_ino;
	*level = depth;
	cache_put(cg, st.st_ino, rel);
	return 0;
}

const struct cgroup_info *cgroups__lookup(struct cgroups *cg, uint64_t id)
{
	struct cgroup_entry *e = cache_find(cg, id);

	if (!e && !cg->scanned_this_interval) {
		cgroups__scan(cg);
		e = cache_find(cg, id);
	}
	if (!e)
		return NULL;
	e->used = cg->interval;
	return e->info;
}

uint64_t cgroups__scans(const struct cgroups *cg)
{
	return cg->scans;
}

size_t cgroups__cached(const struct cgroups *cg)
{
	return cg->nr;
}

size_t cgroups__peak(const struct cgroups *cg)
{
	return cg->peak;
}

uint64_t cgroups__forgotten(const struct cgroups *cg)
{
	return cg->forgotten;
}

/*
 * Is the cgroup of this entry gone? Its directory no longer exists, or
 * another cgroup (another id: kernfs ids are never reused) took its
 * path. Any other failure, or a path too long to stat, keeps it.
 */
static bool entry_gone(const struct cgroups *cg, const struct cgroup_entry *e)
{
	char full[8192];
	struct stat st;
	int n;

	n = snprintf(full, sizeof(full), "%.*s%s", (int)cg->mount_len,
		     cg->mount, e->info->path);
	if (n < 0 || (size_t)n >= sizeof(full))
		return false;
	if (stat(full, &st))
		return errno == ENOENT || errno == ENOTDIR;
	return st.st_ino != e->id;
}

static void entry_free(struct cgroup_entry *e)
{
	if (e->info)
		free(e->info->path);
	free(e->info);
	e->info = NULL;
	e->id = 0;
}

/* Used in the interval just ended or the one before, and thus kept: a
 * removed cgroup's last rows may come in the interval after its removal. */
static bool entry_recent(const struct cgroups *cg, const struct cgroup_entry *e)
{
	return e->used + 2 > cg->interval;
}

size_t cgroups__sweep(struct cgroups *cg)
{
	struct hash_index index = {};
	size_t gone = 0, kept = 0;
	bool *drop;

	cg->added = 0;
	cg->kept = cg->nr;
	if (!cg->nr)
		return 0;
	drop = calloc(cg->nr, sizeof(*drop));
	if (!drop)
		return 0;
	for (size_t i = 0; i < cg->nr; i++) {
		if (!entry_recent(cg, &cg->tab[i]) &&
		    entry_gone(cg, &cg->tab[i])) {
			drop[i] = true;
			gone++;
		}
	}
	/*
	 * The survivors close ranks, in a new index sized for them (at most
	 * a quarter full), so that it shrinks back too. Out of memory:
	 * forget nothing this time.
	 */
	if (!gone || hash_index__reserve(&index, (cg->nr - gone) * 2)) {
		free(drop);
		return 0;
	}
	for (size_t i = 0; i < cg->nr; i++) {
		struct hash_probe p;

		if (drop[i]) {
			entry_free(&cg->tab[i]);
			continue;
		}
		cg->tab[kept] = cg->tab[i];
		p = hash_index__probe(&index, id_hash(cg->tab[kept].id));
		while (hash_index__next(&index, &p) != HASH_INDEX_END)
			;
		hash_index__add(&index, &p, kept++);
	}
	free(drop);
	hash_index__free(&cg->index);
	cg->index = index;
	cg->nr = kept;
	cg->kept = cg->nr;
	cg->forgotten += gone;
	return gone;
}

void cgroups__new_interval(struct cgroups *cg)
{
	size_t due = cg->kept > SWEEP_MIN_ADDED ? cg->kept : SWEEP_MIN_ADDED;

	cg->scanned_this_interval = false;
	cg->interval++;
	if (cg->added >= due)
		cgroups__sweep(cg);
}

void cgroups__free(struct cgroups *cg)
{
	if (!cg)
		return;
	for (size_t i = 0; i < cg->nr; i++)
		entry_free(&cg->tab[i]);
	free(cg->tab);
	hash_index__free(&cg->index);
	free(cg);
}
