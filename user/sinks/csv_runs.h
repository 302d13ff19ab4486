/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A run of a CSV row's fields that repeats from row to row (a cgroup's
 * rows share its scope, id and path; an interval's rows the event and
 * mostly empty Kubernetes columns), kept as formatted, with the texts
 * and the number it was made from. A row whose texts are the same, byte
 * for byte, takes the kept text instead of escaping them again: compared,
 * never trusted by address, since a caller may reuse its buffers.
 */
#ifndef BPMC_SINKS_CSV_RUNS_H
#define BPMC_SINKS_CSV_RUNS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/strbuf.h"

#define CSV_RUN_TEXTS 6
/* The texts, each with its NUL: a scope and a whole cgroup path fit. */
#define CSV_RUN_KEY_MAX 4608
/* What they become: each byte escaped to at most 4, quotes, commas. */
#define CSV_RUN_TEXT_MAX (4 * CSV_RUN_KEY_MAX + 64)

struct csv_run {
	bool valid;
	uint64_t number;
	int nr;
	uint16_t at[CSV_RUN_TEXTS]; /* where each text starts in key */
	char key[CSV_RUN_KEY_MAX];
	size_t len;
	char text[CSV_RUN_TEXT_MAX];
};

/*
 * Appends the kept text when it was made from these nr texts (NULL and
 * "" alike: both are an empty field) and this number: true. false: the
 * caller formats the run, then keeps it.
 */
bool csv_run__put(const struct csv_run *run, struct strbuf *b, uint64_t number,
		  const char *const *texts, int nr);
/*
 * Keeps b's text from start on as the run of these texts and number;
 * a run too long to keep, or cut short, is forgotten instead.
 */
void csv_run__keep(struct csv_run *run, const struct strbuf *b, size_t start,
		   uint64_t number, const char *const *texts, int nr);

#endif
