/* SPDX-License-Identifier: GPL-2.0 */
/*
 * bpmc top's screen: a sink fed by the rows stage like the CSV's, which
 * keeps each interval's rows (table.h), lays them out (view.h) and
 * draws them with ncurses, or, in batch mode, prints each interval's
 * screen as plain text. It collects nothing itself: `bpmc top` runs
 * record's collector with this sink in place of the files.
 */
#ifndef BPMC_TOP_TOP_H
#define BPMC_TOP_TOP_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "common/error.h"
#include "sinks/sink.h"
#include "top/table.h"

struct top_config {
	const char *host;
	int nr_cpus;
	long interval_ms;
	enum top_scope by; /* the first grouping */
	bool threads; /* thread rows are made (--by thread) */
	const char *filter; /* the first filter, or NULL */
	/* Batch mode: no terminal; every interval's screen goes to batch,
	 * batch_width columns wide, every key listed. */
	FILE *batch;
	int batch_width;
};

struct top;

int top__new(struct top **out, const struct top_config *cfg, struct error *err);
/* The sink the rows go to; it lives as long as t. */
struct sink *top__sink(struct top *t);
/* Takes the terminal (stdin, stdout): the alternate screen, no echo. */
int top__start_screen(struct top *t, struct error *err);
/*
 * Reads and applies keys until CLOCK_MONOTONIC reaches until_ns, a
 * signal comes, or q is pressed (true).
 */
bool top__wait(struct top *t, uint64_t until_ns);
/* One line of news (a warning) on the bottom line, until a key. */
void top__say(struct top *t, const char *msg);
/* Gives the terminal back as it was (endwin); harmless twice. */
void top__stop_screen(struct top *t);
void top__free(struct top *t);

#endif
