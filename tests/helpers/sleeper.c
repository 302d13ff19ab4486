// SPDX-License-Identifier: GPL-2.0
/*
 * sleeper HZ SECONDS: wakes HZ times a second for SECONDS, doing a little
 * work each time, so it switches out voluntarily about HZ times a second.
 * At the end it prints its own switch count from /proc/self/status (the
 * kernel's figure; only the switch of its exit is not in it yet).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static long switches(void)
{
	char line[256];
	long n, total = 0;
	FILE *f = fopen("/proc/self/status", "r");

	while (f && fgets(line, sizeof(line), f)) {
		if (strstr(line, "ctxt_switches:") &&
		    sscanf(strchr(line, ':') + 1, "%ld", &n) == 1)
			total += n;
	}
	if (f)
		fclose(f);
	return total;
}

int main(int argc, char **argv)
{
	long hz = argc == 3 ? atol(argv[1]) : 0;
	double seconds = argc == 3 ? atof(argv[2]) : 0;
	struct timespec next;
	volatile unsigned long sink = 0;

	if (hz <= 0 || seconds <= 0)
		return 2;
	clock_gettime(CLOCK_MONOTONIC, &next);
	for (long i = 0; i < (long)(hz * seconds); i++) {
		for (int j = 0; j < 20000; j++)
			sink++;
		next.tv_nsec += 1000000000L / hz;
		if (next.tv_nsec >= 1000000000L) {
			next.tv_nsec -= 1000000000L;
			next.tv_sec++;
		}
		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL);
	}
	printf("%ld\n", switches());
	return 0;
}
