/* SPDX-License-Identifier: GPL-2.0 */
/*
 * bpmc record's outputs: the CSV always, and with --listen or --textfile
 * the Prometheus sink beside it, both fed from one tee so that the rows
 * stage makes every scope once. Opened in three steps, because each
 * needs what the command only has later: the refusals (a taken port, a
 * missing directory) come before any other word; the Prometheus sink
 * needs the events; the server starts once privileges are dropped, so
 * that its thread never holds any.
 */
#ifndef BPMC_CMD_RECORD_OUTPUTS_H
#define BPMC_CMD_RECORD_OUTPUTS_H

#include <stdbool.h>
#include <stdint.h>

#include "cmd/record.h"
#include "names/events.h"
#include "sinks/prom.h"
#include "sinks/prom_http.h"
#include "sinks/sink.h"

struct record_outputs {
	struct sink csv, prom, tee;
	struct sink *rows; /* where the rows go: the CSV, or the tee */
	struct prom_latest *latest; /* with --listen */
	struct prom_http *http;
	int listen_fd; /* bound at open, the server's once it serves */
	int textfile_lock; /* held for the run with --textfile, or -1 */
	const char *textfile_dir; /* --textfile's, where the lock lives */
	const char *events[PROM_MAX_EVENTS];
};

/* The row scopes to make: --by's, and what Prometheus exports too. */
unsigned record_outputs__row_scopes(const struct collect_env *env);

/*
 * Checks and opens what may be refused: the CSV output, the --textfile
 * directory and the --listen socket. Prints the refusal; EXIT_USAGE.
 */
int record_outputs__open(struct record_outputs *o,
			 const struct collect_env *env, const char *path,
			 const char *host);
/* Once the events are parsed: the Prometheus sink and the tee. */
int record_outputs__setup(struct record_outputs *o,
			  const struct collect_env *env,
			  const struct event_list *events);
/* Once privileges are dropped: the server. Prints what went wrong. */
int record_outputs__serve(struct record_outputs *o);
/* Intervals the CSV could not write, for the interval's info. */
uint64_t record_outputs__intervals_lost(const struct record_outputs *o);
/* Stops the server and closes every sink; false if one failed (printed). */
bool record_outputs__close(struct record_outputs *o);

#endif
