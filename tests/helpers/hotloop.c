// SPDX-License-Identifier: GPL-2.0
/*
 * hotloop [MS]: spins for MS ms of wall-clock time (default 300) on one
 * CPU, nearly all of it inside hot_function_spin and a little inside
 * cold_function_tick, so that a profile of it has a known answer. Both
 * are global and noinline: each keeps its own .symtab entry, under its
 * own name (no clone such as .constprop.0), whatever the compiler.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

/* Where the results go, so that neither loop can be optimized away. */
volatile unsigned long hotloop_sink;

/* Global for their .symtab entries, so declared (-Wmissing-prototypes). */
unsigned long hot_function_spin(unsigned long x, unsigned long rounds);
unsigned long cold_function_tick(unsigned long x, unsigned long rounds);

/* About half a millisecond a call of 1 << 18 rounds. */
__attribute__((noinline)) unsigned long hot_function_spin(unsigned long x,
							  unsigned long rounds)
{
	for (unsigned long i = 0; i < rounds; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
	}
	return x;
}

/*
 * A sliver of the time, about 0.5%: 1/16th of hot's rounds after every
 * 8th call of it.
 */
__attribute__((noinline)) unsigned long cold_function_tick(unsigned long x,
							   unsigned long rounds)
{
	for (unsigned long i = 0; i < rounds; i++)
		x = x * 6364136223846793005ul + 1442695040888963407ul;
	return x;
}

static long long now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1000000000LL + t.tv_nsec;
}

int main(int argc, char **argv)
{
	long ms = argc > 1 ? atol(argv[1]) : 300;
	/* Read at run time: no constant for the compiler to fold in. */
	volatile unsigned long rounds = 1ul << 18;
	unsigned long x = 0x9e3779b97f4a7c15ul;
	long long end;

	if (argc > 2 || ms <= 0) {
		fprintf(stderr, "usage: %s [MS]\n", argv[0]);
		return 2;
	}
	end = now_ns() + ms * 1000000LL;
	for (unsigned long n = 0; now_ns() < end; n++) {
		x = hot_function_spin(x, rounds);
		if (!(n % 8))
			x = cold_function_tick(x, rounds / 16);
	}
	hotloop_sink = x;
	return 0;
}
