// SPDX-License-Identifier: GPL-2.0
/*
 * bpwrite N: writes a global N times, for a write breakpoint to count.
 * bpwrite --addr prints the global's address instead; under setarch -R
 * (no ASLR) it is the same in the next run, so a breakpoint set by
 * address before that run counts exactly its N writes.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

volatile unsigned long bpwrite_target;

int main(int argc, char **argv)
{
	long n;

	if (argc > 1 && !strcmp(argv[1], "--addr")) {
		printf("%p\n", (void *)&bpwrite_target);
		return 0;
	}
	n = argc > 1 ? atol(argv[1]) : 1000;
	for (long i = 0; i < n; i++)
		bpwrite_target = i;
	return 0;
}
