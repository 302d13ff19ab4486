// SPDX-License-Identifier: GPL-2.0
/* Finding the cgroup2 mount in mountinfo; forgetting removed cgroups. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "identity/cgroups.h"
#include "test.h"

/* A systemd "hybrid" host: v1 controllers and cgroup2 side by side. */
static const char hybrid[] =
	"22 1 259:2 / / rw,relatime shared:1 - ext4 /dev/nvme0n1p2 rw\n"
	"25 22 0:23 / /sys/fs/cgroup ro,nosuid,nodev,noexec shared:9 - tmpfs tmpfs ro,mode=755\n"
	"27 25 0:25 / /sys/fs/cgroup/systemd rw,nosuid,nodev,noexec,relatime shared:11 - cgroup cgroup rw,xattr,name=systemd\n"
	"30 25 0:28 / /sys/fs/cgroup/cpu,cpuacct rw,nosuid,nodev,noexec,relatime shared:14 - cgroup cgroup rw,cpu,cpuacct\n"
	"31 25 0:29 / /sys/fs/cgroup/memory rw,nosuid,nodev,noexec,relatime shared:15 - cgroup cgroup rw,memory\n"
	"26 25 0:24 / /sys/fs/cgroup/unified rw,nosuid,nodev,noexec,relatime shared:10 - cgroup2 cgroup2 rw,nsdelegate\n"
	"32 25 0:30 / /sys/fs/cgroup/pids rw,nosuid,nodev,noexec,relatime shared:16 - cgroup cgroup rw,pids\n";

/* A modern host: only cgroup2, on /sys/fs/cgroup itself. */
static const char unified[] =
	"23 1 259:2 / / rw,relatime shared:1 - ext4 /dev/nvme0n1p2 rw,errors=remount-ro\n"
	"24 23 0:22 / /sys rw,nosuid,nodev,noexec,relatime shared:7 - sysfs sysfs rw\n"
	"35 24 0:30 / /sys/fs/cgroup rw,nosuid,nodev,noexec,relatime shared:9 - cgroup2 cgroup2 rw,nsdelegate,memory_recursiveprot\n"
	"36 24 0:31 / /sys/fs/bpf rw,nosuid,nodev,noexec,relatime shared:10 - bpf bpf rw,mode=700\n";

/* A legacy host: v1 only. */
static const char legacy[] =
	"22 1 259:2 / / rw,relatime shared:1 - ext4 /dev/sda1 rw\n"
	"25 22 0:23 / /sys/fs/cgroup ro,nosuid,nodev,noexec shared:9 - tmpfs tmpfs ro,mode=755\n"
	"27 25 0:25 / /sys/fs/cgroup/systemd rw,nosuid,nodev,noexec,relatime shared:11 - cgroup cgroup rw,xattr,name=systemd\n"
	"30 25 0:28 / /sys/fs/cgroup/cpu,cpuacct rw,nosuid,nodev,noexec,relatime shared:14 - cgroup cgroup rw,cpu,cpuacct\n";

/* A container: no optional fields, or several; a nested cgroup root. */
static const char container[] =
	"600 500 0:50 / / rw,relatime - overlay overlay rw,lowerdir=/l,upperdir=/u,workdir=/w\n"
	"601 600 0:52 /kubepods/pod1/abc /sys/fs/cgroup ro,nosuid,nodev,noexec,relatime master:5 propagate_from:2 - cgroup2 cgroup rw\n";

/* Writes text to a fresh temporary file; path gets its name. */
static bool write_fixture(const char *text, char *path, size_t len)
{
	int fd;

	snprintf(path, len, "/tmp/bpmc-test-mountinfo.XXXXXX");
	fd = mkstemp(path);
	if (!ASSERT_TRUE(fd >= 0, "mkstemp"))
		return false;
	if (!ASSERT_EQ(write(fd, text, strlen(text)), (ssize_t)strlen(text),
		       "write fixture")) {
		close(fd);
		unlink(path);
		return false;
	}
	close(fd);
	return true;
}

static int find_in(const char *text, char *out, size_t len)
{
	char path[64];
	int err;

	if (!write_fixture(text, path, sizeof(path)))
		return -EIO;
	err = cgroups__find_mount(path, out, len);
	unlink(path);
	return err;
}

static void test_hybrid(void)
{
	char out[256] = "";

	ASSERT_OK(find_in(hybrid, out, sizeof(out)), "find");
	ASSERT_STREQ(out, "/sys/fs/cgroup/unified", "mount");
}

static void test_unified(void)
{
	char out[256] = "";

	ASSERT_OK(find_in(unified, out, sizeof(out)), "find");
	ASSERT_STREQ(out, "/sys/fs/cgroup", "mount");
}

static void test_no_cgroup2(void)
{
	char out[256] = "untouched";

	ASSERT_EQ(find_in(legacy, out, sizeof(out)), -ENOENT, "legacy");
	ASSERT_EQ(find_in("", out, sizeof(out)), -ENOENT, "empty file");
	ASSERT_STREQ(out, "untouched", "out untouched");
}

static void test_container(void)
{
	char out[256] = "";

	/* The 5th field, whatever the root and the optional fields. */
	ASSERT_OK(find_in(container, out, sizeof(out)), "find");
	ASSERT_STREQ(out, "/sys/fs/cgroup", "mount");
}

/* mountinfo writes a space as \040, a tab \011, a newline \012, "\" \134. */
static void test_escaped_mount(void)
{
	static const char escaped[] =
		"23 1 259:2 / / rw,relatime shared:1 - ext4 /dev/sda1 rw\n"
		"60 23 0:38 / /tmp/x\\040y\\011t\\012n\\134b rw,relatime - cgroup2 none rw\n";
	char out[256] = "";

	ASSERT_OK(find_in(escaped, out, sizeof(out)), "find");
	ASSERT_STREQ(out, "/tmp/x y\tt\nn\\b", "unescaped");
}

/* -G's paths: what they name, and where they stop being under the mount. */
static void test_canonical_path(void)
{
	static const struct {
		const char *in, *out;
		int depth, err;
	} cases[] = {
		{ "/", "/", 0, 0 },
		{ "/x", "/x", 1, 0 },
		{ "/x/.", "/x", 1, 0 },
		{ "//x//y/", "/x/y", 2, 0 },
		{ "/x/./y/..", "/x", 1, 0 },
		{ "/x/..", "/", 0, 0 },
		{ "/x/../..", NULL, 0, -EXDEV },
		{ "/..", NULL, 0, -EXDEV },
		{ "/...", "/...", 1, 0 },
		{ "/.x/..y", "/.x/..y", 2, 0 },
		{ ".", NULL, 0, -EINVAL },
		{ "x/y", NULL, 0, -EINVAL },
		{ "", NULL, 0, -EINVAL },
	};
	char out[64];
	int depth;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int err = cgroups__canonical_path(cases[i].in, out, sizeof(out),
						  &depth);

		ASSERT_EQ(err, cases[i].err, cases[i].in);
		if (err || !cases[i].out)
			continue;
		ASSERT_STREQ(out, cases[i].out, cases[i].in);
		ASSERT_EQ(depth, cases[i].depth, cases[i].in);
	}
	ASSERT_EQ(cgroups__canonical_path("/abcdef", out, 4, &depth),
		  -ENAMETOOLONG, "too long for out");
}

static void test_list_next(void)
{
	const char *list = "/a,/b\\,c,/d\\\\e";
	char out[64];

	ASSERT_OK(cgroups__list_next(&list, out, sizeof(out)), "first");
	ASSERT_STREQ(out, "/a", "first");
	ASSERT_OK(cgroups__list_next(&list, out, sizeof(out)), "comma");
	ASSERT_STREQ(out, "/b,c", "a comma in a name");
	ASSERT_OK(cgroups__list_next(&list, out, sizeof(out)), "backslash");
	ASSERT_STREQ(out, "/d\\e", "a backslash in a name");
	ASSERT_TRUE(!list, "the end");
	list = "/a,";
	ASSERT_OK(cgroups__list_next(&list, out, sizeof(out)), "before");
	ASSERT_ERR(cgroups__list_next(&list, out, sizeof(out)),
		   "an empty last path");
	list = "/x\\x2d\\";
	ASSERT_OK(cgroups__list_next(&list, out, sizeof(out)), "systemd's");
	ASSERT_STREQ(out, "/x\\x2d\\", "any other backslash is itself");
}

static void test_missing_file(void)
{
	char out[256];

	ASSERT_EQ(cgroups__find_mount("/nonexistent/bpmc/mountinfo", out,
				      sizeof(out)),
		  -ENOENT, "no such file");
}

static void test_real_mountinfo(void)
{
	char out[PATH_MAX], procs[PATH_MAX + 16];
	struct stat st;

	if (!ASSERT_OK(cgroups__find_mount(NULL, out, sizeof(out)), "find"))
		return;
	ASSERT_TRUE(out[0] == '/', "absolute");
	ASSERT_TRUE(!stat(out, &st) && S_ISDIR(st.st_mode), "a directory");
	snprintf(procs, sizeof(procs), "%s/cgroup.procs", out);
	ASSERT_OK(access(procs, F_OK), "has cgroup.procs");
}

/*
 * Real cgroups under the cgroup2 mount, made by the eviction tests and
 * removed by them (deepest first), whatever the asserts say.
 */
#define MAX_MADE 256
static char made[MAX_MADE][PATH_MAX];
static int nr_made;
static char cg2[1024], parent[64];

static bool have_cgroup2(void)
{
	if (geteuid()) {
		TEST_SKIP("needs root, to make cgroups");
		return false;
	}
	if (cgroups__find_mount(NULL, cg2, sizeof(cg2))) {
		TEST_SKIP("no cgroup2 mount");
		return false;
	}
	snprintf(parent, sizeof(parent), "/bpmc-unit-%d", getpid());
	return true;
}

/* Makes cg2 + rel; returns its id (0 on failure). */
static uint64_t mk(const char *rel)
{
	char *path = made[nr_made];
	struct stat st;

	if (nr_made == MAX_MADE)
		return 0;
	snprintf(path, PATH_MAX, "%s%s", cg2, rel);
	if (mkdir(path, 0755) || stat(path, &st))
		return 0;
	nr_made++;
	return st.st_ino;
}

/* Removes cg2 + rel, one that mk() made. */
static bool rm(const char *rel)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s%s", cg2, rel);
	return !rmdir(path);
}

static void rm_all(void)
{
	while (nr_made > 0)
		rmdir(made[--nr_made]);
}

static void test_forget_removed(void)
{
	char a[128], b[128];
	const struct cgroup_info *info;
	struct error err = {};
	struct cgroups *cg = NULL;
	uint64_t ida, idb;

	if (!have_cgroup2())
		return;
	snprintf(a, sizeof(a), "%s/a", parent);
	snprintf(b, sizeof(b), "%s/b", parent);
	if (!ASSERT_TRUE(mk(parent), "mkdir parent"))
		goto out;
	ida = mk(a);
	idb = mk(b);
	if (!ASSERT_TRUE(ida && idb, "mkdir children") ||
	    !ASSERT_OK(cgroups__new(&cg, NULL, &err), "new"))
		goto out;
	/* Interval 0: b has rows, then goes. */
	info = cgroups__lookup(cg, idb);
	if (!ASSERT_TRUE(info, "b seen"))
		goto out;
	ASSERT_STREQ(info->path, b, "b's path");
	ASSERT_TRUE(rm(b), "rmdir b");
	/* Interval 1: its last rows still find its path. */
	cgroups__new_interval(cg);
	ASSERT_EQ(cgroups__sweep(cg), 0, "nothing forgotten in interval 1");
	info = cgroups__lookup(cg, idb);
	ASSERT_TRUE(info && !strcmp(info->path, b), "b keeps its last path");
	/* Intervals 2 and 3 without a look-up of b: forgotten at the end. */
	cgroups__new_interval(cg);
	ASSERT_EQ(cgroups__sweep(cg), 0, "used in the interval before");
	cgroups__new_interval(cg);
	ASSERT_EQ(cgroups__sweep(cg), 1, "b forgotten after two intervals");
	ASSERT_EQ(cgroups__forgotten(cg), 1, "forgotten in all");
	ASSERT_TRUE(!cgroups__lookup(cg, idb), "b unknown now");
	/* A live cgroup is kept, however long it goes unused. */
	info = cgroups__lookup(cg, ida);
	ASSERT_TRUE(info && !strcmp(info->path, a), "a kept while it lives");
out:
	cgroups__free(cg);
	rm_all();
}

/* A path taken again by a new cgroup: the old id is the one forgotten. */
static void test_forget_reused_path(void)
{
	char a[128];
	const struct cgroup_info *info;
	struct error err = {};
	struct cgroups *cg = NULL;
	uint64_t old, new;

	if (!have_cgroup2())
		return;
	snprintf(a, sizeof(a), "%s/a", parent);
	if (!ASSERT_TRUE(mk(parent), "mkdir parent"))
		goto out;
	old = mk(a);
	if (!ASSERT_TRUE(old, "mkdir a") ||
	    !ASSERT_OK(cgroups__new(&cg, NULL, &err), "new"))
		goto out;
	ASSERT_TRUE(rm(a), "rmdir a");
	nr_made--;
	new = mk(a);
	ASSERT_TRUE(new &&new != old, "a made again, new id");
	for (int i = 0; i < 3; i++)
		cgroups__new_interval(cg);
	info = cgroups__lookup(cg, new);
	ASSERT_TRUE(info && !strcmp(info->path, a), "new id resolved");
	ASSERT_EQ(cgroups__sweep(cg), 1, "old id forgotten");
	ASSERT_TRUE(!cgroups__lookup(cg, old), "old id unknown");
	info = cgroups__lookup(cg, new);
	ASSERT_TRUE(info && !strcmp(info->path, a), "new id kept");
out:
	cgroups__free(cg);
	rm_all();
}

/*
 * Churn: 100 cgroups made, seen, removed, every round. The sweeps that
 * cgroups__new_interval() makes on its own keep the cache flat.
 */
static void test_bounded_under_churn(void)
{
	char rel[128];
	struct error err = {};
	struct cgroups *cg = NULL;
	uint64_t id[100];
	size_t base = 0, most = 0;
	int round;

	if (!have_cgroup2())
		return;
	if (!ASSERT_TRUE(mk(parent), "mkdir parent") ||
	    !ASSERT_OK(cgroups__new(&cg, NULL, &err), "new"))
		goto out;
	base = cgroups__cached(cg);
	for (round = 0; round < 12; round++) {
		for (int i = 0; i < 100; i++) {
			snprintf(rel, sizeof(rel), "%s/r%d-%d", parent, round,
				 i);
			id[i] = mk(rel);
			if (!ASSERT_TRUE(id[i], "mkdir"))
				goto out;
		}
		cgroups__new_interval(cg);
		for (int i = 0; i < 100; i++)
			ASSERT_TRUE(cgroups__lookup(cg, id[i]), "seen");
		while (nr_made > 1)
			rmdir(made[--nr_made]);
		cgroups__new_interval(cg);
		cgroups__new_interval(cg);
		if (cgroups__cached(cg) > most)
			most = cgroups__cached(cg);
	}
	printf("  %zu cgroups at start, 1200 made and removed: at most %zu cached, %zu at the end, %llu forgotten\n",
	       base, most, cgroups__cached(cg),
	       (unsigned long long)cgroups__forgotten(cg));
	ASSERT_TRUE(most <= 2 * (base + 100) + 64, "within the bound");
	ASSERT_GE(cgroups__forgotten(cg), 1000, "removed ones forgotten");
out:
	cgroups__free(cg);
	rm_all();
}

static const struct subtest tests[] = {
	{ "hybrid", test_hybrid },
	{ "unified", test_unified },
	{ "no_cgroup2", test_no_cgroup2 },
	{ "container", test_container },
	{ "missing_file", test_missing_file },
	{ "escaped_mount", test_escaped_mount },
	{ "canonical_path", test_canonical_path },
	{ "list_next", test_list_next },
	{ "real_mountinfo", test_real_mountinfo },
	{ "forget_removed", test_forget_removed },
	{ "forget_reused_path", test_forget_reused_path },
	{ "bounded_under_churn", test_bounded_under_churn },
	{ 0 },
};

int main(int argc, char **argv)
{
	return test_main(argc, argv, tests);
}
