/* SPDX-License-Identifier: GPL-2.0 */
/* Identity: the name of a task. */
#ifndef BPMC_TASKS_H
#define BPMC_TASKS_H

#include <stdint.h>

#include "collect.h"

/*
 * Fills out with the comm to export: the one the kernel captured when the
 * key was first seen (still right after the task exits), "swapper" for
 * the idle tasks, and /proc's as a last resort.
 */
void tasks__comm(uint32_t tgid, uint32_t tid, const char *captured,
		 char out[BPMC_COMM_LEN]);

#endif
