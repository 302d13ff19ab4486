/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Symbols: the function that holds a file offset of an ELF object, for
 * stat --profile, which maps each user PC through the process's mappings
 * to (object path, offset within the file). Ground floor: includes only
 * common/. Not thread-safe: one handle per thread.
 */
#ifndef BPMC_SYMBOLS_H
#define BPMC_SYMBOLS_H

#include <stddef.h>
#include <stdint.h>

#include "common/error.h"

/* A cache of opened ELF files' function tables, keyed by path. */
struct symbols;

int symbols__new(struct symbols **out, struct error *err);
void symbols__free(struct symbols *s);

/*
 * Fills name (truncated to len) with the function of path that holds
 * file_offset and *sym_off with the offset into it. The file's table is
 * read once and read again when the file at path is another one (device,
 * inode or mtime changed). Returns -ENOENT, err naming the path and the
 * offset, when no function covers the offset; -errno with err naming the
 * path when the file cannot be opened (a missing file is -ENOENT too)
 * or read as ELF.
 */
int symbols__resolve(struct symbols *s, const char *path, uint64_t file_offset,
		     char *name, size_t len, uint64_t *sym_off,
		     struct error *err);

#endif
