/* SPDX-License-Identifier: GPL-2.0 */
/* NetBSD sources include <sys/pmc.h>: it is libpmc's <pmc.h>. */
#ifndef BPMC_SYS_PMC_H
#define BPMC_SYS_PMC_H
#include "../pmc.h"
#endif
