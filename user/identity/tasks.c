// SPDX-License-Identifier: GPL-2.0
#include <stdio.h>
#include <string.h>

#include "identity/tasks.h"
#include "common/util.h"

void tasks__comm(uint32_t tgid, uint32_t tid, const char *captured,
		 char out[BPMC_COMM_LEN])
{
	char path[64];

	if (!tgid) {
		/* One row for every CPU's idle task, whatever its number. */
		snprintf(out, BPMC_COMM_LEN, "swapper");
		return;
	}
	if (captured[0]) {
		memcpy(out, captured, BPMC_COMM_LEN);
		out[BPMC_COMM_LEN - 1] = '\0';
		return;
	}
	snprintf(path, sizeof(path), "/proc/%u/comm", tid ? tid : tgid);
	if (read_file_str(path, out, BPMC_COMM_LEN))
		out[0] = '\0';
}
