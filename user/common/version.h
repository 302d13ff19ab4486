/* SPDX-License-Identifier: GPL-2.0 */
#ifndef BPMC_COMMON_VERSION_H
#define BPMC_COMMON_VERSION_H

/* Written into every file's meta rows, and by `bpmc --version`. */
#define BPMC_VERSION "0.2.0"

#endif
