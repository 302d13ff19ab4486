// SPDX-License-Identifier: GPL-2.0
/* bpmc record: names -> attrs -> fds -> maps -> rows -> CSV, per interval. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <linux/capability.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <bpf/libbpf.h>

#include "cgroups.h"
#include "collector.h"
#include "commands.h"
#include "counters.h"
#include "drain.h"
#include "events.h"
#include "sink_csv.h"
#include "util.h"

#define MAX_RATE_SYSCTL "/proc/sys/kernel/perf_event_max_sample_rate"

struct record_env {
	const char *events;
	const char *output;
	const char *pmu;
	long interval_ms;
	long duration_s;
	uint64_t period;
	long freq;
	long max_keys;
	unsigned scopes;
};

struct record {
	struct record_env env;
	struct event_list events;
	struct counters counters;
	struct collector *collector;
	struct interval_data data;
	struct sink sink;
	char host[256];
	char path[4096];
	uint64_t rows;
	uint64_t drops[BPMC_DROP_NR];
	long max_rate;
};

static volatile sig_atomic_t stop_requested;

static void on_signal(int sig)
{
	stop_requested = 1;
}

static const char record_usage[] =
	"usage: bpmc record [-e EVENTS] [-I MS] [-d SECONDS] [-o PATH] [-c N | -F HZ]\n"
	"                   [--by cgroup,process,thread] [--max-keys N] [--pmu TABLE] [-v]\n"
	"  -e, --events LIST   events to count (default: cycles,instructions, or\n"
	"                      cpu-clock without a hardware PMU)\n"
	"  -I, --interval MS   export interval in milliseconds (default 1000)\n"
	"  -d, --duration S    stop after S seconds (default: until SIGINT/SIGTERM)\n"
	"  -o, --output PATH   CSV file, .gz compresses, - is stdout\n"
	"                      (default bpmc-HOST-YYYYmmddTHHMMSSZ.csv)\n"
	"  -c, --period N      sample every N events\n"
	"  -F, --freq HZ       sample HZ times a second per CPU (default 997:\n"
	"                      a prime, so periodic work cannot alias with it)\n"
	"      --by SCOPES     row scopes: cgroup,process,thread (default cgroup,process)\n"
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

static int parse_args(int argc, char **argv, struct record_env *env)
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
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{},
	};
	char bad[256];
	int opt;

	opterr = 0;
	optind = 1;
	while ((opt = getopt_long(argc, argv, ":e:I:d:o:c:F:vh", opts, NULL)) !=
	       -1) {
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
			break;
		case 'b':
			if (scopes_parse(optarg, &env->scopes, bad,
					 sizeof(bad)))
				return usage_error(
					"invalid scope '%s' in --by: want cgroup, process or thread",
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
	return 0;
}

/* True when the effective capabilities cover BPF and perf_event. */
static bool has_capabilities(char *missing, size_t len)
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

static void default_output(struct record *r)
{
	char stamp[32];
	time_t now = time(NULL);
	struct tm tm;

	gmtime_r(&now, &tm);
	strftime(stamp, sizeof(stamp), "%Y%m%dT%H%M%SZ", &tm);
	snprintf(r->path, sizeof(r->path), "bpmc-%s-%s.csv", r->host, stamp);
}

static void check_throttling(struct record *r)
{
	long rate;

	if (read_file_long(MAX_RATE_SYSCTL, &rate) || rate >= r->max_rate)
		return;
	p_warn("the kernel throttled sampling: kernel.perf_event_max_sample_rate fell from %ld to %ld, so some overflows were not taken",
	       r->max_rate, rate);
	r->max_rate = rate;
}

static void report_drops(struct record *r, const uint64_t *drops)
{
	if (drops[BPMC_DROP_MAP_FULL])
		p_warn("%" PRIu64
		       " samples lost this interval: the counts map is full (raise --max-keys above %ld)",
		       drops[BPMC_DROP_MAP_FULL], r->env.max_keys);
	for (int i = 0; i < BPMC_DROP_NR; i++)
		r->drops[i] += drops[i];
}

static int write_interval(struct record *r, uint64_t length_ns)
{
	struct counter_reading mux[BPMC_MAX_EVENTS];
	struct interval_info info = {
		.end_realtime_ns = clock_ns(CLOCK_REALTIME),
		.length_ns = length_ns,
		.host = r->host,
	};
	int err;

	err = counters__read_delta(&r->counters, mux, NULL);
	if (!err)
		err = collector__take_interval(r->collector, &r->data);
	if (err) {
		p_err("cannot read the interval's counts: %s", strerror(-err));
		return err;
	}
	report_drops(r, r->data.drops);
	check_throttling(r);
	cgroups__new_interval();
	err = r->sink.ops->begin_interval(&r->sink, &info);
	if (!err)
		err = drain__write_rows(&r->data, r->env.scopes, &r->events,
					mux, &r->sink);
	if (!err)
		err = r->sink.ops->end_interval(&r->sink);
	if (err)
		p_err("cannot write to '%s': %s", r->path, strerror(-err));
	return err;
}

static void sleep_until(uint64_t mono_ns)
{
	struct timespec ts = {
		.tv_sec = mono_ns / 1000000000ull,
		.tv_nsec = mono_ns % 1000000000ull,
	};

	clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
}

/* Intervals end on start + k * interval, so they never drift. */
static int record_loop(struct record *r)
{
	uint64_t interval = r->env.interval_ms * 1000000ull;
	uint64_t start = clock_ns(CLOCK_MONOTONIC), last = start;
	uint64_t next = start + interval, deadline = UINT64_MAX, now;
	int err;

	if (r->env.duration_s)
		deadline = start + r->env.duration_s * 1000000000ull;
	for (;;) {
		sleep_until(next < deadline ? next : deadline);
		now = clock_ns(CLOCK_MONOTONIC);
		if (now < next && now < deadline && !stop_requested)
			continue; /* woken by a signal we do not act on */
		err = write_interval(r, now - last);
		if (err || stop_requested || now >= deadline)
			return err;
		last = now;
		while (next <= now)
			next += interval;
	}
}

static int record_setup(struct record *r)
{
	struct counter_opts copts = {
		.period = r->env.period,
		.freq = r->env.freq,
		.sampling = true,
	};
	struct collector_opts bopts = {
		.key_tgid = r->env.scopes & (SCOPE_PROCESS | SCOPE_THREAD),
		.key_tid = r->env.scopes & SCOPE_THREAD,
		.max_keys = r->env.max_keys,
		.nr_events = r->events.nr,
	};
	int err;

	err = counters__open(&r->counters, &r->events, &copts);
	if (err)
		return err;
	err = collector__load(&r->collector, &bopts);
	if (err)
		return err;
	err = collector__attach(r->collector, &r->counters);
	if (err)
		return err;
	err = cgroups__init();
	if (err)
		return err;
	/* Only now, with everything open and loaded, create the file. */
	r->sink.ops = &sink_csv_ops;
	return r->sink.ops->open(&r->sink, r->path);
}

static int choose_events(struct record *r)
{
	char err[EVENT_ERR_LEN];
	const char *list = r->env.events;

	if (!list) {
		if (events__host_has_pmu()) {
			list = "cycles,instructions";
		} else {
			list = "cpu-clock";
			p_info("no hardware PMU on this host (a VM?): recording cpu-clock instead of cycles,instructions");
		}
	}
	if (events__parse_list(list, &r->events, err, sizeof(err))) {
		p_err("%s", err);
		return -EINVAL;
	}
	return 0;
}

int cmd_record(int argc, char **argv)
{
	struct record r = {
		.env = {
			.interval_ms = 1000,
			.freq = 997,
			.max_keys = 16384,
			.scopes = SCOPE_CGROUP | SCOPE_PROCESS,
		},
	};
	struct sigaction sa = { .sa_handler = on_signal };
	char missing[64];
	int err, ret = EXIT_USAGE;

	err = parse_args(argc, argv, &r.env);
	if (err)
		return err;
	if (!has_capabilities(missing, sizeof(missing))) {
		p_err("record needs root, or %s (this process lacks them)",
		      missing);
		return EXIT_USAGE;
	}
	gethostname(r.host, sizeof(r.host) - 1);
	if (r.env.output)
		snprintf(r.path, sizeof(r.path), "%s", r.env.output);
	else
		default_output(&r);
	err = csv_path_writable(r.path);
	if (err) {
		p_err("cannot write output '%s': %s (see 'bpmc record --help')",
		      r.path, strerror(-err));
		return EXIT_USAGE;
	}
	if (events__init(r.env.pmu) || choose_events(&r))
		return EXIT_USAGE;
	if (read_file_long(MAX_RATE_SYSCTL, &r.max_rate))
		r.max_rate = 0;

	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	err = record_setup(&r);
	if (err)
		goto cleanup;
	ret = 1;
	err = counters__enable(&r.counters);
	if (err) {
		p_err("cannot enable the counters: %s", strerror(-err));
		goto cleanup;
	}
	if (strcmp(r.path, "-"))
		p_info("recording %d event(s) on %d CPU(s) into '%s'",
		       r.events.nr, libbpf_num_possible_cpus(), r.path);
	err = record_loop(&r);
	if (!err)
		ret = 0;
cleanup:
	if (r.counters.fd)
		counters__disable(&r.counters);
	collector__destroy(r.collector);
	counters__close(&r.counters);
	if (r.sink.priv && r.sink.ops->close(&r.sink))
		ret = 1;
	interval_data__free(&r.data);
	cgroups__free();
	if (r.drops[BPMC_DROP_MAP_FULL])
		p_warn("%" PRIu64
		       " samples were lost in all because the counts map was full (--max-keys %ld)",
		       r.drops[BPMC_DROP_MAP_FULL], r.env.max_keys);
	if (!ret && strcmp(r.path, "-"))
		p_info("wrote '%s'", r.path);
	return ret;
}
