/* SPDX-License-Identifier: GPL-2.0 */
/*
 * --textfile DIR: one file replaced whole every interval, for
 * node_exporter's textfile collector, which reads the files of DIR that
 * end in .prom at each of its scrapes. It is written as a dot-file in
 * DIR (whose name does not end in .prom, so the collector skips it) and
 * renamed over the old one: a reader sees the old file or the new, never
 * a part.
 */
#ifndef BPMC_SINKS_TEXTFILE_H
#define BPMC_SINKS_TEXTFILE_H

#include <stddef.h>

#include "common/error.h"

/* DIR is a directory this process may create files in. */
int textfile__check_dir(const char *dir, struct error *err);
/*
 * Takes DIR/.bpmc.prom.lock for the run (textfile__unlock lets it go): a
 * second bpmc on the same DIR would overwrite bpmc.prom, and the first to
 * stop would remove it. EBUSY, naming the holder's pid, if one holds it.
 */
#define TEXTFILE_LOCK ".bpmc.prom.lock"
int textfile__lock(const char *dir, int *fd, struct error *err);
/* Lets the lock go and removes its file: a stopped bpmc leaves nothing. */
void textfile__unlock(const char *dir, int *fd);
/* Replaces DIR/NAME with data, mode 0644 (the collector runs as another
 * user). On failure DIR/NAME is as it was, and no temporary is left. */
int textfile__write(const char *dir, const char *name, const char *data,
		    size_t len, struct error *err);
/* Removes DIR/NAME: a stopped bpmc leaves no counts that look live. */
void textfile__remove(const char *dir, const char *name);

#endif
