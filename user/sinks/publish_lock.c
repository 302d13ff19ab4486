// SPDX-License-Identifier: GPL-2.0
/*
 * One run per template and directory: each running publisher holds a
 * lock file, empty (it takes no block of a full disk), whose name says
 * what a new run must know: ".bpmc-lock.PID.N.E.PREFIX", E the
 * extension (c .csv, z .csv.gz, g .gz, n none) and PREFIX the fixed text
 * its names start with. A new one reads the others' under a lock on the
 * directory and refuses to start beside a template whose names could
 * collide with its own, since each one's --keep would delete the
 * other's files.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/file.h>
#include <unistd.h>

#include "common/util.h"
#include "sinks/publish_parts.h"

#define LOCK_PREFIX ".bpmc-lock."
/* The extensions publish_ext_of() finds, by a letter each. */
static const char *const exts[] = { ".csv", ".csv.gz", ".gz", "" };
static const char ext_codes[] = "czgn";

/* The literal text every name of the template starts with: up to its
 * first conversion, %h the host, or its whole stem where it has none. */
static void name_prefix(const char *base, const char *ext, const char *host,
			char *out, size_t len)
{
	size_t pos = 0, stem = strlen(base) - strlen(ext);

	for (size_t i = 0; i < stem && pos + 1 < len; i++) {
		if (base[i] != '%') {
			out[pos++] = base[i];
		} else if (base[i + 1] == '%') {
			out[pos++] = '%';
			i++;
		} else if (base[i + 1] == 'h') {
			pos += snprintf(out + pos, len - pos, "%s", host);
			pos = pos < len ? pos : len - 1;
			i++;
		} else {
			break;
		}
	}
	out[pos] = '\0';
}

static bool starts_with(const char *s, const char *prefix)
{
	return !strncmp(s, prefix, strlen(prefix));
}

/*
 * Can a name of one template be a name of the other? Not when their
 * fixed beginnings differ (neither starts the other) or their
 * extensions do (neither ends the other); else, it is assumed they can.
 */
static bool may_collide(const struct publisher *p, const char *prefix,
			const char *ext)
{
	char mine[NAME_LEN * 2];

	name_prefix(p->base, p->ext, p->o.host, mine, sizeof(mine));
	if (!starts_with(mine, prefix) && !starts_with(prefix, mine))
		return false;
	return publish_ends_with(p->ext, ext) || publish_ends_with(ext, p->ext);
}

/* Another run's lock file: a stale one (no holder) goes; a held one
 * whose template could collide is -EBUSY, its holder in who. */
static int check_other(struct publisher *p, const char *name, char *who,
		       size_t len)
{
	unsigned long pid, n;
	char code;
	int fd, at = 0;
	const char *c;

	if (sscanf(name, LOCK_PREFIX "%lu.%lx.%c.%n", &pid, &n, &code, &at) <
		    3 ||
	    !at || !(c = strchr(ext_codes, code)) || !*c)
		return 0; /* not ours */
	fd = openat(p->dirfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return 0;
	if (!flock(fd, LOCK_SH | LOCK_NB)) {
		unlinkat(p->dirfd, name, 0); /* its run is gone */
		close(fd);
		return 0;
	}
	close(fd);
	if (!may_collide(p, name + at, exts[c - ext_codes]))
		return 0;
	snprintf(who, len, "pid %lu writes '%s...%s' there", pid, name + at,
		 exts[c - ext_codes]);
	return -EBUSY;
}

int publish_lock(struct publisher *p, struct error *err)
{
	char name[256], who[NAME_LEN * 4] = "", prefix[NAME_LEN * 2], code;
	struct dirent *de;
	DIR *dir;
	int fd, ret = 0;

	if (flock(p->dirfd, LOCK_EX))
		return error__set(err, errno, "cannot lock directory '%s': %s",
				  p->dir, strerror(errno));
	fd = dup(p->dirfd);
	dir = fd >= 0 ? fdopendir(fd) : NULL;
	if (!dir && fd >= 0)
		close(fd);
	if (dir)
		rewinddir(dir);
	while (dir && !ret && (de = readdir(dir)))
		if (starts_with(de->d_name, LOCK_PREFIX))
			ret = check_other(p, de->d_name, who, sizeof(who));
	if (dir) {
		rewinddir(dir); /* its offset is dirfd's: leave it at 0 */
		closedir(dir);
	}
	if (ret) {
		error__set(
			err, EBUSY,
			"output '%s': another bpmc record (%s) whose file names can be this one's: each would delete or take the other's files; give another directory or name",
			p->o.template, who);
		goto out;
	}
	/* The pid names the run; the handle's address, each publisher of
	 * it (a test holds several). */
	name_prefix(p->base, p->ext, p->o.host, prefix, sizeof(prefix));
	code = ext_codes[ARRAY_SIZE(exts) - 1];
	for (size_t i = 0; i < ARRAY_SIZE(exts); i++)
		if (!strcasecmp(p->ext, exts[i]))
			code = ext_codes[i];
	/* A prefix cut short collides with more: the safe side. */
	snprintf(name, sizeof(name), LOCK_PREFIX "%d.%lx.%c.%.180s", getpid(),
		 (unsigned long)(uintptr_t)p, code, prefix);
	p->lockfd = openat(p->dirfd, name,
			   O_RDONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
			   0640);
	if (p->lockfd < 0 || flock(p->lockfd, LOCK_EX)) {
		ret = error__set(err, errno, "cannot create '%s/%s': %s",
				 p->dir, name, strerror(errno));
		if (p->lockfd >= 0) {
			unlinkat(p->dirfd, name, 0);
			close(p->lockfd);
		}
		p->lockfd = -1;
		goto out;
	}
	snprintf(p->lock_name, sizeof(p->lock_name), "%s", name);
out:
	flock(p->dirfd, LOCK_UN);
	return ret;
}

void publish_unlock(struct publisher *p)
{
	if (p->lockfd < 0)
		return;
	unlinkat(p->dirfd, p->lock_name, 0);
	close(p->lockfd);
	p->lockfd = -1;
}
