// SPDX-License-Identifier: GPL-2.0
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <libgen.h>
#include <linux/capability.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cmd/privilege.h"
#include "common/util.h"
#include "maps/collector.h"

#define CAP_BIT(cap) (1ull << (cap))

/*
 * Kernels before 6.5 refuse every bpf() command, even on fds we already
 * hold, without CAP_BPF while kernel.unprivileged_bpf_disabled is set;
 * later ones check only at map and program creation. perf_event fds
 * are checked at open only, on every kernel, so CAP_PERFMON never has
 * to outlive the setup.
 */
static const uint64_t loop_may_need = CAP_BIT(CAP_BPF);

static int caps_get(struct __user_cap_data_struct data[2])
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};

	return syscall(SYS_capget, &hdr, data) ? -errno : 0;
}

/* Inheritable is always emptied: bpmc runs nothing. */
static int caps_set(uint64_t permitted, uint64_t effective)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct data[2] = {
		{ .permitted = (uint32_t)permitted,
		  .effective = (uint32_t)effective },
		{ .permitted = (uint32_t)(permitted >> 32),
		  .effective = (uint32_t)(effective >> 32) },
	};

	return syscall(SYS_capset, &hdr, data) ? -errno : 0;
}

static uint64_t permitted_now(void)
{
	struct __user_cap_data_struct data[2] = {};

	if (caps_get(data))
		return 0;
	return data[0].permitted | (uint64_t)data[1].permitted << 32;
}

static bool has_effective(int cap)
{
	struct __user_cap_data_struct data[2] = {};

	if (caps_get(data))
		return false;
	return data[cap / 32].effective & (1u << (cap % 32));
}

void privilege_caps_str(uint64_t caps, char *buf, size_t len)
{
	static const struct {
		int cap;
		const char *name;
	} names[] = {
		{ CAP_BPF, "CAP_BPF" },
		{ CAP_PERFMON, "CAP_PERFMON" },
		{ CAP_SYS_ADMIN, "CAP_SYS_ADMIN" },
	};
	size_t n = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < ARRAY_SIZE(names) && n < len; i++) {
		if (!(caps & CAP_BIT(names[i].cap)))
			continue;
		n += snprintf(buf + n, len - n, "%s%s", n ? ", " : "",
			      names[i].name);
		caps &= ~CAP_BIT(names[i].cap);
	}
	for (int cap = 0; cap < 64 && caps && n < len; cap++) {
		if (caps & CAP_BIT(cap))
			n += snprintf(buf + n, len - n, "%scapability %d",
				      n ? ", " : "", cap);
	}
	if (!buf[0])
		snprintf(buf, len, "none");
}

static int become(uid_t uid, gid_t gid)
{
	/*
	 * No supplementary groups, not even the user's own (initgroups):
	 * a group such as docker or adm can be worth root, and the bpmc
	 * system user has none of its own. The startup check of the output
	 * directory uses the same credentials, so nothing relies on them.
	 */
	if (setgroups(0, NULL) || setresgid(gid, gid, gid) ||
	    setresuid(uid, uid, uid))
		return -errno;
	return 0;
}

/*
 * Asks in a child that has become the user, so that the answer is the
 * kernel's (ACLs, read-only mounts, every directory on the way) and this
 * process keeps its credentials.
 */
static int user_may_create_in(const struct privilege_target *t, const char *dir)
{
	int status, err;
	pid_t pid = fork();

	if (pid < 0)
		return -errno;
	if (!pid) {
		err = become(t->uid, t->gid);
		if (!err && access(dir, W_OK | X_OK))
			err = -errno;
		_exit(-err);
	}
	if (waitpid(pid, &status, 0) < 0)
		return -errno;
	if (!WIFEXITED(status))
		return -ECHILD;
	return -WEXITSTATUS(status);
}

int privilege_prepare(const char *name, const char *output,
		      struct privilege_target *target, struct error *err)
{
	struct passwd pw, *found;
	char buf[16384], dir[4096];
	struct stat st;
	int rc;

	rc = getpwnam_r(name, &pw, buf, sizeof(buf), &found);
	if (rc)
		return error__set(err, rc, "cannot look up '--user %s': %s",
				  name, strerror(rc));
	if (!found)
		return error__set(
			err, ENOENT,
			"unknown user '--user %s': not in the user database",
			name);
	if (!pw.pw_uid)
		return error__set(
			err, EINVAL,
			"'--user %s' is uid 0: name an unprivileged user",
			name);
	if (!has_effective(CAP_SETUID) || !has_effective(CAP_SETGID))
		return error__set(
			err, EPERM,
			"'--user %s' needs root, or CAP_SETUID and CAP_SETGID (this process lacks them)",
			name);
	snprintf(target->name, sizeof(target->name), "%s", name);
	target->uid = pw.pw_uid;
	target->gid = pw.pw_gid;

	/* A stream ("-", a FIFO, a device) creates nothing: no directory
	 * of it needs to be the user's (-o /dev/null, for Prometheus). */
	if (!output || !strcmp(output, "-") ||
	    (!stat(output, &st) &&
	     (S_ISFIFO(st.st_mode) || S_ISCHR(st.st_mode))))
		return 0;
	snprintf(dir, sizeof(dir), "%s", output);
	rc = user_may_create_in(target, dirname(dir));
	if (!rc && !realpath(dir, target->output_dir))
		rc = -errno;
	if (rc)
		return error__set(
			err, rc,
			"'--user %s' (uid %u, gid %u) cannot create files in '%s', the output's directory: %s",
			name, (unsigned)target->uid, (unsigned)target->gid, dir,
			strerror(-rc));
	return 0;
}

int privilege_check_dir(const struct privilege_target *t, const char *dir,
			const char *option, struct error *err)
{
	int rc = user_may_create_in(t, dir);

	if (rc)
		return error__set(
			err, rc,
			"'--user %s' (uid %u, gid %u) cannot create files in '%s %s': %s",
			t->name, (unsigned)t->uid, (unsigned)t->gid, option,
			dir, strerror(-rc));
	return 0;
}

static int parse_int_fd(const char *s, int *fd)
{
	long v;
	int err = parse_long(s, 0, 1 << 30, &v);

	*fd = v;
	return err;
}

/*
 * The output file was created as root, before the drop; later ones
 * (rotation) are the user's. Make them all the user's, so that one
 * owner holds the directory: the files this process has open for
 * writing there, whatever the sink named them (a .partial file too).
 * fds 0-2 are the caller's redirections, never ours to give away.
 */
static int hand_over_output(const struct privilege_target *t)
{
	char link[64], path[4096];
	struct dirent *de;
	struct stat st;
	int fd, flags, err = 0;
	ssize_t n;
	DIR *d;

	if (!t->output_dir[0])
		return 0;
	d = opendir("/proc/self/fd");
	if (!d)
		return -errno;
	while (!err && (de = readdir(d))) {
		if (parse_int_fd(de->d_name, &fd) || fd <= STDERR_FILENO ||
		    fd == dirfd(d))
			continue;
		flags = fcntl(fd, F_GETFL);
		if (flags < 0 || (flags & O_ACCMODE) == O_RDONLY ||
		    fstat(fd, &st) || !S_ISREG(st.st_mode))
			continue;
		snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
		n = readlink(link, path, sizeof(path) - 1);
		if (n < 0)
			continue;
		path[n] = '\0';
		if (strcmp(dirname(path), t->output_dir))
			continue;
		if (fchown(fd, t->uid, t->gid))
			err = -errno;
	}
	closedir(d);
	return err;
}

static int clear_bounding_set(void)
{
	long last;

	if (read_file_long("/proc/sys/kernel/cap_last_cap", &last))
		last = CAP_LAST_CAP;
	for (int cap = 0; cap <= last; cap++)
		if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) && errno != EINVAL)
			return -errno;
	return 0;
}

/* A read of the BPF objects we hold, with the capabilities in effect. */
static bool bpf_objects_readable(struct collector *c)
{
	struct prog_stats stats;

	return collector__prog_stats(c, &stats) != -EPERM;
}

int privilege_drop(const struct privilege_target *t, struct collector *c,
		   struct privilege_kept *kept, struct error *err)
{
	uint64_t candidates;
	int rc;

	memset(kept, 0, sizeof(*kept));
	rc = hand_over_output(t);
	if (rc)
		return error__set(err, rc,
				  "cannot give the output file to '%s': %s",
				  t->name, strerror(-rc));
	/* Only exec can use it, and bpmc never execs: defence in depth. */
	if (has_effective(CAP_SETPCAP)) {
		rc = clear_bounding_set();
		if (rc)
			return error__set(
				err, rc,
				"cannot empty the capability bounding set: %s",
				strerror(-rc));
		kept->bounding_cleared = true;
	}
	if (prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0))
		return error__set(err, errno,
				  "cannot keep capabilities across setuid: %s",
				  strerror(errno));
	rc = become(t->uid, t->gid);
	prctl(PR_SET_KEEPCAPS, 0, 0, 0, 0);
	if (rc)
		return error__set(err, rc,
				  "cannot become '%s' (uid %u, gid %u): %s",
				  t->name, (unsigned)t->uid, (unsigned)t->gid,
				  strerror(-rc));
	/* EINVAL: a kernel without ambient capabilities has none to clear. */
	if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) &&
	    errno != EINVAL)
		return error__set(err, errno,
				  "cannot clear the ambient capabilities: %s",
				  strerror(errno));

	/* The loop's BPF calls, tried with none of them in effect. */
	candidates = loop_may_need & permitted_now();
	rc = caps_set(candidates, 0);
	if (!rc && !bpf_objects_readable(c)) {
		kept->caps = candidates;
		rc = caps_set(candidates, candidates);
	} else if (!rc) {
		rc = caps_set(0, 0);
	}
	if (rc)
		return error__set(err, rc, "cannot drop capabilities: %s",
				  strerror(-rc));
	if (!bpf_objects_readable(c))
		return error__set(
			err, EPERM,
			"this kernel wants CAP_BPF for the BPF objects bpmc holds, even after setup, and this process has none to keep");

	/*
	 * bpmc never execs, so no-new-privs costs nothing; should anything
	 * ever exec, a setuid binary cannot hand back what was dropped.
	 * Not dumpable: another process of the same user (nobody is shared)
	 * could otherwise ptrace bpmc or pidfd_getfd() its BPF and perf
	 * fds, which are worth more than the user.
	 */
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) ||
	    prctl(PR_SET_DUMPABLE, 0, 0, 0, 0))
		return error__set(err, errno,
				  "cannot set no-new-privs or not-dumpable: %s",
				  strerror(errno));
	/* The drop must be one way. */
	if (!setresuid(0, 0, 0) || !setresgid(0, 0, 0))
		return error__set(err, EPERM,
				  "could become root again after becoming '%s'",
				  t->name);
	return 0;
}

int privilege_drop_and_say(const struct privilege_target *t,
			   struct collector *c)
{
	struct privilege_kept kept;
	struct error error = {};
	char caps[128];
	int err = privilege_drop(t, c, &kept, &error);

	if (err) {
		p_err("%s", error__why(&error, err));
		return err;
	}
	privilege_caps_str(kept.caps, caps, sizeof(caps));
	p_info("now running as '%s' (uid %u, gid %u, no supplementary groups) with capabilities: %s%s",
	       t->name, (unsigned)t->uid, (unsigned)t->gid, caps,
	       kept.bounding_cleared ?
		       "" :
		       " (the bounding set stays: no CAP_SETPCAP to empty it)");
	return 0;
}
