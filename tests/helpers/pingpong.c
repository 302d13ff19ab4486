// SPDX-License-Identifier: GPL-2.0
/*
 * pingpong ROUNDS [CGROUP_A CGROUP_B]: two processes bounce one byte over
 * a pair of pipes ROUNDS times, each in its own cgroup when given (the
 * worst case for a context-switch hook: every switch changes task and
 * cgroup). Prints the elapsed wall time in ns.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static void join(const char *cgroup)
{
	char path[4096];
	FILE *f;

	if (!cgroup)
		return;
	snprintf(path, sizeof(path), "%s/cgroup.procs", cgroup);
	f = fopen(path, "w");
	if (!f || fprintf(f, "%d\n", getpid()) < 0 || fclose(f)) {
		perror(path);
		exit(1);
	}
}

static void bounce(int in, int out, long rounds, int first)
{
	char c = 0;

	for (long i = 0; i < rounds; i++) {
		if (first && write(out, &c, 1) != 1)
			exit(1);
		if (read(in, &c, 1) != 1)
			exit(1);
		if (!first && write(out, &c, 1) != 1)
			exit(1);
	}
}

int main(int argc, char **argv)
{
	long rounds = argc >= 2 ? atol(argv[1]) : 0;
	int ab[2], ba[2];
	struct timespec t0, t1;
	pid_t child;

	if (rounds <= 0 || (argc != 2 && argc != 4) || pipe(ab) || pipe(ba))
		return 2;
	child = fork();
	if (child == 0) {
		join(argc == 4 ? argv[3] : NULL);
		bounce(ab[0], ba[1], rounds, 0);
		_exit(0);
	}
	join(argc == 4 ? argv[2] : NULL);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	bounce(ba[0], ab[1], rounds, 1);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	waitpid(child, NULL, 0);
	printf("%lld\n", (t1.tv_sec - t0.tv_sec) * 1000000000LL +
				 (t1.tv_nsec - t0.tv_nsec));
	return 0;
}
