/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One ELF file's function table, read once and kept after the file is
 * closed: a PC resolves without the file's descriptor or libelf handle.
 */
#ifndef BPMC_SYMBOLS_TABLE_H
#define BPMC_SYMBOLS_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/error.h"

/* A PT_LOAD segment's bytes in the file and where they are loaded. */
struct table_load {
	uint64_t off, filesz, vaddr;
};

/* [start, end) in virtual addresses; name is an offset into names. */
struct table_func {
	uint64_t start, end;
	size_t name;
};

struct table {
	struct table_load *loads;
	size_t nr_loads;
	struct table_func *funcs; /* sorted by start, starts distinct */
	size_t nr_funcs;
	char *names;
};

/* Reads fd's segments and functions; path only names it in err. */
int table__load(struct table *t, int fd, const char *path, struct error *err);
void table__free(struct table *t);

/* The virtual address file offset off is loaded at, if it is loaded. */
bool table__vaddr(const struct table *t, uint64_t off, uint64_t *vaddr);

/* The function whose range holds vaddr, or NULL. */
const struct table_func *table__find(const struct table *t, uint64_t vaddr);

#endif
