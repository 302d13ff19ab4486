// SPDX-License-Identifier: GPL-2.0
/*
 * libpmc's Linux extensions, used as a new program would: names to ids
 * through bpmc's naming layer, the class's name, the times, and a
 * PROFSTART profile of this very process read back and located.
 * Same output convention as netbsd_api.c. Built with -rdynamic, so that
 * dladdr() names our functions: the profile is checked against it.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <pmc.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static int failures;

/* CHECK(cond, name, fmt, ...): cond is evaluated before the message's
 * arguments, which may print what it computed. */
#define CHECK(cond, ...)                 \
	do {                             \
		int ok_ = (cond);        \
		check(ok_, __VA_ARGS__); \
	} while (0)

static void check(int ok, const char *name, const char *fmt, ...)
{
	char why[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	printf("%s %s: %s\n", ok ? "ok" : "FAIL", name, why);
	failures += !ok;
}

static uint64_t cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

/* Global: a volatile the compiler cannot call unused. */
volatile uint64_t sink;

/* Nearly all of this program's CPU time is spent here. */
__attribute__((noinline)) void hot_function(uint64_t ns)
{
	uint64_t end = cpu_ns() + ns;
	volatile uint64_t x = 0;

	while (cpu_ns() < end)
		for (int i = 0; i < 20000; i++)
			x += i * i;
	sink = x;
}

static void test_names(void)
{
	pmc_evid_t a = 0, b = 0;
	char why[1024] = "", name[256] = "";

	CHECK(!pmc_linux_event_id("task-clock", &a, why, sizeof(why)) &&
		      a == PMC_LINUX_EV_TASK_CLOCK,
	      "names_portable", "task-clock is PMC_LINUX_EV_TASK_CLOCK (%#x)",
	      a);
	CHECK(!pmc_linux_event_id("page-faults:u", &a, why, sizeof(why)) &&
		      a >= PMC_LINUX_EV_NAMED_BASE,
	      "names_modifier", "page-faults:u has id %#x", a);
	CHECK(!pmc_linux_event_id("page-faults:u", &b, NULL, 0) && a == b,
	      "names_same_id", "the same name, the same id");
	CHECK(!pmc_linux_event_name(a, name, sizeof(name)) &&
		      !strcmp(name, "page-faults:u"),
	      "names_back", "id %#x is '%s'", a, name);
	CHECK(!pmc_linux_event_id("perf::PERF_COUNT_SW_CPU_MIGRATIONS", &a, why,
				  sizeof(why)),
	      "names_libpfm", "libpfm's qualified name: %#x", a);
	CHECK(!pmc_linux_event_id("software/config=0x2/u", &a, why,
				  sizeof(why)),
	      "names_sysfs", "sysfs syntax: %#x %s", a, why);
	CHECK(pmc_linux_event_id("no-such-event", &a, why, sizeof(why)) == -1 &&
		      errno == ENOENT && strstr(why, "no-such-event"),
	      "names_unknown", "ENOENT, '%s'", why);
	CHECK(pmc_linux_event_id("a,b", &a, why, sizeof(why)) == -1 &&
		      errno == EINVAL,
	      "names_list", "a list is EINVAL: '%s'", why);
	CHECK(pmc_linux_event_name(0x7ffffff0, name, sizeof(name)) == -1 &&
		      errno == EINVAL,
	      "names_bad_id", "an unknown id is EINVAL");
}

static void test_class(void)
{
	char name[64] = "";
	int cls = 0;

	pmc_get_info(-1, PMC_INFO_CPUCTR_TYPE, &cls);
	CHECK(!pmc_linux_class_name(cls, name, sizeof(name)) && name[0],
	      "class_name", "class %#x is '%s'", cls, name);
}

static void test_times_and_inherited(void)
{
	struct pmc_counter_cfg cfg = { PMC_LINUX_EV_TASK_CLOCK, 0,
				       PMC_LINUX_FLAG_MULTIPLEX };
	struct pmc_linux_times t = { 0 };
	uint64_t own = 0, inh = 0;

	pmc_control(0, PMC_OP_CONFIGURE, &cfg);
	pmc_control(0, PMC_OP_START, NULL);
	hot_function(50000000);
	pmc_control(0, PMC_OP_STOP, NULL);
	pmc_get_info(0, PMC_INFO_COUNTER_VALUE, &own);
	CHECK(!pmc_get_info(0, PMC_LINUX_INFO_TIMES, &t) && t.enabled_ns &&
		      t.running_ns == t.enabled_ns,
	      "times",
	      "enabled %llu running %llu ns: a software counter always runs",
	      (unsigned long long)t.enabled_ns,
	      (unsigned long long)t.running_ns);
	CHECK(!pmc_get_info(0, PMC_LINUX_INFO_INHERITED_VALUE, &inh) &&
		      inh >= own * 99 / 100 && inh <= own * 101 / 100,
	      "inherited_alone", "without children, inherited %llu = own %llu",
	      (unsigned long long)inh, (unsigned long long)own);
}

/*
 * PMC_LINUX_FLAG_NO_ACCUMULATE, pinned and multiplexed: a child's counts
 * are in the inherited value (the whole fd alone carries them), and the
 * accumulated requests, which need the per-CPU twins, are ENXIO.
 */
static void test_no_accumulate(void)
{
	static const uint32_t flags[] = { 0, PMC_LINUX_FLAG_MULTIPLEX };

	for (int i = 0; i < 2; i++) {
		struct pmc_counter_cfg cfg = {
			PMC_LINUX_EV_TASK_CLOCK, 0,
			flags[i] | PMC_LINUX_FLAG_NO_ACCUMULATE
		};
		uint64_t own = 0, inh = 0, acc;
		int status = -1;
		pid_t pid;

		CHECK(!pmc_control(2, PMC_OP_CONFIGURE, &cfg) &&
			      !pmc_control(2, PMC_OP_START, NULL),
		      "no_accumulate_start", "flags %#x: configured, started",
		      cfg.flags);
		pid = fork();
		if (pid == 0) {
			hot_function(30000000);
			_exit(0);
		}
		waitpid(pid, &status, 0);
		pmc_control(2, PMC_OP_STOP, NULL);
		pmc_get_info(2, PMC_INFO_COUNTER_VALUE, &own);
		CHECK(!pmc_get_info(2, PMC_LINUX_INFO_INHERITED_VALUE, &inh) &&
			      inh > own + 5000000,
		      "no_accumulate_inherited",
		      "flags %#x: inherited %llu ns, own %llu: the child's are in it",
		      cfg.flags, (unsigned long long)inh,
		      (unsigned long long)own);
		CHECK(pmc_get_info(2, PMC_INFO_ACCUMULATED_COUNTER_VALUE,
				   &acc) == -1 &&
			      errno == ENXIO,
		      "no_accumulate_enxio", "flags %#x: accumulated: %s",
		      cfg.flags, strerror(errno));
	}
}

static void test_profile(void)
{
	struct pmc_counter_cfg cfg = { PMC_LINUX_EV_TASK_CLOCK, 100000, 0 };
	struct pmc_linux_profile_stats st = { 0 };
	struct pmc_linux_profile_entry top[64];
	uint64_t hot = 0, off = 0;
	char path[4096] = "", exe[4096] = "";
	size_t n = 0;
	Dl_info info;
	ssize_t len;

	if (pmc_control(1, PMC_OP_PROFSTART, &cfg)) {
		CHECK(0, "profile_start", "PROFSTART: %s", strerror(errno));
		return;
	}
	hot_function(300000000);
	pmc_control(1, PMC_OP_PROFSTOP, NULL);
	pmc_get_info(1, PMC_LINUX_INFO_PROFILE_STATS, &st);
	CHECK(!pmc_linux_profile_read(1, top, 64, &n) && n > 0, "profile_read",
	      "%llu samples in %zu buckets, %llu lost",
	      (unsigned long long)st.samples, n, (unsigned long long)st.lost);
	/* 300 ms every 100 us: about 3000 ticks. */
	CHECK(st.samples > 2000 && st.samples < 3300, "profile_rate",
	      "%llu samples over 300 ms at one per 100 us",
	      (unsigned long long)st.samples);
	for (size_t i = 0; i < (n < 64 ? n : 64); i++)
		if (dladdr((void *)top[i].pc, &info) && info.dli_sname &&
		    !strcmp(info.dli_sname, "hot_function"))
			hot += top[i].count;
	CHECK(hot * 10 > st.samples * 9, "profile_hot_function",
	      "%llu of %llu samples in hot_function", (unsigned long long)hot,
	      (unsigned long long)st.samples);
	len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	exe[len > 0 ? len : 0] = '\0';
	CHECK(n &&
		      !pmc_linux_profile_locate(1, &top[0], path, sizeof(path),
						&off) &&
		      !strcmp(path, exe),
	      "profile_locate", "the top PC is in %s at offset %#llx", path,
	      (unsigned long long)off);
	CHECK(pmc_linux_profile_read(7, top, 64, &n) == -1 && errno == ENXIO,
	      "profile_read_not_profiling",
	      "ENXIO on a counter that never profiled");
}

int main(void)
{
	test_names();
	test_class();
	test_times_and_inherited();
	test_no_accumulate();
	test_profile();
	return failures;
}
