// SPDX-License-Identifier: GPL-2.0
/*
 * soak_churn PARENT CGROUPS PROCS SECONDS [IDS_FILE]: for SECONDS, makes
 * CGROUPS cgroups under the cgroup directory PARENT in rotation (a window
 * of a few live ones; each is removed once its processes are gone) and
 * forks PROCS short-lived processes into the newest, evenly spread; one
 * in four runs three threads. Each process (each thread) burns about a
 * millisecond of CPU and exits. IDS_FILE gets every cgroup's id and
 * path, one a line. At the end it prints what it made; on SIGTERM or
 * SIGINT it ends its own children by PID, removes its cgroups and exits 1.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define WINDOW 8 /* live cgroups at once, at most */
#define MAX_LIVE 4096 /* live children at once, at most */
#define THREADS 3

struct cg {
	char path[4096];
	int live; /* children not reaped yet */
	double made_at;
	int made, removed;
};

static volatile sig_atomic_t stop;
static struct cg *cgs;
static pid_t live_pid[MAX_LIVE];
static int live_cg[MAX_LIVE], nr_live;

static void on_signal(int sig)
{
	stop = 1;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void burn_ms(double ms)
{
	struct timespec ts;
	double start;
	volatile unsigned long sink = 0;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	start = ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
	do {
		for (int i = 0; i < 10000; i++)
			sink++;
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	} while (ts.tv_sec * 1e3 + ts.tv_nsec / 1e6 - start < ms);
}

static void *thread_main(void *arg)
{
	burn_ms(1);
	return NULL;
}

/* The child: into the cgroup (before it burns anything), burn, exit. */
static void child(const char *cg, int threaded)
{
	pthread_t t[THREADS];
	char procs[4200];
	int fd, n = 0;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	snprintf(procs, sizeof(procs), "%s/cgroup.procs", cg);
	fd = open(procs, O_WRONLY | O_CLOEXEC);
	if (fd < 0 || write(fd, "0", 1) != 1)
		_exit(3);
	close(fd);
	if (threaded)
		for (; n < THREADS; n++)
			if (pthread_create(&t[n], NULL, thread_main, NULL))
				break;
	burn_ms(1);
	while (n > 0)
		pthread_join(t[--n], NULL);
	_exit(0);
}

static void reap(int block)
{
	pid_t pid;
	int status;

	while ((pid = waitpid(-1, &status, block ? 0 : WNOHANG)) > 0) {
		for (int i = 0; i < nr_live; i++) {
			if (live_pid[i] != pid)
				continue;
			cgs[live_cg[i]].live--;
			live_pid[i] = live_pid[--nr_live];
			live_cg[i] = live_cg[nr_live];
			break;
		}
	}
}

/* Removes made cgroups that are old enough (or all) and empty; never
 * the newest, the one processes go to, unless all. */
static int retire(int nr_made, int all, double now, double life, int newest)
{
	int removed = 0;

	for (int i = 0; i < nr_made; i++) {
		struct cg *c = &cgs[i];

		if (c->removed || c->live ||
		    (!all && (i == newest || now - c->made_at < life)))
			continue;
		if (!rmdir(c->path) || errno == ENOENT) {
			c->removed = 1;
			removed++;
		}
	}
	return removed;
}

int main(int argc, char **argv)
{
	long nr_cgroups = argc >= 5 ? atol(argv[2]) : 0;
	long nr_procs = argc >= 5 ? atol(argv[3]) : 0;
	double seconds = argc >= 5 ? atof(argv[4]) : 0;
	FILE *ids = NULL;
	struct sigaction sa = { .sa_handler = on_signal };
	long made = 0, procs = 0, threaded = 0, failed = 0, removed = 0;
	double start, life, next_cg, next_proc, t;
	struct stat st;
	int newest = -1;

	if (argc < 5 || nr_cgroups <= 0 || nr_procs <= 0 || seconds <= 0) {
		fprintf(stderr,
			"usage: soak_churn PARENT CGROUPS PROCS SECONDS [IDS_FILE]\n");
		return 2;
	}
	if (argc > 5 && !(ids = fopen(argv[5], "we"))) {
		fprintf(stderr, "soak_churn: cannot open '%s': %s\n", argv[5],
			strerror(errno));
		return 2;
	}
	cgs = calloc(nr_cgroups, sizeof(*cgs));
	if (!cgs)
		return 2;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	/* Each cgroup lives for about WINDOW makings. */
	life = seconds * WINDOW / nr_cgroups;
	start = now_s();
	next_cg = next_proc = start;
	while (!stop && (t = now_s()) < start + seconds) {
		if (made < nr_cgroups && t >= next_cg) {
			struct cg *c = &cgs[made];

			snprintf(c->path, sizeof(c->path), "%s/soak-%ld",
				 argv[1], made);
			if (mkdir(c->path, 0755) || stat(c->path, &st)) {
				fprintf(stderr,
					"soak_churn: cannot make cgroup '%s': %s\n",
					c->path, strerror(errno));
				break;
			}
			c->made_at = t;
			c->made = 1;
			if (ids)
				fprintf(ids, "%lu %s\n",
					(unsigned long)st.st_ino, c->path);
			newest = made++;
			next_cg = start + made * seconds / nr_cgroups;
		}
		if (procs < nr_procs && t >= next_proc && newest >= 0 &&
		    nr_live < MAX_LIVE) {
			int thr = procs % 4 == 3;
			pid_t pid = fork();

			if (pid == 0)
				child(cgs[newest].path, thr);
			if (pid < 0) {
				failed++;
			} else {
				live_pid[nr_live] = pid;
				live_cg[nr_live++] = newest;
				cgs[newest].live++;
				threaded += thr;
			}
			procs++;
			next_proc = start + procs * seconds / nr_procs;
		}
		reap(0);
		removed += retire(made, 0, t, life, newest);
		t = next_cg < next_proc ? next_cg : next_proc;
		if (made == nr_cgroups && procs == nr_procs)
			t = start + seconds;
		t -= now_s();
		if (t > 0.0005) {
			struct timespec ts = { .tv_sec = (time_t)t,
					       .tv_nsec =
						       (t - (time_t)t) * 1e9 };
			if (ts.tv_nsec > 50000000)
				ts.tv_nsec = 50000000, ts.tv_sec = 0;
			nanosleep(&ts, NULL);
		}
	}
	if (stop)
		for (int i = 0; i < nr_live; i++)
			kill(live_pid[i], SIGKILL);
	reap(1);
	removed += retire(made, 1, now_s(), 0, newest);
	if (ids)
		fclose(ids);
	printf("soak_churn: %ld cgroups made, %ld removed; %ld processes (%ld with %d threads), %ld forks failed\n",
	       made, removed, procs - failed, threaded, THREADS, failed);
	return stop || failed || removed != made ? 1 : 0;
}
