// SPDX-License-Identifier: GPL-2.0
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "common/version.h"

/* "libpfm.so.4.13.0" -> "4.13.0": what the file name says past ".so.". */
static void version_from_name(const char *path, char *out, size_t len)
{
	const char *base = strrchr(path, '/'), *so;
	size_t n;

	base = base ? base + 1 : path;
	so = strstr(base, ".so.");
	out[0] = '\0';
	if (!so)
		return;
	n = strlen(so + 4);
	if (n < len && strspn(so + 4, "0123456789.") == n)
		memcpy(out, so + 4, n + 1);
}

int lib_version__locate(struct lib_version *v, const void *sym)
{
	char resolved[PATH_MAX];
	Dl_info info;

	v->file[0] = v->file_version[0] = '\0';
	/* The executable itself names no file: a static link. */
	if (!dladdr(sym, &info) || !info.dli_fname || !*info.dli_fname ||
	    !strstr(info.dli_fname, ".so"))
		return -ENOENT;
	if (!realpath(info.dli_fname, resolved))
		return -errno;
	if (strlen(resolved) >= sizeof(v->file))
		return -ENAMETOOLONG;
	memcpy(v->file, resolved, strlen(resolved) + 1);
	version_from_name(resolved, v->file_version, sizeof(v->file_version));
	return 0;
}
