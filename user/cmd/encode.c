// SPDX-License-Identifier: GPL-2.0
/* bpmc encode: what an event name turns into, and whether it counts. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "cmd/commands.h"
#include "cmd/opts.h"
#include "common/util.h"
#include "fds/counters.h"
#include "names/events.h"

enum { OPT_PMU = OPT_LONG_ONLY, OPT_COUNT };

static const struct cmd_option encode_options[] = {
	{ "pmu", OPT_PMU, required_argument, "TABLE",
	  "force libpfm's core PMU table for bare names" },
	{ "count", OPT_COUNT, no_argument, NULL,
	  "also count a built-in workload with each encoding\n"
	  "(exit 1 if one does not count)" },
	{},
};

static const struct cmd_spec encode_spec = {
	.name = "encode",
	.operands = "LIST...",
	.summary =
		"Print the perf_event_attr each event of each list (as -e takes it) turns\n"
		"into: type, config[1,2] or the breakpoint, exclude_* and every modifier\n"
		"bit that is set, its group leader, and the fully qualified name.",
	.options = encode_options,
	.examples =
		"bpmc encode cycles instructions cpu-clock   # generic perf names\n"
		"bpmc encode amd64_fam19h_zen4::RETIRED_INSTRUCTIONS:u\n"
		"bpmc encode --pmu amd64_fam19h_zen4 RETIRED_SSE_AVX_FLOPS:ADD_SUB_FLOPS\n"
		"bpmc encode r1a3 cpu/event=0x3c,umask=0x0/k msr/tsc/\n"
		"bpmc encode instructions:uDp 1:1:hp mem:0x1000/4:w sched:sched_switch\n"
		"bpmc encode '{cycles:u,instructions:kp}:p' 'cycles/name=insn,period=100000/'\n"
		"bpmc encode --count page-faults             # and count a workload",
};

struct encode_args {
	const char *pmu;
	bool count;
};

/*
 * Integer mixing plus scalar floating point, a fixed branch-light load,
 * and 64 fresh pages so that fault events have something to count.
 */
static double workload(void)
{
	volatile uint64_t x = 0x9e3779b97f4a7c15ull;
	volatile double f = 1.0;
	long page = sysconf(_SC_PAGESIZE);
	char *mem = mmap(NULL, 64 * page, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (mem != MAP_FAILED) {
		for (int i = 0; i < 64; i++)
			mem[i * page] = 1;
		munmap(mem, 64 * page);
	}
	for (int i = 0; i < 20 * 1000 * 1000; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		f = f * 1.0000001 + 0.5 / (double)(i + 1);
	}
	return f + (double)x;
}

/* Prints the count, or why there is none; true when it counted. */
static bool count_one(const struct event *ev)
{
	struct perf_event_attr attr = ev->attr;
	struct counter_reading r;
	char reason[COUNTER_REASON_LEN];
	int fd;

	attr.size = sizeof(attr);
	attr.disabled = 1;
	attr.sample_period = 0;
	attr.freq = 0;
	attr.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED |
			   PERF_FORMAT_TOTAL_TIME_RUNNING;
	fd = syscall(SYS_perf_event_open, &attr, 0, -1, -1,
		     PERF_FLAG_FD_CLOEXEC);
	if (fd < 0) {
		printf("  %s: not counted: %s\n", ev->name,
		       counters__open_reason(ev, &attr, -1, errno, reason,
					     sizeof(reason)));
		return false;
	}
	ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	workload();
	ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
	if (read(fd, &r, sizeof(r)) != sizeof(r)) {
		printf("  %s: not counted: %s\n", ev->name, strerror(errno));
		close(fd);
		return false;
	}
	printf("  %s: count=%" PRIu64 " running=%.1f%%\n", ev->name,
	       counter_scale(r.value, r.enabled, r.running),
	       r.enabled ? 100.0 * r.running / r.enabled : 0.0);
	close(fd);
	return true;
}

/* A bit of attr, printed only when set, so that lines stay short. */
static void print_flag(const char *name, unsigned int v)
{
	if (v)
		printf(" %s=%u", name, v);
}

static void print_encoding(const struct event_list *list, int i)
{
	const struct event *ev = &list->ev[i];
	const struct perf_event_attr *a = &ev->attr;

	printf("%s: type=%u config=0x%llx", ev->name, a->type,
	       (unsigned long long)a->config);
	if (a->type == PERF_TYPE_BREAKPOINT) {
		printf(" bp_addr=0x%llx bp_len=%llu bp_type=%u",
		       (unsigned long long)a->bp_addr,
		       (unsigned long long)a->bp_len, a->bp_type);
	} else {
		if (a->config1)
			printf(" config1=0x%llx",
			       (unsigned long long)a->config1);
		if (a->config2)
			printf(" config2=0x%llx",
			       (unsigned long long)a->config2);
	}
	printf(" exclude_user=%u exclude_kernel=%u exclude_hv=%u",
	       a->exclude_user, a->exclude_kernel, a->exclude_hv);
	print_flag("exclude_guest", a->exclude_guest);
	print_flag("exclude_host", a->exclude_host);
	print_flag("exclude_idle", a->exclude_idle);
	print_flag("pinned", a->pinned);
	print_flag("exclusive", a->exclusive);
	print_flag("precise_ip", a->precise_ip);
	if (ev->own_period && a->freq)
		printf(" freq=%llu", (unsigned long long)a->sample_freq);
	else if (ev->own_period)
		printf(" period=%llu", (unsigned long long)a->sample_period);
	if (ev->leader != i)
		printf(" leader=%s", list->ev[ev->leader].name);
	printf(" fstr=%s\n", ev->fstr);
}

static int parse_option(void *ctx, int key, const char *arg, struct error *err)
{
	struct encode_args *a = ctx;

	if (key == OPT_PMU)
		a->pmu = arg;
	else
		a->count = true;
	return 0;
}

int cmd_encode(int argc, char **argv)
{
	struct encode_args args = {};
	const char *warning;
	struct error error = {};
	struct events *names;
	bool bad = false, uncounted = false;
	struct event_list list;
	int first, err;

	err = cmd_parse(&encode_spec, argc, argv, parse_option, &args, &first);
	if (err)
		return cmd_exit_status(err);
	if (first == argc)
		return cmd_refuse(&encode_spec, "no event name given");
	err = events__new(&names, args.pmu, &error);
	if (err) {
		p_err("%s", error__why(&error, err));
		return EXIT_USAGE;
	}
	/* Each argument is a list, as -e takes it: groups and all. */
	for (int i = first; i < argc; i++) {
		err = events__parse_list(names, argv[i], &list, &error);
		if (err) {
			warning = events__take_warning(names, false);
			if (warning)
				p_warn("%s", warning);
			p_err("%s", error__why(&error, err));
			bad = true;
			continue;
		}
		for (int j = 0; j < list.nr; j++) {
			print_encoding(&list, j);
			if (args.count && !count_one(&list.ev[j]))
				uncounted = true;
		}
		fflush(stdout);
	}
	events__free(names);
	/* A script asking for counts must not take "not counted" for one. */
	return bad ? EXIT_USAGE : uncounted ? 1 : 0;
}
