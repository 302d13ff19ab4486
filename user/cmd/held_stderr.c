// SPDX-License-Identifier: GPL-2.0
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "cmd/held_stderr.h"
#include "common/util.h"

/* A day of a warning an interval fits; beyond, the oldest go. */
#define HELD_MAX (1 << 20)

void held_stderr__hold(struct held_stderr *h)
{
	fflush(stderr);
	h->mem = memfd_create("bpmc-top-stderr", MFD_CLOEXEC);
	h->saved = h->mem < 0 ? -1 : fcntl(STDERR_FILENO, F_DUPFD_CLOEXEC, 3);
	if (h->saved < 0 || dup2(h->mem, STDERR_FILENO) < 0) {
		if (h->mem >= 0)
			close(h->mem);
		if (h->saved >= 0)
			close(h->saved);
		h->mem = h->saved = -1; /* then warnings show, torn */
	}
}

void held_stderr__release(struct held_stderr *h)
{
	char buf[4096];
	ssize_t n;

	if (h->saved < 0)
		return;
	fflush(stderr);
	dup2(h->saved, STDERR_FILENO);
	if (h->dropped)
		p_warn("%llu bytes of warnings from while the screen was up were dropped; the last ones follow",
		       (unsigned long long)h->dropped);
	close(h->saved);
	lseek(h->mem, 0, SEEK_SET);
	while ((n = read(h->mem, buf, sizeof(buf))) > 0)
		if (write(STDERR_FILENO, buf, n) != n)
			break;
	close(h->mem);
	h->saved = h->mem = -1;
}

/*
 * The newest line written to the held stderr since the last look, in
 * buf, so that a warning (samples lost, a CPU gone) is seen when it
 * happens; NULL when there is none.
 */
const char *held_stderr__newest(struct held_stderr *h, char *buf, size_t len)
{
	off_t size = h->mem < 0 ? 0 : lseek(h->mem, 0, SEEK_CUR);
	char *line, *nl;
	size_t want;
	ssize_t n;

	if (size <= h->seen || len < 2)
		return NULL;
	want = size - h->seen < (off_t)len - 1 ? (size_t)(size - h->seen) :
						 len - 1;
	n = pread(h->mem, buf, want, size - want);
	h->seen = size;
	if (n <= 0)
		return NULL;
	buf[n] = 0;
	while (n && buf[n - 1] == '\n')
		buf[--n] = 0;
	nl = strrchr(buf, '\n');
	line = nl ? nl + 1 : buf;
	if (size > HELD_MAX) {
		/* fd 2 shares this file's offset: both start again at 0. */
		h->dropped += size;
		if (!ftruncate(h->mem, 0))
			lseek(h->mem, 0, SEEK_SET);
		h->seen = 0;
	}
	return line;
}
