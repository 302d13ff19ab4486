// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/util.h"
#include "sinks/textfile.h"

int textfile__check_dir(const char *dir, struct error *err)
{
	struct stat st;

	if (stat(dir, &st))
		return error__set(err, errno, "cannot use '--textfile %s': %s",
				  dir, strerror(errno));
	if (!S_ISDIR(st.st_mode))
		return error__set(err, ENOTDIR,
				  "cannot use '--textfile %s': %s", dir,
				  strerror(ENOTDIR));
	if (access(dir, W_OK | X_OK))
		return error__set(err, errno,
				  "cannot create files in '--textfile %s': %s",
				  dir, strerror(errno));
	return 0;
}

/* PATH still names the file FD has open (textfile__unlock removes it). */
static bool lock_file_is_current(const char *path, int fd)
{
	struct stat at_path, open_file;

	return !stat(path, &at_path) && !fstat(fd, &open_file) &&
	       at_path.st_dev == open_file.st_dev &&
	       at_path.st_ino == open_file.st_ino;
}

int textfile__lock(const char *dir, int *fd, struct error *err)
{
	char path[4096], pid[32] = "";
	ssize_t n;
	int len;

	*fd = -1;
	if ((size_t)snprintf(path, sizeof(path), "%s/" TEXTFILE_LOCK, dir) >=
	    sizeof(path))
		return error__set(err, ENAMETOOLONG,
				  "'--textfile %.256s...' is too long", dir);
again:
	*fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (*fd < 0)
		return error__set(err, errno, "cannot create '%s': %s", path,
				  strerror(errno));
	if (flock(*fd, LOCK_EX | LOCK_NB)) {
		int ret = errno == EWOULDBLOCK ? EBUSY : errno;

		n = pread(*fd, pid, sizeof(pid) - 1, 0);
		pid[n > 0 ? n : 0] = '\0';
		pid[strcspn(pid, "\n")] = '\0';
		close(*fd);
		*fd = -1;
		if (ret != EBUSY)
			return error__set(err, ret, "cannot lock '%s': %s",
					  path, strerror(ret));
		return error__set(
			err, EBUSY,
			"cannot use '--textfile %s': another bpmc record (pid %s) writes its "
			"bpmc.prom there, and each would replace and remove the other's",
			dir, *pid ? pid : "?");
	}
	if (!lock_file_is_current(path, *fd)) {
		/* Its holder removed it as it stopped, after we opened it:
		 * a lock on that file would exclude nobody. */
		close(*fd);
		goto again;
	}
	len = snprintf(pid, sizeof(pid), "%d\n", getpid());
	/* The lock is what counts: the pid only names its holder. */
	n = ftruncate(*fd, 0) ? -1 : pwrite(*fd, pid, len, 0);
	(void)n;
	return 0;
}

void textfile__unlock(const char *dir, int *fd)
{
	char path[4096];

	if (*fd < 0)
		return;
	/* Removed while still held, so that nobody who opens it later
	 * finds a file that is current and unheld (textfile__lock
	 * checks it is current once locked). */
	if ((size_t)snprintf(path, sizeof(path), "%s/" TEXTFILE_LOCK, dir) <
	    sizeof(path))
		unlink(path);
	close(*fd);
	*fd = -1;
}

int textfile__write(const char *dir, const char *name, const char *data,
		    size_t len, struct error *err)
{
	char tmp[4096], path[4096];
	int fd, ret;

	if ((size_t)snprintf(tmp, sizeof(tmp), "%s/.%s.XXXXXX", dir, name) >=
		    sizeof(tmp) ||
	    (size_t)snprintf(path, sizeof(path), "%s/%s", dir, name) >=
		    sizeof(path))
		return error__set(err, ENAMETOOLONG,
				  "'--textfile %.256s...' is too long", dir);
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0)
		return error__set(err, errno,
				  "cannot create a file in '%s': %s", dir,
				  strerror(errno));
	/* No fsync: readers need the rename's atomicity, not durability,
	 * and the next interval replaces the file anyway. */
	ret = write_full(fd, data, len);
	if (!ret && fchmod(fd, 0644))
		ret = -errno;
	if (close(fd) && !ret)
		ret = -errno;
	if (!ret && rename(tmp, path))
		ret = -errno;
	if (ret) {
		unlink(tmp);
		return error__set(err, ret, "cannot write '%s': %s", path,
				  strerror(-ret));
	}
	return 0;
}

void textfile__remove(const char *dir, const char *name)
{
	char path[4096];

	if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir, name) <
	    sizeof(path))
		unlink(path);
}
