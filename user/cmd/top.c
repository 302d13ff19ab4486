// SPDX-License-Identifier: GPL-2.0
/*
 * bpmc top: the engine (engine/engine.h) that record runs, with top's
 * screen as the sink (top/top.h), so that what it shows is what record
 * would write.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/collect.h"
#include "cmd/commands.h"
#include "cmd/held_stderr.h"
#include "cmd/opts.h"
#include "common/scope.h"
#include "common/util.h"
#include "engine/engine.h"
#include "top/top.h"

enum {
	OPT_BY = OPT_COLLECT__END,
	OPT_WIDTH,
	OPT_FILTER,
};

static const struct cmd_option top_options[] = {
	CMD_OPTION_EVENTS,
	{ "mode", OPT_MODE, required_argument, "MODE",
	  "exact (default) or sampling, as for record" },
	{ "interval", 'I', required_argument, "MS",
	  "refresh every MS milliseconds (default 1000, at least 100)" },
	{ "by", OPT_BY, required_argument, "KEY",
	  "the first grouping: container (default), pod, cgroup,\n"
	  "process or thread; g switches it. Where there is no\n"
	  "container (or pod), cgroups are shown" },
	CMD_OPTION_CGROUP,
	CMD_OPTION_KUBE,
	{ "filter", OPT_FILTER, required_argument, "TEXT",
	  "show only keys whose name holds TEXT (as / does)" },
	{ "duration", 'd', required_argument, "S",
	  "quit after S seconds (default: until q)" },
	{ "batch", 'b', no_argument, NULL,
	  "no terminal: print every interval's screen to stdout,\n"
	  "all keys, as plain text (for scripts)" },
	{ "width", OPT_WIDTH, required_argument, "COLS",
	  "--batch's width (default: $COLUMNS, else 160)" },
	CMD_OPTION_BEST_EFFORT(OPT_BEST_EFFORT),
	CMD_OPTION_MAX_KEYS(OPT_MAX_KEYS),
	CMD_OPTION_PMU(OPT_PMU),
	CMD_OPTION_VERBOSE,
	{},
};

static const struct cmd_spec top_spec = {
	.name = "top",
	.summary =
		"A live, full-screen view of the counters per container, pod, cgroup,\n"
		"process or thread: a row per key, a column of rates per second per event\n"
		"(SI suffixes), derived metrics where their events are there (CPU%, IPC,\n"
		"miss ratios), and a header with the host, CPUs, events, running_pct and\n"
		"bpmc's own CPU and BPF cost. It runs record's collector, with the screen\n"
		"in place of the CSV.\n"
		"\n"
		"KEYS\n"
		"  < >      sort by the column to the left or right (* marks it)\n"
		"  n        sort by name         r   reverse the order\n"
		"  g        group by the next key: container, pod, cgroup, process (thread)\n"
		"  /        filter by a substring of the name (Enter applies, empty clears)\n"
		"  e Enter  expand the selected key into its processes, or fold it\n"
		"  up down  select a key         PgUp PgDn  a page\n"
		"  f space  freeze the display (collection goes on)\n"
		"  q        quit (SIGINT, SIGTERM and SIGHUP too; the terminal is restored)\n"
		"\n"
		"A warning while the screen is up shows on its bottom line, and all of\n"
		"them are printed once it is gone. Columns that do not fit a narrow\n"
		"terminal are left out from the right, never the sort column.",
	.options = top_options,
	.examples =
		"bpmc top                                     # per container, every second\n"
		"bpmc top -e cycles,instructions,cache-misses,cache-references\n"
		"bpmc top --by cgroup -G /system.slice -I 2000\n"
		"bpmc top --by process --filter nginx\n"
		"bpmc top -b -d 5 --by cgroup -e cpu-clock > top.txt  # for scripts",
};

struct top_args {
	struct collect_env env; /* the options top shares with record */
	enum top_scope by;
	bool batch;
	long width;
	const char *filter;
};

static int parse_by(const char *arg, enum top_scope *by)
{
	for (int s = 0; s < TOP_NR_SCOPES; s++)
		if (!strcmp(arg, top_scope_name(s))) {
			*by = s;
			return 0;
		}
	return -EINVAL;
}

static int parse_option(void *ctx, int key, const char *arg, struct error *err)
{
	struct top_args *a = ctx;
	int ret = collect_parse_option(&a->env, key, arg, err);

	if (ret <= 0)
		return ret;
	switch (key) {
	case 'I':
		if (parse_long(arg, 100, 3600 * 1000, &a->env.interval_ms))
			return error__set(
				err, EINVAL,
				"invalid interval '-I %s': want 100 to 3600000 ms",
				arg);
		return 0;
	case OPT_BY:
		if (parse_by(arg, &a->by))
			return error__set(
				err, EINVAL,
				"invalid '--by %s': want container, pod, cgroup, process or thread",
				arg);
		return 0;
	case OPT_FILTER:
		a->filter = arg;
		return 0;
	case 'b':
		a->batch = true;
		return 0;
	case OPT_WIDTH:
		if (parse_long(arg, 20, 250, &a->width))
			return error__set(
				err, EINVAL,
				"invalid '--width %s': want 20 to 250", arg);
		return 0;
	default:
		break;
	}
	return error__set(err, EINVAL, "unhandled option");
}

/* The batch width: --width, else $COLUMNS where it makes sense. */
static int batch_width(const struct top_args *a)
{
	const char *env = getenv("COLUMNS");
	long cols;

	if (a->width)
		return a->width;
	if (env && !parse_long(env, 20, 250, &cols))
		return cols;
	return 160;
}

struct top_run {
	struct top *top;
	bool screen;
	struct held_stderr held;
};

/* The screen, once everything is open; stderr is held while it is up. */
static int start_screen(struct top_run *run)
{
	struct error error = {};
	int err;

	if (!run->screen)
		return 0;
	held_stderr__hold(&run->held);
	err = top__start_screen(run->top, &error);
	if (err) {
		held_stderr__release(&run->held);
		p_err("%s", error__why(&error, err));
		return -ENOTTY;
	}
	return 0;
}

/* A warning shows on the screen's bottom line when it happens. */
static void show_new_warning(struct top_run *run)
{
	char buf[512];
	const char *line = held_stderr__newest(&run->held, buf, sizeof(buf));

	if (line)
		top__say(run->top, line);
}

static bool on_wait(void *ctx, uint64_t until_ns)
{
	struct top_run *run = ctx;

	show_new_warning(run);
	return top__wait(run->top, until_ns);
}

/* Before the collector goes: the terminal first, then the warnings. */
static void stop_screen(struct top_run *run)
{
	top__stop_screen(run->top);
	held_stderr__release(&run->held);
}

/* The engine's run, with the screen up; the exit status. */
static int top_run(struct top_run *run, const struct engine_opts *opts)
{
	const struct engine_ops ops = {
		.say = collect_say,
		.wait = on_wait,
		.stop = &collect_stop,
		.ctx = run,
	};
	struct error error = {};
	struct engine *e;
	char missing[64];
	int err, ret = EXIT_USAGE;

	if (!collect_has_capabilities(missing, sizeof(missing))) {
		p_err("top needs root, or %s (this process lacks them)",
		      missing);
		return EXIT_USAGE;
	}
	err = engine__new(&e, opts, &ops, &error);
	if (err) {
		p_err("%s", error__why(&error, err));
		return EXIT_USAGE;
	}
	/* SIGHUP too: the terminal went. */
	collect_catch_signals(true);
	err = engine__setup(e, &error);
	if (err) {
		p_err("%s", error__why(&error, err));
		goto out;
	}
	ret = 1;
	err = engine__start(e, &error);
	if (err) {
		p_err("%s", error__why(&error, err));
		goto out;
	}
	err = start_screen(run);
	if (!err) {
		err = engine__run(e, top__sink(run->top), &error);
		if (err)
			p_err("%s", error__why(&error, err));
	}
	if (!err || err == -EPIPE)
		ret = 0;
	engine__end(e);
out:
	stop_screen(run);
	engine__stop(e);
	collect_say_totals(e, opts->max_keys);
	engine__free(e);
	return ret;
}

int cmd_top(int argc, char **argv)
{
	struct top_args a = {
		.env = {
			.interval_ms = 1000,
			.freq = 997,
			.max_keys = 16384,
			.tolerance_pct = 0.1,
			.rollup_depth = -1,
		},
		.by = TOP_CONTAINER,
	};
	struct top_run run = { .held = { .saved = -1, .mem = -1 } };
	struct engine_opts opts;
	struct top_config cfg;
	struct error error = {};
	char host[256] = "";
	int first, err, ret;

	err = cmd_parse(&top_spec, argc, argv, parse_option, &a, &first);
	if (err)
		return cmd_exit_status(err);
	if (first < argc)
		return cmd_refuse(&top_spec, "unexpected argument '%s'",
				  argv[first]);
	if (!a.env.mode_given)
		a.env.exact = true;
	if (!a.batch && (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)))
		return cmd_refuse(
			&top_spec,
			"top draws on a terminal, and stdin or stdout is none: use --batch");
	/* Every grouping the keys can switch to is made each interval. */
	a.env.scopes = SCOPE_CGROUP | SCOPE_PROCESS | SCOPE_CONTAINER |
		       (a.by == TOP_THREAD ? SCOPE_THREAD : 0);
	a.env.self_stats = true; /* the header's BPF cost */
	gethostname(host, sizeof(host) - 1);
	collect_engine_opts(&a.env, a.env.scopes, host, &opts);
	cfg = (struct top_config){
		.host = host,
		.nr_cpus = sysconf(_SC_NPROCESSORS_ONLN),
		.interval_ms = a.env.interval_ms,
		.by = a.by,
		.threads = a.by == TOP_THREAD,
		.filter = a.filter,
		.batch = a.batch ? stdout : NULL,
		.batch_width = batch_width(&a),
	};
	err = top__new(&run.top, &cfg, &error);
	if (err) {
		p_err("%s", error__why(&error, err));
		return 1;
	}
	run.screen = !a.batch;
	ret = top_run(&run, &opts);
	top__free(run.top);
	return ret;
}
