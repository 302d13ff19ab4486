// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "pmc/uaccess.h"

/* Through a pipe: for hosts whose seccomp forbids process_vm_*(2). */
static int copy_by_pipe(void *dst, const void *src, size_t len)
{
	int p[2], ret = 0;

	if (pipe2(p, O_CLOEXEC | O_NONBLOCK))
		return -errno;
	if (write(p[1], src, len) != (ssize_t)len ||
	    read(p[0], dst, len) != (ssize_t)len)
		ret = errno == EFAULT ? -EFAULT : -EIO;
	close(p[0]);
	close(p[1]);
	return ret;
}

/*
 * The kernel copies for us, so an address it cannot read or write is
 * EFAULT, as it would be for a system call (a read-only page too, when
 * writing).
 */
static int copy_checked(void *dst, const void *src, size_t len, bool out)
{
	struct iovec local = { out ? (void *)src : dst, len };
	struct iovec remote = { out ? dst : (void *)src, len };
	ssize_t n;

	if (!(out ? dst : src))
		return -EFAULT;
	if (!len)
		return 0;
	n = out ? process_vm_writev(getpid(), &local, 1, &remote, 1, 0) :
		  process_vm_readv(getpid(), &local, 1, &remote, 1, 0);
	if (n == (ssize_t)len)
		return 0;
	if (n >= 0 || errno == EFAULT)
		return -EFAULT;
	return copy_by_pipe(dst, src, len);
}

int copy_out(void *uaddr, const void *src, size_t len)
{
	return copy_checked(uaddr, src, len, true);
}

int copy_in(void *dst, const void *uaddr, size_t len)
{
	return copy_checked(dst, uaddr, len, false);
}

int copy_in_string(char *dst, size_t cap, const void *uaddr)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE), got = 0;
	const char *at = uaddr;

	if (!uaddr)
		return -EFAULT;
	/* A page at a time: never a byte of a page past the string's. */
	while (got < cap) {
		size_t chunk = page - (((size_t)at + got) & (page - 1));
		char *nul;
		int ret;

		if (chunk > cap - got)
			chunk = cap - got;
		ret = copy_in(dst + got, at + got, chunk);
		if (ret)
			return ret;
		nul = memchr(dst + got, '\0', chunk);
		if (nul)
			return 0;
		got += chunk;
	}
	return -ENAMETOOLONG;
}

int copy_out_string(void *uaddr, size_t len, const char *src)
{
	size_t n = strlen(src);
	char nul = '\0';
	int ret;

	if (!len)
		return 0;
	if (n >= len)
		n = len - 1;
	ret = copy_out(uaddr, src, n);
	return ret ? ret : copy_out((char *)uaddr + n, &nul, 1);
}
