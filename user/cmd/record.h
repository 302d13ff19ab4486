/* SPDX-License-Identifier: GPL-2.0 */
/* bpmc record's options, parsed and checked before anything is opened. */
#ifndef BPMC_RECORD_H
#define BPMC_RECORD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cmd/collect.h"
#include "cmd/opts.h"

extern const struct cmd_spec record_spec;

/*
 * Fills env from argv. 0: go on; otherwise -ECANCELED or -EINVAL, with
 * --help or the refusal printed (cmd_exit_status() gives the status).
 */
int record_parse_args(int argc, char **argv, struct collect_env *env);

#endif
