// SPDX-License-Identifier: GPL-2.0
#include <stdio.h>
#include <string.h>

#include "cmd/commands.h"
#include "cmd/opts.h"
#include "common/util.h"

struct cmd {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *summary;
};

static const struct cmd cmds[] = {
	{ "record", cmd_record,
	  "count events system-wide, attributed to cgroups, processes and threads, into CSV" },
	{ "encode", cmd_encode,
	  "show the perf_event_attr an event name turns into; --count tries it" },
	{ "list", cmd_list, "list the PMUs and their events, filtered" },
	{ "stat", cmd_stat,
	  "run a command and count its events, split into user and kernel" },
	{ 0 },
};

static void usage(FILE *out)
{
	fprintf(out, "usage: bpmc COMMAND [OPTIONS]\n\ncommands:\n");
	for (const struct cmd *c = cmds; c->name; c++)
		fprintf(out, "  %-8s %s\n", c->name, c->summary);
	fprintf(out,
		"\n'bpmc COMMAND --help' describes a command's options, with examples.\n"
		"\nEXAMPLES\n"
		"  bpmc record -d 10 -o host1.csv.gz      # 10 s of the default events\n"
		"  bpmc list 'RETIRED_*'                  # which events this CPU has\n"
		"  bpmc encode cycles cpu/event=0x3c/k    # what a name turns into\n"
		"  bpmc stat -- make -j2                  # count one command\n");
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return EXIT_USAGE;
	}
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") ||
	    !strcmp(argv[1], "help")) {
		usage(stdout);
		return 0;
	}
	for (const struct cmd *c = cmds; c->name; c++) {
		if (!strcmp(argv[1], c->name))
			return c->fn(argc - 1, argv + 1);
	}
	p_err("unknown command '%s' (see 'bpmc --help')", argv[1]);
	return EXIT_USAGE;
}
