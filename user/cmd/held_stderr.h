/* SPDX-License-Identifier: GPL-2.0 */
/*
 * While top's screen is up, stderr goes to memory: a warning written over
 * the screen would tear it. It is printed once the terminal is back, and
 * the newest line meanwhile can be shown on the screen.
 */
#ifndef BPMC_CMD_HELD_STDERR_H
#define BPMC_CMD_HELD_STDERR_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct held_stderr {
	int saved, mem;
	off_t seen; /* bytes already shown on the bottom line */
	uint64_t dropped; /* bytes let go to stay under HELD_MAX */
};

/* From now on stderr goes to memory (or stays, where it cannot). */
void held_stderr__hold(struct held_stderr *h);
/* stderr back, and everything held written to it. */
void held_stderr__release(struct held_stderr *h);
const char *held_stderr__newest(struct held_stderr *h, char *buf, size_t len);

#endif
