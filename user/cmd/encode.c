// SPDX-License-Identifier: GPL-2.0
/* bpmc encode: what an event name turns into, and whether it counts. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "cmd/commands.h"
#include "fds/counters.h"
#include "names/events.h"
#include "common/util.h"

static const char encode_usage[] =
	"usage: bpmc encode [--pmu TABLE] [--count] NAME...\n"
	"  prints type, config[1,2], exclude_* and libpfm's fully qualified name\n"
	"      --pmu TABLE  force libpfm's core PMU table for bare names\n"
	"      --count      also count a built-in workload with each encoding\n";

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

static void count_one(const struct event *ev)
{
	struct perf_event_attr attr = ev->attr;
	struct counter_reading r;
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
		       counters__open_reason(ev, &attr, -1, errno));
		return;
	}
	ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	workload();
	ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
	if (read(fd, &r, sizeof(r)) != sizeof(r)) {
		printf("  %s: not counted: %s\n", ev->name, strerror(errno));
	} else {
		printf("  %s: count=%" PRIu64 " running=%.1f%%\n", ev->name,
		       counter_scale(r.value, r.enabled, r.running),
		       r.enabled ? 100.0 * r.running / r.enabled : 0.0);
	}
	close(fd);
}

static void print_encoding(const struct event *ev)
{
	const struct perf_event_attr *a = &ev->attr;

	printf("%s: type=%u config=0x%llx", ev->name, a->type,
	       (unsigned long long)a->config);
	if (a->config1)
		printf(" config1=0x%llx", (unsigned long long)a->config1);
	if (a->config2)
		printf(" config2=0x%llx", (unsigned long long)a->config2);
	printf(" exclude_user=%u exclude_kernel=%u exclude_hv=%u",
	       a->exclude_user, a->exclude_kernel, a->exclude_hv);
	if (ev->own_period && a->freq)
		printf(" freq=%llu", (unsigned long long)a->sample_freq);
	else if (ev->own_period)
		printf(" period=%llu", (unsigned long long)a->sample_period);
	printf(" fstr=%s\n", ev->fstr);
}

int cmd_encode(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "pmu", required_argument, NULL, 'p' },
		{ "count", no_argument, NULL, 'c' },
		{ "help", no_argument, NULL, 'h' },
		{},
	};
	const char *pmu = NULL;
	char err[EVENT_ERR_LEN];
	bool count = false, bad = false;
	struct event ev;
	int opt;

	opterr = 0;
	optind = 1;
	while ((opt = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
		switch (opt) {
		case 'p':
			pmu = optarg;
			break;
		case 'c':
			count = true;
			break;
		case 'h':
			fputs(encode_usage, stdout);
			return 0;
		default:
			return usage_bad_option("encode", opt,
						argv[optind - 1]);
		}
	}
	if (optind == argc) {
		p_err("no event name given (see 'bpmc encode --help')");
		return EXIT_USAGE;
	}
	if (events__init(pmu))
		return EXIT_USAGE;
	for (int i = optind; i < argc; i++) {
		if (events__encode(argv[i], &ev, err, sizeof(err))) {
			p_err("%s", err);
			bad = true;
			continue;
		}
		print_encoding(&ev);
		if (count)
			count_one(&ev);
		fflush(stdout);
	}
	return bad ? EXIT_USAGE : 0;
}
