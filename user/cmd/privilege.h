/* SPDX-License-Identifier: GPL-2.0 */
/*
 * --user NAME: everything that needs privilege is opened as root, then
 * the process becomes NAME and keeps only what the interval loop still
 * needs, which on current kernels is no capability at all. Process-wide
 * policy, hence cmd/.
 */
#ifndef BPMC_CMD_PRIVILEGE_H
#define BPMC_CMD_PRIVILEGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "common/error.h"

struct collector;

struct privilege_target {
	char name[64];
	uid_t uid;
	gid_t gid; /* the user's primary group; supplementary ones go */
	char output_dir[4096]; /* canonical; "" for stdout */
};

/* What privilege_drop() left the process with. */
struct privilege_kept {
	uint64_t caps; /* permitted = effective, as 1 << CAP_x */
	bool bounding_cleared; /* false without CAP_SETPCAP */
};

/*
 * Startup checks, before anything is opened: name is a known user, this
 * process may switch to it, and the directory that output is written in
 * ("-" needs none) lets that user create files. -ENOENT, -EPERM,
 * -EACCES..., with err naming the culprit.
 */
int privilege_prepare(const char *name, const char *output,
		      struct privilege_target *target, struct error *err);

/*
 * After privilege_prepare(): the user may create files in dir, which
 * option (e.g. "--textfile") names; -EACCES..., with err naming it.
 */
int privilege_check_dir(const struct privilege_target *target, const char *dir,
			const char *option, struct error *err);

/*
 * Gives target the output files held open in its output directory, then
 * becomes target for good: no supplementary groups, the bounding set
 * emptied where CAP_SETPCAP allows, no-new-privs, not dumpable, and
 * only the capabilities the loop needs on this kernel, found by trying
 * a read of c's BPF objects without any.
 */
int privilege_drop(const struct privilege_target *target, struct collector *c,
		   struct privilege_kept *kept, struct error *err);

/*
 * privilege_drop() for a command: says on stderr what it became and
 * kept, or why it failed.
 */
int privilege_drop_and_say(const struct privilege_target *target,
			   struct collector *c);

/* "CAP_BPF, CAP_PERFMON" or "none". */
void privilege_caps_str(uint64_t caps, char *buf, size_t len);

#endif
