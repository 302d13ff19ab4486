/* SPDX-License-Identifier: GPL-2.0 */
#ifndef BPMC_COMMON_VERSION_H
#define BPMC_COMMON_VERSION_H

/* Written into every file's meta rows, and by `bpmc --version`. */
#define BPMC_VERSION "0.2.0"

/*
 * A library as it is in use, for `bpmc --version`: the numbers its
 * headers were built with, the ones it reports at run time, and the
 * shared object the running process loaded it from (libpfm's run-time
 * number stays at 4.0 across its releases: only the file tells 4.13).
 */
struct lib_version {
	unsigned int built_major, built_minor;
	unsigned int run_major, run_minor;
	char file[512]; /* resolved path; "" when it is linked in statically */
	char file_version[32]; /* "4.13.0", from the file's name; "" if none */
};

/*
 * Fills v->file and v->file_version with the shared object that holds
 * sym. Returns 0, or -ENOENT when sym is in no shared object (a static
 * link) or the path does not resolve.
 */
int lib_version__locate(struct lib_version *v, const void *sym);

#endif
