// SPDX-License-Identifier: GPL-2.0
/*
 * spawner N PROG [ARG...]: names itself acc_spawner, then forks N
 * children one after another; each burns about 2 ms as the parent's
 * copy (so that it is seen under the parent's name first) and then execs
 * PROG. Prints each child's pid. A fork+exec workload.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* File-scope: a local one is "set but not used" to clang. */
static volatile unsigned long sink;

static void burn_ms(double ms)
{
	struct timespec t0, t;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		for (int i = 0; i < 1000; i++)
			sink += i;
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while ((t.tv_sec - t0.tv_sec) * 1e3 + (t.tv_nsec - t0.tv_nsec) / 1e6 <
		 ms);
}

int main(int argc, char **argv)
{
	int n = argc >= 3 ? atoi(argv[1]) : 0;
	pid_t pid;

	if (n <= 0) {
		fprintf(stderr, "usage: spawner N PROG [ARG...]\n");
		return 2;
	}
	prctl(PR_SET_NAME, "acc_spawner");
	for (int i = 0; i < n; i++) {
		pid = fork();
		if (pid < 0)
			return 1;
		if (!pid) {
			burn_ms(2);
			execv(argv[2], argv + 2);
			_exit(127);
		}
		printf("%d\n", pid);
		fflush(stdout);
		waitpid(pid, NULL, 0);
	}
	return 0;
}
