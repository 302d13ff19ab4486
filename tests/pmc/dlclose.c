// SPDX-License-Identifier: GPL-2.0
/*
 * libpmc's drain thread comes and goes with the counters: none before
 * the first counter, one while a counter exists, none once the last one
 * goes (PROFSTOP, or the exit of the thread that had it), and none left
 * by dlclose(3) of a library whose counter was started and stopped, the
 * process still well afterwards. argv[1] is libpmc.so's path. Counts
 * this process's threads in /proc/self/task. Same output convention as
 * netbsd_api.c: "ok NAME" or "FAIL NAME: why", exit status the failures.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <dlfcn.h>
#include <pmc.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

typedef int (*pmc_fn)(int, int, void *);

static int failures;
static pmc_fn control, get_info;

static void check(int ok, const char *name, int got, int want)
{
	printf("%s %s: %d threads, expected %d\n", ok ? "ok" : "FAIL", name,
	       got, want);
	failures += !ok;
}

static int nr_threads(void)
{
	DIR *d = opendir("/proc/self/task");
	struct dirent *e;
	int n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d)))
		n += e->d_name[0] != '.';
	closedir(d);
	return n;
}

static volatile unsigned long sink;

static int count_a_while(int ctr)
{
	struct pmc_counter_cfg cfg = { PMC_LINUX_EV_TASK_CLOCK, 0, 0 };
	uint64_t v = 0;

	if (control(ctr, PMC_OP_CONFIGURE, &cfg) ||
	    control(ctr, PMC_OP_START, NULL))
		return -1;
	for (unsigned long i = 0; i < 10000000; i++)
		sink += i;
	if (control(ctr, PMC_OP_STOP, NULL) ||
	    get_info(ctr, PMC_INFO_COUNTER_VALUE, &v))
		return -1;
	return v > 0 ? 0 : -1;
}

static void *worker(void *arg)
{
	*(int *)arg = count_a_while(0);
	return NULL;
}

int main(int argc, char **argv)
{
	struct pmc_counter_cfg prof = { PMC_LINUX_EV_TASK_CLOCK, 1000000, 0 };
	int base = nr_threads(), n, ret;
	pthread_t t;
	void *lib;

	if (argc < 2) {
		fprintf(stderr, "usage: dlclose LIBPMC.so\n");
		return 1;
	}
	lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
	if (!lib) {
		printf("FAIL dlopen: %s\n", dlerror());
		return 1;
	}
	control = (pmc_fn)dlsym(lib, "pmc_control");
	get_info = (pmc_fn)dlsym(lib, "pmc_get_info");
	if (!control || !get_info) {
		printf("FAIL dlsym: %s\n", dlerror());
		return 1;
	}
	n = nr_threads();
	check(n == base, "no thread before a counter", n, base);

	/* Profiling, then PROFSTOP: the slot is free, the thread ends. */
	ret = control(1, PMC_OP_PROFSTART, &prof);
	n = nr_threads();
	check(!ret && n == base + 1, "one thread while profiling", n, base + 1);
	ret = control(1, PMC_OP_PROFSTOP, NULL);
	n = nr_threads();
	check(!ret && n == base, "none after the last PROFSTOP", n, base);

	/* A thread's counter goes with the thread. */
	if (pthread_create(&t, NULL, worker, &ret) || pthread_join(t, NULL))
		ret = -1;
	n = nr_threads();
	check(!ret && n == base, "none after the counting thread exits", n,
	      base);

	/* Started and stopped, still configured: dlclose ends the thread. */
	ret = count_a_while(0);
	n = nr_threads();
	check(!ret && n == base + 1, "one thread with a configured counter", n,
	      base + 1);
	if (dlclose(lib)) {
		printf("FAIL dlclose: %s\n", dlerror());
		return 1;
	}
	n = nr_threads();
	check(n == base, "none after dlclose", n, base);
	/* Unmapped code would crash us by now: give it time to try. */
	usleep(300000);
	n = nr_threads();
	check(n == base, "still none, still alive, 300 ms on", n, base);
	return failures;
}
