// SPDX-License-Identifier: GPL-2.0
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd/collect.h"
#include "cmd/opts.h"
#include "cmd/record.h"
#include "common/scope.h"
#include "common/util.h"
#include "sinks/prom.h"
#include "sinks/prom_http.h"

/* A tolerance: a non-negative decimal number of percent. */
/*
 * Plain decimals only, 0 to 100: strtod also takes "nan" (a check that
 * can never fail), "inf", hex floats and leading blanks.
 */
static int parse_percent(const char *s, double *out)
{
	char *end;

	if (strspn(s, "0123456789.") != strlen(s) ||
	    !isdigit((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	*out = strtod(s, &end);
	return *end || errno || !isfinite(*out) || *out > 100 ? -EINVAL : 0;
}

enum {
	OPT_BY = OPT_COLLECT__END,
	OPT_ROLLUP,
	OPT_CGROUP_V1,
	OPT_SELF_STATS,
	OPT_CHECK,
	OPT_ROTATE,
	OPT_KEEP,
	OPT_MAX_DISK,
	OPT_BACKLOG,
	OPT_USER,
	OPT_LISTEN,
	OPT_TEXTFILE,
	OPT_PROM_SCOPES,
	OPT_PROM_EXPIRE,
};

static const struct cmd_option record_options[] = {
	CMD_OPTION_EVENTS,
	{ "mode", OPT_MODE, required_argument, "MODE",
	  "exact (default): read the counters at every context\n"
	  "switch; sampling (the default with -c or -F): credit\n"
	  "each overflow's period" },
	{ "check", OPT_CHECK, optional_argument, "PCT",
	  "report how far cgroup and process rows are from the\n"
	  "system row; in exact mode fail beyond PCT (default 0.1)" },
	{ "interval", 'I', required_argument, "MS",
	  "export interval in milliseconds (default 1000)" },
	{ "duration", 'd', required_argument, "S",
	  "stop after S seconds (default: until SIGINT/SIGTERM)" },
	{ "output", 'o', required_argument, "PATH",
	  "CSV file, .gz compresses, - is stdout; strftime\n"
	  "conversions (UTC) and %h, the host, make a template\n"
	  "(default bpmc-%h-%Y%m%dT%H%M%SZ.csv)" },
	{ "rotate", OPT_ROTATE, required_argument, "WHEN",
	  "start a new file every DURATION (30s, 15m, 1h: on\n"
	  "wall-clock multiples) or SIZE (64K, 256M, 1G), or both" },
	{ "keep", OPT_KEEP, required_argument, "N",
	  "delete all but the newest N published files" },
	{ "max-disk", OPT_MAX_DISK, required_argument, "BYTES",
	  "delete the oldest published files beyond BYTES" },
	{ "backlog", OPT_BACKLOG, required_argument, "N",
	  "intervals held in memory while the disk refuses\n"
	  "writes (default 60); older ones are dropped, counted" },
	{ "user", OPT_USER, required_argument, "NAME",
	  "once set up as root, run as NAME, keeping no capability\n"
	  "the kernel does not ask for (docs/service.md: Capabilities)" },
	CMD_OPTION_BEST_EFFORT(OPT_BEST_EFFORT),
	CMD_OPTION_KUBE,
	{ "listen", OPT_LISTEN, required_argument, "[ADDR]:PORT",
	  "serve GET /metrics to Prometheus there (ADDR is\n"
	  "127.0.0.1 unless given: 0.0.0.0:PORT exposes it)" },
	{ "textfile", OPT_TEXTFILE, required_argument, "DIR",
	  "replace DIR/bpmc.prom every interval, for\n"
	  "node_exporter's textfile collector" },
	{ "prom-scopes", OPT_PROM_SCOPES, required_argument, "SCOPES",
	  "scopes exported to Prometheus, from system,cgroup,\n"
	  "container,pod,process,thread (default\n"
	  "system,cgroup,container,pod)" },
	{ "prom-expire", OPT_PROM_EXPIRE, required_argument, "N",
	  "a key without counts for N intervals leaves the\n"
	  "exposition (default 300; 0: never)" },
	{ "period", 'c', required_argument, "N",
	  "sample every N events (sampling mode)" },
	{ "freq", 'F', required_argument, "HZ",
	  "sample HZ times a second per CPU (sampling mode;\n"
	  "default 997: a prime, so periodic work cannot alias)" },
	{ "by", OPT_BY, required_argument, "SCOPES",
	  "row scopes: cgroup,process,thread,container\n"
	  "(default cgroup,process,container: container and\n"
	  "pod rows appear where containers run)" },
	CMD_OPTION_CGROUP,
	{ "rollup", OPT_ROLLUP, optional_argument, "D",
	  "also a cgroup_total row per ancestor, to depth D" },
	{ "cgroup-v1", OPT_CGROUP_V1, required_argument, "C",
	  "attribute to the cgroup v1 hierarchy of controller C" },
	{ "self-stats", OPT_SELF_STATS, no_argument, NULL,
	  "keep BPF run-time statistics on, for the self rows" },
	CMD_OPTION_MAX_KEYS(OPT_MAX_KEYS),
	CMD_OPTION_PMU(OPT_PMU),
	CMD_OPTION_VERBOSE,
	{},
};

const struct cmd_spec record_spec = {
	.name = "record",
	.summary =
		"Count events system-wide, attributed to cgroups, processes and threads,\n"
		"into long-form CSV (docs/csv-schema.md), one block of rows per interval;\n"
		"with --listen or --textfile, also counters for Prometheus (docs/prometheus.md).",
	.options = record_options,
	.examples =
		"bpmc record                                  # defaults, until Ctrl-C\n"
		"bpmc record -e cpu-clock,page-faults -I 1000 -d 30 -o host1.csv.gz\n"
		"bpmc record -e cycles,instructions --by cgroup,process,thread -o - | head\n"
		"bpmc record --check -d 10                    # exact counts, conservation checked\n"
		"bpmc record -F 997 -e cpu-clock -d 10        # sampling at 997 Hz instead\n"
		"bpmc record --by cgroup,container -G /kubepods.slice --rollup=2\n"
		"bpmc record --best-effort -e cycles,instructions,cpu-clock  # one line for a mixed fleet\n"
		"bpmc record -o '/var/lib/bpmc/%h-%Y%m%dT%H%M%SZ.csv.gz' --rotate 1h --keep 168\n"
		"bpmc record --listen :9467 -o /dev/null      # Prometheus scrapes 127.0.0.1:9467\n"
		"bpmc record --textfile /var/lib/prometheus/node-exporter -o /dev/null",
};

/* "1h", "256M" or "1h,256M": a duration, a size, or one of each. */
static int parse_rotate(const char *arg, struct collect_env *env,
			struct error *err)
{
	char copy[64], *tok, *save;
	uint64_t v;

	snprintf(copy, sizeof(copy), "%s", arg);
	env->rotate_s = env->rotate_bytes = 0;
	for (tok = strtok_r(copy, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		if (!env->rotate_s &&
		    !parse_with_unit(tok, duration_units, false, &v) && v &&
		    v <= 366 * 86400ull)
			env->rotate_s = v;
		else if (!env->rotate_bytes &&
			 !parse_with_unit(tok, size_units, false, &v) &&
			 v >= 4096)
			env->rotate_bytes = v;
		else
			goto bad;
	}
	if (env->rotate_s || env->rotate_bytes)
		return 0;
bad:
	return error__set(
		err, EINVAL,
		"invalid '--rotate %s': want a duration (30s, 15m, 1h, 1d), a size of 4K or more (64K, 256M, 1G), or both",
		arg);
}

static int parse_option(void *ctx, int key, const char *arg, struct error *err)
{
	struct collect_env *env = ctx;
	char bad[256];
	long depth;
	int ret;

	ret = collect_parse_option(env, key, arg, err);
	if (ret <= 0)
		return ret;
	switch (key) {
	case 'I':
		if (parse_long(arg, 1, 3600 * 1000, &env->interval_ms))
			return error__set(
				err, EINVAL,
				"invalid interval '-I %s': want 1 to 3600000 ms",
				arg);
		return 0;
	case 'o':
		env->output = arg;
		return 0;
	case 'c':
		if (parse_u64(arg, &env->period) || !env->period)
			return error__set(
				err, EINVAL,
				"invalid period '-c %s': want a positive count",
				arg);
		return 0;
	case 'F':
		if (parse_long(arg, 1, 1000000, &env->freq))
			return error__set(
				err, EINVAL,
				"invalid frequency '-F %s': want 1 to 1000000 Hz",
				arg);
		env->freq_given = true;
		return 0;
	case OPT_BY:
		if (scopes_parse(arg, &env->scopes, bad, sizeof(bad)))
			return error__set(
				err, EINVAL,
				"invalid scope '%s' in --by: want cgroup, process, thread or container",
				bad);
		return 0;
	case OPT_ROLLUP:
		env->rollup_depth = 1 << 30;
		if (arg && parse_long(arg, 0, 1 << 20, &depth))
			return error__set(
				err, EINVAL,
				"invalid '--rollup=%s': want a depth, 0 for the root",
				arg);
		if (arg)
			env->rollup_depth = depth;
		return 0;
	case OPT_CGROUP_V1:
		env->cgroup_v1 = arg;
		return 0;
	case OPT_SELF_STATS:
		env->self_stats = true;
		return 0;
	case OPT_CHECK:
		env->check = true;
		if (arg && parse_percent(arg, &env->tolerance_pct))
			return error__set(
				err, EINVAL,
				"invalid '--check=%s': want a tolerance in percent, 0 to 100",
				arg);
		return 0;
	case OPT_ROTATE:
		return parse_rotate(arg, env, err);
	case OPT_KEEP:
		if (parse_long(arg, 1, 1000000, &env->keep))
			return error__set(
				err, EINVAL,
				"invalid '--keep %s': want 1 to 1000000 files",
				arg);
		return 0;
	case OPT_MAX_DISK:
		if (parse_with_unit(arg, size_units, true, &env->max_disk) ||
		    !env->max_disk)
			return error__set(
				err, EINVAL,
				"invalid '--max-disk %s': want a size such as 500M or 10G",
				arg);
		return 0;
	case OPT_BACKLOG:
		if (parse_long(arg, 0, 100000, &env->backlog))
			return error__set(
				err, EINVAL,
				"invalid '--backlog %s': want 0 to 100000 intervals",
				arg);
		return 0;
	case OPT_USER:
		env->user = arg;
		return 0;
	case OPT_LISTEN: {
		struct sockaddr_storage ss;
		socklen_t ss_len;

		env->listen = arg;
		return prom_http__parse(arg, &ss, &ss_len, err);
	}
	case OPT_TEXTFILE:
		env->textfile = arg;
		return 0;
	case OPT_PROM_SCOPES:
		env->prom_scopes_given = true;
		if (scope_list_parse(arg, SCOPES_ALL, &env->prom_scopes, bad,
				     sizeof(bad)))
			return error__set(
				err, EINVAL,
				"invalid scope '%s' in --prom-scopes: want system, cgroup, container, pod, process or thread",
				bad);
		return 0;
	case OPT_PROM_EXPIRE:
		env->prom_expire_given = true;
		if (parse_long(arg, 0, 1000000000, &env->prom_expire))
			return error__set(
				err, EINVAL,
				"invalid '--prom-expire %s': want 0 (never) to 1000000000 intervals",
				arg);
		return 0;
	default:
		break;
	}
	return error__set(err, EINVAL, "unhandled option");
}

int record_parse_args(int argc, char **argv, struct collect_env *env)
{
	struct error error = {};
	int first, err;

	err = cmd_parse(&record_spec, argc, argv, parse_option, env, &first);
	if (err)
		return err;
	/*
	 * Exact by default: it costs only at context switches (+0.5 % on a
	 * build here, where sampling at 997 Hz costs +5.3 %: a timer
	 * interrupt and a hypervisor exit per overflow). -c or -F ask for
	 * sampling by themselves.
	 */
	if (!env->mode_given)
		env->exact = !env->period && !env->freq_given;
	if (first < argc)
		cmd_refuse(&record_spec, "unexpected argument '%s'",
			   argv[first]);
	else if (env->filters && env->cgroup_v1)
		cmd_refuse(
			&record_spec,
			"'-G' filters the cgroup v2 tree: it cannot go with --cgroup-v1");
	else if (env->period && env->freq_given)
		cmd_refuse(
			&record_spec,
			"'-c' and '-F' both set the sampling rate: give one");
	else if (env->exact && (env->period || env->freq_given))
		cmd_refuse(
			&record_spec,
			"'%s' has no meaning with --mode exact: it counts, it does not sample",
			env->period ? "-c" : "-F");
	else if ((env->prom_scopes_given || env->prom_expire_given) &&
		 !env->listen && !env->textfile)
		cmd_refuse(&record_spec, "'%s' needs --listen or --textfile",
			   env->prom_scopes_given ? "--prom-scopes" :
						    "--prom-expire");
	else if (env->user &&
		 (err = privilege_prepare(env->user,
					  env->output ? env->output : ".",
					  &env->target, &error)))
		cmd_refuse(&record_spec, "%s", error__why(&error, err));
	else if (env->user && env->textfile &&
		 (err = privilege_check_dir(&env->target, env->textfile,
					    "--textfile", &error)))
		cmd_refuse(&record_spec, "%s", error__why(&error, err));
	else
		return 0;
	return -EINVAL;
}
