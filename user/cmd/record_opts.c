// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <getopt.h>
#include <linux/capability.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "cmd/record.h"
#include "common/scope.h"
#include "common/util.h"

/* A tolerance: a non-negative decimal number of percent. */
static int parse_percent(const char *s, double *out)
{
	char *end;

	if (!*s || *s == '-' || *s == '+')
		return -EINVAL;
	errno = 0;
	*out = strtod(s, &end);
	return *end || errno || *out < 0 ? -EINVAL : 0;
}

static const char record_usage[] =
	"usage: bpmc record [-e EVENTS] [-I MS] [-d SECONDS] [-o PATH] [-c N | -F HZ]\n"
	"                   [--mode sampling|exact] [--check[=PCT]]\n"
	"                   [--by cgroup,process,thread] [--max-keys N] [--pmu TABLE] [-v]\n"
	"  -e, --events LIST   events to count (default: cycles,instructions, or\n"
	"                      cpu-clock without a hardware PMU); {a,b} is a group\n"
	"      --mode MODE     sampling (default): credit each overflow's period;\n"
	"                      exact: read the counters at every context switch\n"
	"      --check[=PCT]   report how far cgroup and process rows are from the\n"
	"                      system row; in exact mode fail beyond PCT (default 0.1)\n"
	"  -I, --interval MS   export interval in milliseconds (default 1000)\n"
	"  -d, --duration S    stop after S seconds (default: until SIGINT/SIGTERM)\n"
	"  -o, --output PATH   CSV file, .gz compresses, - is stdout\n"
	"                      (default bpmc-HOST-YYYYmmddTHHMMSSZ.csv)\n"
	"  -c, --period N      sample every N events\n"
	"  -F, --freq HZ       sample HZ times a second per CPU (default 997:\n"
	"                      a prime, so periodic work cannot alias with it)\n"
	"      --by SCOPES     row scopes: cgroup,process,thread,container\n"
	"                      (default cgroup,process); container adds pod rows\n"
	"  -G, --cgroup PATHS  count only tasks under these cgroup subtrees\n"
	"      --rollup[=D]    also a cgroup_total row per ancestor, to depth D\n"
	"      --cgroup-v1 C   attribute to the cgroup v1 hierarchy of controller C\n"
	"      --self-stats    keep BPF run-time statistics on, for the self rows\n"
	"      --max-keys N    distinct keys per interval the maps hold (default 16384)\n"
	"      --pmu TABLE     force libpfm's core PMU table\n"
	"  -v, --verbose       libbpf's messages too\n";

static int usage_error(const char *fmt, const char *what)
{
	fprintf(stderr, "bpmc: ");
	fprintf(stderr, fmt, what);
	fprintf(stderr, " (see 'bpmc record --help')\n");
	return EXIT_USAGE;
}

int record_parse_args(int argc, char **argv, struct record_env *env)
{
	static const struct option opts[] = {
		{ "events", required_argument, NULL, 'e' },
		{ "interval", required_argument, NULL, 'I' },
		{ "duration", required_argument, NULL, 'd' },
		{ "output", required_argument, NULL, 'o' },
		{ "period", required_argument, NULL, 'c' },
		{ "freq", required_argument, NULL, 'F' },
		{ "by", required_argument, NULL, 'b' },
		{ "max-keys", required_argument, NULL, 'k' },
		{ "pmu", required_argument, NULL, 'p' },
		{ "mode", required_argument, NULL, 'm' },
		{ "cgroup", required_argument, NULL, 'G' },
		{ "rollup", optional_argument, NULL, 'R' },
		{ "cgroup-v1", required_argument, NULL, '1' },
		{ "self-stats", no_argument, NULL, 'S' },
		{ "check", optional_argument, NULL, 'C' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{},
	};
	char bad[256];
	long depth;
	int opt;

	opterr = 0;
	optind = 1;
	while ((opt = getopt_long(argc, argv, ":e:I:d:o:c:F:G:vh", opts,
				  NULL)) != -1) {
		switch (opt) {
		case 'e':
			env->events = optarg;
			break;
		case 'I':
			if (parse_long(optarg, 1, 3600 * 1000,
				       &env->interval_ms))
				return usage_error(
					"invalid interval '-I %s': want 1 to 3600000 ms",
					optarg);
			break;
		case 'd':
			if (parse_long(optarg, 1, 100L * 365 * 86400,
				       &env->duration_s))
				return usage_error(
					"invalid duration '-d %s': want a positive number of seconds",
					optarg);
			break;
		case 'o':
			env->output = optarg;
			break;
		case 'c':
			if (parse_u64(optarg, &env->period) || !env->period)
				return usage_error(
					"invalid period '-c %s': want a positive count",
					optarg);
			break;
		case 'F':
			if (parse_long(optarg, 1, 1000000, &env->freq))
				return usage_error(
					"invalid frequency '-F %s': want 1 to 1000000 Hz",
					optarg);
			env->freq_given = true;
			break;
		case 'b':
			if (scopes_parse(optarg, &env->scopes, bad,
					 sizeof(bad)))
				return usage_error(
					"invalid scope '%s' in --by: want cgroup, process, thread or container",
					bad);
			break;
		case 'k':
			if (parse_long(optarg, 1, 1 << 24, &env->max_keys))
				return usage_error(
					"invalid '--max-keys %s': want 1 to 16777216",
					optarg);
			break;
		case 'p':
			env->pmu = optarg;
			break;
		case 'm':
			if (strcmp(optarg, "sampling") &&
			    strcmp(optarg, "exact"))
				return usage_error(
					"invalid '--mode %s': want sampling or exact",
					optarg);
			env->exact = !strcmp(optarg, "exact");
			break;
		case 'G':
			env->filters = optarg;
			break;
		case 'R':
			env->rollup_depth = 1 << 30;
			if (optarg && parse_long(optarg, 0, 1 << 20, &depth))
				return usage_error(
					"invalid '--rollup=%s': want a depth, 0 for the root",
					optarg);
			if (optarg)
				env->rollup_depth = depth;
			break;
		case '1':
			env->cgroup_v1 = optarg;
			break;
		case 'S':
			env->self_stats = true;
			break;
		case 'C':
			env->check = true;
			if (optarg &&
			    parse_percent(optarg, &env->tolerance_pct))
				return usage_error(
					"invalid '--check=%s': want a tolerance in percent",
					optarg);
			break;
		case 'v':
			verbose = true;
			break;
		case 'h':
			fputs(record_usage, stdout);
			exit(0);
		default:
			return usage_bad_option("record", opt,
						argv[optind - 1]);
		}
	}
	if (optind < argc)
		return usage_error("unexpected argument '%s'", argv[optind]);
	if (env->filters && env->cgroup_v1)
		return usage_error(
			"'%s' filters the cgroup v2 tree: it cannot go with --cgroup-v1",
			"-G");
	if (env->exact && (env->period || env->freq_given))
		return usage_error(
			"'%s' has no meaning with --mode exact: it counts, it does not sample",
			env->period ? "-c" : "-F");
	return 0;
}

bool record_has_capabilities(char *missing, size_t len)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct data[2] = {};
	bool admin, bpf, perfmon;

	if (syscall(SYS_capget, &hdr, data))
		return true; /* cannot tell: let the kernel decide */
#define HAS(cap) (data[(cap) / 32].effective & (1u << ((cap) % 32)))
	admin = HAS(CAP_SYS_ADMIN);
	bpf = HAS(CAP_BPF) || admin;
	perfmon = HAS(CAP_PERFMON) || admin;
#undef HAS
	snprintf(missing, len, "%s%s%s", bpf ? "" : "CAP_BPF",
		 !bpf && !perfmon ? " and " : "", perfmon ? "" : "CAP_PERFMON");
	return bpf && perfmon;
}
