/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One command-line convention for every command: a table of options
 * from which getopt's strings, the usage line, the option list and
 * --help are all made, one refusal format, and one exit-status rule.
 */
#ifndef BPMC_CMD_OPTS_H
#define BPMC_CMD_OPTS_H

#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>

#include "common/error.h"

/* Exit status of refused input, as the CLI contract promises. */
#define EXIT_USAGE 2

/* Keys of long-only options start here; short ones are their letter. */
#define OPT_LONG_ONLY 256

struct cmd_option {
	const char *name; /* long name, without "--" */
	int key; /* the short letter, or OPT_LONG_ONLY + n */
	int has_arg; /* no_argument, required_argument, optional_argument */
	const char *arg; /* the value's name in the usage: "MS" */
	/*
	 * May hold newlines. NULL hides the option from --help and
	 * --list-options: one for scripts alone (the completion).
	 */
	const char *help;
};

/* The collector's options that record and top share, word for word. */
/* Laid out as the option tables are. */
/* clang-format off */
#define CMD_OPTION_EVENTS                                        \
	{ "events", 'e', required_argument, "LIST",              \
	  "events to count (default: cycles,instructions, or\n"  \
	  "cpu-clock without a hardware PMU); {a,b} is a group" }
#define CMD_OPTION_MAX_KEYS(key)                                   \
	{ "max-keys", (key), required_argument, "N",               \
	  "distinct keys the maps hold (default 16384): those\n"   \
	  "that carry on, and those new in an interval; full,\n"   \
	  "they take up to N x (476 + 160 x EVENTS) bytes for N\n" \
	  "a power of two: 9.9 MiB at the default with one\n"      \
	  "event; refused beyond what memory allows" }
#define CMD_OPTION_PMU(key)                         \
	{ "pmu", (key), required_argument, "TABLE", \
	  "force libpfm's core PMU table" }
#define CMD_OPTION_BEST_EFFORT(key)                               \
	{ "best-effort", (key), no_argument, NULL,                 \
	  "leave out, with a warning, the events this host cannot\n" \
	  "open and count the rest (default: refuse the run)" }
#define CMD_OPTION_CGROUP                                            \
	{ "cgroup", 'G', required_argument, "PATHS",                 \
	  "count only tasks under these cgroup subtrees (at most 8),\n" \
	  "from the cgroup2 mount's root; repeatable; a comma\n"      \
	  "in a name as \\," }
#define CMD_OPTION_VERBOSE \
	{ "verbose", 'v', no_argument, NULL, "libbpf's messages too, and what each kernel feature probe found" }
/* clang-format on */

struct cmd_spec {
	const char *name; /* "record" */
	const char *operands; /* after the options in the usage, or NULL */
	const char *summary; /* one line, for `bpmc --help` too */
	const struct cmd_option *options; /* { 0 }-terminated */
	const char *examples; /* "bpmc ... \t# what it does" lines */
	/* Options end at the first operand: `bpmc stat ls -l`. */
	bool operands_end_options;
};

/*
 * Called once per option, in order. Returns 0, or -errno with err set to
 * a message that quotes the culprit ("invalid interval '-I 0': ...").
 */
typedef int (*cmd_option_fn)(void *ctx, int key, const char *arg,
			     struct error *err);

/*
 * Parses argv[1..] against spec. Returns 0 with *operand set to the index
 * of the first operand; -ECANCELED once --help is printed; -EINVAL once
 * a refusal is printed. cmd_exit_status() turns these into exit codes.
 */
int cmd_parse(const struct cmd_spec *spec, int argc, char **argv,
	      cmd_option_fn fn, void *ctx, int *operand);
int cmd_exit_status(int err);

/* The usage line, the options and the examples. */
void cmd_usage(const struct cmd_spec *spec, FILE *out);

/*
 * Prints "bpmc: MESSAGE (see 'bpmc CMD --help')" on stderr and returns
 * EXIT_USAGE.
 */
int cmd_refuse(const struct cmd_spec *spec, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#endif
