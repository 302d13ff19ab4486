// SPDX-License-Identifier: GPL-2.0
/* Finding the cgroup2 mount in mountinfo. */
#include <errno.h>
#include <limits.h>
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

static const struct subtest tests[] = {
	{ "hybrid", test_hybrid },
	{ "unified", test_unified },
	{ "no_cgroup2", test_no_cgroup2 },
	{ "container", test_container },
	{ "missing_file", test_missing_file },
	{ "real_mountinfo", test_real_mountinfo },
	{ 0 },
};

int main(int argc, char **argv)
{
	return test_main(argc, argv, tests);
}
