// SPDX-License-Identifier: GPL-2.0
/*
 * burner DUTY_PCT SECONDS: burns DUTY_PCT percent of one CPU for SECONDS,
 * in 10 ms periods, then exits. A test workload with a known CPU cost.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	const double period = 0.010;
	double duty, seconds, start, t, busy_until;
	volatile unsigned long sink = 0;
	struct timespec rest;

	if (argc != 3) {
		fprintf(stderr, "usage: burner DUTY_PCT SECONDS\n");
		return 2;
	}
	duty = atof(argv[1]) / 100.0;
	seconds = atof(argv[2]);
	start = now();
	for (t = start; t - start < seconds; t += period) {
		busy_until = t + period * duty;
		while (now() < busy_until)
			sink++;
		if (duty < 1.0) {
			double left = t + period - now();

			if (left > 0) {
				rest.tv_sec = 0;
				rest.tv_nsec = left * 1e9;
				nanosleep(&rest, NULL);
			}
		}
	}
	return 0;
}
