// SPDX-License-Identifier: GPL-2.0
/*
 * bpmc stat: counts a command and its descendants like NetBSD's pmc(1)
 * and perf stat, through libpmc: each event on two counters, user and
 * kernel, read once the command exited as the kernel's inherited count
 * less stat's own (PMC_LINUX_INFO_INHERITED_VALUE - COUNTER_VALUE), which
 * no ring can drop, rather than ACCUMULATED_COUNTER_VALUE's exit records:
 * 3,000 children at once overflowed the rings and every count read 0.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cmd/commands.h"
#include "cmd/opts.h"
#include "cmd/stat.h"
#include "common/util.h"
#include "fds/counters.h"
#include "pmc.h"

enum { OPT_PROFILE = OPT_LONG_ONLY, OPT_TOP };

static const struct cmd_option stat_options[] = {
	{ "event", 'e', required_argument, "EVENTS",
	  "comma-separated events (default: task-clock, context-switches,\n"
	  "cpu-migrations, page-faults; with a PMU cycles, instructions too)" },
	{ "field-separator", 'x', required_argument, "SEP",
	  "machine-readable rows: event, user, kernel, total, unit, running %" },
	{ "output", 'o', required_argument, "FILE",
	  "write the counts to FILE instead of stderr" },
	{ "profile", OPT_PROFILE, required_argument, "EVENT[:PERIOD]",
	  "also sample the user PCs every PERIOD events and print the\n"
	  "functions they were in (default period: 1 ms of a clock, else 100000)" },
	{ "top", OPT_TOP, required_argument, "N",
	  "functions in the profile (default 20)" },
	{},
};

static const struct cmd_spec stat_spec = {
	.name = "stat",
	.operands = "[--] CMD [ARGS...]",
	.summary =
		"Run CMD and count its events, and its descendants', split into user and\n"
		"kernel; exit with CMD's status.",
	.options = stat_options,
	.examples =
		"bpmc stat -- make -j2                       # the default events\n"
		"bpmc stat -e task-clock,page-faults -- ls   # chosen events\n"
		"bpmc stat -x, -o counts.csv -- ./bench      # machine-readable\n"
		"bpmc stat --profile task-clock:100000 -- ./prog  # where the time goes",
	.operands_end_options = true,
};

#define MAX_STAT_EVENTS 16
/* perf stat's word for a count it has not got: never a 0. */
#define NOT_COUNTED "<not counted>"

struct stat_args {
	char events[1024];
	const char *sep;
	const char *output;
	const char *profile;
	long top;
};

struct stat_event {
	char name[256];
	bool split; /* false: the name chose its mode, one counter */
	int ctr[2]; /* user, kernel */
	uint64_t value[2];
	struct pmc_linux_times times[2];
	bool unknown; /* a counter could not be read: no number */
};

static int parse_option(void *ctx, int key, const char *arg, struct error *err)
{
	struct stat_args *a = ctx;

	switch (key) {
	case 'e':
		if (strlen(arg) >= sizeof(a->events))
			return error__set(
				err, EINVAL,
				"event list '-e %.40s...' is too long", arg);
		strcpy(a->events, arg);
		return 0;
	case 'x':
		if (!*arg || strpbrk(arg, "\n\r"))
			return error__set(
				err, EINVAL,
				"invalid separator '-x %s': want a character or a string without newlines",
				arg);
		a->sep = arg;
		return 0;
	case 'o':
		a->output = arg;
		return 0;
	case OPT_PROFILE:
		a->profile = arg;
		return 0;
	case OPT_TOP:
		return parse_long(arg, 1, 100000, &a->top) ?
			       error__set(
				       err, EINVAL,
				       "invalid count '--top %s': want 1 to 100000",
				       arg) :
			       0;
	default:
		break;
	}
	return error__set(err, EINVAL, "option %d of stat has no handler", key);
}

static bool is_clock(const char *name)
{
	return !strncmp(name, "task-clock", 10) ||
	       !strncmp(name, "cpu-clock", 9);
}

/* "PMU/terms/" or "HEAD/terms/mods": modifiers go after the last slash. */
static bool is_slash_form(const char *name)
{
	const char *slash = strrchr(name, '/');

	return slash && strchr(name, '/') != slash &&
	       strspn(slash + 1, "ukhHGIDepP") == strlen(slash + 1);
}

/* Whether the name already says which mode it counts: "cycles:u",
 * "X:k=1", "cpu/event=0x3c/k". Such an event is counted whole. */
static bool names_its_mode(const char *name)
{
	const char *slash = strrchr(name, '/');
	char copy[256], *save = NULL, *tok;

	if (slash && strchr(name, '/') != slash)
		return strpbrk(slash + 1, "uk") != NULL; /* PMU/terms/mods */
	snprintf(copy, sizeof(copy), "%.*s", (int)sizeof(copy) - 1, name);
	tok = strtok_r(copy, ":", &save); /* the event itself */
	while (tok && (tok = strtok_r(NULL, ":", &save)))
		if (!strcmp(tok, "u") || !strcmp(tok, "k") ||
		    !strcmp(tok, "uk") || !strcmp(tok, "ku") ||
		    !strncmp(tok, "u=", 2) || !strncmp(tok, "k=", 2))
			return true;
	return false;
}

/* name:u and name:k on two counters, sharing the PMU like perf stat. */
static int configure_event(struct stat_event *ev, int *next_ctr, int nr_ctrs)
{
	static const char *const mode[] = { "u", "k" };

	ev->split = !names_its_mode(ev->name);
	ev->ctr[1] = -1;
	for (int m = 0; m < (ev->split ? 2 : 1); m++) {
		/* Inherited counts alone: no per-CPU twins on the PMU. */
		struct pmc_counter_cfg cfg = {
			0, 0,
			PMC_LINUX_FLAG_MULTIPLEX | PMC_LINUX_FLAG_NO_ACCUMULATE
		};
		char full[sizeof(ev->name) + 4], why[ERROR_LEN];

		if (*next_ctr >= nr_ctrs) {
			p_err("too many events: %d counters hold %d events split into user and kernel",
			      nr_ctrs, nr_ctrs / 2);
			return -E2BIG;
		}
		/* After PMU/terms/[mods] a modifier letter follows directly. */
		snprintf(full, sizeof(full), "%.*s%s%s",
			 (int)sizeof(ev->name) - 1, ev->name,
			 ev->split && !is_slash_form(ev->name) ? ":" : "",
			 ev->split ? mode[m] : "");
		if (pmc_linux_event_id(full, &cfg.event_id, why, sizeof(why))) {
			p_err("%s", why[0] ? why : strerror(errno));
			return -EINVAL;
		}
		ev->ctr[m] = (*next_ctr)++;
		if (pmc_control(ev->ctr[m], PMC_OP_CONFIGURE, &cfg)) {
			p_err("cannot count event '%s': %s", ev->name,
			      errno == ENODEV ?
				      "this host has no PMU that counts it" :
				      strerror(errno));
			return -errno;
		}
	}
	return 0;
}

static int parse_events(const char *list, struct stat_event *evs, int *nr)
{
	char copy[1024], *save = NULL;

	snprintf(copy, sizeof(copy), "%s", list);
	*nr = 0;
	for (char *tok = strtok_r(copy, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		if (*nr == MAX_STAT_EVENTS) {
			p_err("too many events in '-e %s': at most %d", list,
			      MAX_STAT_EVENTS);
			return -E2BIG;
		}
		if (strlen(tok) >= sizeof(evs[0].name)) {
			p_err("event name '%.40s...' is too long", tok);
			return -EINVAL;
		}
		memset(&evs[*nr], 0, sizeof(evs[0]));
		strcpy(evs[(*nr)++].name, tok);
	}
	if (!*nr) {
		p_err("no event in '-e %s'", list);
		return -EINVAL;
	}
	return 0;
}

static int start_profile(const char *spec, int ctr)
{
	struct pmc_counter_cfg cfg = {
		.flags = PMC_LINUX_FLAG_MULTIPLEX | PMC_LINUX_FLAG_DESCENDANTS,
	};
	char name[256], why[ERROR_LEN];
	const char *colon = strrchr(spec, ':');
	uint64_t period = 0;

	snprintf(name, sizeof(name), "%s", spec);
	/* A trailing :NUMBER is the period; other modifiers stay. */
	if (colon && !parse_u64(colon + 1, &period))
		name[colon - spec] = '\0';
	else
		period = 0;
	if (!period)
		period = is_clock(name) ? 1000000 : 100000;
	cfg.reset_value = period;
	if (pmc_linux_event_id(name, &cfg.event_id, why, sizeof(why))) {
		p_err("--profile %s: %s", spec, why[0] ? why : strerror(errno));
		return -EINVAL;
	}
	if (pmc_control(ctr, PMC_OP_PROFSTART, &cfg)) {
		p_err("cannot profile with '--profile %s': %s", spec,
		      errno == ENODEV ? "this host has no PMU that counts it" :
					strerror(errno));
		return -errno;
	}
	return 0;
}

static double ratio(const struct pmc_linux_times *t)
{
	return t->enabled_ns ? (double)t->running_ns / t->enabled_ns : 0;
}

static uint64_t scaled(uint64_t v, const struct pmc_linux_times *t)
{
	return counter_scale(v, t->enabled_ns, t->running_ns);
}

static void print_counts(FILE *out, const struct stat_args *a, char *const *cmd,
			 int argc, struct stat_event *evs, int nr,
			 uint64_t elapsed_ns, const struct rusage *ru)
{
	if (!a->sep) {
		fprintf(out, "\n Performance counter stats for '");
		for (int i = 0; i < argc; i++)
			fprintf(out, "%s%s", i ? " " : "", cmd[i]);
		fprintf(out, "':\n\n");
	}
	for (int i = 0; i < nr; i++) {
		struct stat_event *e = &evs[i];
		uint64_t u = scaled(e->value[0], &e->times[0]);
		uint64_t k = scaled(e->value[1], &e->times[1]);
		double run = ratio(&e->times[0]) < ratio(&e->times[1]) ?
				     ratio(&e->times[0]) :
				     ratio(&e->times[1]);
		bool clock = is_clock(e->name);
		/* The kernel counts a clock whole in either mode (perf's
		 * task-clock:u equals task-clock:k): its total is one. */
		uint64_t total = clock || !e->split ? u : u + k;
		const char *unit = clock ? "ns" : "";

		if (e->unknown) {
			if (a->sep)
				fprintf(out, "%s%s%s%s%s%s%s%s%s%s\n", e->name,
					a->sep, e->split ? NOT_COUNTED : "",
					a->sep, e->split ? NOT_COUNTED : "",
					a->sep, NOT_COUNTED, a->sep, unit,
					a->sep);
			else
				fprintf(out, "  %s: %s\n", e->name,
					NOT_COUNTED);
			continue;
		}
		if (!e->split) {
			if (a->sep)
				fprintf(out, "%s%s%s%s%" PRIu64 "%s%s%s%.2f\n",
					e->name, a->sep, a->sep, a->sep, total,
					a->sep, unit, a->sep,
					100 * ratio(&e->times[0]));
			else
				fprintf(out, "  %s: %" PRIu64 "%s%s\n", e->name,
					total, *unit ? " " : "", unit);
			continue;
		}
		if (a->sep) {
			fprintf(out,
				"%s%s%" PRIu64 "%s%" PRIu64 "%s%" PRIu64
				"%s%s%s%.2f\n",
				e->name, a->sep, u, a->sep, k, a->sep, total,
				a->sep, unit, a->sep, 100 * run);
			continue;
		}
		fprintf(out, "  %s: user %" PRIu64 " kernel %" PRIu64 "%s%s",
			e->name, u, k, *unit ? " " : "", unit);
		if (run < 0.9999 &&
		    (e->times[0].enabled_ns || e->times[1].enabled_ns))
			fprintf(out, "  (scaled from %.2f%%)", 100 * run);
		if (clock)
			fprintf(out,
				"\n    (a clock counts whole in each mode; the command's rusage: user %.6f s, system %.6f s)",
				ru->ru_utime.tv_sec +
					ru->ru_utime.tv_usec / 1e6,
				ru->ru_stime.tv_sec +
					ru->ru_stime.tv_usec / 1e6);
		fputc('\n', out);
	}
	if (a->sep)
		fprintf(out, "elapsed%s%s%s%s%" PRIu64 "%sns%s\n", a->sep,
			a->sep, a->sep, "", elapsed_ns, a->sep, a->sep);
	else
		fprintf(out, "\n  %.9f seconds time elapsed\n\n",
			elapsed_ns / 1e9);
}

/*
 * -o FILE is written beside itself and renamed into place once whole:
 * a run that fails or is killed leaves no half-written FILE.
 */
static FILE *output_open(const char *path, char *tmp, size_t len)
{
	const char *slash = strrchr(path, '/');
	int dir_len = slash ? (int)(slash - path + 1) : 0;
	mode_t mask;
	FILE *f;
	int fd;

	if (snprintf(tmp, len, "%.*s.%s.XXXXXX", dir_len, path,
		     slash ? slash + 1 : path) >= (int)len) {
		errno = ENAMETOOLONG;
		return NULL;
	}
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0)
		return NULL;
	mask = umask(0);
	umask(mask);
	fchmod(fd, 0666 & ~mask); /* as fopen would have made it */
	f = fdopen(fd, "w");
	if (!f) {
		unlink(tmp);
		close(fd);
	}
	return f;
}

static int output_close(FILE *f, const char *tmp, const char *path, bool keep)
{
	int ret = 0;

	if (fflush(f) || fsync(fileno(f)))
		ret = -errno;
	if (fclose(f) && !ret)
		ret = -errno;
	if (!ret && keep && rename(tmp, path))
		ret = -errno;
	if (ret || !keep)
		unlink(tmp);
	return ret;
}

static uint64_t less(uint64_t a, uint64_t b)
{
	return a > b ? a - b : 0;
}

/*
 * What CMD and its descendants counted: the counter's inherited count
 * (this thread's, and every task created since it was configured,
 * exited or alive) less this thread's own, so that stat's fork and
 * wait are not in it. 0 or an errno.
 */
static int read_descendants(int ctr, uint64_t *value,
			    struct pmc_linux_times *times)
{
	struct pmc_linux_times own_times, all_times;
	uint64_t own, all;

	if (pmc_get_info(ctr, PMC_LINUX_INFO_INHERITED_VALUE, &all) ||
	    pmc_get_info(ctr, PMC_LINUX_INFO_INHERITED_TIMES, &all_times) ||
	    pmc_get_info(ctr, PMC_INFO_COUNTER_VALUE, &own) ||
	    pmc_get_info(ctr, PMC_LINUX_INFO_TIMES, &own_times))
		return errno;
	*value = less(all, own);
	times->enabled_ns = less(all_times.enabled_ns, own_times.enabled_ns);
	times->running_ns = less(all_times.running_ns, own_times.running_ns);
	return 0;
}

/* The command's status as a shell reports it. */
static int exit_status_of(int status)
{
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return 1;
}

/*
 * Starts the counters, then forks CMD, which inherits them running: a
 * counter that the child inherited stopped and that was started after
 * would start on each CPU microseconds apart, and a short command would
 * read as multiplexed (99.4 % running, measured). What the child does
 * before exec counts, as a few dozen page faults (+53 of 100,000 in
 * test_stat against perf stat, which starts on exec).
 */
static int run_command(char **cmd, int nr_ctrs, int *status,
		       uint64_t *elapsed_ns, struct rusage *ru)
{
	int report[2], err = 0, ret = 0;
	uint64_t t0;
	pid_t pid;

	for (int c = 0; c < nr_ctrs; c++)
		if (pmc_control(c, PMC_OP_START, NULL)) {
			p_err("cannot start counter %d: %s", c,
			      strerror(errno));
			return -errno;
		}
	/* The child says through a close-on-exec pipe why exec failed. */
	if (pipe2(report, O_CLOEXEC))
		return -errno;
	t0 = clock_ns(CLOCK_MONOTONIC);
	pid = fork();
	if (pid == 0) {
		close(report[0]);
		execvp(cmd[0], cmd);
		err = errno;
		if (write(report[1], &err, sizeof(err)) < 0)
			err = 0;
		_exit(err == ENOENT ? 127 : 126);
	}
	close(report[1]);
	if (pid < 0) {
		ret = -errno;
		close(report[0]);
		return ret;
	}
	/* Like perf stat: ^C is for the command; we report what it did. */
	signal(SIGINT, SIG_IGN);
	if (read(report[0], &err, sizeof(err)) != sizeof(err))
		err = 0;
	close(report[0]);
	while (wait4(pid, status, 0, ru) < 0)
		if (errno != EINTR) {
			ret = -errno;
			break;
		}
	*elapsed_ns = clock_ns(CLOCK_MONOTONIC) - t0;
	signal(SIGINT, SIG_DFL);
	if (err)
		p_err("cannot run '%s': %s", cmd[0], strerror(err));
	return ret;
}

int cmd_stat(int argc, char **argv)
{
	struct stat_args a = { .top = 20 };
	struct stat_event evs[MAX_STAT_EVENTS];
	int first, ret, nr = 0, nr_ctrs = 0, next = 0, cls = 0, status = 0;
	uint64_t elapsed = 0;
	int prof_ctr = -1;
	bool short_counts = false;
	FILE *out = stderr;
	struct rusage ru = { 0 };
	char tmp[4096];

	ret = cmd_parse(&stat_spec, argc, argv, parse_option, &a, &first);
	if (ret)
		return cmd_exit_status(ret);
	if (first >= argc)
		return cmd_refuse(&stat_spec, "no command to run");
	pmc_get_info(-1, PMC_INFO_CPUCTR_TYPE, &cls);
	pmc_get_info(0, PMC_INFO_NCOUNTERS, &nr_ctrs);
	if (!a.events[0])
		snprintf(
			a.events, sizeof(a.events), "%s",
			cls == PMC_LINUX_CLASS_SOFTWARE ?
				"task-clock,context-switches,cpu-migrations,page-faults" :
				"task-clock,context-switches,page-faults,cycles,instructions");
	if (parse_events(a.events, evs, &nr))
		return EXIT_USAGE;
	if (a.profile)
		prof_ctr = nr_ctrs - 1; /* a software counter: any event */
	for (int i = 0; i < nr; i++)
		if (configure_event(&evs[i], &next,
				    prof_ctr >= 0 ? nr_ctrs - 1 : nr_ctrs))
			return EXIT_USAGE;
	if (a.output) {
		/* Opened before the command runs: a bad path costs no run. */
		out = output_open(a.output, tmp, sizeof(tmp));
		if (!out) {
			p_err("cannot write '-o %s': %s", a.output,
			      strerror(errno));
			return EXIT_USAGE;
		}
	}
	if (prof_ctr >= 0 && start_profile(a.profile, prof_ctr)) {
		ret = EXIT_USAGE;
		goto fail;
	}
	ret = run_command(argv + first, next, &status, &elapsed, &ru);
	for (int c = 0; c < next; c++)
		pmc_control(c, PMC_OP_STOP, NULL);
	if (prof_ctr >= 0)
		pmc_control(prof_ctr, PMC_OP_PROFSTOP, NULL);
	if (ret) {
		p_err("cannot run '%s': %s", argv[first], strerror(-ret));
		ret = 1;
		goto fail;
	}
	for (int i = 0; i < nr; i++)
		for (int m = 0; m < (evs[i].split ? 2 : 1); m++) {
			int err = read_descendants(evs[i].ctr[m],
						   &evs[i].value[m],
						   &evs[i].times[m]);

			if (err) {
				p_err("%s: cannot read its count: %s",
				      evs[i].name, strerror(err));
				evs[i].unknown = true;
				short_counts = true;
			}
		}
	print_counts(out, &a, argv + first, argc - first, evs, nr, elapsed,
		     &ru);
	if (prof_ctr >= 0)
		stat_profile__print(prof_ctr, out, a.sep, (int)a.top);
	if (out != stderr) {
		ret = output_close(out, tmp, a.output, true);
		if (ret) {
			p_err("cannot write '-o %s': %s", a.output,
			      strerror(-ret));
			return 1;
		}
	}
	/* A count not read fails the run: 1, unless CMD's status says so. */
	if (short_counts && !exit_status_of(status))
		return 1;
	return exit_status_of(status);
fail:
	if (out != stderr)
		output_close(out, tmp, a.output, false);
	return ret;
}
