// SPDX-License-Identifier: GPL-2.0
/*
 * bpmc report: offline analysis of exports from any number of hosts and
 * runs (docs/analysis.md): one row scope aggregated by --by keys, the
 * derived metrics, as a table, CSV, JSON or an HTML page; --diff for
 * before and after.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cmd/commands.h"
#include "cmd/opts.h"
#include "common/util.h"
#include "report/diff.h"
#include "report/html.h"
#include "report/output.h"
#include "report/report.h"

enum {
	OPT_BY = 'b',
	OPT_OUTPUT = 'o',
	OPT_SCOPE = OPT_LONG_ONLY,
	OPT_SINCE,
	OPT_UNTIL,
	OPT_HOST,
	OPT_CGROUP,
	OPT_TOP,
	OPT_SORT,
	OPT_METRIC,
	OPT_NO_BUILTINS,
	OPT_MIN_RUNNING,
	OPT_SERIES,
	OPT_BUCKET,
	OPT_CSV,
	OPT_JSON,
	OPT_HTML,
	OPT_THREADS,
	OPT_DIFF,
	OPT_SIGMA,
	OPT_MIN_CHANGE,
};

static const struct cmd_option report_options[] = {
	{ "by", OPT_BY, required_argument, "KEYS",
	  "group by host, container, pod, cgroup, process, thread, comm\n"
	  "(combinations: host,cgroup); default cgroup. The keys come from\n"
	  "one row scope, the finest named (process > cgroup > container >\n"
	  "pod > system), so nothing is counted twice" },
	{ "scope", OPT_SCOPE, required_argument, "SCOPE",
	  "aggregate these rows instead (cgroup_total, thread, ...)" },
	{ "since", OPT_SINCE, required_argument, "TIME",
	  "intervals that end after TIME: 2026-12-01, 2026-12-01T10:00,\n"
	  "an ISO 8601 UTC time, or a duration ago (24h)" },
	{ "until", OPT_UNTIL, required_argument, "TIME",
	  "intervals that end by TIME" },
	{ "host", OPT_HOST, required_argument, "GLOB[,GLOB]",
	  "these hosts only" },
	{ "cgroup", OPT_CGROUP, required_argument, "PATH",
	  "rows of this cgroup and its subtree only" },
	{ "top", OPT_TOP, required_argument, "N",
	  "the first N keys (default 20 in the table, all in CSV and JSON)" },
	{ "sort", OPT_SORT, required_argument, "EVENT|METRIC",
	  "sort by an event's count or a metric, descending (default\n"
	  "cycles, else cpu-clock, else the first event)" },
	{ "metric", OPT_METRIC, required_argument, "NAME=EXPR",
	  "a metric of your own: + - * / ( ), numbers, event names and\n"
	  "'seconds' (e.g. 'faults_per_ms=page-faults / (cpu-clock / 1e6)')" },
	{ "no-builtin-metrics", OPT_NO_BUILTINS, no_argument, NULL,
	  "leave out ipc, cpi, cache_miss_pct, mpki, branch_miss_pct, cpu_pct" },
	{ "min-running", OPT_MIN_RUNNING, required_argument, "PCT",
	  "flag metrics whose events ran less than PCT % (default 90)" },
	{ "series", OPT_SERIES, optional_argument, "BUCKET",
	  "one row per interval (or BUCKET: 10s, 1m) and key, zeros included" },
	{ "bucket", OPT_BUCKET, required_argument, "DURATION",
	  "the --html chart's time step (default: about 200 steps)" },
	{ "csv", OPT_CSV, no_argument, NULL, "CSV on stdout (or -o)" },
	{ "json", OPT_JSON, no_argument, NULL, "JSON on stdout (or -o)" },
	{ "html", OPT_HTML, required_argument, "FILE",
	  "also write one self-contained HTML page with SVG charts" },
	{ "output", OPT_OUTPUT, required_argument, "FILE",
	  "write the table, CSV or JSON to FILE (whole, or not at all)" },
	{ "threads", OPT_THREADS, required_argument, "N",
	  "reading threads (default: the online CPUs, at most 8)" },
	{ "diff", OPT_DIFF, no_argument, NULL,
	  "compare: FILES before '--', the files after it" },
	{ "sigma", OPT_SIGMA, required_argument, "K",
	  "--diff: significant at the false discovery rate of a K-sigma normal tail (default 2: 4.55 %)" },
	{ "min-change", OPT_MIN_CHANGE, required_argument, "PCT",
	  "--diff: and only a change of at least PCT % (default 5: what a host moves between two runs)" },
	{},
};

static const struct cmd_spec report_spec = {
	.name = "report",
	.operands = "FILE|DIR|GLOB... [-- AFTER...]",
	.summary =
		"analyse exports offline: keys, rates, derived metrics, charts, diffs",
	.options = report_options,
	.examples =
		"bpmc report --by container --sort cycles --top 5 /srv/bpmc/     # worst containers\n"
		"bpmc report --by host,cgroup --since 24h --csv '*.csv.gz' > t.csv\n"
		"bpmc report --by cgroup --cgroup /system.slice --html r.html x.csv.gz\n"
		"bpmc report --series --cgroup /kubepods.slice/a.slice x.csv      # one cgroup over time\n"
		"bpmc report --diff --by container before/ -- after/              # what a deploy changed",
};

enum format { FMT_TABLE, FMT_CSV, FMT_JSON };

struct report_args {
	struct report_opts opts;
	enum format format;
	const char *html, *output;
	bool top_given, diff;
	double sigma, min_change;
	char *hosts_buf[64];
};

/* TIME for --since/--until: ISO 8601 UTC, its shorter forms, or ago. */
static int parse_when(const char *arg, int64_t *ms)
{
	static const char *const fills[] = { "", "Z", ":00Z", "T00:00:00Z" };
	uint64_t ago;

	for (size_t i = 0; i < sizeof(fills) / sizeof(fills[0]); i++) {
		char buf[64];

		if (snprintf(buf, sizeof(buf), "%s%s", arg, fills[i]) >=
		    (int)sizeof(buf))
			break;
		if (parse_iso_time(buf, strlen(buf), ms))
			return 0;
	}
	if (!parse_with_unit(arg, duration_units, false, &ago)) {
		struct timespec now;

		clock_gettime(CLOCK_REALTIME, &now);
		*ms = (int64_t)now.tv_sec * 1000 + now.tv_nsec / 1000000 -
		      (int64_t)ago * 1000;
		return 0;
	}
	return -EINVAL;
}

static int parse_option(void *ctx, int key, const char *arg, struct error *err)
{
	struct report_args *a = ctx;
	struct report_opts *o = &a->opts;
	uint64_t v;
	long n;
	char *end;

	switch (key) {
	case OPT_BY:
		return report_opts__parse_dims(o, arg, err);
	case OPT_SCOPE:
		o->scope = arg;
		return 0;
	case OPT_SINCE:
	case OPT_UNTIL:
		if (parse_when(arg,
			       key == OPT_SINCE ? &o->since_ms : &o->until_ms))
			return error__set(
				err, EINVAL,
				"invalid time '--%s %s': an ISO 8601 UTC time (2026-12-01T10:00:00Z) or a duration ago (24h)",
				key == OPT_SINCE ? "since" : "until", arg);
		return 0;
	case OPT_HOST: {
		char *copy = strdup(arg), *save = NULL;

		if (!copy)
			return error__set(err, ENOMEM,
					  "out of memory for '--host %s'", arg);
		for (char *w = strtok_r(copy, ",", &save); w;
		     w = strtok_r(NULL, ",", &save)) {
			if (o->nr_hosts ==
			    sizeof(a->hosts_buf) / sizeof(a->hosts_buf[0])) {
				free(copy);
				return error__set(
					err, EINVAL,
					"too many hosts in '--host %s'", arg);
			}
			a->hosts_buf[o->nr_hosts++] = strdup(w);
		}
		free(copy);
		o->hosts = a->hosts_buf;
		return 0;
	default:
		break;
	}
	case OPT_CGROUP:
		if (arg[0] != '/')
			return error__set(
				err, EINVAL,
				"invalid cgroup '--cgroup %s': a path under the cgroup2 mount, from /",
				arg);
		o->cgroup = arg;
		return 0;
	case OPT_TOP:
		if (parse_long(arg, 0, 1000000000, &n))
			return error__set(err, EINVAL,
					  "invalid count '--top %s'", arg);
		o->top = n;
		a->top_given = true;
		return 0;
	case OPT_SORT:
		o->sort = arg;
		return 0;
	case OPT_METRIC:
		if (o->nr_metrics == REPORT_MAX_METRICS)
			return error__set(err, EINVAL,
					  "too many metrics at '--metric %s'",
					  arg);
		if (metric_def__parse(arg, &o->metrics[o->nr_metrics], err))
			return -EINVAL;
		o->nr_metrics++;
		return 0;
	case OPT_NO_BUILTINS:
		o->no_builtins = true;
		return 0;
	case OPT_MIN_RUNNING:
		errno = 0;
		o->min_running_pct = strtod(arg, &end);
		if (errno || *end || end == arg || o->min_running_pct < 0 ||
		    o->min_running_pct > 100)
			return error__set(
				err, EINVAL,
				"invalid percentage '--min-running %s': 0 to 100",
				arg);
		return 0;
	case OPT_SERIES:
		o->series = true;
		if (!arg)
			return 0;
		/* fallthrough */
	case OPT_BUCKET:
		if (parse_with_unit(arg, duration_units, false, &v) || !v ||
		    v > 366ull * 86400)
			return error__set(
				err, EINVAL,
				"invalid duration '--%s %s': e.g. 10s, 5m, 1h",
				key == OPT_SERIES ? "series" : "bucket", arg);
		o->bucket_ms = v * 1000;
		return 0;
	case OPT_CSV:
		a->format = FMT_CSV;
		return 0;
	case OPT_JSON:
		a->format = FMT_JSON;
		return 0;
	case OPT_HTML:
		a->html = arg;
		o->chart = true;
		return 0;
	case OPT_OUTPUT:
		a->output = arg;
		return 0;
	case OPT_THREADS:
		if (parse_long(arg, 1, 64, &n))
			return error__set(
				err, EINVAL,
				"invalid count '--threads %s': 1 to 64", arg);
		o->threads = n;
		return 0;
	case OPT_DIFF:
		a->diff = true;
		return 0;
	case OPT_SIGMA:
		errno = 0;
		a->sigma = strtod(arg, &end);
		if (errno || *end || end == arg || !(a->sigma > 0))
			return error__set(
				err, EINVAL,
				"invalid '--sigma %s': a positive number", arg);
		return 0;
	case OPT_MIN_CHANGE:
		errno = 0;
		a->min_change = strtod(arg, &end);
		if (errno || *end || end == arg || !(a->min_change >= 0) ||
		    a->min_change > 1000)
			return error__set(
				err, EINVAL,
				"invalid '--min-change %s': a percentage from 0 to 1000",
				arg);
		return 0;
	}
	return error__set(err, EINVAL, "option %d of report has no handler",
			  key);
}

/*
 * "-", a character device or a FIFO is written as a stream (as record's
 * -o is); a regular file, or none, through a temporary file in the same
 * directory renamed into place: whole or absent, never half written. A
 * symbolic link is refused, never written through or replaced, and so
 * is anything else (a directory, a block device, a socket).
 */
struct out_file {
	FILE *f;
	char *path, *tmp;
	bool stream; /* a device or FIFO we opened: closed, not renamed */
};

static int out_stream(struct out_file *o, const char *path)
{
	int fd = open(path, O_WRONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC);
	struct stat st;

	if (fd < 0 && errno == ENXIO) {
		p_err("cannot write '%s': a FIFO with no reader (start the reader first)",
		      path);
		return -ENXIO;
	}
	if (fd < 0 || fstat(fd, &st)) {
		int e = errno;

		p_err("cannot write '%s': %s", path, strerror(e));
		if (fd >= 0)
			close(fd);
		return -e;
	}
	if (!S_ISCHR(st.st_mode) && !S_ISFIFO(st.st_mode)) {
		p_err("cannot write '%s': it changed while being opened", path);
		close(fd);
		return -EAGAIN;
	}
	/* Writes block again: a slow reader slows us, never cuts the text. */
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
	o->f = fdopen(fd, "w");
	if (!o->f) {
		int e = errno;

		close(fd);
		p_err("cannot write '%s': %s", path, strerror(e));
		return -e;
	}
	o->stream = true;
	return 0;
}

static int out_open(struct out_file *o, const char *path)
{
	struct stat st;
	int fd;

	o->path = (char *)path;
	o->tmp = NULL;
	o->stream = false;
	if (!path || !strcmp(path, "-")) {
		o->f = stdout;
		return 0;
	}
	if (!lstat(path, &st)) {
		if (S_ISLNK(st.st_mode)) {
			p_err("cannot write '%s': a symbolic link, not written through (name its target)",
			      path);
			return -ELOOP;
		}
		if (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode))
			return out_stream(o, path);
		if (!S_ISREG(st.st_mode)) {
			p_err("cannot write '%s': not a regular file, a character device or a FIFO",
			      path);
			return -EINVAL;
		}
	} else if (errno != ENOENT) {
		int e = errno;

		p_err("cannot write '%s': %s", path, strerror(e));
		return -e;
	}
	if (asprintf(&o->tmp, "%s.XXXXXX", path) < 0)
		return -ENOMEM;
	fd = mkstemp(o->tmp);
	if (fd < 0 || !(o->f = fdopen(fd, "w"))) {
		int e = errno;

		p_err("cannot write '%s': %s", path, strerror(e));
		if (fd >= 0) {
			close(fd);
			unlink(o->tmp);
		}
		free(o->tmp);
		o->tmp = NULL;
		return -e;
	}
	fchmod(fd, 0644);
	return 0;
}

static int out_close(struct out_file *o, int err)
{
	if (o->stream) {
		if (fflush(o->f) && !err)
			err = -errno;
		if (fclose(o->f) && !err)
			err = -errno;
		if (err)
			p_err("cannot write '%s': %s", o->path, strerror(-err));
		return err;
	}
	if (!o->tmp)
		return err;
	if (!err && (fflush(o->f) || fsync(fileno(o->f))))
		err = -errno;
	if (fclose(o->f) && !err)
		err = -errno;
	if (!err && rename(o->tmp, o->path))
		err = -errno;
	if (err) {
		p_err("cannot write '%s': %s", o->path, strerror(-err));
		unlink(o->tmp);
	}
	free(o->tmp);
	return err;
}

static void print_notes(const struct report *r)
{
	for (unsigned i = 0; i < r->input.nr_files; i++) {
		const struct report_file *f = &r->input.files[i];

		if (f->truncated)
			p_warn("%s: %s; read up to its last whole row", f->path,
			       f->gz ? "the gzip stream is cut (a crashed run's tail?)" :
				       "its last row is cut");
	}
	for (unsigned i = 0; i < r->result.nr_rejected; i++) {
		const struct report_rejects *x = r->result.rejected[i];
		char why[1024];
		size_t n = 0;

		for (int w = 0; w < REJECT__NR && n < sizeof(why); w++) {
			if (!x->nr[w])
				continue;
			n += snprintf(why + n, sizeof(why) - n,
				      "%s%llu %s (first at byte %llu: '%s')",
				      n ? ", " : "",
				      (unsigned long long)x->nr[w],
				      report_reject_why[w],
				      (unsigned long long)x->first_byte[w],
				      x->first[w]);
		}
		p_warn("%s: %llu row%s rejected, left out of every sum: %s",
		       x->path, (unsigned long long)x->rows,
		       x->rows == 1 ? "" : "s", why);
	}
	if (r->result.saturated_cells)
		p_warn("%u sum%s reached 2^64 - 1 and stayed there (saturated, not wrapped): the true count is larger",
		       r->result.saturated_cells,
		       r->result.saturated_cells == 1 ? "" : "s");
	if (!r->result.nr_keys && r->result.nr_input_rows)
		p_warn("no '%s' rows in the input%s", r->result.scope,
		       !strcmp(r->result.scope, "container") ||
				       !strcmp(r->result.scope, "pod") ?
			       ": record with --by container, or report --by cgroup" :
			       "");
}

static int write_result(struct report_args *a, const struct report_result *res)
{
	struct out_file o;
	struct error e = {};
	int err;

	if (a->html) {
		err = out_open(&o, a->html);
		if (err)
			return err;
		err = report_html__write(res, o.f, NULL, &e);
		if (err && e.msg[0])
			p_err("%s", e.msg);
		if (out_close(&o, err))
			return -EIO;
	}
	err = out_open(&o, a->output);
	if (err)
		return err;
	err = a->format == FMT_CSV  ? report_write_csv(res, o.f) :
	      a->format == FMT_JSON ? report_write_json(res, o.f) :
				      report_write_table(res, o.f);
	if (err && !o.tmp && !o.stream)
		p_err("cannot write the report: %s", strerror(-err));
	return out_close(&o, err);
}

int cmd_report(int argc, char **argv)
{
	struct report_args a = { .sigma = 2, .min_change = 5 };
	struct report before = {}, after = {};
	struct error err = {};
	int first, ret, split = -1, status = 0;
	unsigned nr;

	report_opts__init(&a.opts);
	report_opts__parse_dims(&a.opts, "cgroup", &err);
	/* --diff's two lists meet at '--', which getopt would swallow. */
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--diff")) {
			for (int j = i + 1; j < argc; j++) {
				if (!strcmp(argv[j], "--")) {
					split = j;
					break;
				}
			}
			break;
		}
		if (!strcmp(argv[i], "--"))
			break;
	}
	ret = cmd_parse(&report_spec, split > 0 ? split : argc, argv,
			parse_option, &a, &first);
	if (ret) {
		status = cmd_exit_status(ret);
		goto cleanup;
	}
	if (a.diff && split < 0) {
		status = cmd_refuse(&report_spec,
				    "--diff wants BEFORE... -- AFTER...");
		goto cleanup;
	}
	nr = (split > 0 ? split : argc) - first;
	if (!nr || (a.diff && split + 1 >= argc)) {
		status = cmd_refuse(&report_spec, "no export to read");
		goto cleanup;
	}
	if (!a.top_given && a.format == FMT_TABLE && !a.opts.series)
		a.opts.top = 20;
	if (a.opts.series && a.html) {
		status = cmd_refuse(
			&report_spec,
			"--html charts the totals' series itself: not with --series");
		goto cleanup;
	}
	if (a.diff && (a.opts.series || a.html)) {
		status = cmd_refuse(
			&report_spec,
			"--diff compares totals: not with --series or --html");
		goto cleanup;
	}
	if (!a.opts.threads) {
		long cpus = sysconf(_SC_NPROCESSORS_ONLN);

		a.opts.threads = cpus < 1 ? 1 : cpus > 8 ? 8 : cpus;
	}
	if (a.diff) {
		unsigned top = a.opts.top;

		a.opts.top = 0;
		a.opts.spread = true;
		ret = report__run(&before, &a.opts, argv + first, nr, &err);
		if (!ret)
			ret = report__run(&after, &a.opts, argv + split + 1,
					  argc - split - 1, &err);
		if (ret) {
			p_err("%s", error__why(&err, ret));
			status = 1;
			goto cleanup;
		}
		print_notes(&before);
		print_notes(&after);
		{
			struct out_file o;

			ret = out_open(&o, a.output);
			if (!ret) {
				ret = report_write_diff(
					&before.result, &after.result, a.sigma,
					a.min_change, top,
					a.format == FMT_CSV  ? DIFF_CSV :
					a.format == FMT_JSON ? DIFF_JSON :
							       DIFF_TABLE,
					o.f);
				if (ret && !o.tmp && !o.stream)
					p_err("cannot write the report: %s",
					      strerror(-ret));
				ret = out_close(&o, ret);
			}
		}
		status = ret ? 1 : 0;
		goto cleanup;
	}
	ret = report__run(&before, &a.opts, argv + first, nr, &err);
	if (ret) {
		p_err("%s", error__why(&err, ret));
		status = ret == -EINVAL ? EXIT_USAGE : 1;
		goto cleanup;
	}
	print_notes(&before);
	status = write_result(&a, &before.result) ? 1 : 0;
cleanup:
	report__free(&before);
	report__free(&after);
	report_opts__free(&a.opts);
	for (unsigned i = 0; i < a.opts.nr_hosts; i++)
		free(a.hosts_buf[i]);
	return status;
}
