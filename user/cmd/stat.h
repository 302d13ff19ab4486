/* SPDX-License-Identifier: GPL-2.0 */
/* bpmc stat: its profile half, apart from the counting. */
#ifndef BPMC_CMD_STAT_H
#define BPMC_CMD_STAT_H

#include <stdio.h>

/*
 * Prints PROFSTART counter ctr's histogram as a flat profile: samples
 * per function, most first, resolved through the ELF symbol tables of
 * the files the PCs were in. sep: NULL for the table, or -x's separator.
 */
int stat_profile__print(int ctr, FILE *out, const char *sep, int top);

#endif
