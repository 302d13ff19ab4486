// SPDX-License-Identifier: GPL-2.0
/*
 * worker ROUNDS PERIOD_MS SECONDS [PAGES]: a fixed amount of work at a
 * fixed pace: every PERIOD_MS, ROUNDS rounds of integer mixing and PAGES
 * fresh pages faulted in, for SECONDS. A period that starts late (a
 * loaded host) is caught up at once, so the work done per second stays
 * the same, what a loaded host changes being only when it runs: the
 * cpu-clock and page-faults a second it costs hold still, and more
 * ROUNDS cost more CPU, as a slower build of the same service would.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	volatile unsigned long long x = 0x9e3779b97f4a7c15ull;
	long rounds, pages, page = sysconf(_SC_PAGESIZE);
	double period_ms, seconds;
	struct timespec next, end;

	if (argc != 4 && argc != 5) {
		fprintf(stderr,
			"usage: worker ROUNDS PERIOD_MS SECONDS [PAGES]\n");
		return 2;
	}
	rounds = atol(argv[1]);
	period_ms = atof(argv[2]);
	seconds = atof(argv[3]);
	pages = argc == 5 ? atol(argv[4]) : 0;
	if (rounds < 0 || period_ms <= 0 || seconds <= 0 || pages < 0)
		return 2;
	clock_gettime(CLOCK_MONOTONIC, &next);
	end = next;
	end.tv_sec += (time_t)seconds;
	end.tv_nsec += (long)((seconds - (time_t)seconds) * 1e9);
	if (end.tv_nsec >= 1000000000L) {
		end.tv_sec++;
		end.tv_nsec -= 1000000000L;
	}
	for (;;) {
		for (long i = 0; i < rounds; i++) {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
		}
		if (pages) {
			char *p = mmap(NULL, pages * page,
				       PROT_READ | PROT_WRITE,
				       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

			if (p == MAP_FAILED)
				return 1;
			for (long i = 0; i < pages; i++)
				p[i * page] = 1;
			munmap(p, pages * page);
		}
		next.tv_nsec += (long)(period_ms * 1e6);
		while (next.tv_nsec >= 1000000000L) {
			next.tv_sec++;
			next.tv_nsec -= 1000000000L;
		}
		if (next.tv_sec > end.tv_sec ||
		    (next.tv_sec == end.tv_sec && next.tv_nsec >= end.tv_nsec))
			break;
		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL);
	}
	return 0;
}
