/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the commands that run the engine (record, top) share, so that
 * neither is built on the other: the signals that stop them, how the
 * engine's lines are printed, the capability check and -d's seconds.
 */
#ifndef BPMC_CMD_COLLECT_H
#define BPMC_CMD_COLLECT_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "engine/engine.h"

/* Set by the handlers collect_catch_signals() installs. */
extern volatile sig_atomic_t collect_stop, collect_rotate;

/*
 * SIGINT and SIGTERM stop the run; SIGHUP asks for a rotation, or stops
 * too where hangup_stops (a terminal went); a closed pipe comes back as
 * EPIPE, to end the run cleanly.
 */
void collect_catch_signals(bool hangup_stops);

/* engine_ops.say: a warning or a notice on stderr. */
void collect_say(void *ctx, enum engine_say level, const char *msg);

/* At the end of a run (-v: the cgroup cache's figures; samples the
 * full counts map lost), once the engine is stopped. */
void collect_say_totals(const struct engine *e, long max_keys);

/* True when the effective capabilities cover BPF and perf_event; else
 * missing names what is lacking. */
bool collect_has_capabilities(char *missing, size_t len);

/* -d's seconds, with at most 3 decimals: "2", "1.5". 0 or -EINVAL. */
int parse_seconds_ms(const char *s, uint64_t *ms);

#endif
