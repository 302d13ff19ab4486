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
	{ "report", cmd_report,
	  "analyse exports offline: keys, rates, derived metrics, charts, diffs" },
	{ "top", cmd_top,
	  "a live full-screen view of the counters per container, pod, cgroup or process" },
	{ "version", cmd_version,
	  "print bpmc's version and the libbpf and libpfm in use" },
	{ 0 },
};

static void usage(FILE *out)
{
	fprintf(out, "usage: bpmc COMMAND [OPTIONS]\n"
		     "       bpmc help COMMAND\n"
		     "       bpmc --version\n\ncommands:\n");
	for (const struct cmd *c = cmds; c->name; c++)
		fprintf(out, "  %-8s %s\n", c->name, c->summary);
	fprintf(out,
		"\n'bpmc help COMMAND' or 'bpmc COMMAND --help' describes a command's\n"
		"options, with examples; 'man bpmc-COMMAND' says more.\n"
		"\nEXAMPLES\n"
		"  bpmc record -d 10 -o host1.csv.gz      # 10 s of the default events\n"
		"  bpmc list 'RETIRED_*'                  # which events this CPU has\n"
		"  bpmc encode cycles cpu/event=0x3c/k    # what a name turns into\n"
		"  bpmc stat -- make -j2                  # count one command\n"
		"  bpmc report --by container host1.csv.gz # which containers burned it\n"
		"  bpmc top --by cgroup                   # which burns it now, live\n");
}

static const struct cmd *find_cmd(const char *name)
{
	for (const struct cmd *c = cmds; c->name; c++) {
		if (!strcmp(name, c->name))
			return c;
	}
	return NULL;
}

/* `bpmc help COMMAND` is `bpmc COMMAND --help`, word for word. */
static int help(const char *name)
{
	const struct cmd *c = find_cmd(name);
	static char help_opt[] = "--help";
	char *argv[] = { (char *)name, help_opt, NULL };

	if (!c) {
		p_err("unknown command '%s' (see 'bpmc --help')", name);
		return EXIT_USAGE;
	}
	return c->fn(2, argv);
}

/* For the shell completion (completion/bpmc.bash); not in the usage. */
static void list_commands(void)
{
	for (const struct cmd *c = cmds; c->name; c++)
		printf("%s\n", c->name);
	printf("help\n");
}

int main(int argc, char **argv)
{
	const struct cmd *c;

	if (argc < 2) {
		usage(stderr);
		return EXIT_USAGE;
	}
	if (!strcmp(argv[1], "help") && argc > 2 && strcmp(argv[2], "help"))
		return help(argv[2]);
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") ||
	    !strcmp(argv[1], "help")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V"))
		argv[1] = (char *)"version"; /* read, never written */
	if (!strcmp(argv[1], "--list-commands")) {
		list_commands();
		return 0;
	}
	c = find_cmd(argv[1]);
	if (c)
		return c->fn(argc - 1, argv + 1);
	p_err("unknown command '%s' (see 'bpmc --help')", argv[1]);
	return EXIT_USAGE;
}
