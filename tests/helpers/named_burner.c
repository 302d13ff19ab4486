// SPDX-License-Identifier: GPL-2.0
/*
 * named_burner HEXNAME SECONDS: names itself with the raw bytes HEXNAME
 * (prctl PR_SET_NAME, as any unprivileged process may: "fffe0a41" is
 * the bytes ff fe \n A) and burns a CPU for SECONDS. A hostile name.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>

/* File-scope: a local one is "set but not used" to clang. */
static volatile unsigned long sink;

int main(int argc, char **argv)
{
	char name[16] = "";
	struct timespec ts;
	double end;
	size_t n;

	if (argc != 3 || strlen(argv[1]) % 2 || strlen(argv[1]) > 30) {
		fprintf(stderr, "usage: named_burner HEXNAME SECONDS\n");
		return 2;
	}
	for (n = 0; argv[1][2 * n]; n++) {
		unsigned v;

		if (sscanf(argv[1] + 2 * n, "%2x", &v) != 1 || !v)
			return 2;
		name[n] = (char)v;
	}
	if (prctl(PR_SET_NAME, name))
		return 1;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	end = ts.tv_sec + ts.tv_nsec / 1e9 + atof(argv[2]);
	do {
		for (int i = 0; i < 100000; i++)
			sink += i;
		clock_gettime(CLOCK_MONOTONIC, &ts);
	} while (ts.tv_sec + ts.tv_nsec / 1e9 < end);
	return 0;
}
