// SPDX-License-Identifier: GPL-2.0
/*
 * ring [-x HOME] HOPS [CGROUP...]: M = max(N, 2) processes, N the cgroups
 * given, pass a one-byte token around a ring of pipes, process i to
 * process i + 1 mod M, HOPS times in all. Process i joins cgroup i mod N
 * before the ring starts (none given: all stay where they are). Pinned to
 * one CPU by the caller (taskset), every hop is a context switch, one that
 * changes cgroup when N > 1: bench/scaling_cost.sh's switch-heavy work,
 * the same total at every N.
 *
 * Prints the wall time from the token's first write to the last hop's
 * process done, in ns, then a line per cgroup: its index, the hops its
 * processes made (token writes) and the context switches they made while
 * in it, exactly, as a context-switches counter of the cgroup counts them:
 * each process' switches (getrusage: voluntary and not) from when it
 * joined to when it is done, and the one it then makes, blocking. With
 * -x, the processes are then moved to cgroup HOME and killed there, so
 * that their exit (its CPU, its last switch) is not the cgroups' either;
 * without, they exit where they are and wait4's rusage counts their exit
 * (which a parent woken by SIGCHLD may read before the exit's switch).
 */
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* Shared by the parent and its children. */
struct slot {
	long joined; /* switches when it joined its cgroup */
	long done; /* switches when its part of the ring was done */
};

static struct {
	int finished;
	struct slot slot[];
} * shared;

static int join(const char *cgroup, pid_t pid)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/cgroup.procs", cgroup);
	f = fopen(path, "w");
	if (!f || fprintf(f, "%d\n", pid) < 0 || fclose(f)) {
		perror(path);
		return -1;
	}
	return 0;
}

static long switches(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_nvcsw + ru.ru_nivcsw;
}

/* The process' part of the ring: read the token, pass it on, writes
 * times; the last hop of all may find its reader gone (EPIPE). */
static void pass(int in, int out, long writes, int last)
{
	char c;

	for (long w = 0; w < writes; w++) {
		if (read(in, &c, 1) != 1)
			_exit(1);
		if (write(out, &c, 1) != 1 &&
		    !(last && w == writes - 1 && errno == EPIPE))
			_exit(1);
	}
}

/* Once every process is done, the last one wakes the parent (before it
 * counts its own switches, which the parent's wake-up may add to). */
static void done(int i, int m, int wake)
{
	char c = 0;

	if (__atomic_add_fetch(&shared->finished, 1, __ATOMIC_SEQ_CST) == m &&
	    write(wake, &c, 1) != 1)
		_exit(1);
	shared->slot[i].done = switches();
}

/* Until the process is asleep (blocked for good). */
static void until_asleep(pid_t pid)
{
	char path[64], buf[512], *p;
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	for (;;) {
		f = fopen(path, "r");
		n = f ? fread(buf, 1, sizeof(buf) - 1, f) : 0;
		if (f)
			fclose(f);
		buf[n] = 0;
		p = strrchr(buf, ')');
		if (!p || p[1] != ' ' || p[2] != 'R')
			return;
		sched_yield();
	}
}

int main(int argc, char **argv)
{
	const char *home = NULL;
	long hops, *cg_sw, *cg_hops;
	int ncg, m, first[2], ready[2], wake[2], hold[2], rd, start;
	struct timespec t0, t1;
	pid_t *pids;
	char c = 0;

	if (argc >= 3 && !strcmp(argv[1], "-x")) {
		home = argv[2];
		argv += 2;
		argc -= 2;
	}
	hops = argc >= 2 ? atol(argv[1]) : 0;
	if (hops <= 0) {
		fprintf(stderr, "usage: ring [-x HOME] HOPS [CGROUP...]\n");
		return 2;
	}
	ncg = argc - 2;
	m = ncg > 2 ? ncg : 2;
	signal(SIGPIPE, SIG_IGN);
	shared = mmap(NULL, sizeof(*shared) + m * sizeof(struct slot),
		      PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1,
		      0);
	pids = calloc(m, sizeof(*pids));
	cg_sw = calloc(ncg ? ncg : 1, sizeof(*cg_sw));
	cg_hops = calloc(ncg ? ncg : 1, sizeof(*cg_hops));
	if (shared == MAP_FAILED || !pids || !cg_sw || !cg_hops ||
	    pipe(first) || pipe(ready) || pipe(wake) || pipe(hold) ||
	    (start = dup(first[1])) < 0) {
		perror("ring");
		return 1;
	}
	/* Pipe i is read by process i; made one ahead, so that a child
	 * inherits only its two ends and a few others it closes. */
	rd = first[0];
	for (int i = 0; i < m; i++) {
		long writes = hops / m + (i < hops % m);
		int next[2] = { -1, -1 }, wr;

		if (i < m - 1) {
			if (pipe(next)) {
				perror("pipe");
				return 1;
			}
			wr = next[1];
		} else {
			wr = first[1];
		}
		pids[i] = fork();
		if (pids[i] < 0) {
			perror("fork");
			return 1;
		}
		if (pids[i] == 0) {
			for (int fd = 3; fd < 64; fd++)
				if (fd != rd && fd != wr && fd != ready[1] &&
				    fd != wake[1] && fd != hold[0])
					close(fd);
			if (ncg && join(argv[2 + i % ncg], getpid())) {
				c = 'x';
				if (write(ready[1], &c, 1) != 1)
					_exit(1);
				_exit(1);
			}
			shared->slot[i].joined = switches();
			if (write(ready[1], &c, 1) != 1)
				_exit(1);
			close(ready[1]);
			pass(rd, wr, writes, !home && (hops - 1) % m == i);
			done(i, m, wake[1]);
			/* Blocks: the parent kills it (EOF without -x). */
			if (read(hold[0], &c, 1) < 0)
				_exit(1);
			_exit(0);
		}
		/* One at a time: a join that wakes a fork waiting on the
		 * cgroup lock can cost a switch in the cgroup before the
		 * count starts. */
		if (read(ready[0], &c, 1) != 1 || c) {
			fprintf(stderr, "ring: a process failed to start\n");
			return 1;
		}
		close(rd);
		if (i < m - 1) {
			close(next[1]);
			rd = next[0];
		} else {
			close(first[1]);
		}
	}
	close(ready[1]);
	close(wake[1]);
	close(hold[0]);
	/* The parent's write is the start, not a hop. */
	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (write(start, &c, 1) != 1 || read(wake[0], &c, 1) != 1) {
		fprintf(stderr, "ring: the ring broke\n");
		return 1;
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	close(start);
	for (int i = 0; i < m; i++) {
		until_asleep(pids[i]);
		if (home) {
			if (join(home, pids[i]))
				return 1;
			kill(pids[i], SIGKILL);
		}
	}
	close(hold[1]); /* without -x: EOF, they exit */
	for (int i = 0; i < m; i++) {
		struct rusage ru;
		int status;

		if (wait4(pids[i], &status, 0, &ru) < 0 ||
		    (!home && (!WIFEXITED(status) || WEXITSTATUS(status)))) {
			fprintf(stderr, "ring: process %d failed\n", i);
			return 1;
		}
		if (!ncg)
			continue;
		/* With -x, the blocking read's switch; without, all. */
		cg_sw[i % ncg] += (home ? shared->slot[i].done + 1 :
					  ru.ru_nvcsw + ru.ru_nivcsw) -
				  shared->slot[i].joined;
		cg_hops[i % ncg] += hops / m + (i < hops % m);
	}
	printf("%lld\n", (t1.tv_sec - t0.tv_sec) * 1000000000LL +
				 (t1.tv_nsec - t0.tv_nsec));
	for (int g = 0; g < ncg; g++)
		printf("%d %ld %ld\n", g, cg_hops[g], cg_sw[g]);
	return 0;
}
