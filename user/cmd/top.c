// SPDX-License-Identifier: GPL-2.0
/*
 * bpmc top: record's collector and rows stage with top's screen as the
 * sink (top/top.h), so that what it shows is what record would write.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "cmd/commands.h"
#include "cmd/opts.h"
#include "cmd/record.h"
#include "common/scope.h"
#include "common/util.h"
#include "top/top.h"

enum {
	OPT_MODE = OPT_LONG_ONLY,
	OPT_BY,
	OPT_MAX_KEYS,
	OPT_PMU,
	OPT_BEST_EFFORT,
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
	{ "cgroup", 'G', required_argument, "PATHS",
	  "count only tasks under these cgroup subtrees" },
	{ "filter", OPT_FILTER, required_argument, "TEXT",
	  "show only keys whose name holds TEXT (as / does)" },
	{ "duration", 'd', required_argument, "S",
	  "quit after S seconds (default: until q)" },
	{ "batch", 'b', no_argument, NULL,
	  "no terminal: print every interval's screen to stdout,\n"
	  "all keys, as plain text (for scripts)" },
	{ "width", OPT_WIDTH, required_argument, "COLS",
	  "--batch's width (default: $COLUMNS, else 160)" },
	{ "best-effort", OPT_BEST_EFFORT, no_argument, NULL,
	  "leave out, with a warning, the events this host cannot open" },
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
	struct record_env env;
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

	switch (key) {
	case 'e':
		a->env.events = arg;
		return 0;
	case OPT_MODE:
		if (strcmp(arg, "sampling") && strcmp(arg, "exact"))
			return error__set(
				err, EINVAL,
				"invalid '--mode %s': want sampling or exact",
				arg);
		a->env.exact = !strcmp(arg, "exact");
		a->env.mode_given = true;
		return 0;
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
	case 'G':
		a->env.filters = arg;
		return 0;
	case OPT_FILTER:
		a->filter = arg;
		return 0;
	case 'd':
		if (parse_seconds_ms(arg, &a->env.duration_ms))
			return error__set(
				err, EINVAL,
				"invalid duration '-d %s': want a positive number of seconds, to the ms (1.5)",
				arg);
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
	case OPT_BEST_EFFORT:
		a->env.best_effort = true;
		return 0;
	case OPT_MAX_KEYS:
		if (parse_long(arg, 1, 1 << 24, &a->env.max_keys))
			return error__set(
				err, EINVAL,
				"invalid '--max-keys %s': want 1 to 16777216",
				arg);
		return 0;
	case OPT_PMU:
		a->env.pmu = arg;
		return 0;
	case 'v':
		verbose = true;
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

/*
 * While the screen is up, stderr goes to memory: a warning written over
 * the screen would tear it. It is printed once the terminal is back.
 */
struct held_stderr {
	int saved, mem;
	off_t seen; /* bytes already shown on the bottom line */
	uint64_t dropped; /* bytes let go to stay under HELD_MAX */
};

/* A day of a warning an interval fits; beyond, the oldest go. */
#define HELD_MAX (1 << 20)

static void hold_stderr(struct held_stderr *h)
{
	fflush(stderr);
	h->mem = memfd_create("bpmc-top-stderr", MFD_CLOEXEC);
	h->saved = h->mem < 0 ? -1 : fcntl(STDERR_FILENO, F_DUPFD_CLOEXEC, 3);
	if (h->saved < 0 || dup2(h->mem, STDERR_FILENO) < 0) {
		if (h->mem >= 0)
			close(h->mem);
		if (h->saved >= 0)
			close(h->saved);
		h->mem = h->saved = -1; /* then warnings show, torn */
	}
}

static void release_stderr(struct held_stderr *h)
{
	char buf[4096];
	ssize_t n;

	if (h->saved < 0)
		return;
	fflush(stderr);
	dup2(h->saved, STDERR_FILENO);
	if (h->dropped)
		p_warn("%llu bytes of warnings from while the screen was up were dropped; the last ones follow",
		       (unsigned long long)h->dropped);
	close(h->saved);
	lseek(h->mem, 0, SEEK_SET);
	while ((n = read(h->mem, buf, sizeof(buf))) > 0)
		if (write(STDERR_FILENO, buf, n) != n)
			break;
	close(h->mem);
	h->saved = h->mem = -1;
}

struct top_run {
	struct top *top;
	bool screen;
	struct held_stderr held;
};

static int on_started(void *ctx)
{
	struct top_run *run = ctx;
	struct error error = {};

	if (!run->screen)
		return 0;
	hold_stderr(&run->held);
	if (top__start_screen(run->top, &error)) {
		release_stderr(&run->held);
		p_err("%s", error.msg);
		return -ENOTTY;
	}
	return 0;
}

/*
 * The newest line written to the held stderr since the last look goes
 * to the screen's bottom line, so that a warning (samples lost, a CPU
 * gone) is seen when it happens.
 */
static void show_new_warning(struct top_run *run)
{
	struct held_stderr *h = &run->held;
	off_t size = h->mem < 0 ? 0 : lseek(h->mem, 0, SEEK_CUR);
	char buf[512], *line, *nl;
	size_t want;
	ssize_t n;

	if (size <= h->seen)
		return;
	want = size - h->seen < (off_t)sizeof(buf) - 1 ?
		       (size_t)(size - h->seen) :
		       sizeof(buf) - 1;
	n = pread(h->mem, buf, want, size - want);
	h->seen = size;
	if (n <= 0)
		return;
	buf[n] = 0;
	while (n && buf[n - 1] == '\n')
		buf[--n] = 0;
	nl = strrchr(buf, '\n');
	line = nl ? nl + 1 : buf;
	top__say(run->top, line);
	if (size > HELD_MAX) {
		/* fd 2 shares this file's offset: both start again at 0. */
		h->dropped += size;
		if (!ftruncate(h->mem, 0))
			lseek(h->mem, 0, SEEK_SET);
		h->seen = 0;
	}
}

static bool on_wait(void *ctx, uint64_t until_ns)
{
	struct top_run *run = ctx;

	show_new_warning(run);
	return top__wait(run->top, until_ns);
}

/* Before the collector goes: the terminal first, then the warnings. */
static void on_stopping(void *ctx)
{
	struct top_run *run = ctx;

	top__stop_screen(run->top);
	release_stderr(&run->held);
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
	struct record_hooks hooks = {
		.started = on_started,
		.wait = on_wait,
		.stopping = on_stopping,
		.ctx = &run,
		.command = "top",
	};
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
	struct top_config cfg = {
		.host = host,
		.nr_cpus = sysconf(_SC_NPROCESSORS_ONLN),
		.interval_ms = a.env.interval_ms,
		.by = a.by,
		.threads = a.by == TOP_THREAD,
		.filter = a.filter,
		.batch = a.batch ? stdout : NULL,
		.batch_width = batch_width(&a),
	};
	if (top__new(&run.top, &cfg, &error)) {
		p_err("%s", error.msg);
		return 1;
	}
	run.screen = !a.batch;
	hooks.sink = top__sink(run.top);
	ret = record_run(&a.env, &hooks);
	top__free(run.top);
	return ret;
}
