// SPDX-License-Identifier: GPL-2.0
/*
 * One run per template and directory: each running publisher holds a
 * lock file, ".bpmc-PID-N.lock", naming its template and host; a new one
 * reads the others' under a lock on the directory and refuses to start
 * beside a template whose names could collide with its own, since each
 * one's --keep would delete the other's files.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include "sinks/publish_parts.h"

#define LOCK_PREFIX ".bpmc-"
#define LOCK_SUFFIX ".lock"

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
static bool may_collide(const struct publisher *p, const char *base,
			const char *host)
{
	char mine[NAME_LEN * 2], theirs[NAME_LEN * 2];
	const char *ext = publish_ext_of(base);

	name_prefix(p->base, p->ext, p->o.host, mine, sizeof(mine));
	name_prefix(base, ext, host, theirs, sizeof(theirs));
	if (!starts_with(mine, theirs) && !starts_with(theirs, mine))
		return false;
	return publish_ends_with(p->ext, ext) || publish_ends_with(ext, p->ext);
}

/* Another run's lock file: stale ones (no holder) go; a held one whose
 * template could collide is -EBUSY, its holder in who. */
static int check_other(struct publisher *p, const char *name, char *who,
		       size_t len)
{
	char text[NAME_LEN * 3], *host, *base, *nl;
	ssize_t n;
	int fd;

	fd = openat(p->dirfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return 0;
	if (!flock(fd, LOCK_SH | LOCK_NB)) {
		unlinkat(p->dirfd, name, 0); /* its run is gone */
		close(fd);
		return 0;
	}
	n = read(fd, text, sizeof(text) - 1);
	close(fd);
	text[n > 0 ? n : 0] = '\0';
	/* "PID\nHOST\nTEMPLATE'S FILE NAME\n" */
	host = strchr(text, '\n');
	base = host ? strchr(host + 1, '\n') : NULL;
	nl = base ? strchr(base + 1, '\n') : NULL;
	if (!nl)
		return 0; /* being written, or not ours */
	*host++ = *base++ = *nl = '\0';
	if (!may_collide(p, base, host))
		return 0;
	snprintf(who, len, "pid %s writes '%s' there", text, base);
	return -EBUSY;
}

int publish_lock(struct publisher *p, struct error *err)
{
	char name[64], who[NAME_LEN * 4] = "", text[NAME_LEN * 3];
	struct dirent *de;
	DIR *dir;
	int fd, ret = 0, len;

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
		if (starts_with(de->d_name, LOCK_PREFIX) &&
		    publish_ends_with(de->d_name, LOCK_SUFFIX))
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
	snprintf(name, sizeof(name), LOCK_PREFIX "%d-%lx" LOCK_SUFFIX, getpid(),
		 (unsigned long)(uintptr_t)p);
	p->lockfd = openat(p->dirfd, name,
			   O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
			   0640);
	len = snprintf(text, sizeof(text), "%d\n%s\n%s\n", getpid(), p->o.host,
		       p->base);
	if (p->lockfd < 0 || flock(p->lockfd, LOCK_EX) ||
	    publish_write_all(p->lockfd, text, len, 0)) {
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
