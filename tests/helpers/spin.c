// SPDX-License-Identifier: GPL-2.0
/* spin N: N rounds of integer mixing on one CPU; prints the elapsed ns. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

int main(int argc, char **argv)
{
	long n = argc == 2 ? atol(argv[1]) : 0;
	volatile unsigned long long x = 0x9e3779b97f4a7c15ull;
	struct timespec a, b;

	if (n <= 0)
		return 2;
	clock_gettime(CLOCK_MONOTONIC, &a);
	for (long i = 0; i < n; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
	}
	clock_gettime(CLOCK_MONOTONIC, &b);
	printf("%lld\n",
	       (b.tv_sec - a.tv_sec) * 1000000000LL + (b.tv_nsec - a.tv_nsec));
	return 0;
}
