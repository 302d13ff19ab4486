// SPDX-License-Identifier: GPL-2.0
#include <string.h>

#include "sinks/csv_runs.h"

bool csv_run__put(const struct csv_run *run, struct strbuf *b, uint64_t number,
		  const char *const *texts, int nr)
{
	if (!run->valid || run->number != number || run->nr != nr)
		return false;
	for (int i = 0; i < nr; i++) {
		const char *s = texts[i] ? texts[i] : "";
		const char *k = run->key + run->at[i];

		/* Most are empty: no call for those. */
		if (*s != *k || (*s && strcmp(s + 1, k + 1)))
			return false;
	}
	strbuf__put(b, run->text, run->len);
	return true;
}

void csv_run__keep(struct csv_run *run, const struct strbuf *b, size_t start,
		   uint64_t number, const char *const *texts, int nr)
{
	size_t at = 0, n;

	run->valid = false;
	if (b->truncated || b->len - start > sizeof(run->text) ||
	    nr > CSV_RUN_TEXTS)
		return;
	for (int i = 0; i < nr; i++) {
		const char *s = texts[i] ? texts[i] : "";

		n = strlen(s) + 1;
		if (n > sizeof(run->key) - at)
			return;
		memcpy(run->key + at, s, n);
		run->at[i] = at;
		at += n;
	}
	memcpy(run->text, b->buf + start, b->len - start);
	run->len = b->len - start;
	run->number = number;
	run->nr = nr;
	run->valid = true;
}
