// SPDX-License-Identifier: GPL-2.0
/*
 * insnloop [-c CGROUP_DIR] N: runs N iterations of a loop of a known
 * number of user-space instructions, then exits; the hardware suite's
 * truth for instruction counts (tests/hw/).
 *
 * -c moves this process into the cgroup v2 directory first (a write of
 * its pid to cgroup.procs), so that what the cgroup runs is the loop
 * and a few dozen instructions around it: no shell, no exec, no dynamic
 * loader in it. The loop's end is _exit(), a system call away.
 *
 * insnloop -i prints the user instructions one iteration retires where
 * that is exact, 0 where it is not known: on arm64 the loop is
 * `subs; b.ne`, 2 instructions an iteration (QEMU's -icount counts them
 * one by one); on x86-64 `dec; jnz`, also 2 as the ISA counts them, but
 * a PMU may count a macro-fused pair otherwise, so it says 0 there and
 * the tests compare with perf instead; elsewhere a C loop the compiler
 * shapes, 0.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#if defined(__aarch64__)
#define PER_ITERATION 2
static void loop(uint64_t n)
{
	__asm__ volatile("1:	subs %0, %0, #1\n\t"
			 "	b.ne 1b"
			 : "+r"(n)
			 :
			 : "cc");
}
#elif defined(__x86_64__)
#define PER_ITERATION 0
static void loop(uint64_t n)
{
	__asm__ volatile("1:	dec %0\n\t"
			 "	jnz 1b"
			 : "+r"(n)
			 :
			 : "cc");
}
#else
#define PER_ITERATION 0
static void loop(uint64_t n)
{
	for (volatile uint64_t i = 0; i < n; i++)
		;
}
#endif

static int usage(void)
{
	fprintf(stderr, "usage: insnloop [-c CGROUP_DIR] N | insnloop -i\n");
	return 2;
}

/* Into the cgroup: this process, by its pid, in cgroup.procs. */
static int enter(const char *dir)
{
	char path[4096], pid[32];
	int fd, n, len;

	n = snprintf(path, sizeof(path), "%s/cgroup.procs", dir);
	if (n < 0 || (size_t)n >= sizeof(path))
		return -ENAMETOOLONG;
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	len = snprintf(pid, sizeof(pid), "%d\n", (int)getpid());
	n = write(fd, pid, len);
	if (n != len) {
		n = n < 0 ? -errno : -EIO;
		close(fd);
		return n;
	}
	close(fd);
	return 0;
}

int main(int argc, char **argv)
{
	const char *cgroup = NULL;
	char *end;
	uint64_t n;
	int opt, err;

	while ((opt = getopt(argc, argv, "c:i")) != -1) {
		switch (opt) {
		case 'c':
			cgroup = optarg;
			break;
		case 'i':
			printf("%d\n", PER_ITERATION);
			return 0;
		default:
			return usage();
		}
	}
	if (optind != argc - 1)
		return usage();
	errno = 0;
	n = strtoull(argv[optind], &end, 10);
	if (errno || *end || !n || argv[optind][0] == '-') {
		fprintf(stderr,
			"insnloop: want N a positive integer, not '%s'\n",
			argv[optind]);
		return 2;
	}
	if (cgroup) {
		err = enter(cgroup);
		if (err) {
			fprintf(stderr,
				"insnloop: cannot enter cgroup %s: %s\n",
				cgroup, strerror(-err));
			return 1;
		}
	}
	loop(n);
	_exit(0);
}
