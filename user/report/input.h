/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The report's input: operands (files, directories, globs) into files,
 * and the files read by a few threads into scan_threads. A plain file is
 * read in ranges that any thread takes; a gzip file is inflated by one
 * thread (ISA-L) into buffers that the others scan, so that inflating
 * and scanning overlap.
 */
#ifndef BPMC_REPORT_INPUT_H
#define BPMC_REPORT_INPUT_H

#include "common/error.h"
#include "common/hash_index.h"
#include "report/scan.h"

/* Files or directories met, by device and inode. */
struct seen_ids {
	struct seen_id {
		uint64_t dev, ino;
	} * ids;
	size_t nr, cap;
	struct hash_index index;
};

struct report_input {
	struct report_file *files;
	unsigned nr_files;
	struct seen_ids files_seen, dirs_seen;
};

/*
 * FILE, DIR (its *.csv and *.csv.gz, recursively, but not the hidden
 * .NAME.partial of a run still writing) or a glob(3) pattern, quoted so
 * that the shell left it. -ENOENT when it names nothing. A directory's
 * walk follows no symbolic link (a loop, a link out of the tree) and
 * passes over what is not a regular file or a directory (a FIFO), as a
 * glob's matches do; an operand that is neither is refused (-EINVAL: a
 * FIFO would block).
 * A file met twice, by any names, is read once.
 */
int report_input__add(struct report_input *in, const char *operand,
		      struct error *err);
void report_input__free(struct report_input *in);

/*
 * Reads every file with nr_threads threads into out (initialised by the
 * caller with cfg and events), merged. A file cut in its last row (a
 * crashed run's tail) is read up to its last whole row and marked
 * truncated; one that is not a bpmc export or not valid gzip fails the
 * whole read, err naming it.
 */
int report_input__scan(struct report_input *in, unsigned nr_threads,
		       struct scan_thread *out, struct error *err);

#endif
